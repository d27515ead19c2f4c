//! What the Rust client does with its handlers' answers and its own concurrency, over stdio
//! and over Streamable HTTP, against the `preferences` example and
//! `mrtr-fixture-server --app preferences`: non-ASCII answers survive the round trips,
//! answers of the wrong shape are caught before anything is sent, an accepted form without
//! content is the server's to refuse, several operations run at once on one connection, each
//! keeping its own legs apart, and a response that does not come in time is a `Timeout`
//! (over stdio followed by a cancellation the client sends).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use snodo_std::client::{
    ClientError, CreateMessageResult, ElicitResult, FormRequest, InputKind, Root,
};
use snodo_tests::client_harness::{
    Answers, Asked, Launch, Log, Sent, Transport, assert_retries, connect, fill, first_text,
    json_in,
};

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    non_ascii_answers_survive_on_the_example => non_ascii(Server::Example);
    non_ascii_answers_survive_on_the_fixture_server => non_ascii(Server::Fixture);
    answers_of_the_wrong_shape_are_never_sent => wrong_shapes();
    an_accepted_form_without_content_is_refused_by_the_server => accept_without_content(Server::Fixture);
    concurrent_flows_keep_their_legs_apart_on_the_example => concurrent(Server::Example);
    concurrent_flows_keep_their_legs_apart_on_the_fixture_server => concurrent(Server::Fixture);
    a_late_response_is_a_timeout => timeout();
    caller_meta_goes_along_but_never_over_the_envelope => caller_meta();
}

#[derive(Clone, Copy, Debug)]
enum Server {
    Example,
    Fixture,
}

impl Server {
    fn launch(self) -> Launch {
        match self {
            Server::Example => Launch::example(),
            Server::Fixture => {
                Launch::fixture_server(env!("CARGO_BIN_EXE_mrtr-fixture-server"), "preferences")
            }
        }
    }
}

fn form_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn accepted(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

const COLOR: &str = "türkis 🦀 \"bleu\"\n";
const STYLE: &str = "gras\\ital\u{0007}";

/// Answers with non-ASCII text, quotes, a backslash and control characters.
fn non_ascii_answer(form: &FormRequest) -> ElicitResult {
    let properties = form.requested_schema["properties"].as_object();
    if properties.is_some_and(|p| p.contains_key("color")) {
        ElicitResult::accept(json!({"color": COLOR}))
    } else {
        ElicitResult::accept(json!({"style": STYLE}))
    }
}

async fn non_ascii(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(non_ascii_answer).builder(&log),
    );
    let result = s
        .call_tool("preference_preview", json!({"subject": "lampe à pied"}))
        .await
        .expect("the flow completes");
    assert_eq!(
        first_text(&result),
        json!({"color": COLOR, "style": STYLE, "status": "preview"})
    );
    let prompt = s
        .get_prompt("preference_prompt", json!({"subject": "ランプ"}))
        .await
        .expect("the flow completes");
    assert_eq!(
        json_in(&prompt["messages"][0]["content"]["text"]),
        json!({"color": COLOR, "style": STYLE, "status": "preview"})
    );
    assert_eq!(log.take().len(), 4);
    let legs = s.sent();
    assert_retries(
        &legs[..3],
        &[
            json!({"color": accepted("color", COLOR)}),
            json!({"style": accepted("style", STYLE)}),
        ],
    );
    assert_eq!(
        legs[0].params()["arguments"],
        json!({"subject": "lampe à pied"})
    );
    s.finish(form_caps()).await;
}

/// An empty color where the form asks for at least one character.
fn empty_color(_: &FormRequest) -> ElicitResult {
    ElicitResult::accept(json!({"color": ""}))
}

/// A number where the form asks for a string.
fn numeric_color(_: &FormRequest) -> ElicitResult {
    ElicitResult::accept(json!({"color": 7}))
}

/// Content without the required property.
fn misnamed_color(_: &FormRequest) -> ElicitResult {
    ElicitResult::accept(json!({"colour": "teal"}))
}

/// Each answer that breaks what the protocol requires of its kind (a form's content against
/// its schema, a root that is not a `file://` URI, a sampled message of an unknown role)
/// stops the operation with `InvalidAnswer` for that kind, after one leg.
async fn wrong_shapes(transport: Transport) {
    let forms: [fn(&FormRequest) -> ElicitResult; 3] = [empty_color, numeric_color, misnamed_color];
    let mut cases: Vec<(Answers, &str, InputKind, Value)> = forms
        .into_iter()
        .map(|form| {
            (
                Answers::forms(form),
                "preference_preview",
                InputKind::Form,
                form_caps(),
            )
        })
        .collect();
    cases.push((
        Answers {
            roots: Some(vec![Root::new("https://example.com/project")]),
            ..Answers::none()
        },
        "roots_preview",
        InputKind::Roots,
        json!({"roots": {}}),
    ));
    cases.push((
        Answers {
            sampling: Some(CreateMessageResult {
                role: "robot".into(),
                content: json!({"type": "text", "text": "teal"}),
                model: "model-x".into(),
                stop_reason: None,
            }),
            ..Answers::none()
        },
        "sampling_preview",
        InputKind::Sampling,
        json!({"sampling": {}}),
    ));
    for (answers, tool, kind, declared) in cases {
        let log = Log::new();
        let s = connect(&Launch::example(), transport, answers.builder(&log));
        match s.call_tool(tool, json!({"subject": "x"})).await {
            Err(ClientError::InvalidAnswer(k)) => assert_eq!(k, kind, "{tool}"),
            other => panic!("{tool}: expected InvalidAnswer({kind:?}), got {other:?}"),
        }
        assert_eq!(s.sent().len(), 1, "{tool}: the bad answer is never sent");
        assert_eq!(log.take().len(), 1);
        s.finish(declared).await;
    }
}

/// An accepted form without content has the shape of an answer; that it answers nothing is
/// for the server to say (-32602).
async fn accept_without_content(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers::forms(|_| ElicitResult::consent());
    let s = connect(&server.launch(), transport, answers.builder(&log));
    match s
        .call_tool("preference_preview", json!({"subject": "x"}))
        .await
    {
        Err(ClientError::Server {
            code: -32602,
            data: None,
            ..
        }) => {}
        other => panic!("expected -32602, got {other:?}"),
    }
    let legs = s.sent();
    assert_eq!(legs.len(), 2);
    assert_eq!(
        legs[1].responses(),
        Some(&json!({"color": {"action": "accept"}}))
    );
    assert_eq!(log.take().len(), 1);
    s.finish(form_caps()).await;
}

/// Seven flows at once on one connection (three tool calls, three prompts, a resource): each
/// completes, and the legs of each keep to the retry discipline on their own.
async fn concurrent(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    let tool = |i: usize| s.call_tool("preference_preview", json!({"subject": format!("t{i}")}));
    let prompt = |i: usize| s.get_prompt("preference_prompt", json!({"subject": format!("p{i}")}));
    let (t0, t1, t2, p0, p1, p2, r) = tokio::join!(
        tool(0),
        tool(1),
        tool(2),
        prompt(0),
        prompt(1),
        prompt(2),
        s.read_resource("preview://preferences")
    );
    let preview = json!({"color": "teal", "style": "bold", "status": "preview"});
    for result in [t0, t1, t2] {
        assert_eq!(first_text(&result.expect("a tool flow completes")), preview);
    }
    for result in [p0, p1, p2] {
        let result = result.expect("a prompt flow completes");
        assert_eq!(json_in(&result["messages"][0]["content"]["text"]), preview);
    }
    let r = r.expect("the resource flow completes");
    assert_eq!(json_in(&r["contents"][0]["text"]), preview);
    let asked = log.take();
    assert_eq!(asked.len(), 14);
    let colors = asked
        .iter()
        .filter(|a| matches!(a, Asked::Form { message, .. } if message.contains("color")))
        .count();
    assert_eq!(colors, 7);

    // Group the legs by operation (method and params without the retry fields).
    let mut operations: Vec<(Value, Vec<Sent>)> = Vec::new();
    for leg in s.sent() {
        let mut key = leg.params().clone();
        if let Some(map) = key.as_object_mut() {
            for field in ["_meta", "requestState", "inputResponses"] {
                map.remove(field);
            }
        }
        let key = json!([leg.method(), key]);
        match operations.iter_mut().find(|(k, _)| *k == key) {
            Some((_, legs)) => legs.push(leg),
            None => operations.push((key, vec![leg])),
        }
    }
    assert_eq!(operations.len(), 7);
    for (key, legs) in &operations {
        assert_eq!(legs.len(), 3, "{key}");
        assert_retries(
            legs,
            &[
                json!({"color": accepted("color", "teal")}),
                json!({"style": accepted("style", "bold")}),
            ],
        );
    }
    s.finish(form_caps()).await;
}

/// A response later than the client's timeout is `Timeout`; over stdio the client then
/// tells the server it stopped waiting, over HTTP it hangs up. The client goes on working.
async fn timeout(transport: Transport) {
    let log = Log::new();
    let answers = Answers {
        timeout: Some(Duration::from_millis(300)),
        ..Answers::none()
    };
    let s = connect(&Launch::example(), transport, answers.builder(&log));
    match s
        .call_tool("slow_count", json!({"count": 2, "delayMs": 2000}))
        .await
    {
        Err(ClientError::Timeout) => {}
        other => panic!("expected Timeout, got {other:?}"),
    }
    let call_id = s.sent()[0].message["id"].clone();
    if transport == Transport::Http {
        // Over HTTP the client cancels by hanging up: no response ever reached it.
        assert!(s.sent()[0].reply.is_none(), "{:?}", s.sent()[0].reply_raw);
    } else {
        // The cancellation is sent from a task of its own: give it a moment.
        let mut cancelled = None;
        for _ in 0..100 {
            cancelled = s
                .sent()
                .into_iter()
                .find(|m| m.method() == "notifications/cancelled");
            if cancelled.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let cancelled = cancelled.expect("a cancellation follows the timeout");
        assert_eq!(cancelled.params()["requestId"], call_id);
        assert!(cancelled.message.get("id").is_none(), "a notification");
    }
    let echoed = s
        .call_tool("echo", json!({"text": "still here"}))
        .await
        .expect("the client goes on");
    assert_eq!(echoed["content"][0]["text"], "still here");
    s.finish(json!({})).await;
}

/// Members a caller adds to `params._meta` go along (a progress token, whose notifications
/// reach the client's callback); members named like the envelope's are the client's own
/// and are written once.
async fn caller_meta(transport: Transport) {
    let log = Log::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let builder = Answers::none()
        .builder(&log)
        .on_notification(move |n| sink.lock().expect("lock").push(n));
    let s = connect(&Launch::example(), transport, builder);
    let result = s
        .request(
            "tools/call",
            json!({
                "name": "slow_count",
                "arguments": {"count": 3, "delayMs": 5},
                "_meta": {
                    "progressToken": "p-1",
                    "io.modelcontextprotocol/protocolVersion": "1999-01-01",
                    "io.modelcontextprotocol/clientInfo": {"name": "impostor", "version": "0"}
                }
            }),
        )
        .await
        .expect("slow_count completes");
    assert_eq!(result["content"][0]["text"], "Counted to 3.");
    let sent = s.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].params()["_meta"]["progressToken"], "p-1");
    for member in [
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/clientInfo",
    ] {
        assert_eq!(sent[0].raw.matches(member).count(), 1, "{}", sent[0].raw);
    }
    let progress: Vec<Value> = seen
        .lock()
        .expect("lock")
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .map(|n| n["params"].clone())
        .collect();
    assert_eq!(progress.len(), 3, "{progress:#?}");
    for (i, p) in progress.iter().enumerate() {
        assert_eq!(p["progressToken"], "p-1");
        assert_eq!(p["progress"], json!(i as f64 + 1.0));
    }
    // Checks, among the rest, that the envelope is the client's own.
    s.finish(json!({})).await;
}
