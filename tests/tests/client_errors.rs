//! How the Rust client reports what goes wrong, over stdio and over Streamable HTTP: the
//! servers' JSON-RPC errors (the example and `mrtr-fixture-server`) as `Server` errors with
//! their code, message and data; and, against a scripted peer that breaks the protocol on
//! purpose (served by a child copy of this test binary, see
//! `snodo_tests::client_harness::rogue_result`), an input request of a kind the client has no
//! handler for, malformed input requests, an unknown `resultType`, a result without
//! `resultType` (complete) and a server that never stops asking — each a distinct error, told
//! apart before any handler runs where that is possible.

use serde_json::{Value, json};
use snodo_std::client::{ClientError, InputKind};
use snodo_tests::client_harness::{
    Answers, InProcess, Launch, Log, Transport, assert_matches, connect, fill, sampled,
};
use snodo_tests::harness::server_info;

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    json_rpc_errors_of_the_example => example_errors();
    json_rpc_errors_of_the_fixture_server => fixture_errors();
    an_input_request_without_a_handler_is_missing_handler => missing_handler();
    malformed_input_requests_are_reported_with_their_key => malformed_input_requests();
    result_types_unknown_and_absent => result_types();
    a_peer_that_always_asks_exhausts_the_rounds => rogue_always_asks();
    the_client_errors_are_distinct => distinct_errors();
    an_unsupported_version_listing_ours_is_retried_once => version_retry();
}

fn rogue() -> Launch {
    Launch::in_process(InProcess::Rogue)
}

#[track_caller]
fn assert_server_error(
    outcome: Result<Value, ClientError>,
    code: i64,
    data: Option<Value>,
) -> String {
    match outcome {
        Err(ClientError::Server {
            code: c,
            message,
            data: d,
        }) if c == code => {
            assert!(!message.is_empty(), "error {code} has no message");
            assert_eq!(d, data, "error {code}: data");
            message
        }
        other => panic!("expected the server error {code}, got {other:?}"),
    }
}

/// A tool error result for arguments that break the input schema.
#[track_caller]
fn assert_invalid_arguments(result: &Value) {
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["resultType"], "complete", "{result}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("Invalid arguments"), "{result}");
}

// ---------------------------------------------------------------------------------------
// The servers' JSON-RPC errors
// ---------------------------------------------------------------------------------------

async fn example_errors(transport: Transport) {
    let log = Log::new();
    let s = connect(&Launch::example(), transport, Answers::all().builder(&log));
    assert_server_error(s.call_tool("no_such_tool", json!({})).await, -32602, None);
    // Arguments that break the input schema: a tool error result the model can read.
    let invalid = s
        .call_tool("add", json!({"a": "two", "b": 1}))
        .await
        .expect("a tool error result");
    assert_invalid_arguments(&invalid);
    assert_server_error(
        s.read_resource("preview://nothing").await,
        -32602,
        Some(json!({"uri": "preview://nothing"})),
    );
    assert_server_error(
        s.get_prompt("no_such_prompt", Value::Null).await,
        -32602,
        None,
    );
    // A method 2026-07-28 removed (the error names the versions supported), and one that
    // never was.
    assert_server_error(
        s.request("initialize", Value::Null).await,
        -32601,
        Some(json!({"supported": ["2026-07-28"]})),
    );
    assert_server_error(s.request("made/up", json!({})).await, -32601, None);
    // What cannot be sent is refused before anything is sent (the log of legs stays empty).
    for refused in [
        s.request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}, "requestState": "forged"}),
        )
        .await,
        s.request(
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 2}, "inputResponses": {}}),
        )
        .await,
        s.request("made/up", json!([1, 2])).await,
        s.call_tool("add", json!([1, 2])).await,
    ] {
        assert!(
            matches!(refused, Err(ClientError::InvalidParams(_))),
            "{refused:?}"
        );
    }
    // A tool error result is a result, not an error.
    let failed = s
        .call_tool("fail", json!({"reason": "on purpose"}))
        .await
        .expect("a tool error result");
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(log.take().is_empty());
    s.finish(json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    }))
    .await;
}

async fn fixture_errors(transport: Transport) {
    let log = Log::new();
    let server = Launch::fixture_server(env!("CARGO_BIN_EXE_mrtr-fixture-server"), "fixture");
    let s = connect(&server, transport, Answers::forms(fill).builder(&log));
    // `traveller` is required by the input schema: a tool error result, before any
    // question.
    let invalid = s
        .call_tool("book_trip", json!({}))
        .await
        .expect("a tool error result");
    assert_invalid_arguments(&invalid);
    // A prompt without its required argument, which the error names.
    assert_server_error(
        s.get_prompt("outcome_prompt", Value::Null).await,
        -32602,
        Some(json!({"argument": "kind"})),
    );
    assert_server_error(
        s.read_resource("mrtr://nothing").await,
        -32602,
        Some(json!({"uri": "mrtr://nothing"})),
    );
    assert_eq!(s.sent().len(), 3, "one request each");
    assert!(log.take().is_empty());
    // The server's identity is on its results, not on its errors.
    let discovered = s.discover().await.expect("discover");
    assert_eq!(
        discovered["_meta"]["io.modelcontextprotocol/serverInfo"],
        server_info()
    );
    s.finish(json!({"elicitation": {"form": {}}})).await;
}

// ---------------------------------------------------------------------------------------
// The scripted peer
// ---------------------------------------------------------------------------------------

/// The peer asks for sampling of a client that declared forms only: `MissingHandler`, and
/// no handler runs.
async fn missing_handler(transport: Transport) {
    let log = Log::new();
    let s = connect(&rogue(), transport, Answers::forms(fill).builder(&log));
    match s.call_tool("always_sampling", json!({})).await {
        Err(ClientError::MissingHandler(InputKind::Sampling)) => {}
        other => panic!("expected MissingHandler(Sampling), got {other:?}"),
    }
    assert_eq!(s.sent().len(), 1, "nothing is sent after the refusal");
    assert!(log.take().is_empty());
    s.finish(json!({"elicitation": {"form": {}}})).await;
}

/// A form without a message and an input request whose method is not one of the four: the
/// client names the request's key, and no handler runs.
async fn malformed_input_requests(transport: Transport) {
    let log = Log::new();
    let s = connect(&rogue(), transport, Answers::all().builder(&log));
    for (tool, key) in [("malformed_form", "bad"), ("unknown_method", "odd")] {
        match s.call_tool(tool, json!({})).await {
            Err(ClientError::MalformedInputRequest {
                key: Some(k),
                reason,
            }) => {
                assert_eq!(k, key, "{tool}");
                assert!(!reason.is_empty());
            }
            other => panic!("{tool}: expected MalformedInputRequest, got {other:?}"),
        }
    }
    assert_eq!(s.sent().len(), 2, "one leg each");
    assert!(log.take().is_empty());
    s.finish(json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    }))
    .await;
}

/// A `resultType` the client does not know is an error of its own; a result without one is
/// complete (servers before 2026-07-28 send none).
async fn result_types(transport: Transport) {
    let log = Log::new();
    let s = connect(&rogue(), transport, Answers::none().builder(&log));
    match s.call_tool("future_result", json!({})).await {
        Err(ClientError::UnknownResultType) => {}
        other => panic!("expected UnknownResultType, got {other:?}"),
    }
    let legacy = s
        .call_tool("legacy", json!({}))
        .await
        .expect("a result without resultType is complete");
    assert_matches(
        &legacy,
        &json!({"content": [{"type": "text", "text": "no resultType"}]}),
    );
    // A JSON-RPC error keeps its code, message and data.
    let message = assert_server_error(
        s.call_tool("anything_else", json!({})).await,
        4040,
        Some(json!({"why": "scripted"})),
    );
    assert_eq!(message, "Gone");
    s.finish(json!({})).await;
}

/// The peer asks again whatever it is told: the client answers until its bound, then stops
/// with `ExhaustedRounds`.
async fn rogue_always_asks(transport: Transport) {
    let log = Log::new();
    let answers = Answers {
        sampling: Some(sampled()),
        ..Answers::none()
    }
    .max_rounds(2);
    let s = connect(&rogue(), transport, answers.builder(&log));
    match s.call_tool("always_sampling", json!({})).await {
        Err(ClientError::ExhaustedRounds { rounds: 2 }) => {}
        other => panic!("expected ExhaustedRounds after 2, got {other:?}"),
    }
    let legs = s.sent();
    assert_eq!(legs.len(), 2);
    assert_eq!(
        legs[1].responses(),
        Some(&json!({"summary": {
            "role": "assistant",
            "content": {"type": "text", "text": "teal"},
            "model": "model-x",
            "stopReason": "endTurn"
        }}))
    );
    assert_eq!(log.take().len(), 1);
    s.finish(json!({"sampling": {}})).await;
}

/// One of each failure, side by side: each a different variant with a different message.
async fn distinct_errors(transport: Transport) {
    let log = Log::new();
    let forms_only = Answers::forms(fill).max_rounds(1);
    let s = connect(&rogue(), transport, forms_only.builder(&log));
    let mut errors = Vec::new();
    for tool in [
        "always_sampling",
        "malformed_form",
        "future_result",
        "anything_else",
    ] {
        errors.push(
            s.call_tool(tool, json!({}))
                .await
                .expect_err("each of these fails"),
        );
    }
    s.finish(json!({"elicitation": {"form": {}}})).await;

    let answers = Answers {
        sampling: Some(sampled()),
        ..Answers::none()
    }
    .max_rounds(1);
    let s = connect(&rogue(), transport, answers.builder(&log));
    errors.push(
        s.call_tool("always_sampling", json!({}))
            .await
            .expect_err("exhausted"),
    );
    s.finish(json!({"sampling": {}})).await;

    let kinds: Vec<&str> = errors
        .iter()
        .map(|e| match e {
            ClientError::MissingHandler(_) => "missing handler",
            ClientError::MalformedInputRequest { .. } => "malformed input request",
            ClientError::UnknownResultType => "unknown result type",
            ClientError::Server { .. } => "server",
            ClientError::ExhaustedRounds { .. } => "exhausted rounds",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "missing handler",
            "malformed input request",
            "unknown result type",
            "server",
            "exhausted rounds"
        ],
        "{errors:#?}"
    );
    let mut messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
    messages.sort();
    messages.dedup();
    assert_eq!(messages.len(), errors.len(), "{messages:#?}");
    assert!(log.take().is_empty(), "no handler ran for any of them");
}

/// A -32022 that still lists the client's version is retried once, as a fresh request with
/// the same params; a second one, or one that does not list it, is the server's error.
async fn version_retry(transport: Transport) {
    let log = Log::new();
    let s = connect(&rogue(), transport, Answers::none().builder(&log));
    let result = s
        .call_tool("version_once", json!({"n": 1}))
        .await
        .expect("the retry completes");
    assert_eq!(result["content"][0]["text"], "negotiated");
    let legs = s.sent();
    assert_eq!(legs.len(), 2);
    assert_ne!(legs[0].message["id"], legs[1].message["id"]);
    assert_eq!(legs[0].params(), legs[1].params());

    let refused =
        |supported: &str| Some(json!({"supported": [supported], "requested": "2026-07-28"}));
    let mark = s.mark();
    assert_server_error(
        s.call_tool("version_never", json!({})).await,
        -32022,
        refused("2026-07-28"),
    );
    assert_eq!(s.sent_since(mark).len(), 2, "retried once only");
    let mark = s.mark();
    assert_server_error(
        s.call_tool("version_other", json!({})).await,
        -32022,
        refused("2099-01-01"),
    );
    assert_eq!(s.sent_since(mark).len(), 1, "not retried");
    s.finish(json!({})).await;
}
