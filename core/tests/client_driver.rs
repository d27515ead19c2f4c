//! The client driver, literal JSON in and out: the `_meta` envelope, `input_required`
//! answered through handlers and retried with a fresh id and the state byte for byte, the
//! bounded rounds and each distinct error.

use snodo_core::client::{
    Abort, Answer, Answered, Ask, ClientCapabilities, ClientConfig, ClientError, Exchange,
    Handlers, Ids, InputHandler, InputKind, Operation, Phase, Reply, RunError, Transport, run,
};
use snodo_core::json::{Limits, Object, parse};

const CONFIG: ClientConfig<'static> = ClientConfig::new("test-client", "0.1.0");

fn text(out: &[u8], n: usize) -> &str {
    std::str::from_utf8(&out[..n]).expect("UTF-8")
}

fn object(json: &str) -> Object<'_> {
    parse(json.as_bytes(), &Limits::HOST)
        .expect("JSON")
        .as_object()
        .expect("an object")
}

/// Answers every kind: the form with `color: teal`, URL consent, a sampled text, one root.
fn all_handlers() -> impl InputHandler {
    Handlers::new()
        .form(|_, answer| {
            Ok(answer.accept(|c| {
                c.str("color", "teal");
            }))
        })
        .url(|_, answer| Ok(answer.consent()))
        .sampling(|_, answer| Ok(answer.sampled_text("test-model", "hello", Some("endTurn"))))
        .roots(|_, answer| {
            Ok(answer.roots(|r| {
                r.root("file:///work", Some("work"));
            }))
        })
}

fn form_only() -> impl InputHandler {
    Handlers::new().form(|_, answer| {
        Ok(answer.accept(|c| {
            c.str("color", "teal");
        }))
    })
}

const META_NONE: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{}}"#;
const META_FORM: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"test-client","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

const FORM_REQUEST: &str = r#"{"method":"elicitation/create","params":{"mode":"form","message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string","minLength":1}},"required":["color"]}}}"#;

#[test]
fn the_first_request_carries_the_meta_envelope() {
    let mut out = [0u8; 1024];
    let args = object(r#"{"subject":"x","n":2}"#);
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::call_tool("pick", Some(args)),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(7, &mut out).unwrap();
    assert_eq!(
        text(&out, n),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"pick","arguments":{{"subject":"x","n":2}},{META_NONE}}}}}"#
        )
    );
    assert_eq!(exchange.phase(), Phase::Awaiting);
    assert_eq!(exchange.rounds(), 1);

    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::list_tools(None),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(1, &mut out).unwrap();
    assert_eq!(
        text(&out, n),
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META_NONE}}}}}"#)
    );
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::list_tools(Some("c2")),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(2, &mut out).unwrap();
    assert!(text(&out, n).contains(r#""params":{"cursor":"c2","_meta""#));

    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::read_resource("preview://p"),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(3, &mut out).unwrap();
    assert!(
        text(&out, n)
            .contains(r#""method":"resources/read","params":{"uri":"preview://p","_meta""#)
    );

    let prompt_args = object(r#"{"subject":"s"}"#);
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::get_prompt("p", Some(prompt_args)),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(4, &mut out).unwrap();
    assert!(text(&out, n).contains(r#""params":{"name":"p","arguments":{"subject":"s"},"_meta""#));

    // Without arguments a tool call still sends an empty object.
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::call_tool("t", None),
        ClientCapabilities::NONE,
    );
    let n = exchange.write_request(5, &mut out).unwrap();
    assert!(text(&out, n).contains(r#""params":{"name":"t","arguments":{},"_meta""#));
}

#[test]
fn capabilities_are_declared_only_for_installed_handlers() {
    let mut out = [0u8; 1024];
    let declared = |handler: &dyn Fn() -> ClientCapabilities| {
        let mut out = [0u8; 1024];
        let mut exchange = Exchange::new(&CONFIG, Operation::discover(), handler());
        let n = exchange.write_request(1, &mut out).unwrap();
        let body = text(&out, n).to_owned();
        let start = body
            .find(r#""io.modelcontextprotocol/clientCapabilities":"#)
            .unwrap();
        body[start + 45..body.len() - 3].to_owned()
    };
    assert_eq!(declared(&|| ().installed()), "{}");
    assert_eq!(
        declared(&|| form_only().installed()),
        r#"{"elicitation":{"form":{}}}"#
    );
    assert_eq!(
        declared(&|| all_handlers().installed()),
        r#"{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}"#
    );
    let url_only = Handlers::new().url(|_, a| Ok(a.decline()));
    assert_eq!(
        declared(&|| url_only.installed()),
        r#"{"elicitation":{"url":{}}}"#
    );
    let tools = Handlers::new()
        .sampling(|_, a| Ok(a.sampled_text("m", "t", None)))
        .sampling_supports(ClientCapabilities::SAMPLING_TOOLS.union(ClientCapabilities::ROOTS));
    // `sampling_supports` adds only sampling sub-capabilities.
    assert_eq!(
        declared(&|| tools.installed()),
        r#"{"sampling":{"tools":{}}}"#
    );
    let tools_without_handler =
        Handlers::new().sampling_supports(ClientCapabilities::SAMPLING_TOOLS);
    assert_eq!(declared(&|| tools_without_handler.installed()), "{}");

    let handler = form_only();
    let mut exchange = Exchange::for_handler(&CONFIG, Operation::call_tool("pick", None), &handler);
    let n = exchange.write_request(1, &mut out).unwrap();
    assert!(text(&out, n).ends_with(&format!("{META_FORM}}}}}")));
}

#[test]
fn a_result_without_result_type_is_complete() {
    let mut out = [0u8; 1024];
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::call_tool("t", None),
        ClientCapabilities::NONE,
    );
    exchange.write_request(1, &mut out).unwrap();
    let reply = exchange
        .read_response(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no-result-type-test-ok"}]}}"#)
        .unwrap();
    let Reply::Complete(result) = reply else {
        panic!("{reply:?}")
    };
    assert!(result.get("content").is_some());
    assert_eq!(exchange.phase(), Phase::Done);

    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::call_tool("t", None),
        ClientCapabilities::NONE,
    );
    exchange.write_request(2, &mut out).unwrap();
    let reply = exchange
        .read_response(
            br#"{"id":2,"jsonrpc":"2.0","result":{"resultType":"complete","content":[]}}"#,
        )
        .unwrap();
    assert!(matches!(reply, Reply::Complete(_)));
}

#[test]
fn input_required_is_answered_and_retried_with_a_fresh_id_and_the_state_byte_for_byte() {
    let mut out = [0u8; 2048];
    let mut handler = form_only();
    let args = object(r#"{"subject":"s"}"#);
    let mut exchange =
        Exchange::for_handler(&CONFIG, Operation::call_tool("pick", Some(args)), &handler);
    exchange.write_request(1, &mut out).unwrap();
    // Escapes, an escaped slash and raw non-ASCII: echoed exactly as received.
    let state = r#""st\u00e9te\/\"x\" é+/=""#;
    let response = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"color":{FORM_REQUEST}}},"requestState":{state}}}}}"#
    );
    let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap() else {
        panic!()
    };
    assert_eq!(input.len(), 1);
    assert_eq!(input.request_state_raw(), Some(state.as_bytes()));
    let request = input.requests().next().unwrap();
    assert!(request.key.eq_str("color"));
    assert_eq!(request.kind(), InputKind::Form);
    let Ask::Form(form) = request.ask else {
        panic!()
    };
    assert!(form.message.eq_str("Color?"));
    assert!(form.is_required("color"));
    assert_eq!(form.fields().count(), 1);
    assert_eq!(exchange.phase(), Phase::Retry);

    let n = exchange
        .write_retry_with(2, &input, &mut out, &mut handler)
        .unwrap();
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"pick","arguments":{{"subject":"s"}},"inputResponses":{{"color":{{"action":"accept","content":{{"color":"teal"}}}}}},"requestState":{state},{META_FORM}}}}}"#
    );
    assert_eq!(text(&out, n), expected);
    assert_eq!(exchange.rounds(), 2);

    let reply = exchange
        .read_response(
            br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}"#,
        )
        .unwrap();
    assert!(matches!(reply, Reply::Complete(_)));
}

#[test]
fn a_result_without_state_gets_a_retry_without_state() {
    let mut out = [0u8; 2048];
    let mut handler = form_only();
    let mut exchange = Exchange::for_handler(&CONFIG, Operation::call_tool("t", None), &handler);
    exchange.write_request(10, &mut out).unwrap();
    let response = format!(
        r#"{{"jsonrpc":"2.0","id":10,"result":{{"resultType":"input_required","inputRequests":{{"k":{FORM_REQUEST}}}}}}}"#
    );
    let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap() else {
        panic!()
    };
    assert_eq!(input.request_state(), None);
    let n = exchange
        .write_retry_with(11, &input, &mut out, &mut handler)
        .unwrap();
    let retry = text(&out, n);
    assert!(!retry.contains("requestState"), "{retry}");
    assert!(retry.contains(r#""inputResponses":{"k":{"#), "{retry}");
}

#[test]
fn a_state_only_result_is_retried_at_once_without_answers() {
    let mut out = [0u8; 2048];
    let mut calls = 0;
    let mut handler = Handlers::new().form(|_, a| {
        calls += 1;
        Ok(a.cancel())
    });
    let mut exchange =
        Exchange::for_handler(&CONFIG, Operation::call_tool("reset", None), &handler);
    exchange.write_request(1, &mut out).unwrap();
    let Reply::InputRequired(input) = exchange
        .read_response(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"only-state"}}"#)
        .unwrap()
    else {
        panic!()
    };
    assert!(input.is_empty());
    let n = exchange
        .write_retry_with(2, &input, &mut out, &mut handler)
        .unwrap();
    let retry = text(&out, n).to_owned();
    assert!(
        retry.contains(r#""arguments":{},"requestState":"only-state","_meta""#),
        "{retry}"
    );
    assert!(!retry.contains("inputResponses"));
    assert_eq!(calls, 0);
}

#[test]
fn every_kind_is_answered_in_one_retry() {
    let mut out = [0u8; 4096];
    let mut handler = all_handlers();
    let mut exchange = Exchange::for_handler(&CONFIG, Operation::get_prompt("p", None), &handler);
    exchange.write_request(1, &mut out).unwrap();
    let response = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{
        "name":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}},
        "open":{"method":"elicitation/create","params":{"mode":"url","message":"Open","url":"https:\/\/example.com\/x"}},
        "greeting":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],"maxTokens":50}},
        "roots":{"method":"roots/list"}},"requestState":"s"}}"#;
    let Reply::InputRequired(input) = exchange.read_response(response).unwrap() else {
        panic!()
    };
    let kinds: Vec<InputKind> = input.requests().map(|r| r.kind()).collect();
    assert_eq!(
        kinds,
        [
            InputKind::Form,
            InputKind::Url,
            InputKind::Sampling,
            InputKind::Roots
        ]
    );
    let n = exchange
        .write_retry_with(2, &input, &mut out, &mut handler)
        .unwrap();
    let retry: serde_json::Value = serde_json::from_slice(&out[..n]).unwrap();
    assert_eq!(
        retry["params"]["inputResponses"],
        serde_json::json!({
            "name": {"action": "accept", "content": {"color": "teal"}},
            "open": {"action": "accept"},
            "greeting": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "test-model", "stopReason": "endTurn"},
            "roots": {"roots": [{"uri": "file:///work", "name": "work"}]}
        })
    );
    assert_eq!(retry["id"], 2);
    assert_eq!(retry["params"]["requestState"], "s");
    assert_eq!(retry["params"]["name"], "p");
}

fn first_leg<'c>(
    handler: &impl InputHandler,
    config: &'c ClientConfig<'c>,
) -> Exchange<'c, 'static> {
    let mut out = [0u8; 1024];
    let mut exchange = Exchange::for_handler(config, Operation::call_tool("t", None), handler);
    exchange.write_request(1, &mut out).unwrap();
    exchange
}

fn input_required(requests: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{requests}}}}}"#
    )
}

#[test]
fn an_input_request_without_a_handler_is_a_missing_handler() {
    let handler = form_only();
    for (requests, kind) in [
        (
            r#"{"u":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com"}}}"#,
            InputKind::Url,
        ),
        (
            r#"{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":5}}}"#,
            InputKind::Sampling,
        ),
        (
            r#"{"r":{"method":"roots/list","params":{}}}"#,
            InputKind::Roots,
        ),
        (
            &format!(r#"{{"ok":{FORM_REQUEST},"r":{{"method":"roots/list"}}}}"#),
            InputKind::Roots,
        ),
    ] {
        let mut exchange = first_leg(&handler, &CONFIG);
        let err = exchange
            .read_response(input_required(requests).as_bytes())
            .unwrap_err();
        assert_eq!(err, ClientError::MissingHandler(kind), "{requests}");
        assert_eq!(exchange.phase(), Phase::Done);
    }
    let mut exchange = first_leg(&(), &CONFIG);
    let err = exchange
        .read_response(input_required(&format!(r#"{{"f":{FORM_REQUEST}}}"#)).as_bytes())
        .unwrap_err();
    assert_eq!(err, ClientError::MissingHandler(InputKind::Form));

    // Sampling with tools needs `sampling.tools`, which a plain sampling handler does not declare.
    let sampler = Handlers::new().sampling(|_, a| Ok(a.sampled_text("m", "t", None)));
    let with_tools = r#"{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}],"maxTokens":5,"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}}"#;
    let mut exchange = first_leg(&sampler, &CONFIG);
    let err = exchange
        .read_response(input_required(with_tools).as_bytes())
        .unwrap_err();
    assert_eq!(err, ClientError::MissingHandler(InputKind::Sampling));
    let sampler = sampler.sampling_supports(ClientCapabilities::SAMPLING_TOOLS);
    let mut exchange = first_leg(&sampler, &CONFIG);
    assert!(matches!(
        exchange.read_response(input_required(with_tools).as_bytes()),
        Ok(Reply::InputRequired(_))
    ));
}

#[test]
fn a_malformed_input_request_is_its_own_error() {
    let handler = all_handlers();
    for (requests, reason) in [
        (
            r#"{"x":{"method":"ping","params":{}}}"#,
            "unknown input request method",
        ),
        (
            r#"{"x":{"method":"elicitation/create"}}"#,
            "elicitation/create needs params",
        ),
        (
            r#"{"x":"elicitation/create"}"#,
            "an input request must be an object",
        ),
        (
            r#"{"x":{"params":{}}}"#,
            "an input request needs a string method",
        ),
        (
            r#"{"x":{"method":"roots/list","params":[]}}"#,
            "input request params must be an object",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{}}}}}"#,
            "an elicitation needs a string message",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"message":"m"}}}"#,
            "a form elicitation needs a requestedSchema object",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"array","properties":{}}}}}"#,
            "requestedSchema type must be \"object\"",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}}"#,
            "requestedSchema needs a properties object",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"a":1}}}}}"#,
            "requestedSchema properties must be schemas (objects)",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{},"required":[1]}}}}"#,
            "requestedSchema required must be an array of strings",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"mode":"popup","message":"m"}}}"#,
            "elicitation mode must be form or url",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"mode":"url","message":"m"}}}"#,
            "a URL elicitation needs a string url",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"javascript:alert(1)"}}}"#,
            "elicitation URL must use http or https",
        ),
        (
            r#"{"x":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://bank.example@evil.example/"}}}"#,
            "elicitation URL must not carry user info",
        ),
        (
            r#"{"x":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"q"}}]}}}"#,
            "sampling params need maxTokens",
        ),
        (
            r#"{"x":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":3}}}"#,
            "sampling params need a non-empty messages array",
        ),
    ] {
        let mut exchange = first_leg(&handler, &CONFIG);
        let err = exchange
            .read_response(input_required(requests).as_bytes())
            .unwrap_err();
        assert_eq!(
            err,
            ClientError::MalformedInputRequest { reason },
            "{requests}"
        );
    }
}

#[test]
fn rounds_are_bounded() {
    let config = ClientConfig::new("test-client", "0.1.0").with_max_rounds(2);
    let mut handler = form_only();
    let mut out = [0u8; 2048];
    let mut exchange = Exchange::for_handler(&config, Operation::call_tool("t", None), &handler);
    exchange.write_request(1, &mut out).unwrap();
    let again = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","inputRequests":{{"k":{FORM_REQUEST}}},"requestState":"s{id}"}}}}"#
        )
    };
    let first = again(1);
    let Reply::InputRequired(input) = exchange.read_response(first.as_bytes()).unwrap() else {
        panic!()
    };
    exchange
        .write_retry_with(2, &input, &mut out, &mut handler)
        .unwrap();
    let err = exchange.read_response(again(2).as_bytes()).unwrap_err();
    assert_eq!(err, ClientError::ExhaustedRounds { rounds: 2 });
    assert_eq!(ClientConfig::new("a", "b").with_max_rounds(0).max_rounds, 1);
    assert_eq!(CONFIG.max_rounds, ClientConfig::DEFAULT_MAX_ROUNDS);
}

#[test]
fn a_json_rpc_error_is_the_servers_error() {
    let mut exchange = first_leg(&(), &CONFIG);
    let reply = exchange
        .read_response(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"uri":"x"}}}"#)
        .unwrap();
    let Reply::Error(error) = reply else { panic!() };
    assert_eq!(error.code, -32602);
    assert!(error.message.eq_str("Invalid params"));
    assert_eq!(error.data.unwrap().raw(), br#"{"uri":"x"}"#);
    assert_eq!(exchange.phase(), Phase::Done);

    // An error the server could not tie to the request has a null id.
    let mut exchange = first_leg(&(), &CONFIG);
    let reply = exchange
        .read_response(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        )
        .unwrap();
    assert!(matches!(reply, Reply::Error(e) if e.code == -32700));
}

#[test]
fn a_version_refusal_that_lists_our_version_is_retried_once() {
    let mut out = [0u8; 1024];
    let mut exchange = Exchange::new(&CONFIG, Operation::discover(), ClientCapabilities::NONE);
    exchange.write_request(1, &mut out).unwrap();
    let refusal = |id: i64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32022,"message":"Unsupported protocol version","data":{{"supported":["2026-07-28"],"requested":"2026-07-28"}}}}}}"#
        )
    };
    assert!(matches!(
        exchange.read_response(refusal(1).as_bytes()),
        Ok(Reply::VersionRetry)
    ));
    assert_eq!(exchange.phase(), Phase::Start);
    // The same id again is refused; a fresh one resends the request.
    assert_eq!(
        exchange.write_request(1, &mut out),
        Err(ClientError::Misuse(
            "every request needs a fresh id: this one was just used"
        ))
    );
    let n = exchange.write_request(2, &mut out).unwrap();
    assert!(text(&out, n).starts_with(r#"{"jsonrpc":"2.0","id":2,"method":"server/discover""#));
    let second = refusal(2);
    let Reply::Error(e) = exchange.read_response(second.as_bytes()).unwrap() else {
        panic!()
    };
    assert_eq!(e.code, -32022);

    // A refusal that does not list our version is the server's error.
    let mut exchange = Exchange::new(&CONFIG, Operation::discover(), ClientCapabilities::NONE);
    exchange.write_request(1, &mut out).unwrap();
    let reply = exchange
        .read_response(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2099-01-01"],"requested":"2026-07-28"}}}"#)
        .unwrap();
    let Reply::Error(e) = reply else { panic!() };
    assert_eq!(e.supported_versions().count(), 1);
}

#[test]
fn malformed_responses_are_their_own_error() {
    for (response, reason) in [
        (&b"not json"[..], "not JSON within the configured limits"),
        (b"[]", "a response must be a JSON object"),
        (br#"{"jsonrpc":"1.0","id":1,"result":{}}"#, "jsonrpc must be \"2.0\""),
        (br#"{"jsonrpc":"2.0","id":2,"result":{}}"#, "the response id is not the request's"),
        (br#"{"jsonrpc":"2.0","id":"1","result":{}}"#, "the response id is not the request's"),
        (br#"{"jsonrpc":"2.0","result":{}}"#, "the response id is not the request's"),
        (br#"{"jsonrpc":"2.0","id":1}"#, "a response needs a result or an error"),
        (br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#, "a response has a result or an error, not both"),
        (br#"{"jsonrpc":"2.0","id":1,"result":[]}"#, "result must be an object"),
        (br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":7}}"#, "resultType must be a string"),
        (br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}"#, "error must be an object with an integer code and a string message"),
        (br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#, "an input_required result needs inputRequests or requestState"),
        (br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":5}}"#, "requestState must be a string"),
        (br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":[]}}"#, "inputRequests must be an object"),
    ] {
        let mut exchange = first_leg(&all_handlers(), &CONFIG);
        let err = exchange.read_response(response).unwrap_err();
        assert_eq!(
            err,
            ClientError::MalformedResponse { reason },
            "{}",
            String::from_utf8_lossy(response)
        );
    }
    let mut exchange = first_leg(&(), &CONFIG);
    assert_eq!(
        exchange
            .read_response(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task"}}"#)
            .unwrap_err(),
        ClientError::UnknownResultType
    );
    // input_required is not an answer a list may give.
    let mut out = [0u8; 1024];
    let mut exchange = Exchange::new(
        &CONFIG,
        Operation::list_tools(None),
        ClientCapabilities::NONE,
    );
    exchange.write_request(1, &mut out).unwrap();
    assert!(matches!(
        exchange.read_response(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#),
        Err(ClientError::MalformedResponse { .. })
    ));
}

#[test]
fn the_driver_refuses_to_be_used_out_of_order() {
    let mut out = [0u8; 1024];
    let mut exchange = Exchange::new(&CONFIG, Operation::discover(), ClientCapabilities::NONE);
    assert!(matches!(
        exchange.read_response(b"{}"),
        Err(ClientError::Misuse(_))
    ));
    exchange.write_request(1, &mut out).unwrap();
    assert!(matches!(
        exchange.write_request(2, &mut out),
        Err(ClientError::Misuse(_))
    ));
    exchange
        .read_response(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#)
        .unwrap();
    assert!(matches!(
        exchange.read_response(b"{}"),
        Err(ClientError::Misuse(_))
    ));
    assert!(matches!(
        exchange.write_request(3, &mut out),
        Err(ClientError::Misuse(_))
    ));

    // A retry reusing the id of the leg it follows is refused.
    let mut handler = form_only();
    let mut exchange = first_leg(&handler, &CONFIG);
    let response = input_required(&format!(r#"{{"k":{FORM_REQUEST}}}"#));
    let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap() else {
        panic!()
    };
    assert!(matches!(
        exchange.write_retry_with(1, &input, &mut out, &mut handler),
        Err(ClientError::Misuse(_))
    ));
    assert!(
        exchange
            .write_retry_with(2, &input, &mut out, &mut handler)
            .is_ok()
    );
}

#[test]
fn a_handler_that_gives_up_or_answers_badly_is_reported() {
    let mut out = [0u8; 2048];
    let response = input_required(&format!(r#"{{"k":{FORM_REQUEST}}}"#));

    let mut giving_up = Handlers::new().form(|_, _| Err(Abort::new("the user closed the window")));
    let mut exchange = first_leg(&giving_up, &CONFIG);
    let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap() else {
        panic!()
    };
    assert_eq!(
        exchange.write_retry_with(2, &input, &mut out, &mut giving_up),
        Err(ClientError::Aborted {
            kind: InputKind::Form,
            reason: "the user closed the window"
        })
    );

    // `color` is required with minLength 1.
    let bad_answers: [&dyn Fn(Answer<'_, '_>) -> Answered; 4] = [
        &|a| {
            a.accept(|c| {
                c.str("color", "");
            })
        },
        &|a| a.accept(|_| {}),
        &|a| a.roots(|_| {}),
        &|a| a.json(b"{\"action\":\"maybe\"}").unwrap(),
    ];
    for bad in bad_answers {
        let mut handler = Handlers::new().form(|_, a| Ok(bad(a)));
        let mut exchange = first_leg(&handler, &CONFIG);
        let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            exchange.write_retry_with(2, &input, &mut out, &mut handler),
            Err(ClientError::InvalidAnswer(InputKind::Form))
        );
    }
    // Declining needs no content.
    let mut declining = Handlers::new().form(|_, a| Ok(a.decline()));
    let mut exchange = first_leg(&declining, &CONFIG);
    let Reply::InputRequired(input) = exchange.read_response(response.as_bytes()).unwrap() else {
        panic!()
    };
    let n = exchange
        .write_retry_with(2, &input, &mut out, &mut declining)
        .unwrap();
    assert!(text(&out, n).contains(r#""inputResponses":{"k":{"action":"decline"}}"#));
}

#[test]
fn a_small_buffer_says_how_much_is_needed() {
    let mut exchange = Exchange::new(&CONFIG, Operation::discover(), ClientCapabilities::NONE);
    let mut tiny = [0u8; 16];
    let Err(ClientError::BufferTooSmall { required }) = exchange.write_request(1, &mut tiny) else {
        panic!()
    };
    assert_eq!(exchange.phase(), Phase::Start);
    let mut exact = vec![0u8; required];
    assert_eq!(exchange.write_request(1, &mut exact), Ok(required));
}

#[test]
fn generic_requests_copy_params_but_never_the_reserved_members() {
    let mut out = [0u8; 2048];
    let params = object(
        r#"{"ref":{"type":"ref/prompt","name":"g"},"argument":{"name":"n","value":"A"},"_meta":{"x":1},"inputResponses":{},"requestState":"s"}"#,
    );
    let meta = object(
        r#"{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/logLevel":"info"}"#,
    );
    let op = Operation::request("completion/complete", Some(params)).with_meta(meta);
    let mut exchange = Exchange::new(&CONFIG, op, ClientCapabilities::NONE);
    let n = exchange.write_request(1, &mut out).unwrap();
    let body: serde_json::Value = serde_json::from_slice(&out[..n]).unwrap();
    assert_eq!(
        body["params"],
        serde_json::json!({
            "ref": {"type": "ref/prompt", "name": "g"},
            "argument": {"name": "n", "value": "A"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "0.1.0"},
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": "p1",
                "io.modelcontextprotocol/logLevel": "info"
            }
        })
    );
    let titled = ClientConfig::new("c", "1").with_title("C");
    let mut exchange = Exchange::new(&titled, Operation::discover(), ClientCapabilities::NONE);
    let n = exchange.write_request(1, &mut out).unwrap();
    assert!(text(&out, n).contains(
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","title":"C"}"#
    ));
}

/// A scripted server: answers each request from a list, checking what it was sent.
struct Script<'s> {
    replies: &'s [&'s str],
    sent: Vec<String>,
}

impl Transport for Script<'_> {
    type Error = &'static str;

    fn round_trip(&mut self, request: &[u8], response: &mut [u8]) -> Result<usize, Self::Error> {
        self.sent.push(String::from_utf8(request.to_vec()).unwrap());
        let reply = self
            .replies
            .get(self.sent.len() - 1)
            .ok_or("no more replies")?;
        let dst = response.get_mut(..reply.len()).ok_or("too long")?;
        dst.copy_from_slice(reply.as_bytes());
        Ok(reply.len())
    }
}

#[test]
fn run_drives_a_whole_three_leg_flow() {
    let leg1 = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"color":{FORM_REQUEST}}},"requestState":"A"}}}}"#
    );
    let leg2 = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"style":{"method":"elicitation/create","params":{"message":"Style?","requestedSchema":{"type":"object","properties":{"style":{"type":"string"}}}}}},"requestState":"B"}}"#;
    let leg3 = r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}"#;
    let replies = [leg1.as_str(), leg2, leg3];
    let mut transport = Script {
        replies: &replies,
        sent: Vec::new(),
    };
    let mut handler = Handlers::new().form(|form, answer| {
        let field = form.fields().next().map(|(name, _)| name).unwrap();
        Ok(if field.eq_str("color") {
            answer.accept(|c| {
                c.str("color", "teal");
            })
        } else {
            answer.accept(|c| {
                c.str("style", "bold");
            })
        })
    });
    let mut ids = Ids::new();
    let mut out = [0u8; 2048];
    let mut response = [0u8; 2048];
    let result = run(
        &CONFIG,
        Operation::call_tool("preference_preview", None),
        &mut handler,
        &mut transport,
        &mut ids,
        &mut out,
        &mut response,
    )
    .unwrap();
    assert_eq!(
        result.get("content").unwrap().raw(),
        br#"[{"type":"text","text":"done"}]"#
    );
    let sent: Vec<serde_json::Value> = transport
        .sent
        .iter()
        .map(|s| serde_json::from_str(s).unwrap())
        .collect();
    assert_eq!(sent.len(), 3);
    assert_eq!(
        sent.iter()
            .map(|s| s["id"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert!(sent[0]["params"].get("requestState").is_none());
    assert!(sent[0]["params"].get("inputResponses").is_none());
    assert_eq!(sent[1]["params"]["requestState"], "A");
    assert_eq!(
        sent[1]["params"]["inputResponses"]["color"]["content"]["color"],
        "teal"
    );
    assert_eq!(sent[2]["params"]["requestState"], "B");
    assert_eq!(
        sent[2]["params"]["inputResponses"]["style"]["content"]["style"],
        "bold"
    );
    assert_eq!(ids.next_id(), 4);
}

#[test]
fn run_reports_server_errors_and_transport_failures() {
    let replies =
        [r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#];
    let mut transport = Script {
        replies: &replies,
        sent: Vec::new(),
    };
    let (mut out, mut response) = ([0u8; 1024], [0u8; 1024]);
    let err = run(
        &CONFIG,
        Operation::discover(),
        &mut (),
        &mut transport,
        &mut Ids::new(),
        &mut out,
        &mut response,
    )
    .unwrap_err();
    assert_eq!(err, RunError::Client(ClientError::Server { code: -32601 }));

    let mut transport = Script {
        replies: &[],
        sent: Vec::new(),
    };
    let err = run(
        &CONFIG,
        Operation::discover(),
        &mut (),
        &mut transport,
        &mut Ids::new(),
        &mut out,
        &mut response,
    )
    .unwrap_err();
    assert_eq!(err, RunError::Transport("no more replies"));

    // A version refusal listing our version, then the result.
    let replies = [
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","supportedVersions":["2026-07-28"]}}"#,
    ];
    let mut transport = Script {
        replies: &replies,
        sent: Vec::new(),
    };
    let result = run(
        &CONFIG,
        Operation::discover(),
        &mut (),
        &mut transport,
        &mut Ids::new(),
        &mut out,
        &mut response,
    )
    .unwrap();
    assert!(result.get("supportedVersions").is_some());
    assert_eq!(transport.sent.len(), 2);
}

#[test]
fn ids_count_up_and_wrap() {
    let mut ids = Ids::new();
    assert_eq!((ids.next_id(), ids.next_id()), (1, 2));
    let mut ids = Ids::default();
    assert_eq!(ids.next_id(), 1);
}

#[test]
fn errors_read_well() {
    assert_eq!(
        ClientError::MissingHandler(InputKind::Url).to_string(),
        "the server asked for URL elicitation input, but no handler for it is installed"
    );
    assert_eq!(
        ClientError::ExhaustedRounds { rounds: 8 }.to_string(),
        "the server still asked for input after 8 requests; giving up"
    );
    assert!(
        ClientError::MalformedInputRequest { reason: "x" }
            .to_string()
            .contains("malformed input request: x")
    );
    assert!(
        ClientError::MalformedResponse { reason: "y" }
            .to_string()
            .contains("malformed response: y")
    );
}

mod no_panic {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_bytes_as_a_response(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let mut exchange = first_leg(&all_handlers(), &CONFIG);
            let _ = exchange.read_response(&bytes);
        }

        #[test]
        fn any_input_requests(key in "[a-z]{1,4}", method in "(elicitation/create|sampling/createMessage|roots/list|x)",
                              params in r#"\{("mode":"(url|form)",)?("message":"m",)?("url":"[a-z:/.@]{0,20}",)?("requestedSchema":\{"type":"object","properties":\{("a":\{"type":"string"\})?\}\},)?("maxTokens":[0-9],)?("messages":\[\{"role":"user","content":\{"type":"text","text":"q"\}\}\],)?"z":0\}"#) {
            let response = format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{"{key}":{{"method":"{method}","params":{params}}}}},"requestState":"s"}}}}"#
            );
            let mut handler = all_handlers();
            let mut exchange = first_leg(&handler, &CONFIG);
            if let Ok(Reply::InputRequired(input)) = exchange.read_response(response.as_bytes()) {
                let mut out = [0u8; 4096];
                let n = exchange.write_retry_with(2, &input, &mut out, &mut handler).unwrap();
                let retry: serde_json::Value = serde_json::from_slice(&out[..n]).unwrap();
                prop_assert!(retry["params"]["inputResponses"][&key].is_object());
            }
        }
    }
}

#[test]
fn shape_is_checked_before_handlers() {
    // The roots request has no handler, but the malformed one after it is reported.
    let handler = form_only();
    let mut exchange = first_leg(&handler, &CONFIG);
    let requests = r#"{"r":{"method":"roots/list"},"x":{"method":"nope"}}"#;
    assert_eq!(
        exchange
            .read_response(input_required(requests).as_bytes())
            .unwrap_err(),
        ClientError::MalformedInputRequest {
            reason: "unknown input request method"
        }
    );
}
