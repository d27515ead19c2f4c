//! Era detection, the handshake, the session's own methods, lifting and settling.

use super::{SPEC_DISCOVER, SPEC_INITIALIZE, message, spec_session, written};
use crate::json::Limits;
use crate::legacy::*;
use crate::protocol::{ClientCapabilities as C, LogLevel, Method, admit};
use crate::rpc::{Id, Incoming};
use crate::server::{Config, ServerCapabilities};

const PING: &str = r#"{"jsonrpc": "2.0", "id": "123", "method": "ping"}"#;

// ---------------------------------------------------------------------------------------------
// Era

#[test]
fn initialize_opens_a_legacy_connection_and_refuses_modern_requests_after() {
    let mut gate = EraGate::new(EraSupport::Both);
    assert_eq!(gate.admit(&message(SPEC_INITIALIZE)), Ok(Era::Legacy));
    assert_eq!(gate.era(), Some(Era::Legacy));
    let modern = message(SPEC_DISCOVER);
    assert_eq!(gate.admit(&modern), Err(EraMismatch::ModernOnLegacy));
    // A refusal changes nothing; legacy messages still pass.
    assert_eq!(gate.admit(&message(PING)), Ok(Era::Legacy));
    let error =
        written(|w| EraMismatch::ModernOnLegacy.write_error(w, Some(Id::Num(9)), EraSupport::Both));
    assert_eq!(
        error,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"This connection opened with initialize (MCP 2025-11-25 and earlier): requests with the 2026-07-28 _meta envelope are refused on it","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"]}}}"#
    );
}

#[test]
fn an_enveloped_request_opens_a_modern_connection_and_refuses_initialize_after() {
    let mut gate = EraGate::new(EraSupport::Both);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t",
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(gate.admit(&message(call)), Ok(Era::Modern));
    assert_eq!(
        gate.admit(&message(SPEC_INITIALIZE)),
        Err(EraMismatch::InitializeOnModern)
    );
    assert_eq!(gate.admit(&message(SPEC_DISCOVER)), Ok(Era::Modern));
}

#[test]
fn server_discover_is_modern_even_without_its_envelope() {
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover"}"#;
    assert_eq!(signal(&message(bare)), Signal::Modern);
    let mut gate = EraGate::new(EraSupport::Both);
    assert_eq!(gate.admit(&message(bare)), Ok(Era::Modern));
}

#[test]
fn neutral_messages_decide_nothing() {
    let mut gate = EraGate::new(EraSupport::Both);
    let neutral = [
        PING,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        // A legacy request with a progress token only: `_meta` without the modern version.
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p"}}}"#,
    ];
    for text in neutral {
        assert_eq!(signal(&message(text)), Signal::Neutral, "{text}");
        assert_eq!(gate.admit(&message(text)), Ok(Era::Modern), "{text}");
        assert_eq!(gate.era(), None, "{text}");
    }
    // With only the legacy era served, undecided messages go to the legacy side.
    let mut legacy_only = EraGate::new(EraSupport::LegacyOnly);
    assert_eq!(legacy_only.admit(&message(PING)), Ok(Era::Legacy));
    assert_eq!(legacy_only.era(), None);
}

#[test]
fn an_era_not_served_is_refused_naming_the_versions_that_are() {
    let mut modern_only = EraGate::new(EraSupport::ModernOnly);
    let refused = modern_only.admit(&message(SPEC_INITIALIZE));
    assert_eq!(refused, Err(EraMismatch::NotServed(Era::Legacy)));
    assert_eq!(modern_only.era(), None);
    let error = written(|w| {
        EraMismatch::NotServed(Era::Legacy).write_error(w, Some(Id::Num(1)), EraSupport::ModernOnly)
    });
    assert_eq!(
        error,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"This server speaks only MCP 2026-07-28: initialize is not supported","data":{"supported":["2026-07-28"]}}}"#
    );
    let mut legacy_only = EraGate::new(EraSupport::LegacyOnly);
    assert_eq!(
        legacy_only.admit(&message(SPEC_DISCOVER)),
        Err(EraMismatch::NotServed(Era::Modern))
    );
}

#[test]
fn http_posts_are_classified_by_message_then_session_header() {
    let both = EraSupport::Both;
    let post = |text: &str, header: bool, support| classify_post(&message(text), header, support);
    // Modern requests take the modern path; a stray session header is ignored.
    assert_eq!(post(SPEC_DISCOVER, true, both), Ok(HttpRoute::Modern));
    assert_eq!(post(SPEC_DISCOVER, false, both), Ok(HttpRoute::Modern));
    // initialize opens a session; with a session header it goes to that session (which
    // refuses a second handshake).
    assert_eq!(
        post(SPEC_INITIALIZE, false, both),
        Ok(HttpRoute::Initialize)
    );
    assert_eq!(post(SPEC_INITIALIZE, true, both), Ok(HttpRoute::Session));
    // Everything else follows the header.
    let answer = r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"cancel"}}"#;
    assert_eq!(post(PING, true, both), Ok(HttpRoute::Session));
    assert_eq!(post(answer, true, both), Ok(HttpRoute::Session));
    assert_eq!(post(PING, false, both), Ok(HttpRoute::Modern));
    // Without legacy support there are no sessions.
    let modern = EraSupport::ModernOnly;
    assert_eq!(post(PING, true, modern), Ok(HttpRoute::Modern));
    assert_eq!(
        post(SPEC_INITIALIZE, true, modern),
        Err(EraMismatch::NotServed(Era::Legacy))
    );
    let legacy = EraSupport::LegacyOnly;
    assert_eq!(
        post(SPEC_DISCOVER, true, legacy),
        Err(EraMismatch::NotServed(Era::Modern))
    );
    assert_eq!(post(PING, true, legacy), Ok(HttpRoute::Session));
}

#[test]
fn session_ids_are_visible_ascii_and_parse_back() {
    let id = SessionId::from_random([
        0x00, 0x01, 0xab, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f,
    ]);
    assert_eq!(id.as_str(), "0001abff00000000000000000000007f");
    assert_eq!(SessionId::parse(id.as_str().as_bytes()), Some(id));
    assert_eq!(SessionId::parse(b"0001ABFF00000000000000000000007f"), None);
    assert_eq!(SessionId::parse(b"0001abff"), None);
}

// ---------------------------------------------------------------------------------------------
// Handshake

#[test]
fn the_spec_initialize_gives_a_session_with_its_capabilities_and_client() {
    let session = spec_session();
    assert_eq!(session.version(), LegacyVersion::V2025_11_25);
    assert_eq!(
        session.capabilities(),
        C::ROOTS
            .union(C::SAMPLING)
            .union(C::ELICITATION_FORM)
            .union(C::ELICITATION_URL)
    );
    assert!(session.roots_list_changed());
    assert!(!session.initialized());
    let client = session.client().expect("short name and version");
    assert_eq!(
        (client.name(), client.version()),
        ("ExampleClient", "1.0.0")
    );
}

fn initialize(version: &str, capabilities: &str) -> Session {
    let text = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{capabilities},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
    );
    let Incoming::Request(request) = message(&text) else {
        panic!()
    };
    parse_initialize(request.params).expect(&text)
}

#[test]
fn versions_are_negotiated_and_capabilities_masked_to_the_version() {
    let all = r#"{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}"#;
    let v = |s: &Session| s.version().name();
    assert_eq!(v(&initialize("2025-11-25", "{}")), "2025-11-25");
    assert_eq!(v(&initialize("2025-06-18", "{}")), "2025-06-18");
    assert_eq!(v(&initialize("2025-03-26", "{}")), "2025-03-26");
    assert_eq!(v(&initialize("2024-11-05", "{}")), "2025-11-25");
    assert_eq!(v(&initialize("2026-07-28", "{}")), "2025-11-25");
    assert_eq!(v(&initialize("1.0.0", "{}")), "2025-11-25");
    let caps = |version| initialize(version, all).capabilities();
    assert_eq!(
        caps("2025-11-25"),
        C::ELICITATION_FORM
            .union(C::ELICITATION_URL)
            .union(C::SAMPLING)
            .union(C::SAMPLING_TOOLS)
            .union(C::ROOTS)
    );
    assert_eq!(
        caps("2025-06-18"),
        C::ELICITATION_FORM.union(C::SAMPLING).union(C::ROOTS)
    );
    assert_eq!(caps("2025-03-26"), C::SAMPLING.union(C::ROOTS));
    // An empty elicitation object means form mode only.
    let empty = initialize("2025-11-25", r#"{"elicitation":{}}"#);
    assert_eq!(empty.capabilities(), C::ELICITATION_FORM);
}

#[test]
fn malformed_initialize_params_are_refused() {
    let refuse = |params: &str| {
        let text =
            std::format!(r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{params}}}"#);
        let Incoming::Request(request) = message(&text) else {
            panic!()
        };
        parse_initialize(request.params).expect_err(&text).0
    };
    let client = r#""clientInfo":{"name":"c","version":"1"}"#;
    assert_eq!(
        refuse(&std::format!(r#"{{"capabilities":{{}},{client}}}"#)),
        "protocolVersion must be a string"
    );
    assert_eq!(
        refuse(&std::format!(
            r#"{{"protocolVersion":"2025-11-25",{client}}}"#
        )),
        "capabilities is required"
    );
    assert_eq!(
        refuse(&std::format!(
            r#"{{"protocolVersion":"2025-11-25","capabilities":{{"sampling":true}},{client}}}"#
        )),
        "capabilities is malformed"
    );
    assert_eq!(
        refuse(r#"{"protocolVersion":"2025-11-25","capabilities":{}}"#),
        "clientInfo must be an object"
    );
    assert_eq!(
        refuse(r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c"}}"#),
        "clientInfo needs a string name and a string version"
    );
    let Incoming::Request(bare) = message(r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#)
    else {
        panic!()
    };
    assert_eq!(
        parse_initialize(bare.params),
        Err(InitializeError("initialize needs params"))
    );
}

#[test]
fn a_long_client_name_is_not_kept() {
    let name = "n".repeat(MAX_CLIENT_NAME + 1);
    let text = std::format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"{name}","version":"1"}}}}}}"#
    );
    let Incoming::Request(request) = message(&text) else {
        panic!()
    };
    assert!(parse_initialize(request.params).unwrap().client().is_none());
}

#[test]
fn the_initialize_result_carries_version_capabilities_and_server_info() {
    let session = initialize("2025-06-18", "{}");
    let config = Config::new("snodo-example", "0.1.0").with_instructions("Use the tools.");
    let caps = ServerCapabilities {
        tools: true,
        logging: true,
        resources: true,
        subscribe: true,
        ..ServerCapabilities::default()
    };
    let reply = written(|w| write_initialize_result(w, Id::Num(1), &session, &config, caps));
    assert_eq!(
        reply,
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"resources":{"subscribe":true},"tools":{}},"serverInfo":{"name":"snodo-example","version":"0.1.0"},"instructions":"Use the tools."}}"#
    );
}

// ---------------------------------------------------------------------------------------------
// The session's own methods

const SERVED: ServerCapabilities = ServerCapabilities {
    tools: true,
    resources: true,
    prompts: true,
    completions: true,
    logging: true,
    subscribe: true,
    list_changed: crate::server::ListChanged::NONE,
};

fn step(session: &mut Session, text: &str) -> (std::string::String, bool) {
    let incoming = message(text);
    let mut replied = false;
    let out = written(|w| replied = matches!(session.step(&incoming, SERVED, w), Step::Replied));
    (out, replied)
}

#[test]
fn ping_is_answered_with_an_empty_result() {
    let mut session = spec_session();
    assert_eq!(
        step(&mut session, PING),
        (r#"{"jsonrpc":"2.0","id":"123","result":{}}"#.into(), true)
    );
}

#[test]
fn set_level_is_kept_for_the_session() {
    let mut session = spec_session();
    let spec =
        r#"{"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": {"level": "info"}}"#;
    assert_eq!(
        step(&mut session, spec),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(), true)
    );
    assert_eq!(session.log_level(), Some(LogLevel::Info));
    let bad = r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"loud"}}"#;
    assert_eq!(
        step(&mut session, bad).0,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"level must be a log level"}}"#
    );
    assert_eq!(session.log_level(), Some(LogLevel::Info));
    // A server that does not advertise logging has no such method.
    let incoming = message(spec);
    let out = written(|w| {
        session.step(&incoming, ServerCapabilities::default(), w);
    });
    assert_eq!(
        out,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#
    );
}

#[test]
fn notifications_are_noted_or_handed_back_and_never_answered() {
    let mut session = spec_session();
    let initialized = message(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
    let mut buf = [0u8; 64];
    let mut w = crate::json::Writer::new(&mut buf);
    assert!(matches!(
        session.step(&initialized, SERVED, &mut w),
        Step::Quiet
    ));
    assert!(session.initialized());
    let cancelled = message(
        r#"{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "123", "reason": "User requested cancellation"}}"#,
    );
    assert!(matches!(
        session.step(&cancelled, SERVED, &mut w),
        Step::Cancel { request_id: Id::Str(s) } if s.eq_str("123")
    ));
    let malformed = message(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#);
    assert!(matches!(
        session.step(&malformed, SERVED, &mut w),
        Step::Quiet
    ));
    let roots = message(r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#);
    assert!(matches!(session.step(&roots, SERVED, &mut w), Step::Quiet));
    assert_eq!(w.position(), 0, "nothing written for notifications");
}

#[test]
fn subscriptions_answers_and_modern_methods_are_handed_back() {
    let mut session = spec_session();
    let mut buf = [0u8; 256];
    let mut w = crate::json::Writer::new(&mut buf);
    let subscribe = message(
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}"#,
    );
    assert!(matches!(
        session.step(&subscribe, SERVED, &mut w),
        Step::Subscription { id: Id::Num(4), uri, subscribe: true } if uri.eq_str("test://watched-resource")
    ));
    let unsubscribe = message(
        r#"{"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"test://watched-resource"}}"#,
    );
    assert!(matches!(
        session.step(&unsubscribe, SERVED, &mut w),
        Step::Subscription {
            subscribe: false,
            ..
        }
    ));
    let answer = message(r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"roots":[]}}"#);
    let Step::Answer(answer) = session.step(&answer, SERVED, &mut w) else {
        panic!("a response is an answer");
    };
    assert!(matches!(answer.id, Id::Str(s) if s.eq_str("snodo-bridge-1")));
    assert!(matches!(answer.outcome, Some(Ok(r)) if r.raw() == br#"{"roots":[]}"#));
    let call = message(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"t"}}"#);
    assert!(matches!(
        session.step(&call, SERVED, &mut w),
        Step::Modern {
            method: Method::ToolsCall,
            ..
        }
    ));
    assert_eq!(w.position(), 0);
    let out = written(|w| write_empty_result(w, Id::Num(4)));
    assert_eq!(out, r#"{"jsonrpc":"2.0","id":4,"result":{}}"#);
}

#[test]
fn a_second_initialize_and_unknown_or_modern_only_methods_are_refused() {
    let mut session = spec_session();
    assert_eq!(
        step(&mut session, SPEC_INITIALIZE).0,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"The session is already initialized"}}"#
    );
    for method in [
        "subscriptions/listen",
        "server/discover",
        "tasks/list",
        "sampling/createMessage",
    ] {
        let text = std::format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}"}}"#);
        assert_eq!(
            step(&mut session, &text).0,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found"}}"#,
            "{method}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Lifting and settling

#[test]
fn a_legacy_request_is_lifted_into_the_modern_envelope() {
    let mut session = spec_session();
    step(
        &mut session,
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}"#,
    );
    let Incoming::Request(call) = message(
        r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"preference",
        "arguments":{"n":1},"_meta":{"progressToken":"p-1","io.modelcontextprotocol/logLevel":"debug"},
        "inputResponses":{"x":{}},"requestState":"forged"}}"#,
    ) else {
        panic!()
    };
    let lifted = written(|w| lift_request(&call, &session, w));
    assert_eq!(
        lifted,
        r#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"_meta":{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/logLevel":"warning"},"name":"preference","arguments":{"n":1}}}"#
    );
    // The modern path admits what the lift wrote.
    let Incoming::Request(modern) = message(&lifted) else {
        panic!()
    };
    let meta = admit(modern.params).expect("a valid envelope");
    assert_eq!(meta.capabilities, spec_session().capabilities());
    assert_eq!(meta.log_level, Some(LogLevel::Warning));
}

#[test]
fn a_request_without_params_is_lifted_with_the_envelope_only() {
    let session = initialize("2025-03-26", "{}");
    let Incoming::Request(list) = message(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#)
    else {
        panic!()
    };
    assert_eq!(
        written(|w| lift_request(&list, &session, w)),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}"#
    );
}

fn settled(reply: &str) -> (Settled, std::string::String) {
    let mut settled = None;
    let out = written(|w| {
        settled = Some(settle(reply.as_bytes(), &Limits::default(), w).expect("a response"));
    });
    (settled.unwrap(), out)
}

#[test]
fn a_final_result_loses_the_2026_only_fields() {
    let modern = r#"{"jsonrpc":"2.0","id":"c-1","result":{"content":[{"type":"text","text":"teal"}],"isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"ttlMs":0,"cacheScope":"private"}}"#;
    assert_eq!(
        settled(modern),
        (
            Settled::Final,
            r#"{"jsonrpc":"2.0","id":"c-1","result":{"content":[{"type":"text","text":"teal"}],"isError":false}}"#
                .into()
        )
    );
    let list = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[],"nextCursor":"2","resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"app/trace":"t"}}}"#;
    assert_eq!(
        settled(list).1,
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[],"nextCursor":"2","_meta":{"app/trace":"t"}}}"#
    );
}

#[test]
fn errors_pass_and_a_missing_capability_becomes_a_legacy_error() {
    let plain = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool"}}"#;
    assert_eq!(settled(plain), (Settled::Final, plain.into()));
    let missing = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{},"roots":{}}}}}"#;
    assert_eq!(
        settled(missing).1,
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Client does not support sampling, roots (required by this request)","data":{"requiredCapabilities":{"sampling":{},"roots":{}}}}}"#
    );
}

#[test]
fn input_required_is_left_to_the_bridge() {
    let modern = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}"#;
    assert_eq!(settled(modern), (Settled::InputRequired, "".into()));
    let mut out = [0u8; 16];
    let mut w = crate::json::Writer::new(&mut out);
    assert_eq!(
        settle(b"{\"not\":\"a response\"}", &Limits::default(), &mut w),
        Err(NotAResponse)
    );
    assert_eq!(settle(b"[", &Limits::default(), &mut w), Err(NotAResponse));
}

#[test]
fn a_reply_with_both_a_result_and_an_error_is_not_a_response() {
    // Found by the `legacy` fuzz target: copying it whole kept `resultType` in the result.
    let both = br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[],"resultType":"complete"},"error":{"code":-32603,"message":"m"}}"#;
    let mut out = [0u8; 256];
    let mut w = crate::json::Writer::new(&mut out);
    assert_eq!(settle(both, &Limits::default(), &mut w), Err(NotAResponse));
}

// ---------------------------------------------------------------------------------------------
// Notifications and the HTTP version header

#[test]
fn server_events_take_their_legacy_shape() {
    use crate::server::{Event, ListChanged};
    let served = ServerCapabilities {
        list_changed: ListChanged {
            tools: true,
            ..ListChanged::NONE
        },
        ..SERVED
    };
    let event = |e: Event<'_>| {
        let mut wrote = false;
        let out = written(|w| wrote = write_event(&e, served, w));
        (wrote, out)
    };
    assert_eq!(
        event(Event::ToolsListChanged),
        (
            true,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into()
        )
    );
    assert_eq!(event(Event::PromptsListChanged), (false, "".into()));
    assert_eq!(event(Event::ResourcesListChanged), (false, "".into()));
    assert_eq!(
        event(Event::ResourceUpdated("test://watched-resource")),
        (
            true,
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}"#
                .into()
        )
    );
}

#[test]
fn a_legacy_session_accepts_legacy_version_headers_only() {
    assert_eq!(check_version_header(None), Ok(None));
    assert_eq!(
        check_version_header(Some(b"2025-11-25")),
        Ok(Some(LegacyVersion::V2025_11_25))
    );
    assert_eq!(
        check_version_header(Some(b" 2025-03-26")),
        Ok(Some(LegacyVersion::V2025_03_26))
    );
    for bad in [&b"2026-07-28"[..], b"2024-11-05", b"", b"\xff"] {
        assert_eq!(
            check_version_header(Some(bad)),
            Err(BadVersionHeader),
            "{bad:?}"
        );
    }
}

#[test]
fn a_request_handle_views_the_request_again_in_a_copy_of_its_bytes_only() {
    let text = r#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"name":"echo"}}"#;
    let Incoming::Request(request) = message(text) else {
        panic!("a request")
    };
    let handle = RequestHandle::of(text.as_bytes(), &request).expect("lies in its bytes");
    let copy = text.as_bytes().to_vec();
    let again = handle.view(&copy).expect("the same bytes");
    assert_eq!(again.id, request.id);
    assert!(again.method.eq_str("tools/call"));
    let name = again
        .params
        .and_then(|p| p.get("name"))
        .and_then(|v| v.as_str());
    assert!(name.is_some_and(|n| n.eq_str("echo")));
    // Other bytes of the same length are refused, not misread.
    let other = text.replace("echo", "ohce");
    assert!(handle.view(other.as_bytes()).is_none());
    // A request not taken from these bytes has no handle in them.
    assert!(RequestHandle::of(b"{}", &request).is_none());
}
