//! The preference flow of the seed's example 20: literal MRTR rounds, one body per test, run
//! over every boundary by [`preference_tests!`] in `mrtr_preferences.rs` (the typed example
//! and the byte-level flow in-process, the example over stdio and HTTP).
//!
//! The tool `preference_preview`, the resource `preview://preferences` and the prompt
//! `preference_prompt` ask `color`, then `style` (each a form with one required string
//! property of the same name and `minLength: 1`), keeping the first answer in sealed state,
//! and finish with `{"color":…,"style":…,"status":"preview"}`; a declined or cancelled answer
//! ends with `{"status":<action>}`. `reset_preview` returns a state-only result, then an
//! input-only result asking `label` without state, then `{"status":…,"stateDiscarded":true}`.
//! `url_preview` asks for consent to an `https` URL and ends with
//! `{"consent":<action>,"externalStatus":"pending"}`.
//!
//! Every leg is a fresh request with a fresh id. Messages and the wording of errors are the
//! server's to choose and match any string; everything else is written out from the issue,
//! the seed and the 2026-07-28 specification. Each body starts the servers it needs from its
//! [`Target`]: its own keys by default, the suite's fixed secrets where a test needs several
//! servers to share (or not share) keys.

use serde_json::{Value, json};
use snodo_tests::boundary::{Boundary, HANDLER_RUNS, StateKeys, Target};
use snodo_tests::harness::{ANY_STRING, cacheable_from, complete_from, error, matches};
use snodo_tests::mrtr_fixture::{
    OTHER_SECRET, SECRET, STATE_TTL_SECS, accept, answer, forge_state, form_caps,
    input_required_from, invalid_state, meta_with, missing_capability, retry, send, state_of,
    state_payload,
};

/// Instantiates every test of this suite as a `#[test]` running on `$target` (a [`Target`]).
macro_rules! preference_tests {
    ($target:expr) => {
        $crate::suite::preference_tests!(@each $target;
            every_family_completes_in_three_legs_with_fresh_ids_and_changing_state,
            state_is_readable_not_secret_and_holds_only_the_partial_answer,
            non_ascii_answers_survive_the_state_round_trip,
            a_declined_colour_ends_every_family_with_its_status,
            a_declined_style_ends_every_family_with_its_status,
            reset_preview_goes_state_only_then_input_only_then_done,
            url_preview_consent_is_consent_not_completion,
            url_preview_needs_the_url_mode,
            state_carries_partial_answers_across_fresh_servers,
            a_server_with_another_secret_refuses_the_state,
            a_missing_answer_is_asked_again,
            extra_answer_ids_are_ignored,
            malformed_answers_are_a_generic_invalid_params_that_echoes_nothing,
            malformed_envelopes_are_refused_before_the_handler,
            tampered_state_is_refused_with_the_one_invalid_state_error,
            state_is_bound_to_its_operation_and_arguments,
            state_binding_ignores_the_id_and_the_request_meta,
            capabilities_dropped_on_a_retry_refuse_the_next_question,
            a_first_call_without_the_form_capability_is_refused,
            a_final_answer_needs_no_capability,
            input_request_methods_sent_as_requests_are_errors_and_never_run,
            state_binding_ignores_key_order_but_keeps_array_order_and_number_kind,
            escaped_answer_keys_are_read_by_their_text,
            an_escaped_echo_of_the_state_is_the_same_state,
            a_state_sealed_with_a_secret_opens_with_a_keyring_holding_it_and_back,
            unknown_fields_in_an_answer_are_tolerated,
            an_answer_sent_as_a_json_rpc_response_is_not_an_answer,
            sealing_without_configured_keys_is_a_server_error,
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
pub(crate) use preference_tests;

pub const INVALID_PARAMS: i64 = -32602;
pub const METHOD_NOT_FOUND: i64 = -32601;

/// A value that must never be echoed back in an error.
pub const SENTINEL: &str = "zq-sentinel-7f3a";

// ---------------------------------------------------------------------------------------
// The three families
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
pub enum Family {
    Tool,
    Resource,
    Prompt,
}

pub const FAMILIES: [Family; 3] = [Family::Tool, Family::Resource, Family::Prompt];

impl Family {
    pub fn method(self) -> &'static str {
        match self {
            Family::Tool => "tools/call",
            Family::Resource => "resources/read",
            Family::Prompt => "prompts/get",
        }
    }

    /// The params of the first call (and of every retry, before the retry fields).
    pub fn params(self) -> Value {
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

    /// The final result for `id` from a server whose `serverInfo` is `info`, with the flow's
    /// JSON text left open.
    pub fn final_result(self, info: &Value, id: impl Into<Value>) -> Value {
        match self {
            Family::Tool => complete_from(
                info,
                id,
                json!({"content": [{"type": "text", "text": ANY_STRING}]}),
            ),
            Family::Resource => cacheable_from(
                info,
                id,
                json!({"contents": [{
                    "uri": "preview://preferences",
                    "mimeType": "application/json",
                    "text": ANY_STRING
                }]}),
                60_000,
                "public",
            ),
            Family::Prompt => complete_from(
                info,
                id,
                json!({
                    "description": ANY_STRING,
                    "messages": [{"role": "user", "content": {"type": "text", "text": ANY_STRING}}]
                }),
            ),
        }
    }

    /// The flow's JSON text inside a final result.
    pub fn text(self, reply: &Value) -> Value {
        let pointer = match self {
            Family::Tool => "/result/content/0/text",
            Family::Resource => "/result/contents/0/text",
            Family::Prompt => "/result/messages/0/content/text",
        };
        let text = reply
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no text at {pointer}: {reply:#}"));
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }
}

/// The form asking for `name`: one required string property of that name, `minLength: 1`.
pub fn one_field_form(name: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": ANY_STRING,
            "requestedSchema": {
                "type": "object",
                "properties": {name: {"type": "string", "minLength": 1}},
                "required": [name]
            }
        }
    })
}

pub fn asks_color(info: &Value, id: i64) -> Value {
    input_required_from(
        info,
        id,
        json!({"inputRequests": {"color": one_field_form("color")}, "requestState": ANY_STRING}),
    )
}

pub fn asks_style(info: &Value, id: i64) -> Value {
    input_required_from(
        info,
        id,
        json!({"inputRequests": {"style": one_field_form("style")}, "requestState": ANY_STRING}),
    )
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

#[track_caller]
pub fn expect_final(info: &Value, family: Family, actual: Option<Value>, id: i64, text: Value) {
    let actual = expect(actual, &family.final_result(info, id));
    assert_eq!(family.text(&actual), text, "{family:?}: {actual:#}");
}

/// Asserts how often the application's handlers ran, where the boundary can see it.
#[track_caller]
pub fn assert_handler_runs(b: &dyn Boundary, expected: usize, why: &str) {
    if let Some(runs) = b.counter(HANDLER_RUNS) {
        assert_eq!(runs, expected, "{}: {why}", b.name());
    }
}

/// Leg 1 and leg 2 of a family: the states after each.
pub fn first_two_legs(b: &mut dyn Boundary, family: Family) -> (String, String) {
    let info = b.server_info().clone();
    let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    let leg2 = b.round(&send(
        2,
        family.method(),
        retry(
            family.params(),
            Some(&s1),
            Some(json!({"color": accept(json!({"color": "teal"}))})),
        ),
        form_caps(),
    ));
    let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
    (s1, s2)
}

/// The third leg of `family` answering the style `matte`, with `params` and `state`.
pub fn style_retry(id: i64, family: Family, params: Value, state: &str) -> String {
    send(
        id,
        family.method(),
        retry(
            params,
            Some(state),
            Some(json!({"style": accept(json!({"style": "matte"}))})),
        ),
        form_caps(),
    )
}

/// The final text of a flow that chose teal and matte.
pub fn teal_matte() -> Value {
    json!({"color": "teal", "style": "matte", "status": "preview"})
}

/// The current Unix time, to bracket the `iat` of a server that reads its own clock.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_secs()
}

// ---------------------------------------------------------------------------------------
// The three legs
// ---------------------------------------------------------------------------------------

pub fn every_family_completes_in_three_legs_with_fresh_ids_and_changing_state(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let (s1, s2) = first_two_legs(&mut *b, family);
        assert_ne!(s1, s2, "{family:?}: legs 2 and 3 carry different states");
        let leg3 = b.round(&style_retry(3, family, family.params(), &s2));
        expect_final(&info, family, leg3, 3, teal_matte());
        assert_handler_runs(&*b, 3, "one run per leg");
    }
}

pub fn state_is_readable_not_secret_and_holds_only_the_partial_answer(t: &Target) {
    let mut b = t.start();
    let before = unix_now();
    let (_, s2) = first_two_legs(&mut *b, Family::Tool);
    let after = unix_now();
    let payload = state_payload(&s2);
    assert_eq!(payload["data"]["color"], json!("teal"));
    let iat = payload["iat"].as_u64().expect("iat is a number");
    match b.fixed_time() {
        Some(now) => assert_eq!(iat, now),
        None => assert!(
            (before..=after).contains(&iat),
            "iat {iat} is the server's clock"
        ),
    }
    assert_eq!(
        payload["exp"],
        json!(iat + STATE_TTL_SECS),
        "the default TTL is 300 s"
    );
}

pub fn non_ascii_answers_survive_the_state_round_trip(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let family = Family::Tool;
    let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    let leg2 = b.round(&send(
        2,
        family.method(),
        retry(
            family.params(),
            Some(&s1),
            Some(json!({"color": accept(json!({"color": "bleu \"ciel\" 🌤"}))})),
        ),
        form_caps(),
    ));
    let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
    let leg3 = b.round(&send(
        3,
        family.method(),
        retry(
            family.params(),
            Some(&s2),
            Some(json!({"style": accept(json!({"style": "mat\u{e9}"}))})),
        ),
        form_caps(),
    ));
    expect_final(
        &info,
        family,
        leg3,
        3,
        json!({"color": "bleu \"ciel\" 🌤", "style": "maté", "status": "preview"}),
    );
}

pub fn a_declined_colour_ends_every_family_with_its_status(t: &Target) {
    for family in FAMILIES {
        for action in ["decline", "cancel"] {
            let mut b = t.start();
            let info = b.server_info().clone();
            let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
            let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
            let leg2 = b.round(&send(
                2,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": answer(action)})),
                ),
                form_caps(),
            ));
            expect_final(&info, family, leg2, 2, json!({"status": action}));
        }
    }
}

pub fn a_declined_style_ends_every_family_with_its_status(t: &Target) {
    for family in FAMILIES {
        for action in ["decline", "cancel"] {
            let mut b = t.start();
            let info = b.server_info().clone();
            let (_, s2) = first_two_legs(&mut *b, family);
            // Content sent with a refusal is not an answer and is not checked against the form.
            let refusal = json!({"action": action, "content": {"style": ""}});
            let leg3 = b.round(&send(
                3,
                family.method(),
                retry(family.params(), Some(&s2), Some(json!({"style": refusal}))),
                form_caps(),
            ));
            expect_final(&info, family, leg3, 3, json!({"status": action}));
        }
    }
}

// ---------------------------------------------------------------------------------------
// reset_preview and url_preview
// ---------------------------------------------------------------------------------------

pub fn reset_preview_goes_state_only_then_input_only_then_done(t: &Target) {
    for action in ["accept", "decline", "cancel"] {
        let mut b = t.start();
        let info = b.server_info().clone();
        let params = json!({"name": "reset_preview"});
        // Leg 1: state only, no input requests (the client retries at once).
        let leg1 = b.round(&send(1, "tools/call", params.clone(), form_caps()));
        let s1 = state_of(&expect(
            leg1,
            &input_required_from(&info, 1, json!({"requestState": ANY_STRING})),
        ));
        // Leg 2: echoes the state, answers nothing; gets a question and no state.
        let leg2 = b.round(&send(
            2,
            "tools/call",
            retry(params.clone(), Some(&s1), None),
            form_caps(),
        ));
        expect(
            leg2,
            &input_required_from(
                &info,
                2,
                json!({"inputRequests": {"label": one_field_form("label")}}),
            ),
        );
        // Leg 3: no state (the last result had none), the answer.
        let label = if action == "accept" {
            accept(json!({"label": "My preview"}))
        } else {
            answer(action)
        };
        let leg3 = b.round(&send(
            3,
            "tools/call",
            retry(params.clone(), None, Some(json!({"label": label}))),
            form_caps(),
        ));
        expect_final(
            &info,
            Family::Tool,
            leg3,
            3,
            json!({"status": action, "stateDiscarded": true}),
        );
    }
}

fn url_caps() -> Value {
    json!({"elicitation": {"url": {}}})
}

pub fn url_preview_consent_is_consent_not_completion(t: &Target) {
    for action in ["accept", "decline", "cancel"] {
        let mut b = t.start();
        let info = b.server_info().clone();
        let params = json!({"name": "url_preview"});
        let leg1 = b.round(&send(1, "tools/call", params.clone(), url_caps()));
        let leg1 = expect(
            leg1,
            &input_required_from(
                &info,
                1,
                json!({"inputRequests": {"consent": {
                    "method": "elicitation/create",
                    "params": {"mode": "url", "message": ANY_STRING, "url": ANY_STRING}
                }}}),
            ),
        );
        let url = leg1
            .pointer("/result/inputRequests/consent/params/url")
            .and_then(Value::as_str)
            .unwrap();
        assert!(url.starts_with("https://"), "{url}");
        let leg2 = b.round(&send(
            2,
            "tools/call",
            retry(
                params.clone(),
                None,
                Some(json!({"consent": answer(action)})),
            ),
            url_caps(),
        ));
        expect_final(
            &info,
            Family::Tool,
            leg2,
            2,
            json!({"consent": action, "externalStatus": "pending"}),
        );
    }
}

pub fn url_preview_needs_the_url_mode(t: &Target) {
    let mut b = t.start();
    let params = json!({"name": "url_preview"});
    for (id, caps) in [
        (1, json!({})),
        (2, json!({"elicitation": {}})),
        (3, json!({"elicitation": {"form": {}}})),
        (4, json!({"sampling": {}, "roots": {}})),
    ] {
        let reply = b.round(&send(id, "tools/call", params.clone(), caps));
        expect(
            reply,
            &missing_capability(id, json!({"elicitation": {"url": {}}})),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Partial answers across rounds and fresh processes
// ---------------------------------------------------------------------------------------

/// Runs one round on a server that lives for that round only, sealing with the suite's
/// secret as a fresh process configured with it would.
fn on_fresh_server(t: &Target, input: &str) -> (Value, Option<Value>) {
    let mut b = t.start_with(&StateKeys::Secret(SECRET));
    let info = b.server_info().clone();
    (info, b.round(input))
}

pub fn state_carries_partial_answers_across_fresh_servers(t: &Target) {
    for family in FAMILIES {
        // Each leg is served by a new server, as after a restart or behind a load balancer.
        let (info, leg1) =
            on_fresh_server(t, &send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        let (info, leg2) = on_fresh_server(
            t,
            &send(
                2,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": accept(json!({"color": "amber"}))})),
                ),
                form_caps(),
            ),
        );
        let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
        let (info, leg3) = on_fresh_server(
            t,
            &send(
                3,
                family.method(),
                retry(
                    family.params(),
                    Some(&s2),
                    Some(json!({"style": accept(json!({"style": "gloss"}))})),
                ),
                form_caps(),
            ),
        );
        expect_final(
            &info,
            family,
            leg3,
            3,
            json!({"color": "amber", "style": "gloss", "status": "preview"}),
        );
    }
}

pub fn a_server_with_another_secret_refuses_the_state(t: &Target) {
    let mut b = t.start();
    let (_, s2) = first_two_legs(&mut *b, Family::Tool);
    let mut stranger = t.start_with(&StateKeys::Secret(OTHER_SECRET));
    let reply = stranger.round(&style_retry(3, Family::Tool, Family::Tool.params(), &s2));
    expect(reply, &invalid_state(3));
}

pub fn a_missing_answer_is_asked_again(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        // No answer at all, an empty map, and only answers to other keys: the same question,
        // round after round, each with a fresh id.
        let mut state = s1;
        for (id, responses) in [
            (2, None),
            (3, Some(json!({}))),
            (4, Some(json!({"style": accept(json!({"style": "matte"}))}))),
            (5, Some(json!({"colour": accept(json!({"color": "red"}))}))),
        ] {
            let reply = b.round(&send(
                id,
                family.method(),
                retry(family.params(), Some(&state), responses),
                form_caps(),
            ));
            state = state_of(&expect(reply, &asks_color(&info, id)));
        }
        // The same holds at the second question.
        let reply = b.round(&send(
            6,
            family.method(),
            retry(
                family.params(),
                Some(&state),
                Some(json!({"color": accept(json!({"color": "teal"}))})),
            ),
            form_caps(),
        ));
        let mut state = state_of(&expect(reply, &asks_style(&info, 6)));
        for id in 7..9 {
            let reply = b.round(&send(
                id,
                family.method(),
                retry(family.params(), Some(&state), None),
                form_caps(),
            ));
            state = state_of(&expect(reply, &asks_style(&info, id)));
        }
        let reply = b.round(&style_retry(9, family, family.params(), &state));
        expect_final(&info, family, reply, 9, teal_matte());
    }
}

pub fn extra_answer_ids_are_ignored(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        // The colour plus answers nobody asked for, including malformed ones: the style
        // answered early is not taken (it was not asked yet), the rest is ignored.
        let responses = json!({
            "color": accept(json!({"color": "teal"})),
            "style": accept(json!({"style": "early"})),
            "unrelated": {"anything": [1, 2, 3]},
            "bogus": {"action": "explode"}
        });
        let leg2 = b.round(&send(
            2,
            family.method(),
            retry(family.params(), Some(&s1), Some(responses)),
            form_caps(),
        ));
        let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
        let responses = json!({
            "style": accept(json!({"style": "matte"})),
            "color": accept(json!({"color": "changed my mind"})),
            "zzz": {}
        });
        let leg3 = b.round(&send(
            3,
            family.method(),
            retry(family.params(), Some(&s2), Some(responses)),
            form_caps(),
        ));
        expect_final(&info, family, leg3, 3, teal_matte());
    }
}

// ---------------------------------------------------------------------------------------
// Malformed answers and envelopes
// ---------------------------------------------------------------------------------------

/// Answers to the colour form that do not fit it; each carries [`SENTINEL`] where it can.
fn malformed_colour_answers() -> Vec<Value> {
    vec![
        json!({"action": SENTINEL}),
        json!({"action": "Accept", "content": {"color": SENTINEL}}),
        json!({"action": "accept", "content": {"color": ""}}),
        json!({"action": "accept", "content": {"color": 7}}),
        json!({"action": "accept", "content": {"color": [SENTINEL]}}),
        json!({"action": "accept", "content": {"color": null}}),
        json!({"action": "accept", "content": {}}),
        json!({"action": "accept", "content": {"hue": SENTINEL}}),
        json!({"action": "accept"}),
        json!({"action": "accept", "content": SENTINEL}),
        json!({"action": "accept", "content": [SENTINEL]}),
        json!({"action": "decline", "content": SENTINEL}),
        json!({"content": {"color": SENTINEL}}),
        json!({"action": null}),
    ]
}

pub fn malformed_answers_are_a_generic_invalid_params_that_echoes_nothing(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        for (i, bad) in malformed_colour_answers().into_iter().enumerate() {
            let id = 100 + i as i64;
            let reply = b.round(&send(
                id,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": bad.clone()})),
                ),
                form_caps(),
            ));
            let reply = expect(reply, &error(id, INVALID_PARAMS));
            assert!(
                !reply.to_string().contains(SENTINEL),
                "{family:?} echoed the client's data for {bad}: {reply}"
            );
        }
    }
}

pub fn malformed_envelopes_are_refused_before_the_handler(t: &Target) {
    let bad_states = [json!(42), json!(null), json!({}), json!([]), json!(true)];
    let bad_responses = [
        json!(SENTINEL),
        json!([]),
        json!(null),
        json!(1),
        json!({"color": "accept"}),
        json!({"color": null}),
        json!({"color": [SENTINEL]}),
        json!({"color": {"action": "accept"}, "style": 3}),
    ];
    for family in FAMILIES {
        let mut b = t.start();
        let mut id = 0;
        for state in &bad_states {
            id += 1;
            let mut params = family.params();
            params["requestState"] = state.clone();
            let reply = b.round(&send(id, family.method(), params, form_caps()));
            expect(reply, &error(id, INVALID_PARAMS));
        }
        for responses in &bad_responses {
            id += 1;
            let mut params = family.params();
            params["inputResponses"] = responses.clone();
            let reply = b.round(&send(id, family.method(), params, form_caps()));
            let reply = expect(reply, &error(id, INVALID_PARAMS));
            assert!(!reply.to_string().contains(SENTINEL), "{reply}");
        }
        assert_handler_runs(&*b, 0, "no handler runs for a malformed retry envelope");
    }
}

// ---------------------------------------------------------------------------------------
// Tampered and cross-operation state
// ---------------------------------------------------------------------------------------

pub fn tampered_state_is_refused_with_the_one_invalid_state_error(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let (_, s2) = first_two_legs(&mut *b, family);
        let mut flipped_mac = s2.clone();
        let last = flipped_mac.pop().unwrap();
        flipped_mac.push(if last == 'A' { 'B' } else { 'A' });
        let tampered = [
            // The readable data edited, the MAC kept.
            forge_state(&s2, |p| p["data"]["color"] = json!("gold")),
            // The expiry pushed out.
            forge_state(&s2, |p| {
                p["exp"] = json!(p["exp"].as_u64().expect("exp") + 100_000);
            }),
            // The stage rolled back.
            forge_state(&s2, |p| p["data"]["stage"] = json!("color")),
            flipped_mac,
            s2[..s2.len() - 1].to_string(),
            format!("{s2}A"),
            // Relabelled as the previous token version, or as an unknown one.
            s2.replacen("s2.", "s1.", 1),
            s2.replacen("s2.", "s3.", 1),
            s2.replacen("s2.", "s2.k1", 1),
            String::new(),
            "not a token".to_string(),
            SENTINEL.to_string(),
            "x".repeat(4000),
        ];
        for (i, token) in tampered.iter().enumerate() {
            let id = 10 + i as i64;
            let reply = b.round(&style_retry(id, family, family.params(), token));
            let reply = expect(reply, &invalid_state(id));
            assert!(!reply.to_string().contains(SENTINEL));
        }
        // The genuine state still works.
        let reply = b.round(&style_retry(99, family, family.params(), &s2));
        expect_final(&info, family, reply, 99, teal_matte());
    }
}

pub fn state_is_bound_to_its_operation_and_arguments(t: &Target) {
    let mut b = t.start();
    let (_, tool_state) = first_two_legs(&mut *b, Family::Tool);
    let (_, resource_state) = first_two_legs(&mut *b, Family::Resource);
    let (_, prompt_state) = first_two_legs(&mut *b, Family::Prompt);
    let cases = [
        // State from the tool replayed on the resource and the prompt, and the reverse.
        (Family::Resource, Family::Resource.params(), &tool_state),
        (Family::Prompt, Family::Prompt.params(), &tool_state),
        (Family::Tool, Family::Tool.params(), &resource_state),
        (Family::Tool, Family::Tool.params(), &prompt_state),
        (Family::Prompt, Family::Prompt.params(), &resource_state),
        // The same tool with changed arguments.
        (
            Family::Tool,
            json!({"name": "preference_preview", "arguments": {"subject": "floor lamp"}}),
            &tool_state,
        ),
        (
            Family::Tool,
            json!({"name": "preference_preview", "arguments": {"subject": "desk lamp", "extra": 1}}),
            &tool_state,
        ),
        // The same prompt with its optional argument dropped.
        (
            Family::Prompt,
            json!({"name": "preference_prompt"}),
            &prompt_state,
        ),
        // Another tool of the same server.
        (Family::Tool, json!({"name": "reset_preview"}), &tool_state),
    ];
    for (i, (family, params, state)) in cases.into_iter().enumerate() {
        let id = 10 + i as i64;
        let reply = b.round(&style_retry(id, family, params, state));
        expect(reply, &invalid_state(id));
    }
}

pub fn state_binding_ignores_the_id_and_the_request_meta(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let (_, s2) = first_two_legs(&mut *b, Family::Tool);
    // Another client name and more capabilities in `_meta`, and a string id.
    let mut params = retry(
        Family::Tool.params(),
        Some(&s2),
        Some(json!({"style": accept(json!({"style": "matte"}))})),
    );
    let mut meta = meta_with(json!({"elicitation": {"form": {}, "url": {}}, "roots": {}}));
    meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "another client", "version": "9"});
    params["_meta"] = meta;
    let input = json!({"jsonrpc": "2.0", "id": "leg-3", "method": "tools/call", "params": params});
    let reply = b.round(&input.to_string());
    let expected = complete_from(
        &info,
        "leg-3",
        json!({"content": [{"type": "text", "text": ANY_STRING}]}),
    );
    let reply = expect(reply, &expected);
    assert_eq!(Family::Tool.text(&reply), teal_matte());
}

// ---------------------------------------------------------------------------------------
// Capabilities are this request's
// ---------------------------------------------------------------------------------------

pub fn capabilities_dropped_on_a_retry_refuse_the_next_question(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let info = b.server_info().clone();
        let leg1 = b.round(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        let colour_retry = |id: i64, caps: Value| {
            send(
                id,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": accept(json!({"color": "teal"}))})),
                ),
                caps,
            )
        };
        for (id, caps) in [
            (2, json!({})),
            (3, json!({"elicitation": {"url": {}}})),
            (4, json!({"sampling": {}, "roots": {}})),
        ] {
            expect(
                b.round(&colour_retry(id, caps)),
                &missing_capability(id, json!({"elicitation": {"form": {}}})),
            );
        }
        // Declared again, the same retry goes on.
        expect(
            b.round(&colour_retry(5, json!({"elicitation": {"form": {}}}))),
            &asks_style(&info, 5),
        );
    }
}

pub fn a_first_call_without_the_form_capability_is_refused(t: &Target) {
    for family in FAMILIES {
        let mut b = t.start();
        let reply = b.round(&send(1, family.method(), family.params(), json!({})));
        expect(
            reply,
            &missing_capability(1, json!({"elicitation": {"form": {}}})),
        );
    }
}

pub fn a_final_answer_needs_no_capability(t: &Target) {
    // The last leg asks nothing, so it completes whatever the request declares.
    let mut b = t.start();
    let info = b.server_info().clone();
    let (_, s2) = first_two_legs(&mut *b, Family::Tool);
    let reply = b.round(&send(
        3,
        "tools/call",
        retry(
            Family::Tool.params(),
            Some(&s2),
            Some(json!({"style": accept(json!({"style": "matte"}))})),
        ),
        json!({}),
    ));
    expect_final(&info, Family::Tool, reply, 3, teal_matte());
}

// ---------------------------------------------------------------------------------------
// Input-request methods sent to the server
// ---------------------------------------------------------------------------------------

pub fn input_request_methods_sent_as_requests_are_errors_and_never_run(t: &Target) {
    let mut b = t.start();
    let requests = [
        (
            "elicitation/create",
            json!({
                "mode": "form",
                "message": "Choose a color",
                "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}}
            }),
        ),
        (
            "sampling/createMessage",
            json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                "maxTokens": 10
            }),
        ),
        ("roots/list", json!({})),
    ];
    for (i, (method, params)) in requests.into_iter().enumerate() {
        let id = i as i64 + 1;
        let reply = b.round(&send(id, method, params, form_caps()));
        expect(reply, &error(id, METHOD_NOT_FOUND));
    }
    assert_handler_runs(&*b, 0, "nothing ran");
}

// ---------------------------------------------------------------------------------------
// What the binding keeps and ignores, on the wire
// ---------------------------------------------------------------------------------------

/// A tool call of `preference_preview` whose params are written as raw JSON text (so that key
/// order, number literals and escapes are exactly as given).
fn raw_call(id: i64, arguments: &str, retry_fields: &str) -> String {
    let meta = meta_with(form_caps());
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{meta},"name":"preference_preview","arguments":{arguments}{retry_fields}}}}}"#
    )
}

fn colour_retry_fields(state: &str) -> String {
    format!(
        r#","requestState":"{state}","inputResponses":{{"color":{{"action":"accept","content":{{"color":"teal"}}}}}}"#
    )
}

pub fn state_binding_ignores_key_order_but_keeps_array_order_and_number_kind(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let first = r#"{"subject":"desk lamp","extra":{"a":1,"b":[1,2],"c":2.5}}"#;
    let leg1 = b.round(&raw_call(1, first, ""));
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    // The same arguments with members in another order, at both levels.
    let reordered = r#"{"extra":{"c":2.5,"b":[1,2],"a":1},"subject":"desk lamp"}"#;
    expect(
        b.round(&raw_call(2, reordered, &colour_retry_fields(&s1))),
        &asks_style(&info, 2),
    );
    // The same text through escapes is the same argument.
    let escaped = r#"{"subject":"desk\u0020lamp","extra":{"a":1,"b":[1,2],"c":2.5}}"#;
    expect(
        b.round(&raw_call(3, escaped, &colour_retry_fields(&s1))),
        &asks_style(&info, 3),
    );
    for (id, changed) in [
        // Array order.
        (
            4,
            r#"{"subject":"desk lamp","extra":{"a":1,"b":[2,1],"c":2.5}}"#,
        ),
        // An integer written as a float.
        (
            5,
            r#"{"subject":"desk lamp","extra":{"a":1.0,"b":[1,2],"c":2.5}}"#,
        ),
        // A nested value changed.
        (
            6,
            r#"{"subject":"desk lamp","extra":{"a":1,"b":[1,2],"c":2.6}}"#,
        ),
        // A nested member dropped.
        (7, r#"{"subject":"desk lamp","extra":{"a":1,"b":[1,2]}}"#),
    ] {
        expect(
            b.round(&raw_call(id, changed, &colour_retry_fields(&s1))),
            &invalid_state(id),
        );
    }
}

pub fn escaped_answer_keys_are_read_by_their_text(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let arguments = r#"{"subject":"desk lamp"}"#;
    let s1 = state_of(&expect(
        b.round(&raw_call(1, arguments, "")),
        &asks_color(&info, 1),
    ));
    let fields = format!(
        r#","requestState":"{s1}","inputResponses":{{"\u0063olor":{{"action":"accept","content":{{"\u0063olor":"te\u0061l"}}}}}}"#
    );
    let s2 = state_of(&expect(
        b.round(&raw_call(2, arguments, &fields)),
        &asks_style(&info, 2),
    ));
    assert_eq!(state_payload(&s2)["data"]["color"], json!("teal"));
}

pub fn an_escaped_echo_of_the_state_is_the_same_state(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let arguments = r#"{"subject":"desk lamp"}"#;
    let s1 = state_of(&expect(
        b.round(&raw_call(1, arguments, "")),
        &asks_color(&info, 1),
    ));
    // `s2.` written as `\u0073\u0032\u002e`: the same JSON string value.
    let escaped = s1.replacen("s2.", r"\u0073\u0032\u002e", 1);
    assert_ne!(escaped, s1, "the prefix is escaped");
    expect(
        b.round(&raw_call(2, arguments, &colour_retry_fields(&escaped))),
        &asks_style(&info, 2),
    );
}

pub fn a_state_sealed_with_a_secret_opens_with_a_keyring_holding_it_and_back(t: &Target) {
    let single = StateKeys::Secret(SECRET);
    let ring = StateKeys::Ring(vec![("2026-10", OTHER_SECRET), ("2026-09", SECRET)]);
    let rotated = StateKeys::Ring(vec![("2026-09", SECRET)]);
    let colour = || Some(json!({"color": accept(json!({"color": "teal"}))}));
    // Sealed by the single secret, opened by a ring that holds it as a retired key.
    let mut a = t.start_with(&single);
    let a_info = a.server_info().clone();
    let s1 = state_of(&expect(
        a.round(&send(1, "tools/call", Family::Tool.params(), form_caps())),
        &asks_color(&a_info, 1),
    ));
    let mut b = t.start_with(&ring);
    let b_info = b.server_info().clone();
    let s2 = state_of(&expect(
        b.round(&send(
            2,
            "tools/call",
            retry(Family::Tool.params(), Some(&s1), colour()),
            form_caps(),
        )),
        &asks_style(&b_info, 2),
    ));
    // The ring sealed with its first key, which the single secret does not hold.
    expect(
        a.round(&style_retry(3, Family::Tool, Family::Tool.params(), &s2)),
        &invalid_state(3),
    );
    // A ring-sealed token whose key is the single secret opens with that secret.
    let mut c = t.start_with(&rotated);
    let c_info = c.server_info().clone();
    let s1 = state_of(&expect(
        c.round(&send(4, "tools/call", Family::Tool.params(), form_caps())),
        &asks_color(&c_info, 4),
    ));
    expect(
        a.round(&send(
            5,
            "tools/call",
            retry(Family::Tool.params(), Some(&s1), colour()),
            form_caps(),
        )),
        &asks_style(&a_info, 5),
    );
}

pub fn unknown_fields_in_an_answer_are_tolerated(t: &Target) {
    let mut b = t.start();
    let info = b.server_info().clone();
    let leg1 = b.round(&send(1, "tools/call", Family::Tool.params(), form_caps()));
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    let colour = json!({
        "action": "accept",
        "content": {"color": "teal"},
        "_meta": {"client": "note"},
        "futureField": [1, {"x": null}]
    });
    let leg2 = b.round(&send(
        2,
        "tools/call",
        retry(
            Family::Tool.params(),
            Some(&s1),
            Some(json!({"color": colour})),
        ),
        form_caps(),
    ));
    expect(leg2, &asks_style(&info, 2));
}

pub fn an_answer_sent_as_a_json_rpc_response_is_not_an_answer(t: &Target) {
    // Before MRTR a client answered an elicitation with a JSON-RPC response to the server's
    // request. The server sent no request: such a message gets no reply (over HTTP, 202),
    // and the answer counts only in a retry's `inputResponses`.
    let mut b = t.start();
    let info = b.server_info().clone();
    let leg1 = b.round(&send(1, "tools/call", Family::Tool.params(), form_caps()));
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    for id in [json!("color"), json!(1), json!(2)] {
        let response =
            json!({"jsonrpc": "2.0", "id": id, "result": accept(json!({"color": "teal"}))});
        let reply = b.round(&response.to_string());
        assert_eq!(reply, None, "{}: a response is never answered", b.name());
    }
    let leg2 = b.round(&send(
        2,
        "tools/call",
        retry(Family::Tool.params(), Some(&s1), None),
        form_caps(),
    ));
    let s2 = state_of(&expect(leg2, &asks_color(&info, 2)));
    let leg3 = b.round(&send(
        3,
        "tools/call",
        retry(
            Family::Tool.params(),
            Some(&s2),
            Some(json!({"color": accept(json!({"color": "teal"}))})),
        ),
        form_caps(),
    ));
    expect(leg3, &asks_style(&info, 3));
}

pub fn sealing_without_configured_keys_is_a_server_error(t: &Target) {
    // The flow seals on its first leg; a server configured without state keys cannot.
    let mut b = t.start_with(&StateKeys::None);
    for family in FAMILIES {
        let reply = b.round(&send(1, family.method(), family.params(), form_caps()));
        expect(reply, &error(1, -32603));
    }
}
