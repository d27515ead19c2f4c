//! Literal wire tests of the client's side of the `initialize` era.

use super::*;
use crate::client::{
    ClientCapabilities, ClientConfig, ClientError, Exchange, InputKind, Operation, Reply,
};
use crate::json::{Limits, parse};
use crate::protocol::LegacyVersion;

const CONFIG: ClientConfig<'static> = ClientConfig::new("host", "1.0");

fn reply_era(response: &[u8]) -> Era {
    let mut exchange = Exchange::new(&CONFIG, Operation::discover(), ClientCapabilities::NONE);
    let mut out = [0u8; 512];
    exchange.write_request(1, &mut out).unwrap();
    probe_era(&exchange.read_response(response).unwrap())
}

#[test]
fn a_discover_result_or_a_modern_error_is_modern_any_other_error_legacy() {
    let result = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{}}}"#;
    assert_eq!(reply_era(result), Era::Modern);
    for code in ["-32020", "-32021", "-32022"] {
        let error = std::format!(
            r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m","data":{{"supported":["2027-01-01"]}}}}}}"#
        );
        assert_eq!(reply_era(error.as_bytes()), Era::Modern, "{code}");
    }
    // Legacy servers answer with codes of their own choosing, or a null id.
    for error in [
        &br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#[..],
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"not initialized"}}"#,
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: Server not initialized"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32019,"message":"x"}}"#,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32023,"message":"x"}}"#,
    ] {
        assert_eq!(reply_era(error), Era::Legacy, "{}", core::str::from_utf8(error).unwrap());
    }
    assert!(legacy_status(400) && legacy_status(404) && legacy_status(405) && legacy_status(499));
    assert!(
        !legacy_status(200) && !legacy_status(202) && !legacy_status(500) && !legacy_status(302)
    );
}

#[test]
fn initialize_declares_the_installed_capabilities_and_reads_the_version() {
    let mut out = [0u8; 512];
    let caps = ClientCapabilities::ELICITATION_FORM
        .union(ClientCapabilities::ELICITATION_URL)
        .union(ClientCapabilities::SAMPLING)
        .union(ClientCapabilities::ROOTS);
    let config = CONFIG.with_title("Host");
    let n = write_initialize(&config, caps, 7, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}},"clientInfo":{"name":"host","version":"1.0","title":"Host"}}}"#
    );
    for version in LegacyVersion::ALL {
        let reply = std::format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"protocolVersion":"{}","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}}}}"#,
            version.name()
        );
        let negotiated = read_initialize_result(reply.as_bytes(), 7, &Limits::HOST).unwrap();
        assert_eq!(negotiated.version, version);
        assert!(negotiated.result.get("serverInfo").is_some());
    }
}

#[test]
fn an_unknown_version_an_error_or_another_id_ends_the_handshake() {
    let limits = Limits::HOST;
    let unknown =
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{}}}"#;
    assert_eq!(
        read_initialize_result(unknown, 1, &limits).unwrap_err(),
        ClientError::UnsupportedVersion
    );
    let modern =
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2026-07-28","capabilities":{}}}"#;
    assert_eq!(
        read_initialize_result(modern, 1, &limits).unwrap_err(),
        ClientError::UnsupportedVersion
    );
    let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}"#;
    assert_eq!(
        read_initialize_result(error, 1, &limits).unwrap_err(),
        ClientError::Server { code: -32602 }
    );
    let other_id =
        br#"{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#;
    assert!(matches!(
        read_initialize_result(other_id, 1, &limits),
        Err(ClientError::MalformedResponse { .. })
    ));
    for broken in [
        &b"[1]"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
        b"{\"id\":1,\"result\":[]}",
    ] {
        assert!(matches!(
            read_initialize_result(broken, 1, &limits),
            Err(ClientError::MalformedResponse { .. })
        ));
    }
}

#[test]
fn legacy_requests_carry_no_envelope_and_results_are_final() {
    let mut out = [0u8; 512];
    let args = parse(br#"{"color":"teal"}"#, &Limits::HOST)
        .unwrap()
        .as_object()
        .unwrap();
    let mut call = Exchange::legacy(&CONFIG, Operation::call_tool("pick", Some(args)));
    let n = call.write_request(3, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"pick","arguments":{"color":"teal"}}}"#
    );
    let done = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}"#;
    assert!(matches!(call.read_response(done), Ok(Reply::Complete(_))));

    let mut list = Exchange::legacy(&CONFIG, Operation::list_tools(None));
    let n = list.write_request(4, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}"#
    );
    // A -32022 is no version retry in this era; input_required is not of this era.
    let refused = br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32022,"message":"m","data":{"supported":["2026-07-28"]}}}"#;
    assert!(matches!(list.read_response(refused), Ok(Reply::Error(e)) if e.code == -32022));
    let mut call = Exchange::legacy(&CONFIG, Operation::call_tool("pick", None));
    call.write_request(5, &mut out).unwrap();
    let asks =
        br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required","requestState":"s"}}"#;
    assert!(matches!(
        call.read_response(asks),
        Err(ClientError::MalformedResponse { .. })
    ));

    // The caller's own `_meta` members go along; the envelope's never do.
    let meta = parse(
        br#"{"progressToken":"p-1","io.modelcontextprotocol/protocolVersion":"x"}"#,
        &Limits::HOST,
    )
    .unwrap()
    .as_object()
    .unwrap();
    let mut read = Exchange::legacy(&CONFIG, Operation::read_resource("ui://a").with_meta(meta));
    let n = read.write_request(6, &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"ui://a","_meta":{"progressToken":"p-1"}}}"#
    );
}

fn message(bytes: &[u8]) -> crate::json::Value<'_> {
    parse(bytes, &Limits::HOST).unwrap()
}

#[test]
fn server_requests_are_answered_through_the_input_handler() {
    let mut out = [0u8; 512];
    let elicit = br#"{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":{"message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}"#;
    let (id, request) = read_server_request(message(elicit)).unwrap();
    let ServerRequest::Input(input) = request else {
        panic!("{request:?}")
    };
    assert_eq!(input.kind(), InputKind::Form);
    let n = write_reply(id, &request, &mut out, |_, answer| {
        Ok(answer.accept(|c| {
            c.str("color", "teal");
        }))
    })
    .unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":"e-1","result":{"action":"accept","content":{"color":"teal"}}}"#
    );

    // 2025-11-25 URL mode carries an elicitationId; consent is the answer.
    let url = br#"{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"Open","url":"https://example.com/a","elicitationId":"x-1"}}"#;
    let (id, request) = read_server_request(message(url)).unwrap();
    assert!(matches!(request, ServerRequest::Input(i) if i.kind() == InputKind::Url));
    let n = write_reply(id, &request, &mut out, |_, answer| Ok(answer.consent())).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":2,"result":{"action":"accept"}}"#
    );

    let roots = br#"{"jsonrpc":"2.0","id":3,"method":"roots/list"}"#;
    let (id, request) = read_server_request(message(roots)).unwrap();
    assert!(matches!(request, ServerRequest::Input(i) if i.kind() == InputKind::Roots));
    let n = write_reply(id, &request, &mut out, |_, answer| {
        Ok(answer.roots(|r| {
            r.root("file:///p", Some("p"));
        }))
    })
    .unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":3,"result":{"roots":[{"uri":"file:///p","name":"p"}]}}"#
    );

    let ping = br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
    let (id, request) = read_server_request(message(ping)).unwrap();
    let n = write_reply(id, &request, &mut out, |_, _| unreachable!()).unwrap();
    assert_eq!(&out[..n], br#"{"jsonrpc":"2.0","id":4,"result":{}}"#);
}

#[test]
fn wrong_answers_and_unknown_or_malformed_requests_are_refused() {
    let mut out = [0u8; 512];
    let elicit = br#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}}"#;
    let (id, request) = read_server_request(message(elicit)).unwrap();
    let wrong = write_reply(id, &request, &mut out, |_, answer| Ok(answer.roots(|_| {})));
    assert_eq!(wrong, Err(ClientError::InvalidAnswer(InputKind::Form)));
    let aborted = write_reply(id, &request, &mut out, |_, _| {
        Err(crate::client::Abort::new("no"))
    });
    assert_eq!(
        aborted,
        Err(ClientError::Aborted {
            kind: InputKind::Form,
            reason: "no"
        })
    );
    let n = write_refusal(Some(id), REFUSED, "the user refused", &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"the user refused"}}"#
    );

    let unknown = br#"{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{}}"#;
    let (id, request) = read_server_request(message(unknown)).unwrap();
    assert!(matches!(request, ServerRequest::Unknown(m) if m.eq_str("tasks/get")));
    let n = write_refusal(Some(id), UNKNOWN_METHOD, "Method not found", &mut out).unwrap();
    assert_eq!(
        &out[..n],
        br#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found"}}"#
    );

    let malformed =
        br#"{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"messages":[]}}"#;
    let (id, reason) = read_server_request(message(malformed)).unwrap_err();
    assert_eq!(id.and_then(|i| i.as_i64()), Some(5));
    assert!(!reason.is_empty());
    for broken in [
        &br#"{"jsonrpc":"2.0","method":"ping"}"#[..],
        br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":1,"method":7}"#,
    ] {
        assert!(read_server_request(message(broken)).is_err());
    }
}
