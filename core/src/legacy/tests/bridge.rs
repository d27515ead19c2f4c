//! The MRTR bridge: input requests out as legacy requests, answers back as `inputResponses`.

use super::{message, spec_session, written};
use crate::client::InputKind;
use crate::json::{Limits, Writer};
use crate::legacy::*;
use crate::protocol::ClientCapabilities as C;
use crate::rpc::{Id, Incoming};

const LIMITS: BridgeLimits = BridgeLimits::HOST;

/// The lifted request the handler path first ran.
const LIFTED: &str = r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}},"name":"gh","arguments":{}}}"#;

/// A form request as in the spec's elicitation example, with sealed state.
const FORM_REPLY: &str = r#"{"jsonrpc":"2.0","id":"c-1","result":{"resultType":"input_required","inputRequests":{"github_login":{"method":"elicitation/create","params":{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"s1.abc","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;

/// Form, URL, sampling (the spec's example) and roots at once.
const MIXED_REPLY: &str = r#"{"jsonrpc":"2.0","id":"c-1","result":{"resultType":"input_required","inputRequests":{
"form":{"method":"elicitation/create","params":{"mode":"form","message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}},
"consent":{"method":"elicitation/create","params":{"mode":"url","message":"Please provide your API key to continue.","url":"https://mcp.example.com/ui/set_api_key"}},
"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"modelPreferences":{"hints":[{"name":"claude-3-sonnet"}],"intelligencePriority":0.8,"speedPriority":0.5},"systemPrompt":"You are a helpful assistant.","maxTokens":100}},
"roots":{"method":"roots/list"}},"requestState":"s2.def"}}"#;

fn answer(text: &str) -> ClientResponse<'_> {
    parse_response(text.as_bytes(), &Limits::default()).expect(text)
}

fn request_text(leg: &Leg, index: usize, reply: &str) -> std::string::String {
    written(|w| {
        leg.write_request(index, reply.as_bytes(), &LIMITS, w)
            .unwrap()
    })
}

fn retry_text(leg: &Leg, previous: &str, reply: &str, store: &[u8]) -> std::string::String {
    written(|w| {
        leg.write_retry(previous.as_bytes(), reply.as_bytes(), store, &LIMITS, w)
            .unwrap()
    })
}

#[test]
fn a_form_request_goes_out_and_its_answer_comes_back_with_the_state() {
    let mut session = spec_session();
    let mut leg: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    assert_eq!((leg.len(), leg.round()), (1, 1));
    assert_eq!(leg.kind(0), Some(InputKind::Form));
    assert_eq!(
        request_text(&leg, 0, FORM_REPLY),
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}"#
    );
    let mut store = [0u8; 256];
    let response = answer(
        r#"{"jsonrpc": "2.0", "id": "snodo-bridge-1", "result": {"action": "accept", "content": {"name": "octocat"}}}"#,
    );
    assert!(matches!(
        leg.accept(&response, &mut store),
        Ok(Accepted::Complete)
    ));
    assert!(leg.is_complete());
    assert_eq!(
        retry_text(&leg, LIFTED, FORM_REPLY, &store),
        r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}},"name":"gh","arguments":{},"inputResponses":{"github_login":{"action": "accept", "content": {"name": "octocat"}}},"requestState":"s1.abc"}}"#
    );
}

#[test]
fn mixed_requests_are_answered_in_any_order() {
    let mut session = spec_session();
    let mut leg: Leg = Leg::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    assert_eq!(leg.len(), 4);
    assert_eq!(leg.kind(0), Some(InputKind::Form));
    assert_eq!(leg.kind(1), Some(InputKind::Url));
    assert_eq!(leg.kind(2), Some(InputKind::Sampling));
    assert_eq!(leg.kind(3), Some(InputKind::Roots));
    // URL mode gains the elicitationId 2025-11-25 requires: the bridge id.
    assert_eq!(
        request_text(&leg, 1, MIXED_REPLY),
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-2","method":"elicitation/create","params":{"mode":"url","message":"Please provide your API key to continue.","url":"https://mcp.example.com/ui/set_api_key","elicitationId":"snodo-bridge-2"}}"#
    );
    assert_eq!(
        request_text(&leg, 2, MIXED_REPLY),
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-3","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"modelPreferences":{"hints":[{"name":"claude-3-sonnet"}],"intelligencePriority":0.8,"speedPriority":0.5},"systemPrompt":"You are a helpful assistant.","maxTokens":100}}"#
    );
    assert_eq!(
        request_text(&leg, 3, MIXED_REPLY),
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-4","method":"roots/list"}"#
    );
    let mut store = [0u8; 512];
    let answers = [
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-4","result":{"roots":[{"uri":"file:///home/user/projects/myproject","name":"My Project"}]}}"#,
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-2","result":{"action":"accept"}}"#,
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-3","result":{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},"model":"claude-3-sonnet-20240307","stopReason":"endTurn"}}"#,
    ];
    for (n, text) in answers.iter().enumerate() {
        let accepted = leg.accept(&answer(text), &mut store).unwrap();
        assert!(
            matches!(accepted, Accepted::Waiting { remaining } if remaining == 3 - n),
            "{n}"
        );
    }
    assert_eq!(leg.pending().collect::<std::vec::Vec<_>>(), [BridgeId(1)]);
    let declined =
        answer(r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"decline"}}"#);
    assert!(matches!(
        leg.accept(&declined, &mut store),
        Ok(Accepted::Complete)
    ));
    // The answers go back under the server's keys, in the server's order.
    let retry = retry_text(&leg, LIFTED, MIXED_REPLY, &store);
    let tail = retry.split_once(r#""arguments":{},"#).unwrap().1;
    assert_eq!(
        tail,
        r#""inputResponses":{"form":{"action":"decline"},"consent":{"action":"accept"},"capital":{"role":"assistant","content":{"type":"text","text":"The capital of France is Paris."},"model":"claude-3-sonnet-20240307","stopReason":"endTurn"},"roots":{"roots":[{"uri":"file:///home/user/projects/myproject","name":"My Project"}]}},"requestState":"s2.def"}}"#
    );
}

#[test]
fn a_client_error_ends_the_request_and_names_the_input() {
    let mut session = spec_session();
    let mut leg: Leg = Leg::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    let mut store = [0u8; 64];
    let rejected = answer(
        r#"{"jsonrpc": "2.0", "id": "snodo-bridge-3", "error": {"code": -1, "message": "User rejected sampling request"}}"#,
    );
    let Ok(Accepted::Refused {
        kind,
        code,
        message,
    }) = leg.accept(&rejected, &mut store)
    else {
        panic!("refused")
    };
    assert_eq!((kind, code), (InputKind::Sampling, -1));
    assert_eq!(
        written(|w| write_refused(w, Id::Num(5), kind, code, message)),
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"The client answered sampling/createMessage with an error","data":{"code":-1,"message":"User rejected sampling request"}}}"#
    );
    // What is still pending is cancelled when the wait ends.
    let cancels: std::vec::Vec<_> = leg
        .pending()
        .map(|id| written(|w| write_cancelled(w, id, "The request was refused")))
        .collect();
    assert_eq!(cancels.len(), 4);
    assert_eq!(
        cancels[0],
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"snodo-bridge-1","reason":"The request was refused"}}"#
    );
}

#[test]
fn a_timed_out_answer_ends_the_request_with_a_legacy_error() {
    assert_eq!(
        written(|w| BridgeError::TimedOut.write_error(w, Id::Num(8))),
        r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"The client did not answer the server's request in time"}}"#
    );
}

#[test]
fn input_the_client_did_not_declare_is_never_sent() {
    let mut session = initialize_with(r#"{"elicitation":{}}"#);
    let opened = Leg::<8>::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1);
    let missing = C::ELICITATION_URL.union(C::SAMPLING).union(C::ROOTS);
    assert_eq!(
        opened.unwrap_err(),
        BridgeError::MissingCapabilities(missing)
    );
    assert_eq!(
        written(|w| BridgeError::MissingCapabilities(missing).write_error(w, Id::Num(2))),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Client does not support elicitation.url, sampling, roots (required by this request)","data":{"requiredCapabilities":{"elicitation":{"url":{}},"sampling":{},"roots":{}}}}}"#
    );
    // No ids were taken: the next leg starts at 1.
    let mut ok = spec_session();
    let leg: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut ok, &LIMITS, 1).unwrap();
    assert_eq!(leg.id(0), Some(BridgeId(1)));
}

#[test]
fn sampling_with_tools_needs_its_own_capability() {
    let reply = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Weather?"}}],"tools":[{"name":"get_weather","inputSchema":{"type":"object"}}],"maxTokens":10}}}}}"#;
    let mut plain = spec_session();
    assert_eq!(
        Leg::<8>::open(reply.as_bytes(), &mut plain, &LIMITS, 1).unwrap_err(),
        BridgeError::MissingCapabilities(C::SAMPLING_TOOLS)
    );
    let mut tools = initialize_with(r#"{"sampling":{"tools":{}}}"#);
    assert!(Leg::<8>::open(reply.as_bytes(), &mut tools, &LIMITS, 1).is_ok());
}

fn initialize_with(capabilities: &str) -> Session {
    initialize_version("2025-11-25", capabilities)
}

fn initialize_version(version: &str, capabilities: &str) -> Session {
    let text = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{capabilities},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    );
    let Incoming::Request(request) = message(&text) else {
        panic!()
    };
    parse_initialize(request.params).unwrap()
}

#[test]
fn a_form_for_an_older_client_has_no_mode() {
    let mut session = initialize_version("2025-06-18", r#"{"elicitation":{}}"#);
    let leg: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    assert_eq!(
        request_text(&leg, 0, FORM_REPLY),
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"message":"Please provide your GitHub username","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}"#
    );
}

#[test]
fn rounds_and_inputs_are_bounded() {
    let mut session = spec_session();
    let limits = BridgeLimits {
        max_rounds: 2,
        ..LIMITS
    };
    assert!(Leg::<8>::open(FORM_REPLY.as_bytes(), &mut session, &limits, 2).is_ok());
    assert_eq!(
        Leg::<8>::open(FORM_REPLY.as_bytes(), &mut session, &limits, 3).unwrap_err(),
        BridgeError::TooManyRounds(2)
    );
    assert_eq!(
        Leg::<2>::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap_err(),
        BridgeError::TooManyInputs(2)
    );
    assert_eq!(
        written(|w| BridgeError::TooManyRounds(2).write_error(w, Id::Num(1))),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The request asked the client for input more times than the server allows"}}"#
    );
}

#[test]
fn bridge_ids_run_on_across_legs_of_a_session() {
    let mut session = spec_session();
    let first: Leg = Leg::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    let second: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut session, &LIMITS, 2).unwrap();
    assert_eq!(
        (first.id(3), second.id(0)),
        (Some(BridgeId(4)), Some(BridgeId(5)))
    );
    assert_eq!(second.owns(BridgeId(4)), None);
    assert_eq!(second.owns(BridgeId(5)), Some(0));
    assert_eq!(first.id(4), None);
}

#[test]
fn stray_duplicate_and_oversized_answers_are_refused() {
    let mut session = spec_session();
    let mut leg: Leg = Leg::open(MIXED_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    let mut store = [0u8; 40];
    let stray = [
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-9","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"other-1","result":{}}"#,
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-","result":{}}"#,
    ];
    for text in stray {
        assert_eq!(
            leg.accept(&answer(text), &mut store).unwrap_err(),
            AnswerError::NotThisLeg,
            "{text}"
        );
    }
    let roots = answer(r#"{"jsonrpc":"2.0","id":"snodo-bridge-4","result":{"roots":[]}}"#);
    assert!(leg.accept(&roots, &mut store).is_ok());
    assert_eq!(
        leg.accept(&roots, &mut store).unwrap_err(),
        AnswerError::Duplicate
    );
    let big = answer(
        r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"a long answer"}}}"#,
    );
    assert_eq!(
        leg.accept(&big, &mut store).unwrap_err(),
        AnswerError::StoreFull { required: 67 }
    );
    // The failed answer left the store as it was: it can still be given again.
    assert_eq!(leg.pending().count(), 3);
}

#[test]
fn a_state_only_result_is_retried_at_once() {
    let reply = r#"{"jsonrpc":"2.0","id":"c-1","result":{"resultType":"input_required","requestState":"s3"}}"#;
    let mut session = spec_session();
    let leg: Leg = Leg::open(reply.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    assert!(leg.is_empty() && leg.is_complete());
    let retry = retry_text(&leg, LIFTED, reply, &[]);
    assert!(
        retry.ends_with(r#""name":"gh","arguments":{},"requestState":"s3"}}"#),
        "{retry}"
    );
}

#[test]
fn a_second_leg_replaces_the_previous_answers() {
    // The previous request is itself a retry: its answers and state give way to the new ones.
    let previous = r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"gh","inputResponses":{"old":{}},"requestState":"s0"}}"#;
    let mut session = spec_session();
    let mut leg: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut session, &LIMITS, 2).unwrap();
    let mut store = [0u8; 64];
    let cancel = answer(r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"cancel"}}"#);
    leg.accept(&cancel, &mut store).unwrap();
    assert_eq!(
        retry_text(&leg, previous, FORM_REPLY, &store),
        r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"gh","inputResponses":{"github_login":{"action":"cancel"}},"requestState":"s1.abc"}}"#
    );
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let mut session = spec_session();
    let leg: Leg = Leg::open(FORM_REPLY.as_bytes(), &mut session, &LIMITS, 1).unwrap();
    let mut buf = [0u8; 64];
    let mut w = Writer::new(&mut buf);
    assert!(
        leg.write_request(1, FORM_REPLY.as_bytes(), &LIMITS, &mut w)
            .is_err()
    );
    assert!(
        leg.write_request(0, MIXED_REPLY.as_bytes(), &LIMITS, &mut w)
            .is_err()
    );
    assert!(
        leg.write_retry(b"{}", FORM_REPLY.as_bytes(), &[], &LIMITS, &mut w)
            .is_err()
    );
    let complete = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#;
    assert!(Leg::<8>::open(complete.as_bytes(), &mut session, &LIMITS, 1).is_err());
    let bad_input = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"x":{"method":"tools/call"}}}}"#;
    assert!(Leg::<8>::open(bad_input.as_bytes(), &mut session, &LIMITS, 1).is_err());
}

#[test]
fn client_responses_are_read_strictly() {
    let limits = Limits::default();
    let bad = [
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":[]}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":"1","message":"m"}}"#,
        r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
        r#"[]"#,
        "{",
    ];
    for text in bad {
        assert!(parse_response(text.as_bytes(), &limits).is_err(), "{text}");
    }
}
