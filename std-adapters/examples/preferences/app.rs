//! The application the `preferences` example serves, on the typed layer: each tool, resource,
//! template and prompt is defined once, with its handler, in [`server`]. The multi round-trip
//! preference flows are in `flows.rs`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snodo_std::typed::Server;
use snodo_std::typed::{
    CompletionQuery, CompletionTarget, Cx, NoArgs, PromptMessages, ServerBuilder, Stop, Structured,
    ToolError, TypedApp, prompt, resource, server as typed_server, template, tool,
};

use super::{flows, report};

const INSTRUCTIONS: &str = "A demonstration server: echo and add numbers, count slowly with \
progress, read the about page or a greeting, render a greeting prompt, and preview display \
preferences chosen interactively (preference_preview, preview://preferences, \
preference_prompt, reset_preview, url_preview), or from the client's model and roots \
(sampling_preview, roots_preview, combined_preview). report writes a short report as a \
task for clients that take tasks.";

const ABOUT: &str = "snodo-preferences: an MCP 2026-07-28 server built on snodo-core and \
snodo-std. Tools: echo, add, slow_count, fail, report, preference_preview, reset_preview, \
url_preview, sampling_preview, roots_preview, combined_preview. Resources: preview://about, \
preview://preferences and greeting://{name}. Prompts: greeting_prompt, preference_prompt.";

const READ_ONLY: &str = r#"{"readOnlyHint":true,"idempotentHint":true,"openWorldHint":false}"#;
const READ_ONLY_SLOW: &str = r#"{"readOnlyHint":true,"openWorldHint":false}"#;

/// The server (its definitions checked). Its sealed request state uses a secret drawn at
/// start-up.
pub fn server() -> Server<'static, TypedApp> {
    let built = definitions(
        typed_server("snodo-preferences", env!("CARGO_PKG_VERSION"))
            .title("Snodo preferences example")
            .instructions(INSTRUCTIONS),
    )
    .build();
    // The definitions are fixed in this file; the tests build them too.
    built.unwrap_or_else(|e| panic!("the example's definitions are invalid: {e}"))
}

/// Every definition of the example, added to `builder`.
pub fn definitions(builder: ServerBuilder) -> ServerBuilder {
    let builder = builder
        .tool(
            tool("echo")
                .title("Echo")
                .description("Returns the text it is given.")
                .annotations(READ_ONLY)
                .run(echo),
        )
        .tool(
            tool("add")
                .title("Add")
                .description("Adds two numbers and returns the sum as structured content.")
                .annotations(READ_ONLY)
                .run(add),
        )
        .tool(
            tool("slow_count")
                .title("Slow count")
                .description(
                    "Counts to `count`, pausing `delayMs` between steps, and reports each \
                     step as progress when the request carries a progress token.",
                )
                .annotations(READ_ONLY_SLOW)
                .run(slow_count),
        )
        .tool(
            tool("fail")
                .title("Fail")
                .description("Always fails, with a tool error result the model can read.")
                .annotations(READ_ONLY_SLOW)
                .run(fail),
        )
        .tool(report::report_tool());
    flows::definitions(builder)
        .resource(
            resource("preview://about", "about")
                .description("What this server is and what it offers.")
                .mime_type("text/plain")
                .read(about),
        )
        .resource(flows::preference_resource())
        .template(
            template("greeting://{name}", "greeting")
                .description("A greeting for the person named in the URI.")
                .mime_type("text/plain")
                .read(greeting),
        )
        .prompt(
            prompt("greeting_prompt")
                .description("Asks the model to write a greeting.")
                .render(greeting_prompt),
        )
        .prompt(flows::preference_prompt())
        .completions(complete)
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

// Argument structs carry no doc comment of their own: it would become the schema's
// description. A field's doc comment describes that argument to the model.

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    /// The text to return
    text: String,
}

async fn echo(args: EchoArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(args.text)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Sum {
    sum: f64,
}

async fn add(args: AddArgs, _cx: Cx<'_>) -> Result<Structured<Sum>, Stop> {
    let sum = args.a + args.b;
    if !sum.is_finite() {
        return Err(ToolError::new("The sum is too large to represent.").into());
    }
    Ok(Structured(Sum { sum }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CountArgs {
    #[schemars(range(min = 1, max = 100))]
    count: u64,
    #[serde(rename = "delayMs")]
    #[schemars(range(min = 0, max = 10_000))]
    delay_ms: Option<u64>,
}

async fn slow_count(args: CountArgs, mut cx: Cx<'_>) -> Result<String, Stop> {
    let delay = Duration::from_millis(args.delay_ms.unwrap_or(100));
    for step in 1..=args.count {
        tokio::time::sleep(delay).await;
        cx.progress(step as f64, Some(args.count as f64), Some("counting"))?;
    }
    Ok(format!("Counted to {}.", args.count))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FailArgs {
    reason: Option<String>,
}

async fn fail(args: FailArgs, _cx: Cx<'_>) -> Result<String, Stop> {
    Err(match args.reason {
        Some(reason) => ToolError::new(format!("Failed as asked: {reason}")),
        None => ToolError::new("Failed as asked."),
    }
    .into())
}

// ---------------------------------------------------------------------------------------
// Resources and prompts
// ---------------------------------------------------------------------------------------

async fn about(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
    Ok(ABOUT)
}

/// The variables of `greeting://{name}`.
#[derive(Deserialize)]
struct Person {
    name: String,
}

async fn greeting(person: Person, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(format!("Hello, {}!", person.name))
}

#[derive(Deserialize, JsonSchema)]
struct GreetingArgs {
    /// Who to greet
    name: String,
    /// casual, formal or pirate
    style: Option<String>,
}

async fn greeting_prompt(args: GreetingArgs, _cx: Cx<'_>) -> Result<PromptMessages, Stop> {
    let style = args.style.unwrap_or_else(|| "casual".to_owned());
    Ok(PromptMessages::new()
        .description("A greeting to write")
        .user(format!("Write a short {style} greeting for {}.", args.name)))
}

// ---------------------------------------------------------------------------------------
// Completions
// ---------------------------------------------------------------------------------------

/// What `completion/complete` suggests for a greeting's `name`.
const NAMES: &[&str] = &[
    "Ada", "Alan", "Barbara", "Edsger", "Grace", "Ken", "Margaret",
];
/// What it suggests for a greeting's `style`.
const STYLES: &[&str] = &["casual", "formal", "pirate"];

fn complete(query: &CompletionQuery) -> Vec<String> {
    let candidates: &[&str] = match (&query.target, query.argument.as_str()) {
        (CompletionTarget::Prompt(p), "name") if p == "greeting_prompt" => NAMES,
        (CompletionTarget::Prompt(p), "style") if p == "greeting_prompt" => STYLES,
        (CompletionTarget::Resource(t), "name") if t == "greeting://{name}" => NAMES,
        _ => &[],
    };
    let typed = query.value.to_lowercase();
    candidates
        .iter()
        .filter(|c| c.to_lowercase().starts_with(&typed))
        .map(|c| (*c).to_owned())
        .collect()
}
