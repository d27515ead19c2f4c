//! MRTR rules the preference flow does not reach, against the MRTR fixture application
//! (`snodo_tests::mrtr_fixture`), one body per test, run over every boundary (direct, stdio,
//! HTTP) by [`fixture_tests!`] in `mrtr_fixture.rs`: several inputs at once, sampling and
//! roots round trips and malformed answers, one result asking all three kinds with signed
//! partial progress, asking only for what the client declared, the exact -32021 shapes,
//! final-output validation after an `input_required` round, placement, the three ways a
//! handler fails after a retry, and what a handler sees of its arguments.
//!
//! Expected values are written out from the 2026-07-28 specification, the seed and the
//! fixture's own definitions; messages the specification leaves to the server match any
//! string. Every boundary serves the fixture with the fixtures' identity
//! (`snodo_tests::fixture::config`), so the expected `serverInfo` is the same everywhere.

use serde_json::{Value, json};
use snodo_tests::boundary::{Boundary, HANDLER_RUNS, StateKeys, Target};
use snodo_tests::harness::{ANY_STRING, cacheable, complete, error, matches};
use snodo_tests::mrtr_fixture::{
    PLAIN_STATE, SECRET, accept, all_caps, answer, forge_state, form_caps, form_request,
    input_required, invalid_state, missing_capability, parse_text, retry, roots_answer,
    roots_request, sampled, sampling_request, send, state_of,
};

/// Instantiates every test of this suite as a `#[test]` running on `$target` (a [`Target`]).
macro_rules! fixture_tests {
    ($target:expr) => {
        $crate::suite::fixture_tests!(@each $target;
            several_inputs_are_asked_at_once_and_answered_partially,
            several_inputs_answered_together_finish_at_once,
            partial_answers_survive_fresh_servers,
            several_inputs_repeat_until_answered,
            a_refused_input_ends_the_trip_with_its_status,
            a_malformed_answer_among_several_is_invalid_params,
            trip_state_is_bound_to_the_traveller_and_the_tool,
            sampling_round_trip,
            sampling_requests_are_sent_as_built,
            sampling_answers_with_more_content_and_unknown_fields_are_accepted,
            malformed_sampling_answers_are_invalid_params,
            roots_round_trip,
            malformed_roots_answers_are_invalid_params,
            roots_and_sampling_in_a_resource_and_a_prompt,
            one_result_asks_all_three_kinds_and_keeps_partial_progress,
            three_kinds_answered_at_once_finish_at_once,
            a_mixed_result_names_every_missing_capability,
            capabilities_dropped_mid_flow_refuse_what_is_still_asked,
            a_client_that_declares_nothing_is_asked_nothing,
            only_declared_kinds_are_asked,
            missing_capability_shapes,
            input_required_skips_output_validation_and_the_final_result_is_validated,
            a_completion_cannot_return_input_required,
            an_empty_or_duplicated_input_required_is_a_server_error,
            a_plain_application_state_is_sent_and_echoed_as_is,
            handler_failures_after_a_retry_keep_their_kind,
            resource_and_prompt_failures_after_a_retry_are_json_rpc_errors,
            arguments_never_gain_the_retry_fields,
            malformed_envelopes_never_reach_a_fixture_handler,
        );
    };
    (@each $target:expr; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::suite::$name(&$target);
            }
        )+
    };
}
pub(crate) use fixture_tests;

/// The name under which the direct boundary reports how often a fixture handler found a
/// retry field among its arguments.
pub const ARGUMENT_LEAKS: &str = "argument leaks";

pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// A value that must never be echoed back in an error.
pub const SENTINEL: &str = "zq-sentinel-51c2";

/// Asserts a counter of the application, where the boundary can see it.
#[track_caller]
fn assert_counter(b: &dyn Boundary, name: &str, expected: usize) {
    if let Some(n) = b.counter(name) {
        assert_eq!(n, expected, "{}: {name}", b.name());
    }
}

#[track_caller]
pub fn expect(actual: Option<Value>, expected: &Value) -> Value {
    let actual = actual.unwrap_or_else(|| panic!("no reply; expected {expected:#}"));
    assert!(
        matches(&actual, expected),
        "reply does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
    actual
}

/// Asserts a complete tool result with one text block whose JSON is `text`.
#[track_caller]
fn expect_json_text(actual: Option<Value>, id: i64, text: Value) {
    let actual = expect(
        actual,
        &complete(
            id,
            json!({"content": [{"type": "text", "text": ANY_STRING}]}),
        ),
    );
    assert_eq!(
        parse_text(&actual["result"]["content"][0]["text"]),
        text,
        "{actual:#}"
    );
}

/// Asserts a JSON-RPC error with `code` that does not contain [`SENTINEL`].
#[track_caller]
fn expect_error_without_echo(actual: Option<Value>, id: i64, code: i64) {
    let actual = expect(actual, &error(id, code));
    assert!(!actual.to_string().contains(SENTINEL), "echoed: {actual}");
}

pub fn tool(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

// ---------------------------------------------------------------------------------------
// Expected input requests, from the fixture's definitions
// ---------------------------------------------------------------------------------------

fn city_form(message: &str) -> Value {
    form_request(
        message,
        json!({
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 1}},
            "required": ["city"]
        }),
    )
}

fn origin() -> Value {
    city_form("Where do you leave from?")
}

fn destination() -> Value {
    city_form("Where are you going?")
}

fn date() -> Value {
    form_request(
        "When do you leave?",
        json!({
            "type": "object",
            "properties": {"day": {"type": "string", "format": "date"}},
            "required": ["day"]
        }),
    )
}

fn approval() -> Value {
    form_request(
        "Approve the audit?",
        json!({
            "type": "object",
            "properties": {"approve": {"type": "boolean"}},
            "required": ["approve"]
        }),
    )
}

fn name_form() -> Value {
    form_request(
        "What is your name?",
        json!({
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 20}},
            "required": ["name"]
        }),
    )
}

fn go_form(message: &str) -> Value {
    form_request(
        message,
        json!({"type": "object", "properties": {"note": {"type": "string"}}}),
    )
}

fn user_message() -> Value {
    json!([{
        "role": "user",
        "content": {"type": "text", "text": "Summarize the release notes in one sentence"}
    }])
}

pub fn plain_sampling() -> Value {
    sampling_request(json!({"messages": user_message(), "maxTokens": 60}))
}

// ---------------------------------------------------------------------------------------
// Several inputs at once, partial answers in sealed state
// ---------------------------------------------------------------------------------------

fn trip() -> Value {
    tool("book_trip", json!({"traveller": "Ada"}))
}

fn trip_leg(id: i64, state: Option<&str>, responses: Option<Value>) -> String {
    send(
        id,
        "tools/call",
        retry(trip(), state, responses),
        form_caps(),
    )
}

fn asks_trip(id: i64, requests: Value) -> Value {
    input_required(
        id,
        json!({"inputRequests": requests, "requestState": ANY_STRING}),
    )
}

fn trip_done() -> Value {
    json!({"traveller": "Ada", "origin": "Oslo", "destination": "Rome", "date": "2026-09-01"})
}

pub fn several_inputs_are_asked_at_once_and_answered_partially(t: &Target) {
    let mut b = t.start();
    let leg1 = b.round(&trip_leg(1, None, None));
    let s1 = state_of(&expect(
        leg1,
        &asks_trip(
            1,
            json!({"origin": origin(), "destination": destination(), "date": date()}),
        ),
    ));
    // Only the origin: the other two are asked again, the origin travels in sealed state.
    let leg2 = b.round(&trip_leg(
        2,
        Some(&s1),
        Some(json!({"origin": accept(json!({"city": "Oslo"}))})),
    ));
    let s2 = state_of(&expect(
        leg2,
        &asks_trip(2, json!({"destination": destination(), "date": date()})),
    ));
    // The destination; and a different origin, which the kept answer wins over.
    let leg3 = b.round(&trip_leg(
        3,
        Some(&s2),
        Some(json!({
            "destination": accept(json!({"city": "Rome"})),
            "origin": accept(json!({"city": "Paris"}))
        })),
    ));
    let s3 = state_of(&expect(leg3, &asks_trip(3, json!({"date": date()}))));
    assert_ne!(s2, s3);
    let leg4 = b.round(&trip_leg(
        4,
        Some(&s3),
        Some(json!({"date": accept(json!({"day": "2026-09-01"}))})),
    ));
    expect_json_text(leg4, 4, trip_done());
}

pub fn several_inputs_answered_together_finish_at_once(t: &Target) {
    let mut b = t.start();
    let s1 = state_of(&b.round(&trip_leg(1, None, None)).unwrap());
    let all = json!({
        "origin": accept(json!({"city": "Oslo"})),
        "destination": accept(json!({"city": "Rome"})),
        "date": accept(json!({"day": "2026-09-01"})),
        "hotel": {"stars": 5},
        "unasked": {"action": "not even an action"}
    });
    expect_json_text(b.round(&trip_leg(2, Some(&s1), Some(all))), 2, trip_done());
}

/// Runs one round on a server that lives for that round only, sealing with the suite's
/// secret as a fresh process configured with it would.
fn on_fresh_server(t: &Target, input: &str) -> Option<Value> {
    t.start_with(&StateKeys::Secret(SECRET)).round(input)
}

pub fn partial_answers_survive_fresh_servers(t: &Target) {
    let s1 = state_of(&on_fresh_server(t, &trip_leg(1, None, None)).unwrap());
    let leg2 = on_fresh_server(
        t,
        &trip_leg(
            2,
            Some(&s1),
            Some(json!({
                "origin": accept(json!({"city": "Oslo"})),
                "date": accept(json!({"day": "2026-09-01"}))
            })),
        ),
    );
    let s2 = state_of(&expect(
        leg2,
        &asks_trip(2, json!({"destination": destination()})),
    ));
    let leg3 = on_fresh_server(
        t,
        &trip_leg(
            3,
            Some(&s2),
            Some(json!({"destination": accept(json!({"city": "Rome"}))})),
        ),
    );
    expect_json_text(leg3, 3, trip_done());
}

pub fn several_inputs_repeat_until_answered(t: &Target) {
    let mut b = t.start();
    let all_three = json!({"origin": origin(), "destination": destination(), "date": date()});
    let mut state = state_of(&b.round(&trip_leg(1, None, None)).unwrap());
    for id in 2..5 {
        let reply = b.round(&trip_leg(id, Some(&state), Some(json!({}))));
        state = state_of(&expect(reply, &asks_trip(id, all_three.clone())));
    }
}

pub fn a_refused_input_ends_the_trip_with_its_status(t: &Target) {
    for action in ["decline", "cancel"] {
        let mut b = t.start();
        let s1 = state_of(&b.round(&trip_leg(1, None, None)).unwrap());
        let reply = b.round(&trip_leg(
            2,
            Some(&s1),
            Some(json!({"origin": accept(json!({"city": "Oslo"})), "date": answer(action)})),
        ));
        expect_json_text(reply, 2, json!({"status": action}));
    }
}

pub fn a_malformed_answer_among_several_is_invalid_params(t: &Target) {
    let mut b = t.start();
    let s1 = state_of(&b.round(&trip_leg(1, None, None)).unwrap());
    for (i, bad) in [
        json!({"date": accept(json!({"day": SENTINEL}))}),
        json!({"date": accept(json!({"day": "2026-13-01"}))}),
        json!({"date": accept(json!({"day": 20260901}))}),
        json!({"destination": accept(json!({"city": ""}))}),
        json!({"origin": accept(json!({"town": SENTINEL}))}),
        json!({"origin": {"action": SENTINEL}}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = 10 + i as i64;
        // The other answers are fine; one is not.
        let mut responses = json!({
            "origin": accept(json!({"city": "Oslo"})),
            "destination": accept(json!({"city": "Rome"})),
            "date": accept(json!({"day": "2026-09-01"}))
        });
        for (key, value) in bad.as_object().unwrap() {
            responses[key] = value.clone();
        }
        expect_error_without_echo(
            b.round(&trip_leg(id, Some(&s1), Some(responses))),
            id,
            INVALID_PARAMS,
        );
    }
}

pub fn trip_state_is_bound_to_the_traveller_and_the_tool(t: &Target) {
    let mut b = t.start();
    let s1 = state_of(&b.round(&trip_leg(1, None, None)).unwrap());
    let leg2 = b.round(&trip_leg(
        2,
        Some(&s1),
        Some(json!({"origin": accept(json!({"city": "Oslo"}))})),
    ));
    let s2 = state_of(&leg2.unwrap());
    let other_traveller = send(
        3,
        "tools/call",
        retry(
            tool("book_trip", json!({"traveller": "Grace"})),
            Some(&s2),
            None,
        ),
        form_caps(),
    );
    expect(b.round(&other_traveller), &invalid_state(3));
    let other_tool = send(
        4,
        "tools/call",
        retry(tool("audit", json!({})), Some(&s2), None),
        all_caps(),
    );
    expect(b.round(&other_tool), &invalid_state(4));
    // The kept origin forged into another city.
    let forged = forge_state(&s2, |p| p["data"]["origin"] = json!("Paris"));
    expect(
        b.round(&trip_leg(5, Some(&forged), None)),
        &invalid_state(5),
    );
}

// ---------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------

fn summarize(variant: &str) -> Value {
    tool("summarize", json!({"variant": variant}))
}

pub fn sampling_round_trip(t: &Target) {
    let mut b = t.start();
    let caps = json!({"sampling": {}});
    let leg1 = b.round(&send(1, "tools/call", summarize("plain"), caps.clone()));
    expect(
        leg1,
        &input_required(1, json!({"inputRequests": {"summary": plain_sampling()}})),
    );
    let leg2 = b.round(&send(
        2,
        "tools/call",
        retry(
            summarize("plain"),
            None,
            Some(json!({"summary": sampled("Fixes and speedups.", "model-x")})),
        ),
        caps,
    ));
    expect_json_text(
        leg2,
        2,
        json!({"summary": "Fixes and speedups.", "model": "model-x"}),
    );
}

pub fn sampling_requests_are_sent_as_built(t: &Target) {
    let mut b = t.start();
    let message = user_message();
    for (id, variant, params) in [
        (
            1,
            "tools",
            json!({
                "messages": message,
                "maxTokens": 60,
                "tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]
            }),
        ),
        (
            2,
            "tool_choice",
            json!({"messages": message, "maxTokens": 60, "toolChoice": {"mode": "none"}}),
        ),
        (
            3,
            "context",
            json!({"messages": message, "maxTokens": 60, "includeContext": "thisServer"}),
        ),
        (
            4,
            "no_context",
            json!({"messages": message, "maxTokens": 60, "includeContext": "none"}),
        ),
    ] {
        let reply = b.round(&send(id, "tools/call", summarize(variant), all_caps()));
        expect(
            reply,
            &input_required(
                id,
                json!({"inputRequests": {"summary": sampling_request(params)}}),
            ),
        );
    }
}

pub fn sampling_answers_with_more_content_and_unknown_fields_are_accepted(t: &Target) {
    let mut b = t.start();
    let answers = [
        // No stopReason, an unknown field.
        json!({"role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m", "x": 1}),
        // An image block (not a single text block: the fixture reports no summary text).
        json!({"role": "assistant", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, "model": "m"}),
        // An array of blocks.
        json!({"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "model": "m", "stopReason": "maxTokens"}),
    ];
    let expected = [
        json!({"summary": "ok", "model": "m"}),
        json!({"summary": null, "model": "m"}),
        json!({"summary": null, "model": "m"}),
    ];
    for (i, (answer, expected)) in answers.into_iter().zip(expected).enumerate() {
        let id = i as i64 + 1;
        let reply = b.round(&send(
            id,
            "tools/call",
            retry(summarize("plain"), None, Some(json!({"summary": answer}))),
            json!({"sampling": {}}),
        ));
        expect_json_text(reply, id, expected);
    }
}

pub fn malformed_sampling_answers_are_invalid_params(t: &Target) {
    let mut b = t.start();
    let text = json!({"type": "text", "text": SENTINEL});
    for (i, bad) in [
        // No model.
        json!({"role": "assistant", "content": text}),
        json!({"role": "assistant", "content": text, "model": null}),
        json!({"role": "assistant", "content": text, "model": 7}),
        json!({"role": "system", "content": text, "model": "m"}),
        json!({"content": text, "model": "m"}),
        json!({"role": "assistant", "model": "m"}),
        json!({"role": "assistant", "content": SENTINEL, "model": "m"}),
        json!({"role": "assistant", "content": {"type": "text"}, "model": "m"}),
        json!({"role": "assistant", "content": {"type": SENTINEL, "text": "x"}, "model": "m"}),
        json!({"role": "assistant", "content": text, "model": "m", "stopReason": 1}),
        json!({"action": "accept", "content": {"summary": SENTINEL}}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = i as i64 + 1;
        let reply = b.round(&send(
            id,
            "tools/call",
            retry(summarize("plain"), None, Some(json!({"summary": bad}))),
            json!({"sampling": {}}),
        ));
        expect_error_without_echo(reply, id, INVALID_PARAMS);
    }
}

// ---------------------------------------------------------------------------------------
// Roots
// ---------------------------------------------------------------------------------------

pub fn roots_round_trip(t: &Target) {
    let mut b = t.start();
    let caps = json!({"roots": {"listChanged": true}});
    let leg1 = b.round(&send(
        1,
        "tools/call",
        tool("scan_roots", json!({})),
        caps.clone(),
    ));
    expect(
        leg1,
        &input_required(1, json!({"inputRequests": {"roots": roots_request()}})),
    );
    let answer = json!({"roots": [
        {"uri": "file:///home/ada/project", "name": "Project"},
        {"uri": "file:///tmp", "_meta": {}, "extra": true}
    ]});
    let leg2 = b.round(&send(
        2,
        "tools/call",
        retry(
            tool("scan_roots", json!({})),
            None,
            Some(json!({"roots": answer})),
        ),
        caps.clone(),
    ));
    expect_json_text(
        leg2,
        2,
        json!({"roots": ["file:///home/ada/project", "file:///tmp"]}),
    );
    let leg2 = b.round(&send(
        3,
        "tools/call",
        retry(
            tool("scan_roots", json!({})),
            None,
            Some(json!({"roots": roots_answer(&[])})),
        ),
        caps,
    ));
    expect_json_text(leg2, 3, json!({"roots": []}));
}

pub fn malformed_roots_answers_are_invalid_params(t: &Target) {
    let mut b = t.start();
    let sentinel_uri = format!("https://{SENTINEL}.example/");
    for (i, bad) in [
        json!({"roots": [{"uri": sentinel_uri}]}),
        json!({"roots": [{"uri": "/home/ada"}]}),
        json!({"roots": [{"uri": "file:///a"}, {"uri": format!("ftp://{SENTINEL}")}]}),
        json!({"roots": [{"name": SENTINEL}]}),
        json!({"roots": [{"uri": "file:///a", "name": 3}]}),
        json!({"roots": SENTINEL}),
        json!({"roots": {"uri": "file:///a"}}),
        json!({"root": []}),
        json!({}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = i as i64 + 1;
        let reply = b.round(&send(
            id,
            "tools/call",
            retry(
                tool("scan_roots", json!({})),
                None,
                Some(json!({"roots": bad})),
            ),
            json!({"roots": {}}),
        ));
        expect_error_without_echo(reply, id, INVALID_PARAMS);
    }
}

pub fn roots_and_sampling_in_a_resource_and_a_prompt(t: &Target) {
    let mut b = t.start();
    let read = json!({"uri": "mrtr://roots"});
    // A resource asking for roots: the input_required result carries no cache hints.
    let leg1 = b.round(&send(
        1,
        "resources/read",
        read.clone(),
        json!({"roots": {}}),
    ));
    expect(
        leg1,
        &input_required(1, json!({"inputRequests": {"roots": roots_request()}})),
    );
    let leg2 = b.round(&send(
        2,
        "resources/read",
        retry(
            read.clone(),
            None,
            Some(json!({"roots": roots_answer(&["file:///srv"])})),
        ),
        json!({"roots": {}}),
    ));
    expect(
        leg2,
        &cacheable(
            2,
            json!({"contents": [{"uri": "mrtr://roots", "mimeType": "application/json", "text": "{\"roots\":1}"}]}),
            60_000,
            "public",
        ),
    );
    expect(
        b.round(&send(3, "resources/read", read, json!({}))),
        &missing_capability(3, json!({"roots": {}})),
    );

    let get = json!({"name": "sampled_prompt"});
    let leg1 = b.round(&send(
        4,
        "prompts/get",
        get.clone(),
        json!({"sampling": {}}),
    ));
    expect(
        leg1,
        &input_required(4, json!({"inputRequests": {"draft": plain_sampling()}})),
    );
    let leg2 = b.round(&send(
        5,
        "prompts/get",
        retry(
            get.clone(),
            None,
            Some(json!({"draft": sampled("Hello there", "m")})),
        ),
        json!({"sampling": {}}),
    ));
    expect(
        leg2,
        &complete(
            5,
            json!({
                "description": "A drafted prompt",
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Use this draft:"}},
                    {"role": "assistant", "content": {"type": "text", "text": "Hello there"}}
                ]
            }),
        ),
    );
    expect(
        b.round(&send(6, "prompts/get", get, json!({"roots": {}}))),
        &missing_capability(6, json!({"sampling": {}})),
    );
}

// ---------------------------------------------------------------------------------------
// Three kinds in one result, with signed partial progress
// ---------------------------------------------------------------------------------------

fn audit_leg(id: i64, state: Option<&str>, responses: Option<Value>, caps: Value) -> String {
    send(
        id,
        "tools/call",
        retry(tool("audit", json!({})), state, responses),
        caps,
    )
}

pub fn one_result_asks_all_three_kinds_and_keeps_partial_progress(t: &Target) {
    // The last leg runs on a fresh server: this one seals with the secret that one has.
    let mut b = t.start_with(&StateKeys::Secret(SECRET));
    let leg1 = b.round(&audit_leg(1, None, None, all_caps()));
    let s1 = state_of(&expect(
        leg1,
        &input_required(
            1,
            json!({
                "inputRequests": {
                    "approval": approval(),
                    "summary": plain_sampling(),
                    "workspace": roots_request()
                },
                "requestState": ANY_STRING
            }),
        ),
    ));
    // The summary only.
    let leg2 = b.round(&audit_leg(
        2,
        Some(&s1),
        Some(json!({"summary": sampled("All clear.", "model-y")})),
        all_caps(),
    ));
    let s2 = state_of(&expect(
        leg2,
        &input_required(
            2,
            json!({
                "inputRequests": {"approval": approval(), "workspace": roots_request()},
                "requestState": ANY_STRING
            }),
        ),
    ));
    // The approval; a malformed summary no longer matters (it is kept in state, not read).
    let leg3 = b.round(&audit_leg(
        3,
        Some(&s2),
        Some(json!({
            "approval": accept(json!({"approve": true})),
            "summary": {"role": "nobody"}
        })),
        all_caps(),
    ));
    let s3 = state_of(&expect(
        leg3,
        &input_required(
            3,
            json!({"inputRequests": {"workspace": roots_request()}, "requestState": ANY_STRING}),
        ),
    ));
    // A fresh server finishes it.
    let leg4 = on_fresh_server(
        t,
        &audit_leg(
            4,
            Some(&s3),
            Some(json!({"workspace": roots_answer(&["file:///a", "file:///b"])})),
            all_caps(),
        ),
    );
    expect_json_text(
        leg4,
        4,
        json!({"approve": true, "summary": "All clear.", "roots": 2}),
    );
}

pub fn three_kinds_answered_at_once_finish_at_once(t: &Target) {
    let mut b = t.start();
    let s1 = state_of(&b.round(&audit_leg(1, None, None, all_caps())).unwrap());
    let reply = b.round(&audit_leg(
        2,
        Some(&s1),
        Some(json!({
            "approval": accept(json!({"approve": false})),
            "summary": sampled("Two issues.", "m"),
            "workspace": roots_answer(&["file:///w"])
        })),
        all_caps(),
    ));
    expect_json_text(
        reply,
        2,
        json!({"approve": false, "summary": "Two issues.", "roots": 1}),
    );
}

pub fn a_mixed_result_names_every_missing_capability(t: &Target) {
    let mut b = t.start();
    let cases = [
        (
            json!({}),
            json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}}),
        ),
        (
            json!({"elicitation": {}}),
            json!({"sampling": {}, "roots": {}}),
        ),
        (
            json!({"sampling": {}}),
            json!({"elicitation": {"form": {}}, "roots": {}}),
        ),
        (
            json!({"elicitation": {"url": {}}, "roots": {}}),
            json!({"elicitation": {"form": {}}, "sampling": {}}),
        ),
        (
            json!({"elicitation": {}, "sampling": {}}),
            json!({"roots": {}}),
        ),
    ];
    for (i, (caps, required)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        expect(
            b.round(&audit_leg(id, None, None, caps)),
            &missing_capability(id, required),
        );
    }
}

pub fn capabilities_dropped_mid_flow_refuse_what_is_still_asked(t: &Target) {
    let mut b = t.start();
    let s1 = state_of(&b.round(&audit_leg(1, None, None, all_caps())).unwrap());
    // The summary arrives, but this retry no longer declares roots: the workspace question
    // that is still needed cannot be sent.
    let reply = b.round(&audit_leg(
        2,
        Some(&s1),
        Some(json!({"summary": sampled("All clear.", "m")})),
        json!({"elicitation": {}, "sampling": {}}),
    ));
    expect(reply, &missing_capability(2, json!({"roots": {}})));
}

// ---------------------------------------------------------------------------------------
// Asking only for what the client declared
// ---------------------------------------------------------------------------------------

fn adaptive(id: i64, responses: Option<Value>, caps: Value) -> String {
    send(
        id,
        "tools/call",
        retry(tool("adaptive", json!({})), None, responses),
        caps,
    )
}

pub fn a_client_that_declares_nothing_is_asked_nothing(t: &Target) {
    let mut b = t.start();
    expect_json_text(b.round(&adaptive(1, None, json!({}))), 1, json!({}));
}

pub fn only_declared_kinds_are_asked(t: &Target) {
    let mut b = t.start();
    let cases = [
        (json!({"roots": {}}), json!({"roots": roots_request()})),
        (json!({"sampling": {}}), json!({"draft": plain_sampling()})),
        (json!({"elicitation": {"url": {}}}), json!(null)),
        (
            json!({"elicitation": {}, "sampling": {}}),
            json!({"name": name_form(), "draft": plain_sampling()}),
        ),
        (
            all_caps(),
            json!({"name": name_form(), "draft": plain_sampling(), "roots": roots_request()}),
        ),
    ];
    for (i, (caps, requests)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        let reply = b.round(&adaptive(id, None, caps));
        if requests.is_null() {
            expect_json_text(reply, id, json!({}));
        } else {
            expect(
                reply,
                &input_required(id, json!({"inputRequests": requests})),
            );
        }
    }
    let answers = json!({
        "name": accept(json!({"name": "Ada"})),
        "draft": sampled("Draft.", "m"),
        "roots": roots_answer(&["file:///x"])
    });
    expect_json_text(
        b.round(&adaptive(10, Some(answers.clone()), json!({"roots": {}}))),
        10,
        json!({"roots": 1}),
    );
    expect_json_text(
        b.round(&adaptive(11, Some(answers), all_caps())),
        11,
        json!({"name": "Ada", "draft": "Draft.", "roots": 1}),
    );
}

// ---------------------------------------------------------------------------------------
// The exact -32021 shapes
// ---------------------------------------------------------------------------------------

pub fn missing_capability_shapes(t: &Target) {
    let mut b = t.start();
    let cases = [
        // Form elicitation.
        (trip(), json!({}), json!({"elicitation": {"form": {}}})),
        (
            trip(),
            json!({"elicitation": {"url": {}}}),
            json!({"elicitation": {"form": {}}}),
        ),
        // Sampling, sampling.tools, sampling.context.
        (summarize("plain"), json!({}), json!({"sampling": {}})),
        (
            summarize("no_context"),
            json!({"roots": {}}),
            json!({"sampling": {}}),
        ),
        (
            summarize("tools"),
            json!({}),
            json!({"sampling": {"tools": {}}}),
        ),
        (
            summarize("tools"),
            json!({"sampling": {}}),
            json!({"sampling": {"tools": {}}}),
        ),
        (
            summarize("tools"),
            json!({"sampling": {"context": {}}}),
            json!({"sampling": {"tools": {}}}),
        ),
        (
            summarize("tool_choice"),
            json!({"sampling": {}}),
            json!({"sampling": {"tools": {}}}),
        ),
        (
            summarize("context"),
            json!({}),
            json!({"sampling": {"context": {}}}),
        ),
        (
            summarize("context"),
            json!({"sampling": {}}),
            json!({"sampling": {"context": {}}}),
        ),
        (
            summarize("context"),
            json!({"sampling": {"tools": {}}}),
            json!({"sampling": {"context": {}}}),
        ),
        // Roots.
        (
            tool("scan_roots", json!({})),
            json!({}),
            json!({"roots": {}}),
        ),
        (
            tool("scan_roots", json!({})),
            json!({"sampling": {}}),
            json!({"roots": {}}),
        ),
    ];
    for (i, (params, caps, required)) in cases.into_iter().enumerate() {
        let id = i as i64 + 1;
        expect(
            b.round(&send(id, "tools/call", params, caps)),
            &missing_capability(id, required),
        );
    }
    // The same requests are sent when declared.
    for (i, (params, caps)) in [
        (summarize("tools"), json!({"sampling": {"tools": {}}})),
        (summarize("tool_choice"), json!({"sampling": {"tools": {}}})),
        (summarize("context"), json!({"sampling": {"context": {}}})),
        (summarize("no_context"), json!({"sampling": {}})),
    ]
    .into_iter()
    .enumerate()
    {
        let id = 100 + i as i64;
        let reply = b.round(&send(id, "tools/call", params, caps)).unwrap();
        assert_eq!(
            reply["result"]["resultType"],
            json!("input_required"),
            "{reply}"
        );
    }
    assert_counter(&*b, HANDLER_RUNS, 17);
}

// ---------------------------------------------------------------------------------------
// Output schema: input_required skips it, the final result meets it
// ---------------------------------------------------------------------------------------

fn forecast(name: &str, id: i64, responses: Option<Value>) -> String {
    send(
        id,
        "tools/call",
        retry(tool(name, json!({})), None, responses),
        form_caps(),
    )
}

pub fn input_required_skips_output_validation_and_the_final_result_is_validated(t: &Target) {
    let mut b = t.start();
    for name in ["forecast", "broken_forecast"] {
        // No structuredContent in an input_required result, and no error for it.
        expect(
            b.round(&forecast(name, 1, None)),
            &input_required(
                1,
                json!({"inputRequests": {"city": city_form("Which city?")}}),
            ),
        );
    }
    let city = Some(json!({"city": accept(json!({"city": "Oslo"}))}));
    let reply = expect(
        b.round(&forecast("forecast", 2, city.clone())),
        &complete(
            2,
            json!({
                "structuredContent": {"city": "Oslo", "temperature": 21},
                "content": [{"type": "text", "text": ANY_STRING}]
            }),
        ),
    );
    assert_eq!(
        parse_text(&reply["result"]["content"][0]["text"]),
        json!({"city": "Oslo", "temperature": 21})
    );
    // A final result that breaks the output schema is a server error.
    expect(
        b.round(&forecast("broken_forecast", 3, city)),
        &error(3, INTERNAL_ERROR),
    );
    // A tool error result is not validated against the output schema.
    expect(
        b.round(&forecast(
            "broken_forecast",
            4,
            Some(json!({"city": answer("decline")})),
        )),
        &complete(
            4,
            json!({"content": [{"type": "text", "text": "No city, no forecast"}], "isError": true}),
        ),
    );
}

// ---------------------------------------------------------------------------------------
// Placement and shape of input_required
// ---------------------------------------------------------------------------------------

pub fn a_completion_cannot_return_input_required(t: &Target) {
    let mut b = t.start();
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "outcome_prompt"},
        "argument": {"name": "kind", "value": "t"}
    });
    for (id, caps) in [(1, json!({})), (2, all_caps())] {
        expect(
            b.round(&send(id, "completion/complete", params.clone(), caps)),
            &error(id, INTERNAL_ERROR),
        );
    }
    assert_counter(&*b, HANDLER_RUNS, 2);
}

pub fn an_empty_or_duplicated_input_required_is_a_server_error(t: &Target) {
    let mut b = t.start();
    for (id, kind) in [(1, "empty"), (2, "duplicate")] {
        expect(
            b.round(&send(
                id,
                "tools/call",
                tool("misplaced", json!({"kind": kind})),
                all_caps(),
            )),
            &error(id, INTERNAL_ERROR),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Typed errors, untyped failures and tool error results after a retry
// ---------------------------------------------------------------------------------------

fn outcome_leg(id: i64, kind: &str, responses: Option<Value>, state: Option<&str>) -> String {
    send(
        id,
        "tools/call",
        retry(tool("outcome", json!({"kind": kind})), state, responses),
        form_caps(),
    )
}

pub fn a_plain_application_state_is_sent_and_echoed_as_is(t: &Target) {
    let mut b = t.start();
    expect(
        b.round(&outcome_leg(1, "typed", None, None)),
        &input_required(
            1,
            json!({"inputRequests": {"go": go_form("Go on?")}, "requestState": PLAIN_STATE}),
        ),
    );
}

pub fn handler_failures_after_a_retry_keep_their_kind(t: &Target) {
    let mut b = t.start();
    let go = Some(json!({"go": accept(json!({}))}));
    // A typed error is a JSON-RPC error, for a tool too.
    expect(
        b.round(&outcome_leg(1, "typed", go.clone(), Some(PLAIN_STATE))),
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 4009, "message": "Outcome conflict"}}),
    );
    // An untyped failure of a tool is a tool error result.
    expect(
        b.round(&outcome_leg(2, "failure", go.clone(), Some(PLAIN_STATE))),
        &complete(
            2,
            json!({"content": [{"type": "text", "text": "Outcome unavailable"}], "isError": true}),
        ),
    );
    // So is an explicit tool error.
    expect(
        b.round(&outcome_leg(3, "tool_error", go, Some(PLAIN_STATE))),
        &complete(
            3,
            json!({"content": [{"type": "text", "text": "Outcome refused by policy"}], "isError": true}),
        ),
    );
    // An invalid answer is a JSON-RPC error, never a tool error result.
    expect_error_without_echo(
        b.round(&outcome_leg(
            4,
            "tool_error",
            Some(json!({"go": {"action": SENTINEL}})),
            Some(PLAIN_STATE),
        )),
        4,
        INVALID_PARAMS,
    );
}

pub fn resource_and_prompt_failures_after_a_retry_are_json_rpc_errors(t: &Target) {
    let mut b = t.start();
    let go = || Some(json!({"go": accept(json!({}))}));
    let cases = [
        (
            "resources/read",
            json!({"uri": "outcome://typed"}),
            4009,
            "Outcome conflict",
        ),
        (
            "resources/read",
            json!({"uri": "outcome://failure"}),
            -32603,
            "Outcome unavailable",
        ),
        (
            "prompts/get",
            json!({"name": "outcome_prompt", "arguments": {"kind": "typed"}}),
            4009,
            "Outcome conflict",
        ),
        (
            "prompts/get",
            json!({"name": "outcome_prompt", "arguments": {"kind": "failure"}}),
            -32603,
            "Outcome unavailable",
        ),
    ];
    for (i, (method, params, code, message)) in cases.into_iter().enumerate() {
        let id = 10 * (i as i64 + 1);
        expect(
            b.round(&send(id, method, params.clone(), form_caps())),
            &input_required(
                id,
                json!({"inputRequests": {"go": go_form("Go on?")}, "requestState": PLAIN_STATE}),
            ),
        );
        expect(
            b.round(&send(
                id + 1,
                method,
                retry(params, Some(PLAIN_STATE), go()),
                form_caps(),
            )),
            &json!({"jsonrpc": "2.0", "id": id + 1, "error": {"code": code, "message": message}}),
        );
    }
}

// ---------------------------------------------------------------------------------------
// What a handler sees
// ---------------------------------------------------------------------------------------

/// The handler's report with its key lists sorted (the order of keys in a JSON object is not
/// meaningful, and the test's JSON library may reorder them).
fn sorted_report(mut report: Value) -> Value {
    for list in ["argumentKeys", "responseKeys"] {
        if let Some(keys) = report[list].as_array_mut() {
            keys.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
        }
    }
    report
}

#[track_caller]
fn expect_report(actual: Option<Value>, id: i64, report: Value) {
    let actual = expect(
        actual,
        &complete(
            id,
            json!({"content": [{"type": "text", "text": ANY_STRING}]}),
        ),
    );
    let seen = parse_text(&actual["result"]["content"][0]["text"]);
    assert_eq!(sorted_report(seen), sorted_report(report), "{actual:#}");
}

pub fn arguments_never_gain_the_retry_fields(t: &Target) {
    let mut b = t.start();
    let params = tool(
        "inspect",
        json!({"q": 1, "nested": {"requestState": "mine"}}),
    );
    expect(
        b.round(&send(1, "tools/call", params.clone(), form_caps())),
        &input_required(
            1,
            json!({"inputRequests": {"ok": go_form("OK?")}, "requestState": PLAIN_STATE}),
        ),
    );
    let reply = b.round(&send(
        2,
        "tools/call",
        retry(
            params,
            Some(PLAIN_STATE),
            Some(json!({"ok": accept(json!({})), "extra": {}})),
        ),
        form_caps(),
    ));
    expect_report(
        reply,
        2,
        json!({
            "argumentKeys": ["q", "nested"],
            "responseKeys": ["ok", "extra"],
            "hasState": true,
            "method": "tools/call"
        }),
    );
    // A tool called without arguments sees none, even on a retry.
    let reply = b.round(&send(
        3,
        "tools/call",
        retry(
            json!({"name": "inspect"}),
            Some(PLAIN_STATE),
            Some(json!({"ok": answer("cancel")})),
        ),
        form_caps(),
    ));
    expect_report(
        reply,
        3,
        json!({"argumentKeys": [], "responseKeys": ["ok"], "hasState": true, "method": "tools/call"}),
    );
    // The prompt's arguments likewise.
    let params = json!({"name": "inspect_prompt", "arguments": {"topic": "t"}});
    let reply = expect(
        b.round(&send(
            4,
            "prompts/get",
            retry(
                params,
                Some(PLAIN_STATE),
                Some(json!({"ok": accept(json!({"note": "n"}))})),
            ),
            form_caps(),
        )),
        &complete(
            4,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": ANY_STRING}}]}),
        ),
    );
    assert_eq!(
        sorted_report(parse_text(
            &reply["result"]["messages"][0]["content"]["text"]
        )),
        json!({"argumentKeys": ["topic"], "responseKeys": ["ok"], "hasState": true, "method": "prompts/get"})
    );
    assert_counter(&*b, ARGUMENT_LEAKS, 0);
}

pub fn malformed_envelopes_never_reach_a_fixture_handler(t: &Target) {
    let mut b = t.start();
    let bases = [
        ("tools/call", trip()),
        ("tools/call", tool("audit", json!({}))),
        ("resources/read", json!({"uri": "mrtr://roots"})),
        ("prompts/get", json!({"name": "sampled_prompt"})),
    ];
    let mut id = 0;
    for (method, base) in bases {
        for (key, value) in [
            ("requestState", json!(1)),
            ("requestState", json!([SENTINEL])),
            ("inputResponses", json!([{"action": "accept"}])),
            ("inputResponses", json!({"summary": SENTINEL})),
            ("inputResponses", json!({"roots": [{"uri": "file:///a"}]})),
        ] {
            id += 1;
            let mut params = base.clone();
            params[key] = value;
            expect_error_without_echo(
                b.round(&send(id, method, params, all_caps())),
                id,
                INVALID_PARAMS,
            );
        }
    }
    assert_counter(&*b, HANDLER_RUNS, 0);
}
