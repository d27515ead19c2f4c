//! The MRTR fixture's flows through the Rust client, over stdio and over Streamable HTTP,
//! against `mrtr-fixture-server --app fixture`: several inputs in one result, sampling,
//! roots, all three kinds with signed partial progress, asking only for what the client
//! declared (which follows the installed handlers), an output schema checked after an input
//! round, plain application state, failures after a retry and malformed `input_required`
//! results; and, against the fixture behind middleware that always asks again (served by a
//! child copy of this test binary), the client's bound on rounds.
//!
//! As in `client_preference_flows.rs`, each test observes what the client sends and what its
//! handlers are asked, and checks the result it returns. Expected values are written out from
//! the fixture's definitions (`snodo_tests::mrtr_fixture`) and the 2026-07-28 specification.

use serde_json::{Value, json};
use snodo_std::client::{ClientCapabilities, ClientError, ElicitResult, FormRequest};
use snodo_tests::client_harness::{
    Answers, Asked, InProcess, Launch, Log, Transport, assert_matches, assert_retries, connect,
    decline, fill, first_text, json_in, roots, sampled,
};
use snodo_tests::harness::{ANY_STRING, server_info};
use snodo_tests::mrtr_fixture::{
    APPROVAL_FORM, CITY_FORM, DATE_FORM, GO_FORM, NAME_FORM, PLAIN_STATE, SAMPLING_CONTEXT,
    SAMPLING_PLAIN, SAMPLING_TOOL_CHOICE, SAMPLING_TOOLS,
};

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    several_inputs_are_answered_in_one_retry => several_inputs();
    a_declined_input_among_several_ends_the_flow => declined_among_several();
    sampling_round_trips_in_a_tool_and_a_prompt => sampling();
    sampling_sub_capabilities_undeclared_are_refused => sampling_sub_capabilities();
    sampling_sub_capabilities_declared_reach_the_handler => sampling_sub_capabilities_declared();
    roots_round_trips_in_a_tool_and_a_resource => roots_flows();
    one_result_asks_all_three_kinds => three_kinds();
    only_the_declared_kinds_are_asked => only_declared_kinds();
    the_output_schema_applies_after_the_input_round => output_schema();
    a_plain_application_state_is_echoed_as_is => plain_state();
    failures_after_a_retry_keep_their_kind => failures_after_a_retry();
    a_malformed_input_required_is_a_server_error => malformed_input_required();
    a_server_that_always_asks_again_exhausts_the_rounds => always_asks();
}

fn fixture() -> Launch {
    Launch::fixture_server(env!("CARGO_BIN_EXE_mrtr-fixture-server"), "fixture")
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": server_info()})
}

fn schema(text: &str) -> Value {
    serde_json::from_str(text).expect("a schema")
}

fn asked_form(message: &str, schema_text: &str) -> Asked {
    Asked::Form {
        message: message.into(),
        schema: schema(schema_text),
    }
}

fn form_request(message: &str, schema_text: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema(schema_text)}
    })
}

fn accepted(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn plain_sampling() -> Value {
    json!({"method": "sampling/createMessage", "params": schema(SAMPLING_PLAIN)})
}

fn roots_request() -> Value {
    json!({"method": "roots/list", "params": {}})
}

fn sampled_answer() -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": "teal"},
        "model": "model-x",
        "stopReason": "endTurn"
    })
}

fn roots_answer() -> Value {
    json!({"roots": [
        {"uri": "file:///home/ada/project", "name": "Project"},
        {"uri": "file:///tmp"}
    ]})
}

fn form_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn all_caps() -> Value {
    json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    })
}

fn sampling_only() -> Answers {
    Answers {
        sampling: Some(sampled()),
        ..Answers::none()
    }
}

fn roots_only() -> Answers {
    Answers {
        roots: Some(roots()),
        ..Answers::none()
    }
}

/// A complete tool result with one text block (`isError` when `error`).
fn tool_result(error: bool) -> Value {
    let mut result = json!({
        "content": [{"type": "text", "text": ANY_STRING}],
        "resultType": "complete",
        "_meta": meta()
    });
    if error {
        result["isError"] = json!(true);
    }
    result
}

#[track_caller]
fn assert_server_error(outcome: Result<Value, ClientError>, code: i64, message: Option<&str>) {
    match outcome {
        Err(ClientError::Server {
            code: c,
            message: m,
            ..
        }) if c == code => {
            if let Some(message) = message {
                assert_eq!(m, message);
            }
        }
        other => panic!("expected the server error {code}, got {other:?}"),
    }
}

#[track_caller]
fn assert_missing_capability(outcome: Result<Value, ClientError>, required: Value) {
    match outcome {
        Err(ClientError::Server {
            code: -32021,
            data: Some(data),
            ..
        }) => assert_eq!(data, json!({"requiredCapabilities": required})),
        other => panic!("expected -32021 requiring {required}, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Several inputs at once
// ---------------------------------------------------------------------------------------

/// `book_trip` asks origin, destination and date in one result with sealed state: the
/// client asks its form handler three times, in that order, and answers all three in one
/// retry that echoes the state.
async fn several_inputs(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::forms(fill).builder(&log));
    let result = s
        .call_tool("book_trip", json!({"traveller": "Ada"}))
        .await
        .expect("book_trip completes");
    assert_matches(&result, &tool_result(false));
    assert_eq!(
        first_text(&result),
        json!({"traveller": "Ada", "origin": "Oslo", "destination": "Lisbon", "date": "2026-08-01"})
    );
    assert_eq!(
        log.take(),
        [
            asked_form("Where do you leave from?", CITY_FORM),
            asked_form("Where are you going?", CITY_FORM),
            asked_form("When do you leave?", DATE_FORM),
        ]
    );
    let legs = s.sent();
    assert_retries(
        &legs,
        &[json!({
            "origin": accepted(json!({"city": "Oslo"})),
            "destination": accepted(json!({"city": "Lisbon"})),
            "date": accepted(json!({"day": "2026-08-01"}))
        })],
    );
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {
                "origin": form_request("Where do you leave from?", CITY_FORM),
                "destination": form_request("Where are you going?", CITY_FORM),
                "date": form_request("When do you leave?", DATE_FORM)
            },
            "requestState": ANY_STRING,
            "_meta": meta()
        }),
    );
    s.finish(form_caps()).await;
}

/// Accepts every form but the destination, which it declines.
fn decline_destination(form: &FormRequest) -> ElicitResult {
    if form.message == "Where are you going?" {
        ElicitResult::decline()
    } else {
        fill(form)
    }
}

async fn declined_among_several(transport: Transport) {
    let log = Log::new();
    let s = connect(
        &fixture(),
        transport,
        Answers::forms(decline_destination).builder(&log),
    );
    let result = s
        .call_tool("book_trip", json!({"traveller": "Ada"}))
        .await
        .expect("a declined trip completes");
    assert_eq!(first_text(&result), json!({"status": "decline"}));
    assert_eq!(
        log.take().len(),
        3,
        "every request of the round is answered"
    );
    assert_retries(
        &s.sent(),
        &[json!({
            "origin": accepted(json!({"city": "Oslo"})),
            "destination": {"action": "decline"},
            "date": accepted(json!({"day": "2026-08-01"}))
        })],
    );
    s.finish(form_caps()).await;
}

// ---------------------------------------------------------------------------------------
// Sampling and roots
// ---------------------------------------------------------------------------------------

async fn sampling(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, sampling_only().builder(&log));
    let result = s
        .call_tool("summarize", json!({"variant": "plain"}))
        .await
        .expect("summarize completes");
    assert_eq!(
        first_text(&result),
        json!({"summary": "teal", "model": "model-x"})
    );
    assert_eq!(log.take(), [Asked::Sampling(schema(SAMPLING_PLAIN))]);
    let legs = s.sent();
    assert_retries(&legs, &[json!({"summary": sampled_answer()})]);
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {"summary": plain_sampling()},
            "_meta": meta()
        }),
    );

    // A prompt drafted by the client's model.
    let mark = s.mark();
    let prompt = s
        .get_prompt("sampled_prompt", Value::Null)
        .await
        .expect("sampled_prompt completes");
    assert_matches(
        &prompt,
        &json!({
            "description": "A drafted prompt",
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Use this draft:"}},
                {"role": "assistant", "content": {"type": "text", "text": "teal"}}
            ],
            "resultType": "complete",
            "_meta": meta()
        }),
    );
    assert_eq!(log.take(), [Asked::Sampling(schema(SAMPLING_PLAIN))]);
    assert_retries(&s.sent_since(mark), &[json!({"draft": sampled_answer()})]);
    s.finish(json!({"sampling": {}})).await;
}

/// A sampling handler declares `sampling` alone unless told otherwise, so the server refuses
/// the requests that need `sampling.tools` or `sampling.context`, before any handler runs;
/// `includeContext: "none"` needs only `sampling`.
async fn sampling_sub_capabilities(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, sampling_only().builder(&log));
    for (variant, required) in [
        ("tools", json!({"sampling": {"tools": {}}})),
        ("tool_choice", json!({"sampling": {"tools": {}}})),
        ("context", json!({"sampling": {"context": {}}})),
    ] {
        assert_missing_capability(
            s.call_tool("summarize", json!({"variant": variant})).await,
            required,
        );
    }
    assert!(log.take().is_empty());
    let result = s
        .call_tool("summarize", json!({"variant": "no_context"}))
        .await
        .expect("no context needs only sampling");
    assert_eq!(
        first_text(&result),
        json!({"summary": "teal", "model": "model-x"})
    );
    s.finish(json!({"sampling": {}})).await;
}

/// With `sampling_supports`, the client declares `sampling.tools` and `sampling.context`
/// on every request, and the requests that need them reach its sampling handler.
async fn sampling_sub_capabilities_declared(transport: Transport) {
    let log = Log::new();
    let builder = sampling_only().builder(&log).sampling_supports(
        ClientCapabilities::SAMPLING_TOOLS.union(ClientCapabilities::SAMPLING_CONTEXT),
    );
    let s = connect(&fixture(), transport, builder);
    for (variant, params) in [
        ("tools", SAMPLING_TOOLS),
        ("tool_choice", SAMPLING_TOOL_CHOICE),
        ("context", SAMPLING_CONTEXT),
    ] {
        let result = s
            .call_tool("summarize", json!({"variant": variant}))
            .await
            .unwrap_or_else(|e| panic!("{variant}: {e}"));
        assert_eq!(
            first_text(&result),
            json!({"summary": "teal", "model": "model-x"}),
            "{variant}"
        );
        assert_eq!(log.take(), [Asked::Sampling(schema(params))], "{variant}");
    }
    s.finish(json!({"sampling": {"tools": {}, "context": {}}}))
        .await;
}

async fn roots_flows(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, roots_only().builder(&log));
    let result = s
        .call_tool("scan_roots", json!({}))
        .await
        .expect("scan_roots completes");
    assert_eq!(
        first_text(&result),
        json!({"roots": ["file:///home/ada/project", "file:///tmp"]})
    );
    assert_eq!(log.take(), [Asked::Roots(json!({}))]);
    let legs = s.sent();
    assert_retries(&legs, &[json!({"roots": roots_answer()})]);
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {"roots": roots_request()},
            "_meta": meta()
        }),
    );

    // A resource asking for the roots; its final result carries the cache hints.
    let mark = s.mark();
    let read = s
        .read_resource("mrtr://roots")
        .await
        .expect("mrtr://roots completes");
    assert_matches(
        &read,
        &json!({
            "contents": [{"uri": "mrtr://roots", "mimeType": "application/json", "text": "{\"roots\":2}"}],
            "ttlMs": 60_000,
            "cacheScope": "public",
            "resultType": "complete",
            "_meta": meta()
        }),
    );
    assert_eq!(log.take(), [Asked::Roots(json!({}))]);
    assert_retries(&s.sent_since(mark), &[json!({"roots": roots_answer()})]);
    s.finish(json!({"roots": {}})).await;
}

// ---------------------------------------------------------------------------------------
// All three kinds in one result
// ---------------------------------------------------------------------------------------

async fn three_kinds(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::all().builder(&log));
    let result = s
        .call_tool("audit", json!({}))
        .await
        .expect("audit completes");
    assert_eq!(
        first_text(&result),
        json!({"approve": true, "summary": "teal", "roots": 2})
    );
    assert_eq!(
        log.take(),
        [
            asked_form("Approve the audit?", APPROVAL_FORM),
            Asked::Sampling(schema(SAMPLING_PLAIN)),
            Asked::Roots(json!({}))
        ]
    );
    let legs = s.sent();
    assert_retries(
        &legs,
        &[json!({
            "approval": accepted(json!({"approve": true})),
            "summary": sampled_answer(),
            "workspace": roots_answer()
        })],
    );
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {
                "approval": form_request("Approve the audit?", APPROVAL_FORM),
                "summary": plain_sampling(),
                "workspace": roots_request()
            },
            "requestState": ANY_STRING,
            "_meta": meta()
        }),
    );
    s.finish(all_caps()).await;
}

/// `adaptive` asks only for the kinds the request declares, and the client declares exactly
/// the kinds it has handlers for.
async fn only_declared_kinds(transport: Transport) {
    let cases = [
        // No handler: nothing declared, nothing asked, one leg.
        (Answers::none(), json!({}), vec![], json!({})),
        // A URL handler alone declares URL elicitation only, which this tool never asks.
        (
            Answers::none().with_url(ElicitResult::consent()),
            json!({"elicitation": {"url": {}}}),
            vec![],
            json!({}),
        ),
        (
            Answers::forms(fill),
            form_caps(),
            vec![asked_form("What is your name?", NAME_FORM)],
            json!({"name": "Ada"}),
        ),
        (
            roots_only(),
            json!({"roots": {}}),
            vec![Asked::Roots(json!({}))],
            json!({"roots": 2}),
        ),
        (
            Answers::all(),
            all_caps(),
            vec![
                asked_form("What is your name?", NAME_FORM),
                Asked::Sampling(schema(SAMPLING_PLAIN)),
                Asked::Roots(json!({})),
            ],
            json!({"name": "Ada", "draft": "teal", "roots": 2}),
        ),
    ];
    for (answers, declared, asked, text) in cases {
        let log = Log::new();
        let s = connect(&fixture(), transport, answers.builder(&log));
        let result = s
            .call_tool("adaptive", json!({}))
            .await
            .expect("adaptive completes");
        assert_eq!(first_text(&result), text, "declaring {declared}");
        let legs = s.sent();
        assert_eq!(legs.len(), if asked.is_empty() { 1 } else { 2 });
        assert_eq!(log.take(), asked, "declaring {declared}");
        s.finish(declared).await;
    }
}

// ---------------------------------------------------------------------------------------
// Output schema, plain state, failures, malformed results
// ---------------------------------------------------------------------------------------

/// The `input_required` round carries no structured content; the final result meets the
/// output schema, or the server reports an internal error; a tool error result is not
/// checked against it.
async fn output_schema(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::forms(fill).builder(&log));
    let result = s
        .call_tool("forecast", json!({}))
        .await
        .expect("forecast completes");
    assert_matches(
        &result,
        &json!({
            "structuredContent": {"city": "Oslo", "temperature": 21},
            "content": [{"type": "text", "text": ANY_STRING}],
            "resultType": "complete",
            "_meta": meta()
        }),
    );
    assert_eq!(
        first_text(&result),
        json!({"city": "Oslo", "temperature": 21})
    );
    let legs = s.sent();
    assert_retries(&legs, &[json!({"city": accepted(json!({"city": "Oslo"}))})]);
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {"city": form_request("Which city?", CITY_FORM)},
            "_meta": meta()
        }),
    );
    let mark = s.mark();
    assert_server_error(
        s.call_tool("broken_forecast", json!({})).await,
        -32603,
        None,
    );
    assert_eq!(s.sent_since(mark).len(), 2, "the error comes on the retry");
    assert_eq!(log.take().len(), 2);
    s.finish(form_caps()).await;

    let s = connect(&fixture(), transport, Answers::forms(decline).builder(&log));
    let result = s
        .call_tool("broken_forecast", json!({}))
        .await
        .expect("a tool error result is a result");
    assert_matches(
        &result,
        &json!({
            "content": [{"type": "text", "text": "No city, no forecast"}],
            "isError": true,
            "resultType": "complete",
            "_meta": meta()
        }),
    );
    s.finish(form_caps()).await;
}

/// A plain (unsealed) application state goes back exactly as given, and the handler sees its
/// arguments without the retry fields.
async fn plain_state(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::forms(fill).builder(&log));
    let result = s
        .call_tool("inspect", json!({"q": 1}))
        .await
        .expect("inspect completes");
    assert_eq!(
        first_text(&result),
        json!({"argumentKeys": ["q"], "responseKeys": ["ok"], "hasState": true, "method": "tools/call"})
    );
    let legs = s.sent();
    assert_retries(&legs, &[json!({"ok": accepted(json!({"note": "fine"}))})]);
    assert_eq!(legs[1].state(), Some(PLAIN_STATE));
    assert_eq!(log.take(), [asked_form("OK?", GO_FORM)]);

    let mark = s.mark();
    let prompt = s
        .get_prompt("inspect_prompt", json!({"topic": "x"}))
        .await
        .expect("inspect_prompt completes");
    assert_eq!(
        json_in(&prompt["messages"][0]["content"]["text"]),
        json!({"argumentKeys": ["topic"], "responseKeys": ["ok"], "hasState": true, "method": "prompts/get"})
    );
    let legs = s.sent_since(mark);
    assert_retries(&legs, &[json!({"ok": accepted(json!({"note": "fine"}))})]);
    assert_eq!(legs[1].state(), Some(PLAIN_STATE));
    s.finish(form_caps()).await;
}

/// After a `go` round: a typed error is a JSON-RPC error the client reports with its code
/// and message; an untyped failure of a tool is a tool error result, of a resource or a
/// prompt an internal error.
async fn failures_after_a_retry(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::forms(fill).builder(&log));
    let go = [json!({"go": accepted(json!({"note": "fine"}))})];

    let mark = s.mark();
    assert_server_error(
        s.call_tool("outcome", json!({"kind": "typed"})).await,
        4009,
        Some("Outcome conflict"),
    );
    assert_retries(&s.sent_since(mark), &go);
    for (kind, text) in [
        ("failure", "Outcome unavailable"),
        ("tool_error", "Outcome refused by policy"),
    ] {
        let result = s
            .call_tool("outcome", json!({"kind": kind}))
            .await
            .expect("a tool error result is a result");
        assert_matches(
            &result,
            &json!({
                "content": [{"type": "text", "text": text}],
                "isError": true,
                "resultType": "complete",
                "_meta": meta()
            }),
        );
    }
    for (uri, code, message) in [
        ("outcome://typed", 4009, "Outcome conflict"),
        ("outcome://failure", -32603, "Outcome unavailable"),
    ] {
        let mark = s.mark();
        assert_server_error(s.read_resource(uri).await, code, Some(message));
        assert_retries(&s.sent_since(mark), &go);
    }
    for (kind, code, message) in [
        ("typed", 4009, "Outcome conflict"),
        ("failure", -32603, "Outcome unavailable"),
    ] {
        let mark = s.mark();
        assert_server_error(
            s.get_prompt("outcome_prompt", json!({"kind": kind})).await,
            code,
            Some(message),
        );
        assert_retries(&s.sent_since(mark), &go);
    }
    assert_eq!(log.take().len(), 7, "one go question per operation");
    s.finish(form_caps()).await;
}

/// An empty or duplicated `input_required` never reaches the client: the server reports an
/// internal error, and so it does for a completion that tries `input_required`.
async fn malformed_input_required(transport: Transport) {
    let log = Log::new();
    let s = connect(&fixture(), transport, Answers::all().builder(&log));
    for kind in ["empty", "duplicate"] {
        assert_server_error(
            s.call_tool("misplaced", json!({"kind": kind})).await,
            -32603,
            None,
        );
    }
    assert_server_error(
        s.request(
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "outcome_prompt"},
                "argument": {"name": "kind", "value": "t"}
            }),
        )
        .await,
        -32603,
        None,
    );
    assert_eq!(s.sent().len(), 3, "one leg each");
    assert!(log.take().is_empty());
    s.finish(all_caps()).await;
}

// ---------------------------------------------------------------------------------------
// The bound on rounds
// ---------------------------------------------------------------------------------------

/// Behind middleware that asks for a sampled summary on every call, the client answers each
/// round until its bound: `ExhaustedRounds` after exactly that many requests, the last
/// question left unanswered. Without a sampling handler the client declares no sampling and
/// the server refuses at once.
async fn always_asks(transport: Transport) {
    let server = Launch::in_process(InProcess::AlwaysAsks);
    for (rounds, answers) in [
        (8, sampling_only()),
        (3, sampling_only().max_rounds(3)),
        (1, sampling_only().max_rounds(1)),
    ] {
        let log = Log::new();
        let s = connect(&server, transport, answers.builder(&log));
        match s.call_tool("inspect", json!({})).await {
            Err(ClientError::ExhaustedRounds { rounds: r }) => assert_eq!(r, rounds),
            other => panic!("expected ExhaustedRounds after {rounds}, got {other:?}"),
        }
        let legs = s.sent();
        assert_eq!(legs.len(), usize::from(rounds));
        assert_eq!(log.take().len(), usize::from(rounds) - 1);
        for leg in &legs[1..] {
            assert_eq!(leg.responses(), Some(&json!({"summary": sampled_answer()})));
        }
        assert!(
            legs.iter()
                .all(|leg| leg.result()["resultType"] == "input_required")
        );
        s.finish(json!({"sampling": {}})).await;
    }
    let log = Log::new();
    let s = connect(&server, transport, Answers::forms(fill).builder(&log));
    assert_missing_capability(
        s.call_tool("inspect", json!({})).await,
        json!({"sampling": {}}),
    );
    assert_eq!(s.sent().len(), 1);
    s.finish(form_caps()).await;
}
