//! The preference flows through the Rust client, over stdio and over Streamable HTTP, against
//! the `preferences` example and against `mrtr-fixture-server --app preferences` (the same
//! flow code with the fixtures' identity); the sampling, roots and all-kinds flows, which
//! only the example serves, against the example.
//!
//! Each test makes its round trips with `snodo_std::client` and observes both what the
//! client sends (through the recorder of `snodo_tests::client_harness`: every leg, its id,
//! its `requestState` and `inputResponses`, its `_meta` and, over HTTP, its headers) and
//! what the client's handlers are asked, in order; then it checks the final result the client
//! returns. So the client is checked against the servers and the servers against the client.
//!
//! Expected values are written out from the example's flow definitions (`flow.rs`,
//! `more_flows.rs`), the fixtures' identity and the 2026-07-28 specification.

use serde_json::{Value, json};
use snodo_std::client::{ClientError, ElicitResult, FormRequest, InputKind};
use snodo_tests::client_harness::{
    Answers, Asked, Launch, Log, Session, Transport, assert_matches, assert_retries, connect,
    decline, fill, first_text, json_in,
};
use snodo_tests::harness::{ANY_STRING, server_info};

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    tool_in_three_legs_on_the_example => three_legs(Server::Example, Family::Tool);
    tool_in_three_legs_on_the_fixture_server => three_legs(Server::Fixture, Family::Tool);
    resource_in_three_legs_on_the_example => three_legs(Server::Example, Family::Resource);
    resource_in_three_legs_on_the_fixture_server => three_legs(Server::Fixture, Family::Resource);
    prompt_in_three_legs_on_the_example => three_legs(Server::Example, Family::Prompt);
    prompt_in_three_legs_on_the_fixture_server => three_legs(Server::Fixture, Family::Prompt);
    every_family_in_one_session_on_the_example => one_session(Server::Example);
    reset_preview_keeps_then_drops_state_on_the_example => reset_preview(Server::Example);
    reset_preview_keeps_then_drops_state_on_the_fixture_server => reset_preview(Server::Fixture);
    url_consent_is_not_completion_on_the_example => url_consent(Server::Example);
    url_consent_is_not_completion_on_the_fixture_server => url_consent(Server::Fixture);
    declined_answers_on_the_example => declined(Server::Example);
    declined_answers_on_the_fixture_server => declined(Server::Fixture);
    cancelled_answers_on_the_example => cancelled(Server::Example);
    cancelled_answers_on_the_fixture_server => cancelled(Server::Fixture);
    no_form_handler_no_capability_on_the_example => no_form_handler(Server::Example);
    no_form_handler_no_capability_on_the_fixture_server => no_form_handler(Server::Fixture);
    no_url_handler_no_capability_on_the_example => no_url_handler(Server::Example);
    no_url_handler_no_capability_on_the_fixture_server => no_url_handler(Server::Fixture);
    caller_state_is_never_replayed_on_the_example => replayed_state(Server::Example);
    caller_state_is_never_replayed_on_the_fixture_server => replayed_state(Server::Fixture);
    too_few_rounds_on_the_example => too_few_rounds(Server::Example);
    too_few_rounds_on_the_fixture_server => too_few_rounds(Server::Fixture);
    a_failing_handler_stops_the_flow_on_the_example => failing_handler(Server::Example);
    a_failing_handler_stops_the_flow_on_the_fixture_server => failing_handler(Server::Fixture);
    sampling_preview_on_the_example => sampling_preview();
    roots_preview_on_the_example => roots_preview();
    combined_preview_on_the_example => combined_preview();
    combined_preview_declined_on_the_example => combined_declined();
    combined_preview_needs_every_kind_on_the_example => combined_needs_every_kind();
}

// ---------------------------------------------------------------------------------------
// Servers, families, expected values
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Server {
    /// The `preferences` example.
    Example,
    /// `mrtr-fixture-server --app preferences`.
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

    /// The result `_meta`: the server's identity.
    fn meta(self) -> Value {
        let info = match self {
            // Its version is the workspace version, as is this crate's.
            Server::Example => json!({
                "name": "snodo-preferences",
                "title": "Snodo preferences example",
                "version": env!("CARGO_PKG_VERSION")
            }),
            Server::Fixture => server_info(),
        };
        json!({"io.modelcontextprotocol/serverInfo": info})
    }
}

#[derive(Clone, Copy, Debug)]
enum Family {
    Tool,
    Resource,
    Prompt,
}

const FAMILIES: [Family; 3] = [Family::Tool, Family::Resource, Family::Prompt];

impl Family {
    fn method(self) -> &'static str {
        match self {
            Family::Tool => "tools/call",
            Family::Resource => "resources/read",
            Family::Prompt => "prompts/get",
        }
    }

    /// The params the client sends (before `_meta` and the retry fields).
    fn params(self) -> Value {
        match self {
            Family::Tool => {
                json!({"name": "preference_preview", "arguments": {"subject": "desk lamp"}})
            }
            Family::Resource => json!({"uri": "preview://preferences"}),
            Family::Prompt => {
                json!({"name": "preference_prompt", "arguments": {"subject": "desk lamp"}})
            }
        }
    }

    async fn run(self, s: &Session) -> Result<Value, ClientError> {
        match self {
            Family::Tool => {
                s.call_tool("preference_preview", json!({"subject": "desk lamp"}))
                    .await
            }
            Family::Resource => s.read_resource("preview://preferences").await,
            Family::Prompt => {
                s.get_prompt("preference_prompt", json!({"subject": "desk lamp"}))
                    .await
            }
        }
    }

    /// The final result, its JSON text left open.
    fn final_result(self, server: Server) -> Value {
        let mut result = match self {
            Family::Tool => json!({"content": [{"type": "text", "text": ANY_STRING}]}),
            Family::Resource => json!({
                "contents": [{
                    "uri": "preview://preferences",
                    "mimeType": "application/json",
                    "text": ANY_STRING
                }],
                "ttlMs": 60_000,
                "cacheScope": "public"
            }),
            Family::Prompt => json!({
                "description": ANY_STRING,
                "messages": [{"role": "user", "content": {"type": "text", "text": ANY_STRING}}]
            }),
        };
        result["resultType"] = json!("complete");
        result["_meta"] = server.meta();
        result
    }

    /// The flow's JSON text in a final result.
    #[track_caller]
    fn text(self, result: &Value) -> Value {
        let pointer = match self {
            Family::Tool => "/content/0/text",
            Family::Resource => "/contents/0/text",
            Family::Prompt => "/messages/0/content/text",
        };
        json_in(result.pointer(pointer).unwrap_or(&Value::Null))
    }

    /// Runs the flow and checks its final result and its JSON text.
    async fn completes(self, s: &Session, server: Server, text: Value) {
        let result = self
            .run(s)
            .await
            .unwrap_or_else(|e| panic!("{self:?} on {server:?}: {e}"));
        assert_matches(&result, &self.final_result(server));
        assert_eq!(self.text(&result), text, "{self:?} on {server:?}");
    }
}

const COLOR_SCHEMA: &str = r#"{"type":"object","properties":{"color":{"type":"string","minLength":1}},"required":["color"]}"#;
const STYLE_SCHEMA: &str = r#"{"type":"object","properties":{"style":{"type":"string","minLength":1}},"required":["style"]}"#;
const LABEL_SCHEMA: &str = r#"{"type":"object","properties":{"label":{"type":"string","minLength":1}},"required":["label"]}"#;
const PREVIEW_URL: &str = "https://example.com/preferences/preview";
const SUGGESTION_SAMPLING: &str = r#"{"messages":[{"role":"user","content":{"type":"text","text":"Suggest one color for a read-only display preview. Answer with the color's name only."}}],"maxTokens":16}"#;

fn form_caps() -> Value {
    json!({"elicitation": {"form": {}}})
}

fn schema(text: &str) -> Value {
    serde_json::from_str(text).expect("a schema")
}

fn asked_color() -> Asked {
    Asked::Form {
        message: "Choose a color for a read-only preview".into(),
        schema: schema(COLOR_SCHEMA),
    }
}

fn asked_style() -> Asked {
    Asked::Form {
        message: "Choose a style for a read-only preview".into(),
        schema: schema(STYLE_SCHEMA),
    }
}

fn asked_label() -> Asked {
    Asked::Form {
        message: "Name this preview".into(),
        schema: schema(LABEL_SCHEMA),
    }
}

fn asked_url() -> Asked {
    Asked::Url {
        message: "Open the preview page to continue".into(),
        url: PREVIEW_URL.into(),
    }
}

fn form_request(message: &str, schema_text: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {"mode": "form", "message": message, "requestedSchema": schema(schema_text)}
    })
}

fn accepted(field: &str, value: &str) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

fn preview() -> Value {
    json!({"color": "teal", "style": "bold", "status": "preview"})
}

fn status(action: &str) -> Value {
    json!({"status": action})
}

/// `input_required` asking `key` with `request`, with sealed state (`state`) or without.
fn asks(server: Server, key: &str, request: Value, state: bool) -> Value {
    let mut result = json!({
        "resultType": "input_required",
        "inputRequests": {key: request},
        "_meta": server.meta()
    });
    if state {
        result["requestState"] = json!(ANY_STRING);
    }
    result
}

/// The -32021 error the client reports when the server needs `required`.
#[track_caller]
fn assert_missing_capability(outcome: Result<Value, ClientError>, required: Value) {
    match outcome {
        Err(ClientError::Server {
            code: -32021,
            message,
            data: Some(data),
        }) => {
            assert!(!message.is_empty());
            assert_eq!(data, json!({"requiredCapabilities": required}));
        }
        other => panic!("expected -32021 requiring {required}, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// The three families
// ---------------------------------------------------------------------------------------

/// Three legs, each a fresh request: the first without state, the second and third each
/// echoing the state of the reply before them (two different states), each answering only
/// the question of the reply before it; the handler asked color, then style.
async fn three_legs(transport: Transport, server: Server, family: Family) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    family.completes(&s, server, preview()).await;
    assert_eq!(log.take(), [asked_color(), asked_style()]);

    let legs = s.sent();
    assert_retries(
        &legs,
        &[
            json!({"color": accepted("color", "teal")}),
            json!({"style": accepted("style", "bold")}),
        ],
    );
    let mut first = legs[0].params().clone();
    first.as_object_mut().expect("params").remove("_meta");
    assert_eq!(first, family.params());
    assert!(legs.iter().all(|leg| leg.method() == family.method()));
    assert_matches(
        legs[0].result(),
        &asks(
            server,
            "color",
            form_request("Choose a color for a read-only preview", COLOR_SCHEMA),
            true,
        ),
    );
    assert_matches(
        legs[1].result(),
        &asks(
            server,
            "style",
            form_request("Choose a style for a read-only preview", STYLE_SCHEMA),
            true,
        ),
    );
    let (second, third) = (legs[1].state(), legs[2].state());
    assert!(second.is_some() && third.is_some());
    assert_ne!(second, third, "each leg carries the state it was given");
    s.finish(form_caps()).await;
}

/// One client runs the three families one after the other: nine requests, nine ids.
async fn one_session(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    for family in FAMILIES {
        family.completes(&s, server, preview()).await;
    }
    assert_eq!(log.take().len(), 6);
    let methods: Vec<String> = s.sent().iter().map(|m| m.method().to_owned()).collect();
    assert_eq!(
        methods,
        [
            "tools/call",
            "tools/call",
            "tools/call",
            "resources/read",
            "resources/read",
            "resources/read",
            "prompts/get",
            "prompts/get",
            "prompts/get"
        ]
    );
    s.finish(form_caps()).await;
}

// ---------------------------------------------------------------------------------------
// reset_preview and url_preview
// ---------------------------------------------------------------------------------------

/// A state-only result is retried at once with its state and no answers; the next result
/// asks without state, so the retry after it carries none.
async fn reset_preview(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    let result = s
        .call_tool("reset_preview", json!({}))
        .await
        .expect("reset_preview completes");
    assert_matches(
        &result,
        &json!({
            "content": [{"type": "text", "text": ANY_STRING}],
            "resultType": "complete",
            "_meta": server.meta()
        }),
    );
    assert_eq!(
        first_text(&result),
        json!({"status": "accept", "stateDiscarded": true})
    );
    assert_eq!(log.take(), [asked_label()]);

    let legs = s.sent();
    assert_retries(
        &legs,
        &[Value::Null, json!({"label": accepted("label", "mine")})],
    );
    // Leg 1's reply carries only state; leg 2 keeps it and answers nothing.
    assert_matches(
        legs[0].result(),
        &json!({"resultType": "input_required", "requestState": ANY_STRING, "_meta": server.meta()}),
    );
    assert!(legs[1].state().is_some());
    assert!(legs[1].responses().is_none(), "{}", legs[1].raw);
    // Leg 2's reply asks without state; leg 3 drops the state.
    assert_matches(
        legs[1].result(),
        &asks(
            server,
            "label",
            form_request("Name this preview", LABEL_SCHEMA),
            false,
        ),
    );
    assert!(legs[2].state().is_none(), "{}", legs[2].raw);
    s.finish(form_caps()).await;
}

/// URL consent is an `accept` without content, and the flow reports it as consent with the
/// external step still pending.
async fn url_consent(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers::forms(fill).with_url(ElicitResult::consent());
    let s = connect(&server.launch(), transport, answers.builder(&log));
    let result = s
        .call_tool("url_preview", json!({}))
        .await
        .expect("url_preview completes");
    assert_eq!(
        first_text(&result),
        json!({"consent": "accept", "externalStatus": "pending"})
    );
    assert_eq!(log.take(), [asked_url()]);
    let legs = s.sent();
    assert_retries(&legs, &[json!({"consent": {"action": "accept"}})]);
    assert_matches(
        legs[0].result(),
        &asks(
            server,
            "consent",
            json!({
                "method": "elicitation/create",
                "params": {"mode": "url", "message": "Open the preview page to continue", "url": PREVIEW_URL}
            }),
            false,
        ),
    );
    s.finish(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
}

// ---------------------------------------------------------------------------------------
// Declined and cancelled answers
// ---------------------------------------------------------------------------------------

/// A declined color ends every family after two legs with `{"status":"decline"}`; a
/// declined URL is reported as such.
async fn declined(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers::forms(decline).with_url(ElicitResult::decline());
    let s = connect(&server.launch(), transport, answers.builder(&log));
    for family in FAMILIES {
        let mark = s.mark();
        family.completes(&s, server, status("decline")).await;
        assert_eq!(log.take(), [asked_color()]);
        assert_retries(
            &s.sent_since(mark),
            &[json!({"color": {"action": "decline"}})],
        );
    }
    let mark = s.mark();
    let result = s.call_tool("url_preview", json!({})).await.expect("done");
    assert_eq!(
        first_text(&result),
        json!({"consent": "decline", "externalStatus": "pending"})
    );
    assert_retries(
        &s.sent_since(mark),
        &[json!({"consent": {"action": "decline"}})],
    );
    s.finish(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
}

/// Accepts the color, cancels the style.
fn cancel_style(form: &FormRequest) -> ElicitResult {
    if form.requested_schema["properties"].get("style").is_some() {
        ElicitResult::cancel()
    } else {
        fill(form)
    }
}

/// A cancelled style ends every family after three legs with `{"status":"cancel"}`; a
/// cancelled URL is reported as such.
async fn cancelled(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers::forms(cancel_style).with_url(ElicitResult::cancel());
    let s = connect(&server.launch(), transport, answers.builder(&log));
    for family in FAMILIES {
        let mark = s.mark();
        family.completes(&s, server, status("cancel")).await;
        assert_eq!(log.take(), [asked_color(), asked_style()]);
        assert_retries(
            &s.sent_since(mark),
            &[
                json!({"color": accepted("color", "teal")}),
                json!({"style": {"action": "cancel"}}),
            ],
        );
    }
    let mark = s.mark();
    let result = s.call_tool("url_preview", json!({})).await.expect("done");
    assert_eq!(
        first_text(&result),
        json!({"consent": "cancel", "externalStatus": "pending"})
    );
    assert_retries(
        &s.sent_since(mark),
        &[json!({"consent": {"action": "cancel"}})],
    );
    s.finish(json!({"elicitation": {"form": {}, "url": {}}}))
        .await;
}

// ---------------------------------------------------------------------------------------
// Capabilities follow the installed handlers
// ---------------------------------------------------------------------------------------

/// Without handlers the client declares nothing, and the server refuses every question with
/// -32021 naming the form capability, in one leg (the state-only first leg of
/// `reset_preview` needs no capability, so its refusal comes on the second).
async fn no_form_handler(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(&server.launch(), transport, Answers::none().builder(&log));
    assert!(s.capabilities().is_empty());
    for family in FAMILIES {
        let mark = s.mark();
        assert_missing_capability(family.run(&s).await, json!({"elicitation": {"form": {}}}));
        assert_eq!(s.sent_since(mark).len(), 1, "{family:?}: one leg");
    }
    let mark = s.mark();
    assert_missing_capability(
        s.call_tool("reset_preview", json!({})).await,
        json!({"elicitation": {"form": {}}}),
    );
    let legs = s.sent_since(mark);
    assert_eq!(legs.len(), 2);
    assert!(legs[1].state().is_some() && legs[1].responses().is_none());
    let mark = s.mark();
    assert_missing_capability(
        s.call_tool("url_preview", json!({})).await,
        json!({"elicitation": {"url": {}}}),
    );
    assert_eq!(s.sent_since(mark).len(), 1);
    assert!(log.take().is_empty(), "no handler was installed, none ran");
    s.finish(json!({})).await;
}

/// With a form handler only, the client declares form elicitation only, and the URL flow is
/// refused with -32021 naming the URL capability.
async fn no_url_handler(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    assert_missing_capability(
        s.call_tool("url_preview", json!({})).await,
        json!({"elicitation": {"url": {}}}),
    );
    assert_eq!(s.sent().len(), 1);
    assert!(log.take().is_empty());
    // The form flows still work with the same client.
    Family::Tool.completes(&s, server, preview()).await;
    s.finish(form_caps()).await;
}

// ---------------------------------------------------------------------------------------
// Negative cases
// ---------------------------------------------------------------------------------------

/// The client sends only state a server gave it, so state from one operation cannot be
/// replayed with other arguments through it: `request` refuses params that carry
/// `requestState` or `inputResponses` before sending anything, and the same operation
/// without them starts from its first leg, answered by the handlers. (The server's -32602
/// for replayed state is checked by the literal suites and the TypeScript interop.)
async fn replayed_state(transport: Transport, server: Server) {
    let log = Log::new();
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    Family::Tool.completes(&s, server, preview()).await;
    let state = s.sent()[0].result()["requestState"]
        .as_str()
        .expect("leg 1 carries state")
        .to_owned();
    log.take();
    let mark = s.mark();
    let replayed = s
        .request(
            "tools/call",
            json!({
                "name": "preference_preview",
                "arguments": {"subject": "another lamp"},
                "requestState": state,
                "inputResponses": {"color": accepted("color", "teal")}
            }),
        )
        .await;
    assert!(
        matches!(replayed, Err(ClientError::InvalidParams(_))),
        "{replayed:?}"
    );
    assert!(s.sent_since(mark).is_empty(), "nothing was sent");
    let result = s
        .request(
            "tools/call",
            json!({"name": "preference_preview", "arguments": {"subject": "another lamp"}}),
        )
        .await
        .expect("a fresh flow completes");
    assert_eq!(first_text(&result), preview());
    assert_eq!(log.take(), [asked_color(), asked_style()]);
    let legs = s.sent_since(mark);
    assert_retries(
        &legs,
        &[
            json!({"color": accepted("color", "teal")}),
            json!({"style": accepted("style", "bold")}),
        ],
    );
    assert!(legs.iter().all(|leg| leg.state() != Some(state.as_str())));
    s.finish(form_caps()).await;
}

/// With two rounds for a three-leg flow the client stops after the second leg, whose
/// question it leaves unanswered: `ExhaustedRounds`, distinct from every server error.
async fn too_few_rounds(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers::forms(fill).max_rounds(2);
    let s = connect(&server.launch(), transport, answers.builder(&log));
    match Family::Tool.run(&s).await {
        Err(ClientError::ExhaustedRounds { rounds: 2 }) => {}
        other => panic!("expected ExhaustedRounds after 2, got {other:?}"),
    }
    assert_eq!(log.take(), [asked_color()]);
    let legs = s.sent();
    assert_eq!(legs.len(), 2);
    assert_eq!(
        legs[1].responses(),
        Some(&json!({"color": accepted("color", "teal")}))
    );
    assert_eq!(legs[1].result()["resultType"], "input_required");
    s.finish(form_caps()).await;

    // Three rounds are enough.
    let s = connect(
        &server.launch(),
        transport,
        Answers::forms(fill).max_rounds(3).builder(&log),
    );
    Family::Tool.completes(&s, server, preview()).await;
    s.finish(form_caps()).await;
}

/// A handler that fails stops the operation with `Handler`, and nothing more is sent.
async fn failing_handler(transport: Transport, server: Server) {
    let log = Log::new();
    let answers = Answers {
        failing_form: Some("the user closed the window"),
        ..Answers::none()
    };
    let s = connect(&server.launch(), transport, answers.builder(&log));
    match Family::Resource.run(&s).await {
        Err(ClientError::Handler {
            kind: InputKind::Form,
            message,
        }) => assert_eq!(message, "the user closed the window"),
        other => panic!("expected a handler failure, got {other:?}"),
    }
    assert_eq!(log.take(), [asked_color()]);
    assert_eq!(s.sent().len(), 1);
    s.finish(form_caps()).await;
}

// ---------------------------------------------------------------------------------------
// Sampling, roots and all three kinds (the example only)
// ---------------------------------------------------------------------------------------

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

async fn sampling_preview(transport: Transport) {
    let log = Log::new();
    let answers = Answers {
        sampling: Some(snodo_tests::client_harness::sampled()),
        ..Answers::none()
    };
    let s = connect(&Server::Example.launch(), transport, answers.builder(&log));
    let result = s
        .call_tool("sampling_preview", json!({}))
        .await
        .expect("sampling_preview completes");
    assert_eq!(
        first_text(&result),
        json!({"suggestion": "teal", "model": "model-x", "status": "preview"})
    );
    assert_eq!(log.take(), [Asked::Sampling(schema(SUGGESTION_SAMPLING))]);
    let legs = s.sent();
    assert_retries(&legs, &[json!({"suggestion": sampled_answer()})]);
    assert_matches(
        legs[0].result(),
        &asks(
            Server::Example,
            "suggestion",
            json!({"method": "sampling/createMessage", "params": schema(SUGGESTION_SAMPLING)}),
            false,
        ),
    );
    s.finish(json!({"sampling": {}})).await;
}

async fn roots_preview(transport: Transport) {
    let log = Log::new();
    let answers = Answers {
        roots: Some(snodo_tests::client_harness::roots()),
        ..Answers::none()
    };
    let s = connect(&Server::Example.launch(), transport, answers.builder(&log));
    let result = s
        .call_tool("roots_preview", json!({}))
        .await
        .expect("roots_preview completes");
    assert_eq!(
        first_text(&result),
        json!({
            "rootCount": 2,
            "roots": ["file:///home/ada/project", "file:///tmp"],
            "status": "preview"
        })
    );
    assert_eq!(log.take(), [Asked::Roots(json!({}))]);
    let legs = s.sent();
    assert_retries(&legs, &[json!({"roots": roots_answer()})]);
    assert_matches(
        legs[0].result(),
        &asks(
            Server::Example,
            "roots",
            json!({"method": "roots/list", "params": {}}),
            false,
        ),
    );
    s.finish(json!({"roots": {}})).await;
}

fn all_caps() -> Value {
    json!({
        "elicitation": {"form": {}, "url": {}},
        "sampling": {},
        "roots": {}
    })
}

/// One result asks for a form, a sampled message and the roots, with sealed state: the
/// client asks each handler in the order of the requests and answers all three at once.
async fn combined_preview(transport: Transport) {
    let log = Log::new();
    let s = connect(
        &Server::Example.launch(),
        transport,
        Answers::all().builder(&log),
    );
    let result = s
        .call_tool("combined_preview", json!({}))
        .await
        .expect("combined_preview completes");
    assert_eq!(
        first_text(&result),
        json!({"color": "teal", "suggestion": "teal", "rootCount": 2, "status": "preview"})
    );
    assert_eq!(
        log.take(),
        [
            asked_color(),
            Asked::Sampling(schema(SUGGESTION_SAMPLING)),
            Asked::Roots(json!({}))
        ]
    );
    let legs = s.sent();
    assert_retries(
        &legs,
        &[json!({
            "color": accepted("color", "teal"),
            "suggestion": sampled_answer(),
            "roots": roots_answer()
        })],
    );
    assert_matches(
        legs[0].result(),
        &json!({
            "resultType": "input_required",
            "inputRequests": {
                "color": form_request("Choose a color for a read-only preview", COLOR_SCHEMA),
                "suggestion": {"method": "sampling/createMessage", "params": schema(SUGGESTION_SAMPLING)},
                "roots": {"method": "roots/list", "params": {}}
            },
            "requestState": ANY_STRING,
            "_meta": Server::Example.meta()
        }),
    );
    s.finish(all_caps()).await;
}

async fn combined_declined(transport: Transport) {
    let log = Log::new();
    let answers = Answers::all().with_form(decline);
    let s = connect(&Server::Example.launch(), transport, answers.builder(&log));
    let result = s
        .call_tool("combined_preview", json!({}))
        .await
        .expect("a declined combined_preview completes");
    assert_eq!(first_text(&result), status("decline"));
    assert_eq!(
        log.take().len(),
        3,
        "every request of the round is answered"
    );
    assert_retries(
        &s.sent(),
        &[json!({
            "color": {"action": "decline"},
            "suggestion": sampled_answer(),
            "roots": roots_answer()
        })],
    );
    s.finish(all_caps()).await;
}

/// Each missing handler is a missing capability the server names, before any handler runs.
async fn combined_needs_every_kind(transport: Transport) {
    let cases = [
        (
            Answers::all().without_roots(),
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}}),
            json!({"roots": {}}),
        ),
        (
            Answers::all().without_sampling().without_url(),
            json!({"elicitation": {"form": {}}, "roots": {}}),
            json!({"sampling": {}}),
        ),
        (
            Answers::forms(fill),
            form_caps(),
            json!({"sampling": {}, "roots": {}}),
        ),
    ];
    for (answers, declared, required) in cases {
        let log = Log::new();
        let s = connect(&Server::Example.launch(), transport, answers.builder(&log));
        assert_missing_capability(s.call_tool("combined_preview", json!({})).await, required);
        assert_eq!(s.sent().len(), 1);
        assert!(log.take().is_empty());
        s.finish(declared).await;
    }
    // Sampling and roots alone, without their handlers.
    let log = Log::new();
    let s = connect(
        &Server::Example.launch(),
        transport,
        Answers::forms(fill).builder(&log),
    );
    assert_missing_capability(
        s.call_tool("sampling_preview", json!({})).await,
        json!({"sampling": {}}),
    );
    assert_missing_capability(
        s.call_tool("roots_preview", json!({})).await,
        json!({"roots": {}}),
    );
    s.finish(form_caps()).await;
}
