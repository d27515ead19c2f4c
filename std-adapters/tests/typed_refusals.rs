//! Questions that are not well formed make every server of their binary refuse to build,
//! whether or not a tool lists them with `asks`. They live in this test binary alone, since
//! each one refuses every server built beside it.

use schemars::JsonSchema;
use serde::Deserialize;
use snodo_std::CheckError;
use snodo_std::typed::{
    Cx, Flow, Form, NoArgs, Sampling, Stop, ToolEntry, UrlConsent, questions, server, tool,
};

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code, reason = "only its schema is used")]
struct Color {
    color: String,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code, reason = "only its schema is used")]
struct NotFlat {
    inner: Color,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code, reason = "only its schema is used")]
struct Mixed {
    fine: String,
    deep: Vec<String>,
    also_fine: bool,
}

// Source order matters: with no question listed, the first refused one is named.
questions! {
    static NOT_FLAT: Form<NotFlat> = Form::new("nested", "A nested form");
    static MIXED: Form<Mixed> = Form::new("mixed", "Mostly flat");
    static LOCAL_FILE: UrlConsent = UrlConsent::new("page", "Open it", "file:///etc/passwd");
    static NO_MESSAGES: Sampling = Sampling::new("idea", r#"{"maxTokens":8}"#);
}

async fn never_runs(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok("unreachable")
}

/// Asks a question it does not list with `asks`.
async fn asks_unlisted(_: NoArgs, cx: Cx<'_>) -> Result<&'static str, Stop> {
    let flow = Flow::<()>::open(cx)?;
    flow.ask(&NOT_FLAT)?;
    Ok("unreachable")
}

#[test]
fn a_listed_form_outside_the_flat_subset_is_refused_naming_the_tool_key_and_field() {
    let refused = refusal(tool("nested").asks(&NOT_FLAT).run(never_runs));
    assert_eq!(refused.name, "nested");
    assert!(refused.problem.contains("form"), "{refused}");
    assert!(
        refused.problem.contains("question `nested`, field `inner`"),
        "{refused}"
    );
    let refused = refusal(tool("mixed").asks(&MIXED).run(never_runs));
    assert_eq!(refused.name, "mixed");
    assert!(
        refused.problem.contains("question `mixed`, field `deep`"),
        "{refused}"
    );
}

#[test]
fn an_unlisted_question_is_refused_at_build_naming_its_static_line_key_and_field() {
    let refused = refusal(tool("asks_unlisted").run(asks_unlisted));
    let block = line_of("questions! {");
    assert_eq!(
        refused.name,
        format!("NOT_FLAT (questions! at {}:{block})", file!()),
        "{refused}"
    );
    assert!(
        refused.problem.contains("question `nested`, field `inner`"),
        "{refused}"
    );
}

#[test]
fn a_server_that_asks_nothing_is_refused_too_so_no_bad_question_reaches_a_client() {
    let refused = refusal(tool("quiet").run(never_runs));
    assert!(
        refused.name.starts_with("NOT_FLAT (questions! at"),
        "{refused}"
    );
}

#[test]
fn url_consent_and_sampling_are_checked_when_listed() {
    let refused = refusal(tool("page").asks(&LOCAL_FILE).run(never_runs));
    assert_eq!(refused.name, "page");
    assert!(refused.problem.contains("question `page`"), "{refused}");
    let refused = refusal(tool("idea").asks(&NO_MESSAGES).run(never_runs));
    assert_eq!(refused.name, "idea");
    assert!(refused.problem.contains("question `idea`"), "{refused}");
}

/// Why a server of this one tool refuses to build.
fn refusal(tool: ToolEntry) -> CheckError {
    server("s", "1.0").tool(tool).build().unwrap_err()
}

/// The line of this file that starts with `prefix` (after indentation), counted from 1.
fn line_of(prefix: &str) -> usize {
    let source = include_str!("typed_refusals.rs");
    source
        .lines()
        .position(|line| line.trim_start().starts_with(prefix))
        .map(|index| index + 1)
        .expect("the declaration is in this file")
}
