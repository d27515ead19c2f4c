//! The preference flow of the seed's example 20, core in-process: literal MRTR rounds
//! against the example application's own flow code.
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
//! the seed and the 2026-07-28 specification.

use serde_json::{Value, json};
use snodo_core::server::{Layered, Round, Server};
use snodo_tests::harness::{ANY_STRING, NOW, cacheable, complete, error, matches, round};
use snodo_tests::mrtr_fixture::{
    Guard, Preferences, accept, answer, config, forge_state, form_caps, input_required,
    invalid_state, meta_with, missing_capability, other_state_options, preferences_server, retry,
    round_as, round_at, round_later, send, state_of, state_options, state_payload,
};

const INVALID_PARAMS: i64 = -32602;
const METHOD_NOT_FOUND: i64 = -32601;

/// A value that must never be echoed back in an error.
const SENTINEL: &str = "zq-sentinel-7f3a";

// ---------------------------------------------------------------------------------------
// The three families
// ---------------------------------------------------------------------------------------

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

    /// The params of the first call (and of every retry, before the retry fields).
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

    /// The final result for `id`, with the flow's JSON text left open.
    fn final_result(self, id: i64) -> Value {
        match self {
            Family::Tool => complete(
                id,
                json!({"content": [{"type": "text", "text": ANY_STRING}]}),
            ),
            Family::Resource => cacheable(
                id,
                json!({"contents": [{
                    "uri": "preview://preferences",
                    "mimeType": "application/json",
                    "text": ANY_STRING
                }]}),
                60_000,
                "public",
            ),
            Family::Prompt => complete(
                id,
                json!({
                    "description": ANY_STRING,
                    "messages": [{"role": "user", "content": {"type": "text", "text": ANY_STRING}}]
                }),
            ),
        }
    }

    /// The flow's JSON text inside a final result.
    fn text(self, reply: &Value) -> Value {
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
fn one_field_form(name: &str) -> Value {
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

fn asks_color(id: i64) -> Value {
    input_required(
        id,
        json!({"inputRequests": {"color": one_field_form("color")}, "requestState": ANY_STRING}),
    )
}

fn asks_style(id: i64) -> Value {
    input_required(
        id,
        json!({"inputRequests": {"style": one_field_form("style")}, "requestState": ANY_STRING}),
    )
}

#[track_caller]
fn expect(actual: Option<Value>, expected: &Value) -> Value {
    let actual = actual.unwrap_or_else(|| panic!("no reply; expected {expected:#}"));
    assert!(
        matches(&actual, expected),
        "reply does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
    actual
}

#[track_caller]
fn expect_final(family: Family, actual: Option<Value>, id: i64, text: Value) {
    let actual = expect(actual, &family.final_result(id));
    assert_eq!(family.text(&actual), text, "{family:?}: {actual:#}");
}

/// Leg 1 and leg 2 of a family: the states after each.
fn first_two_legs(server: &Server<'_, Preferences>, family: Family) -> (String, String) {
    let leg1 = round(
        server,
        &send(1, family.method(), family.params(), form_caps()),
    );
    let s1 = state_of(&expect(leg1, &asks_color(1)));
    let leg2 = round(
        server,
        &send(
            2,
            family.method(),
            retry(
                family.params(),
                Some(&s1),
                Some(json!({"color": accept(json!({"color": "teal"}))})),
            ),
            form_caps(),
        ),
    );
    let s2 = state_of(&expect(leg2, &asks_style(2)));
    (s1, s2)
}

#[test]
fn every_family_completes_in_three_legs_with_fresh_ids_and_changing_state() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let (s1, s2) = first_two_legs(&server, family);
        assert_ne!(s1, s2, "{family:?}: legs 2 and 3 carry different states");
        let leg3 = round(
            &server,
            &send(
                3,
                family.method(),
                retry(
                    family.params(),
                    Some(&s2),
                    Some(json!({"style": accept(json!({"style": "matte"}))})),
                ),
                form_caps(),
            ),
        );
        expect_final(
            family,
            leg3,
            3,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
        assert_eq!(server.app().handler_runs(), 3);
    }
}

#[test]
fn state_is_readable_not_secret_and_holds_only_the_partial_answer() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let (_, s2) = first_two_legs(&server, Family::Tool);
    let payload = state_payload(&s2);
    assert_eq!(payload["data"]["color"], json!("teal"));
    assert_eq!(payload["iat"], json!(NOW.now));
    assert_eq!(
        payload["exp"],
        json!(NOW.now + 300),
        "the default TTL is 300 s"
    );
}

#[test]
fn non_ascii_answers_survive_the_state_round_trip() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let family = Family::Tool;
    let leg1 = round(
        &server,
        &send(1, family.method(), family.params(), form_caps()),
    );
    let s1 = state_of(&expect(leg1, &asks_color(1)));
    let leg2 = round(
        &server,
        &send(
            2,
            family.method(),
            retry(
                family.params(),
                Some(&s1),
                Some(json!({"color": accept(json!({"color": "bleu \"ciel\" 🌤"}))})),
            ),
            form_caps(),
        ),
    );
    let s2 = state_of(&expect(leg2, &asks_style(2)));
    let leg3 = round(
        &server,
        &send(
            3,
            family.method(),
            retry(
                family.params(),
                Some(&s2),
                Some(json!({"style": accept(json!({"style": "mat\u{e9}"}))})),
            ),
            form_caps(),
        ),
    );
    expect_final(
        family,
        leg3,
        3,
        json!({"color": "bleu \"ciel\" 🌤", "style": "maté", "status": "preview"}),
    );
}

#[test]
fn a_declined_colour_ends_every_family_with_its_status() {
    for family in FAMILIES {
        for action in ["decline", "cancel"] {
            let opts = state_options();
            let server = preferences_server(&opts);
            let leg1 = round(
                &server,
                &send(1, family.method(), family.params(), form_caps()),
            );
            let s1 = state_of(&expect(leg1, &asks_color(1)));
            let leg2 = round(
                &server,
                &send(
                    2,
                    family.method(),
                    retry(
                        family.params(),
                        Some(&s1),
                        Some(json!({"color": answer(action)})),
                    ),
                    form_caps(),
                ),
            );
            expect_final(family, leg2, 2, json!({"status": action}));
        }
    }
}

#[test]
fn a_declined_style_ends_every_family_with_its_status() {
    for family in FAMILIES {
        for action in ["decline", "cancel"] {
            let opts = state_options();
            let server = preferences_server(&opts);
            let (_, s2) = first_two_legs(&server, family);
            // Content sent with a refusal is not an answer and is not checked against the form.
            let refusal = json!({"action": action, "content": {"style": ""}});
            let leg3 = round(
                &server,
                &send(
                    3,
                    family.method(),
                    retry(family.params(), Some(&s2), Some(json!({"style": refusal}))),
                    form_caps(),
                ),
            );
            expect_final(family, leg3, 3, json!({"status": action}));
        }
    }
}

// ---------------------------------------------------------------------------------------
// reset_preview and url_preview
// ---------------------------------------------------------------------------------------

#[test]
fn reset_preview_goes_state_only_then_input_only_then_done() {
    for action in ["accept", "decline", "cancel"] {
        let opts = state_options();
        let server = preferences_server(&opts);
        let params = json!({"name": "reset_preview"});
        // Leg 1: state only, no input requests (the client retries at once).
        let leg1 = round(&server, &send(1, "tools/call", params.clone(), form_caps()));
        let s1 = state_of(&expect(
            leg1,
            &input_required(1, json!({"requestState": ANY_STRING})),
        ));
        // Leg 2: echoes the state, answers nothing; gets a question and no state.
        let leg2 = round(
            &server,
            &send(
                2,
                "tools/call",
                retry(params.clone(), Some(&s1), None),
                form_caps(),
            ),
        );
        expect(
            leg2,
            &input_required(
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
        let leg3 = round(
            &server,
            &send(
                3,
                "tools/call",
                retry(params.clone(), None, Some(json!({"label": label}))),
                form_caps(),
            ),
        );
        expect_final(
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

#[test]
fn url_preview_consent_is_consent_not_completion() {
    for action in ["accept", "decline", "cancel"] {
        let opts = state_options();
        let server = preferences_server(&opts);
        let params = json!({"name": "url_preview"});
        let leg1 = round(&server, &send(1, "tools/call", params.clone(), url_caps()));
        let leg1 = expect(
            leg1,
            &input_required(
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
        let leg2 = round(
            &server,
            &send(
                2,
                "tools/call",
                retry(
                    params.clone(),
                    None,
                    Some(json!({"consent": answer(action)})),
                ),
                url_caps(),
            ),
        );
        expect_final(
            Family::Tool,
            leg2,
            2,
            json!({"consent": action, "externalStatus": "pending"}),
        );
    }
}

#[test]
fn url_preview_needs_the_url_mode() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let params = json!({"name": "url_preview"});
    for (id, caps) in [
        (1, json!({})),
        (2, json!({"elicitation": {}})),
        (3, json!({"elicitation": {"form": {}}})),
        (4, json!({"sampling": {}, "roots": {}})),
    ] {
        let reply = round(&server, &send(id, "tools/call", params.clone(), caps));
        expect(
            reply,
            &missing_capability(id, json!({"elicitation": {"url": {}}})),
        );
    }
}

// ---------------------------------------------------------------------------------------
// Partial answers across rounds and fresh processes
// ---------------------------------------------------------------------------------------

/// Runs one round on a server that lives for that round only, built from the configured
/// secret as a fresh process would be.
fn on_fresh_server(input: &str) -> Option<Value> {
    let opts = state_options();
    let server = preferences_server(&opts);
    round(&server, input)
}

#[test]
fn state_carries_partial_answers_across_fresh_servers() {
    for family in FAMILIES {
        // Each leg is served by a new server, as after a restart or behind a load balancer.
        let leg1 = on_fresh_server(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        let leg2 = on_fresh_server(&send(
            2,
            family.method(),
            retry(
                family.params(),
                Some(&s1),
                Some(json!({"color": accept(json!({"color": "amber"}))})),
            ),
            form_caps(),
        ));
        let s2 = state_of(&expect(leg2, &asks_style(2)));
        let leg3 = on_fresh_server(&send(
            3,
            family.method(),
            retry(
                family.params(),
                Some(&s2),
                Some(json!({"style": accept(json!({"style": "gloss"}))})),
            ),
            form_caps(),
        ));
        expect_final(
            family,
            leg3,
            3,
            json!({"color": "amber", "style": "gloss", "status": "preview"}),
        );
    }
}

#[test]
fn a_server_with_another_secret_refuses_the_state() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let (_, s2) = first_two_legs(&server, Family::Tool);
    let other = other_state_options();
    let stranger = preferences_server(&other);
    let reply = round(
        &stranger,
        &send(
            3,
            "tools/call",
            retry(
                Family::Tool.params(),
                Some(&s2),
                Some(json!({"style": accept(json!({"style": "matte"}))})),
            ),
            form_caps(),
        ),
    );
    expect(reply, &invalid_state(3));
}

#[test]
fn a_missing_answer_is_asked_again() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let leg1 = round(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
        );
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        // No answer at all, an empty map, and only answers to other keys: the same question,
        // round after round, each with a fresh id.
        let mut state = s1;
        for (id, responses) in [
            (2, None),
            (3, Some(json!({}))),
            (4, Some(json!({"style": accept(json!({"style": "matte"}))}))),
            (5, Some(json!({"colour": accept(json!({"color": "red"}))}))),
        ] {
            let reply = round(
                &server,
                &send(
                    id,
                    family.method(),
                    retry(family.params(), Some(&state), responses),
                    form_caps(),
                ),
            );
            state = state_of(&expect(reply, &asks_color(id)));
        }
        // The same holds at the second question.
        let reply = round(
            &server,
            &send(
                6,
                family.method(),
                retry(
                    family.params(),
                    Some(&state),
                    Some(json!({"color": accept(json!({"color": "teal"}))})),
                ),
                form_caps(),
            ),
        );
        let mut state = state_of(&expect(reply, &asks_style(6)));
        for id in 7..9 {
            let reply = round(
                &server,
                &send(
                    id,
                    family.method(),
                    retry(family.params(), Some(&state), None),
                    form_caps(),
                ),
            );
            state = state_of(&expect(reply, &asks_style(id)));
        }
        let reply = round(
            &server,
            &send(
                9,
                family.method(),
                retry(
                    family.params(),
                    Some(&state),
                    Some(json!({"style": accept(json!({"style": "matte"}))})),
                ),
                form_caps(),
            ),
        );
        expect_final(
            family,
            reply,
            9,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
    }
}

#[test]
fn extra_answer_ids_are_ignored() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let leg1 = round(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
        );
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        // The colour plus answers nobody asked for, including malformed ones: the style
        // answered early is not taken (it was not asked yet), the rest is ignored.
        let responses = json!({
            "color": accept(json!({"color": "teal"})),
            "style": accept(json!({"style": "early"})),
            "unrelated": {"anything": [1, 2, 3]},
            "bogus": {"action": "explode"}
        });
        let leg2 = round(
            &server,
            &send(
                2,
                family.method(),
                retry(family.params(), Some(&s1), Some(responses)),
                form_caps(),
            ),
        );
        let s2 = state_of(&expect(leg2, &asks_style(2)));
        let responses = json!({
            "style": accept(json!({"style": "matte"})),
            "color": accept(json!({"color": "changed my mind"})),
            "zzz": {}
        });
        let leg3 = round(
            &server,
            &send(
                3,
                family.method(),
                retry(family.params(), Some(&s2), Some(responses)),
                form_caps(),
            ),
        );
        expect_final(
            family,
            leg3,
            3,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
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

#[test]
fn malformed_answers_are_a_generic_invalid_params_that_echoes_nothing() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let leg1 = round(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
        );
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        for (i, bad) in malformed_colour_answers().into_iter().enumerate() {
            let id = 100 + i as i64;
            let reply = round(
                &server,
                &send(
                    id,
                    family.method(),
                    retry(
                        family.params(),
                        Some(&s1),
                        Some(json!({"color": bad.clone()})),
                    ),
                    form_caps(),
                ),
            );
            let reply = expect(reply, &error(id, INVALID_PARAMS));
            assert!(
                !reply.to_string().contains(SENTINEL),
                "{family:?} echoed the client's data for {bad}: {reply}"
            );
        }
    }
}

#[test]
fn malformed_envelopes_are_refused_before_the_handler() {
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
        let opts = state_options();
        let server = preferences_server(&opts);
        let mut id = 0;
        for state in &bad_states {
            id += 1;
            let mut params = family.params();
            params["requestState"] = state.clone();
            let reply = round(&server, &send(id, family.method(), params, form_caps()));
            expect(reply, &error(id, INVALID_PARAMS));
        }
        for responses in &bad_responses {
            id += 1;
            let mut params = family.params();
            params["inputResponses"] = responses.clone();
            let reply = round(&server, &send(id, family.method(), params, form_caps()));
            let reply = expect(reply, &error(id, INVALID_PARAMS));
            assert!(!reply.to_string().contains(SENTINEL), "{reply}");
        }
        assert_eq!(
            server.app().handler_runs(),
            0,
            "{family:?}: no handler runs for a malformed retry envelope"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Tampered, expired and cross-operation state
// ---------------------------------------------------------------------------------------

fn style_retry(id: i64, family: Family, params: Value, state: &str) -> String {
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

#[test]
fn tampered_state_is_refused_with_the_one_invalid_state_error() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let (_, s2) = first_two_legs(&server, family);
        let mut flipped_mac = s2.clone();
        let last = flipped_mac.pop().unwrap();
        flipped_mac.push(if last == 'A' { 'B' } else { 'A' });
        let tampered = [
            // The readable data edited, the MAC kept.
            forge_state(&s2, |p| p["data"]["color"] = json!("gold")),
            // The expiry pushed out.
            forge_state(&s2, |p| p["exp"] = json!(NOW.now + 100_000)),
            // The stage rolled back.
            forge_state(&s2, |p| p["data"]["stage"] = json!("color")),
            flipped_mac,
            s2[..s2.len() - 1].to_string(),
            format!("{s2}A"),
            s2.replacen("s1.", "s2.", 1),
            s2.replacen("s1.", "s1.k1", 1),
            String::new(),
            "not a token".to_string(),
            SENTINEL.to_string(),
            "x".repeat(4000),
        ];
        for (i, token) in tampered.iter().enumerate() {
            let id = 10 + i as i64;
            let reply = round(&server, &style_retry(id, family, family.params(), token));
            let reply = expect(reply, &invalid_state(id));
            assert!(!reply.to_string().contains(SENTINEL));
        }
        // The genuine state still works.
        let reply = round(&server, &style_retry(99, family, family.params(), &s2));
        expect_final(
            family,
            reply,
            99,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
    }
}

#[test]
fn expired_and_future_state_is_refused() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let (_, s2) = first_two_legs(&server, family);
        // Expiry is exclusive: valid for 299 seconds after issue, refused at 300.
        let reply = round_later(&server, &style_retry(3, family, family.params(), &s2), 299);
        expect_final(
            family,
            reply,
            3,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
        for (id, later) in [(4, 300), (5, 301), (6, 100_000)] {
            let reply = round_later(
                &server,
                &style_retry(id, family, family.params(), &s2),
                later,
            );
            expect(reply, &invalid_state(id));
        }
        // Issued in the future (a clock that went back).
        let earlier = Round::anonymous(NOW.now - 1);
        let reply = round_at(
            &server,
            &style_retry(7, family, family.params(), &s2),
            earlier,
        );
        expect(reply, &invalid_state(7));
    }
}

#[test]
fn state_is_bound_to_its_operation_and_arguments() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let (_, tool_state) = first_two_legs(&server, Family::Tool);
    let (_, resource_state) = first_two_legs(&server, Family::Resource);
    let (_, prompt_state) = first_two_legs(&server, Family::Prompt);
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
        let reply = round(&server, &style_retry(id, family, params, state));
        expect(reply, &invalid_state(id));
    }
}

#[test]
fn state_binding_ignores_the_id_and_the_request_meta() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let (_, s2) = first_two_legs(&server, Family::Tool);
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
    let reply = round(&server, &input.to_string());
    let expected = complete(
        "leg-3",
        json!({"content": [{"type": "text", "text": ANY_STRING}]}),
    );
    let reply = expect(reply, &expected);
    assert_eq!(
        Family::Tool.text(&reply),
        json!({"color": "teal", "style": "matte", "status": "preview"})
    );
}

#[test]
fn state_is_bound_to_the_principal() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let family = Family::Tool;
    let leg1 = round_as(
        &server,
        &send(1, family.method(), family.params(), form_caps()),
        "alice",
    );
    let s1 = state_of(&expect(leg1, &asks_color(1)));
    let colour = || Some(json!({"color": accept(json!({"color": "teal"}))}));
    let leg2 = |id: i64| {
        send(
            id,
            family.method(),
            retry(family.params(), Some(&s1), colour()),
            form_caps(),
        )
    };
    // Another principal, and anonymity, are refused; alice goes on.
    expect(round_as(&server, &leg2(2), "bob"), &invalid_state(2));
    expect(round(&server, &leg2(3)), &invalid_state(3));
    expect(round_as(&server, &leg2(4), "alice"), &asks_style(4));
    // Anonymity is not an empty identity, nor the reverse.
    let anonymous = round(
        &server,
        &send(5, family.method(), family.params(), form_caps()),
    );
    let s5 = state_of(&expect(anonymous, &asks_color(5)));
    let leg6 = send(
        6,
        family.method(),
        retry(family.params(), Some(&s5), colour()),
        form_caps(),
    );
    expect(round_as(&server, &leg6, ""), &invalid_state(6));
    expect(round(&server, &leg6), &asks_style(6));
}

// ---------------------------------------------------------------------------------------
// Capabilities are this request's
// ---------------------------------------------------------------------------------------

#[test]
fn capabilities_dropped_on_a_retry_refuse_the_next_question() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let leg1 = round(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
        );
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        for (id, caps) in [
            (2, json!({})),
            (3, json!({"elicitation": {"url": {}}})),
            (4, json!({"sampling": {}, "roots": {}})),
        ] {
            let reply = round(
                &server,
                &send(
                    id,
                    family.method(),
                    retry(
                        family.params(),
                        Some(&s1),
                        Some(json!({"color": accept(json!({"color": "teal"}))})),
                    ),
                    caps,
                ),
            );
            expect(
                reply,
                &missing_capability(id, json!({"elicitation": {"form": {}}})),
            );
        }
        // Declared again, the same retry goes on.
        let reply = round(
            &server,
            &send(
                5,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": accept(json!({"color": "teal"}))})),
                ),
                json!({"elicitation": {"form": {}}}),
            ),
        );
        expect(reply, &asks_style(5));
    }
}

#[test]
fn a_first_call_without_the_form_capability_is_refused() {
    for family in FAMILIES {
        let opts = state_options();
        let server = preferences_server(&opts);
        let reply = round(
            &server,
            &send(1, family.method(), family.params(), json!({})),
        );
        expect(
            reply,
            &missing_capability(1, json!({"elicitation": {"form": {}}})),
        );
    }
}

#[test]
fn a_final_answer_needs_no_capability() {
    // The last leg asks nothing, so it completes whatever the request declares.
    let opts = state_options();
    let server = preferences_server(&opts);
    let (_, s2) = first_two_legs(&server, Family::Tool);
    let reply = round(
        &server,
        &send(
            3,
            "tools/call",
            retry(
                Family::Tool.params(),
                Some(&s2),
                Some(json!({"style": accept(json!({"style": "matte"}))})),
            ),
            json!({}),
        ),
    );
    expect_final(
        Family::Tool,
        reply,
        3,
        json!({"color": "teal", "style": "matte", "status": "preview"}),
    );
}

// ---------------------------------------------------------------------------------------
// Middleware
// ---------------------------------------------------------------------------------------

fn guarded(opts: &snodo_core::state::StateOptions) -> Server<'_, Layered<Guard, Preferences>> {
    Server::new(
        config(opts),
        Layered::new(Guard::refusing("mallory"), Preferences::new()),
    )
}

fn forbidden(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": 4003, "message": "Forbidden"}})
}

#[test]
fn middleware_runs_on_every_leg() {
    for family in FAMILIES {
        let opts = state_options();
        let server = guarded(&opts);
        let leg1 = round_as(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
            "alice",
        );
        let s1 = state_of(&expect(leg1, &asks_color(1)));
        assert_eq!(server.app().middleware.calls(), 1);
        let leg2 = round_as(
            &server,
            &send(
                2,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": accept(json!({"color": "teal"}))})),
                ),
                form_caps(),
            ),
            "alice",
        );
        let s2 = state_of(&expect(leg2, &asks_style(2)));
        assert_eq!(server.app().middleware.calls(), 2);
        let leg3 = round_as(
            &server,
            &style_retry(3, family, family.params(), &s2),
            "alice",
        );
        expect_final(
            family,
            leg3,
            3,
            json!({"color": "teal", "style": "matte", "status": "preview"}),
        );
        assert_eq!(server.app().middleware.calls(), 3);
        assert_eq!(server.app().inner.handler_runs(), 3);
    }
}

#[test]
fn middleware_refuses_a_principal_on_first_calls_and_retries() {
    for family in FAMILIES {
        let opts = state_options();
        let server = guarded(&opts);
        // A first call.
        let reply = round_as(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
            "mallory",
        );
        expect(reply, &forbidden(1));
        // A retry carrying alice's genuine state: the guard refuses before the handler.
        let leg1 = round_as(
            &server,
            &send(2, family.method(), family.params(), form_caps()),
            "alice",
        );
        let s1 = state_of(&expect(leg1, &asks_color(2)));
        let retry_leg = send(
            3,
            family.method(),
            retry(
                family.params(),
                Some(&s1),
                Some(json!({"color": accept(json!({"color": "teal"}))})),
            ),
            form_caps(),
        );
        expect(round_as(&server, &retry_leg, "mallory"), &forbidden(3));
        assert_eq!(
            server.app().inner.handler_runs(),
            1,
            "only alice's call ran"
        );
        // Someone the guard admits still cannot use alice's state.
        expect(round_as(&server, &retry_leg, "eve"), &invalid_state(3));
        assert_eq!(server.app().middleware.calls(), 4);
    }
}

#[test]
fn lists_and_discover_never_reach_middleware() {
    let opts = state_options();
    let server = guarded(&opts);
    for (id, method) in [
        (1, "tools/list"),
        (2, "resources/list"),
        (3, "prompts/list"),
        (4, "server/discover"),
    ] {
        let reply = round_as(
            &server,
            &send(id, method, json!({}), form_caps()),
            "mallory",
        )
        .expect("a reply");
        assert_eq!(reply["result"]["resultType"], json!("complete"), "{reply}");
    }
    assert_eq!(server.app().middleware.calls(), 0);
}

// ---------------------------------------------------------------------------------------
// Input-request methods sent to the server
// ---------------------------------------------------------------------------------------

#[test]
fn input_request_methods_sent_as_requests_are_errors_and_never_run() {
    let opts = state_options();
    let server = preferences_server(&opts);
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
        let reply = round(&server, &send(id, method, params, form_caps()));
        expect(reply, &error(id, METHOD_NOT_FOUND));
    }
    assert_eq!(server.app().handler_runs(), 0);
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

#[test]
fn state_binding_ignores_key_order_but_keeps_array_order_and_number_kind() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let first = r#"{"subject":"desk lamp","extra":{"a":1,"b":[1,2],"c":2.5}}"#;
    let leg1 = round(&server, &raw_call(1, first, ""));
    let s1 = state_of(&expect(leg1, &asks_color(1)));
    // The same arguments with members in another order, at both levels.
    let reordered = r#"{"extra":{"c":2.5,"b":[1,2],"a":1},"subject":"desk lamp"}"#;
    expect(
        round(&server, &raw_call(2, reordered, &colour_retry_fields(&s1))),
        &asks_style(2),
    );
    // The same text through escapes is the same argument.
    let escaped = r#"{"subject":"desk\u0020lamp","extra":{"a":1,"b":[1,2],"c":2.5}}"#;
    expect(
        round(&server, &raw_call(3, escaped, &colour_retry_fields(&s1))),
        &asks_style(3),
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
            round(&server, &raw_call(id, changed, &colour_retry_fields(&s1))),
            &invalid_state(id),
        );
    }
}

#[test]
fn escaped_answer_keys_are_read_by_their_text() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let arguments = r#"{"subject":"desk lamp"}"#;
    let s1 = state_of(&expect(
        round(&server, &raw_call(1, arguments, "")),
        &asks_color(1),
    ));
    let fields = format!(
        r#","requestState":"{s1}","inputResponses":{{"\u0063olor":{{"action":"accept","content":{{"\u0063olor":"te\u0061l"}}}}}}"#
    );
    let s2 = state_of(&expect(
        round(&server, &raw_call(2, arguments, &fields)),
        &asks_style(2),
    ));
    assert_eq!(state_payload(&s2)["data"]["color"], json!("teal"));
}

#[test]
fn an_escaped_echo_of_the_state_is_the_same_state() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let arguments = r#"{"subject":"desk lamp"}"#;
    let s1 = state_of(&expect(
        round(&server, &raw_call(1, arguments, "")),
        &asks_color(1),
    ));
    // `s1.` written as `\u0073\u0031\u002e`: the same JSON string value.
    let escaped = s1.replacen("s1.", r"\u0073\u0031\u002e", 1);
    expect(
        round(
            &server,
            &raw_call(2, arguments, &colour_retry_fields(&escaped)),
        ),
        &asks_style(2),
    );
}

#[test]
fn a_state_sealed_with_a_secret_opens_with_a_keyring_holding_it_and_back() {
    use snodo_core::state::{Keys, StateOptions};
    use snodo_tests::mrtr_fixture::{OTHER_SECRET, SECRET};
    let single = state_options();
    let ring = StateOptions::new(
        Keys::ring(&[("2026-10", &OTHER_SECRET[..]), ("2026-09", &SECRET[..])]).unwrap(),
    );
    let rotated = StateOptions::new(Keys::ring(&[("2026-09", &SECRET[..])]).unwrap());
    // Sealed by the single secret, opened by a ring that holds it as a retired key.
    let a = preferences_server(&single);
    let s1 = state_of(&expect(
        round(
            &a,
            &send(1, "tools/call", Family::Tool.params(), form_caps()),
        ),
        &asks_color(1),
    ));
    let b = preferences_server(&ring);
    let colour = Some(json!({"color": accept(json!({"color": "teal"}))}));
    let s2 = state_of(&expect(
        round(
            &b,
            &send(
                2,
                "tools/call",
                retry(Family::Tool.params(), Some(&s1), colour),
                form_caps(),
            ),
        ),
        &asks_style(2),
    ));
    // The ring sealed with its first key, which the single secret does not hold.
    expect(
        round(
            &a,
            &style_retry(3, Family::Tool, Family::Tool.params(), &s2),
        ),
        &invalid_state(3),
    );
    // A ring-sealed token whose key is the single secret opens with that secret.
    let c = preferences_server(&rotated);
    let s1 = state_of(&expect(
        round(
            &c,
            &send(4, "tools/call", Family::Tool.params(), form_caps()),
        ),
        &asks_color(4),
    ));
    let colour = Some(json!({"color": accept(json!({"color": "teal"}))}));
    expect(
        round(
            &a,
            &send(
                5,
                "tools/call",
                retry(Family::Tool.params(), Some(&s1), colour),
                form_caps(),
            ),
        ),
        &asks_style(5),
    );
}

#[test]
fn unknown_fields_in_an_answer_are_tolerated() {
    let opts = state_options();
    let server = preferences_server(&opts);
    let leg1 = round(
        &server,
        &send(1, "tools/call", Family::Tool.params(), form_caps()),
    );
    let s1 = state_of(&expect(leg1, &asks_color(1)));
    let colour = json!({
        "action": "accept",
        "content": {"color": "teal"},
        "_meta": {"client": "note"},
        "futureField": [1, {"x": null}]
    });
    let leg2 = round(
        &server,
        &send(
            2,
            "tools/call",
            retry(
                Family::Tool.params(),
                Some(&s1),
                Some(json!({"color": colour})),
            ),
            form_caps(),
        ),
    );
    expect(leg2, &asks_style(2));
}

#[test]
fn sealing_without_configured_keys_is_a_server_error() {
    // The flow seals on its first leg; a server configured without state keys cannot.
    let server = Server::new(snodo_tests::fixture::config(), Preferences::new());
    for family in FAMILIES {
        let reply = round(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
        );
        expect(reply, &error(1, -32603));
    }
}
