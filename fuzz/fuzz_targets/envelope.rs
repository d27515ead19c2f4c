//! Raw bytes through a whole round (`Server::handle`) against a fixture application that has
//! a bit of everything: tools with input schemas (one with an output schema, one that reports
//! progress and logs, ones that fail each way, ones that return `input_required` with sealed
//! or plain state), fixed resources, resource templates, prompts with a required argument and
//! completions.
//!
//! Every input runs twice, with a roomy output buffer and with a cramped one. Never a panic,
//! and:
//! - a reply is one JSON-RPC response that `serde_json` parses: ASCII, `jsonrpc` "2.0", an
//!   `id`, exactly one of `result` (with `resultType` and the server's `_meta`) or `error`
//!   (integer `code`, string `message`);
//! - a request the core accepted as JSON-RPC is answered with its own id;
//! - a notification (an object with a method and no id) gets no reply, unless the core refuses
//!   its envelope as -32700/-32600 with `id: null`;
//! - nothing is silent unless it is a notification or a response;
//! - notifications emitted along the way are JSON-RPC notifications;
//! - an output buffer that is too small is reported with the size needed, and that size is
//!   enough.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo_core::json::Writer;
use snodo_core::mrtr::{Elicitation, ListRoots, Response};
use snodo_core::protocol::LogLevel;
use snodo_core::rpc::ErrorCode;
use snodo_core::server::{
    Completion, CompletionRef, CompletionReply, Config, Done, Error, Handled, Handler, Notifier,
    Prompt, PromptArgument, PromptGet, PromptReply, Registry, Resource, ResourceRead,
    ResourceReply, ResourceTarget, ResourceTemplate, Round, Server, Subscription, Tool, ToolCall,
    ToolReply,
};
use snodo_core::state::{Keys, OPEN_SCRATCH_LEN, StateOptions};

// ---------------------------------------------------------------------------------------------
// The fixture application

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo")
        .description("Echoes text")
        .input_schema(
            r#"{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":64}},"required":["text"],"additionalProperties":false}"#,
        ),
    Tool::new("add")
        .input_schema(
            r#"{"type":"object","properties":{"a":{"type":"integer","minimum":-1000,"maximum":1000},"b":{"type":"integer"}},"required":["a","b"]}"#,
        )
        .output_schema(
            r#"{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}"#,
        ),
    Tool::new("pick")
        .description("Reports progress and logs, then writes several blocks")
        .input_schema(
            r#"{"type":"object","properties":{"color":{"type":"string","enum":["red","green","blue"]},"count":{"type":"integer","minimum":1,"maximum":4},"tags":{"type":"array","items":{"type":"string","maxLength":8}}},"required":["color"]}"#,
        )
        .annotations(r#"{"readOnlyHint":true}"#),
    Tool::new("fail").input_schema(r#"{"type":"object","properties":{"how":{"type":"string","enum":["rpc","failure","result","whole"]}}}"#),
    Tool::new("big").description("A result larger than any output buffer"),
    Tool::new("preference")
        .description("Asks for a color, keeping progress in sealed state")
        .input_schema(r#"{"type":"object"}"#),
    Tool::new("roots").description("Asks for the client's roots, with plain state"),
];

const RESOURCES: &[Resource<'static>] = &[
    Resource::new("fixture://readme", "readme").mime_type("text/plain"),
    Resource::new("fixture://blob", "blob").mime_type("application/octet-stream"),
];

const TEMPLATES: &[ResourceTemplate<'static>] = &[
    ResourceTemplate::new("fixture://users/{id}", "user").mime_type("application/json"),
    ResourceTemplate::new("fixture://files/{+path}", "file"),
    ResourceTemplate::new("fixture://logs/{day}/{hour}", "log"),
];

const GREET_ARGUMENTS: &[PromptArgument<'static>] = &[
    PromptArgument::required("name"),
    PromptArgument::optional("style"),
];

const PROMPTS: &[Prompt<'static>] = &[
    Prompt::new("greet").arguments(GREET_ARGUMENTS),
    Prompt::new("plain"),
];

const STYLES: &[&str] = &["formal", "friendly", "funny", "terse"];

const COLOR_FORM: &str = r#"{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]}},"required":["color"]}"#;

/// Decodes a JSON string into `buf`, or fails the call.
fn decoded<'b>(
    s: Option<snodo_core::json::JsonStr<'_>>,
    buf: &'b mut [u8],
) -> Result<&'b str, Error> {
    s.ok_or(Error::invalid_params("a string is required"))?
        .decode_into(buf)
        .ok_or(Error::failure("too long"))
}

#[derive(Debug)]
struct Fixture;

impl Registry for Fixture {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
    fn resources(&self) -> &[Resource<'_>] {
        RESOURCES
    }
    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        TEMPLATES
    }
    fn prompts(&self) -> &[Prompt<'_>] {
        PROMPTS
    }
    fn completions(&self) -> bool {
        true
    }
}

impl Handler for Fixture {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let mut buf = [0u8; 256];
        match call.name() {
            "echo" => {
                let text = decoded(call.argument("text").and_then(|v| v.as_str()), &mut buf)?;
                Ok(reply.text(text))
            }
            "add" => {
                let a = call.argument("a").and_then(|v| v.as_i64()).unwrap_or(0);
                let b = call.argument("b").and_then(|v| v.as_i64()).unwrap_or(0);
                let sum = a
                    .checked_add(b)
                    .ok_or(Error::failure("the sum overflows"))?;
                Ok(reply.structured(|w| {
                    w.object(|o| {
                        o.i64("sum", sum);
                    });
                }))
            }
            "pick" => {
                let count = call.argument("count").and_then(|v| v.as_u64()).unwrap_or(1);
                for n in 1..=count {
                    reply
                        .progress(n as f64, Some(count as f64), Some("picking"))
                        .map_err(|_| Error::internal("no room for progress"))?;
                }
                reply
                    .log(LogLevel::Info, Some("pick"), format_args!("{count} picked"))
                    .map_err(|_| Error::internal("no room for a log message"))?;
                let color = decoded(call.argument("color").and_then(|v| v.as_str()), &mut buf)?;
                let tags = call.argument("tags").and_then(|v| v.as_array());
                Ok(reply.content(|c| {
                    c.text_fmt(format_args!("{count} x {color}"));
                    for tag in tags.iter().flat_map(|t| t.iter()) {
                        if let Some(tag) = tag.as_str() {
                            c.text_fmt(format_args!("tag of {} bytes", tag.decoded_len()));
                        }
                    }
                    c.resource_link("fixture://readme", "readme");
                }))
            }
            "fail" => match call.argument("how").and_then(|v| v.as_str()) {
                Some(h) if h.eq_str("rpc") => Err(Error::rpc(ErrorCode(4001), "typed failure")),
                Some(h) if h.eq_str("result") => Ok(reply.error_text("tool error result")),
                Some(h) if h.eq_str("whole") => Ok(reply.rpc_error(
                    ErrorCode::INVALID_PARAMS,
                    format_args!("formatted {}", call.arguments().len()),
                )),
                _ => Err(Error::failure("untyped failure")),
            },
            "big" => Ok(reply.content(|c| {
                for _ in 0..2000 {
                    c.text("0123456789abcdef0123456789abcdef0123456789abcdef");
                }
            })),
            "preference" => {
                let ask = Elicitation::form("Pick a color", COLOR_FORM)
                    .map_err(|_| Error::internal("bad form"))?;
                let mut scratch = [0u8; OPEN_SCRATCH_LEN];
                let state = call.open_state(&mut scratch)?;
                match call.response("color", &ask)? {
                    Response::Answered(a) if a.accepted() => {
                        let color = decoded(Some(a.str("color")?), &mut buf)?;
                        let step = state.and_then(|s| s.get("step")).and_then(|v| v.as_u64());
                        Ok(reply.text_fmt(format_args!("{color} after step {step:?}")))
                    }
                    Response::Answered(a) => Ok(reply.text_fmt(format_args!("{:?}", a.action()))),
                    Response::Missing => reply
                        .input_required()
                        .request("color", &ask)
                        .seal(br#"{"step":1}"#),
                }
            }
            "roots" => match call.response("roots", &ListRoots)? {
                Response::Answered(roots) => {
                    Ok(reply.text_fmt(format_args!("{} roots", roots.len())))
                }
                Response::Missing => Ok(reply
                    .input_required()
                    .request("roots", ListRoots)
                    .state("plain state \"quoted\"")),
            },
            _ => Err(Error::internal("no handler")),
        }
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.target() {
            ResourceTarget::Fixed(r) if r.name == "blob" => {
                Ok(reply.blob(Some("application/octet-stream"), "AAECAw=="))
            }
            ResourceTarget::Fixed(_) => Ok(reply.text(Some("text/plain"), "read me")),
            ResourceTarget::Template(t) => {
                let id = call.var("id").or(call.var("path")).or(call.var("day"));
                Ok(reply.text_fmt(
                    t.mime_type,
                    format_args!("{} {:?} {:?}", t.name, id, call.var("hour")),
                ))
            }
        }
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let mut buf = [0u8; 128];
        if call.name() == "plain" {
            return Ok(reply.messages(None, |m| {
                m.user("plain");
            }));
        }
        let name = decoded(call.argument("name"), &mut buf)?;
        let styled = call.argument("style").is_some();
        Ok(reply.messages(Some("A greeting"), |m| {
            m.user("Greet someone")
                .assistant(if styled { "styled" } else { "plain" });
            m.text(
                snodo_core::server::Role::User,
                format_args!("Hello, {name}"),
            );
        }))
    }

    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let mut buf = [0u8; 64];
        let typed = call.argument_value().decode_into(&mut buf).unwrap_or("");
        let mut matches = [""; 4];
        let mut n = 0;
        if let CompletionRef::Prompt(_) = call.reference() {
            for style in STYLES.iter().filter(|s| s.starts_with(typed)) {
                matches[n] = style;
                n += 1;
            }
        }
        Ok(reply.values(&matches[..n], false))
    }
}

static STATE: LazyLock<StateOptions> = LazyLock::new(|| {
    StateOptions::new(Keys::ring(&[("k1", &[0x5a; 32][..])]).expect("valid fuzz keys"))
});

static SERVER: LazyLock<Server<'static, Fixture>> = LazyLock::new(|| {
    let config = Config::new("fuzz-fixture", "0").with_state(&STATE);
    Server::new(config, Fixture).expect("the fixture's definitions are valid")
});

// ---------------------------------------------------------------------------------------------
// The checks

/// Collects the notifications a round emits.
#[derive(Default)]
struct Collect(Vec<Vec<u8>>);

impl Notifier for Collect {
    fn notify(&mut self, message: &[u8]) {
        self.0.push(message.to_vec());
    }
}

/// What `serde_json` makes of the input, when it is a JSON object.
struct Envelope {
    /// The id, when it is a string or an integer (the only ids the core accepts).
    id: Option<Value>,
    /// An object with a string method and no id.
    notification: bool,
    /// An object with no method (a response from the client).
    response: bool,
}

fn envelope(data: &[u8]) -> Option<Envelope> {
    let Ok(Value::Object(o)) = serde_json::from_slice::<Value>(data) else {
        return None;
    };
    let id = o
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .cloned();
    Some(Envelope {
        id,
        notification: o.get("method").is_some_and(Value::is_string) && !o.contains_key("id"),
        response: !o.contains_key("method"),
    })
}

/// The core refused the envelope itself (unparseable, or not a valid JSON-RPC request).
fn refused_envelope(reply: &Value) -> bool {
    reply["id"].is_null() && matches!(reply["error"]["code"].as_i64(), Some(-32700) | Some(-32600))
}

fn check_reply(bytes: &[u8], input: Option<&Envelope>) {
    check_response(bytes, input, true);
}

/// `server_info`: whether the result must name the server in `_meta` (every result does).
fn check_response(bytes: &[u8], input: Option<&Envelope>, server_info: bool) {
    assert!(bytes.is_ascii(), "non-ASCII reply");
    let reply: Value = serde_json::from_slice(bytes).unwrap_or_else(|e| {
        panic!(
            "reply is not JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        )
    });
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    let id = reply.get("id").expect("a reply has an id");
    assert!(
        id.is_null() || id.is_string() || id.is_i64() || id.is_u64(),
        "{reply}"
    );
    match (reply.get("result"), reply.get("error")) {
        (Some(result), None) => {
            let kind = result["resultType"].as_str().expect("resultType");
            assert!(kind == "complete" || kind == "input_required", "{reply}");
            assert!(!server_info || result["_meta"].is_object(), "{reply}");
            if server_info {
                assert_eq!(
                    result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "fuzz-fixture",
                    "{reply}"
                );
            }
        }
        (None, Some(error)) => {
            assert!(error["code"].is_i64(), "{reply}");
            assert!(error["message"].is_string(), "{reply}");
        }
        _ => panic!("neither exactly a result nor an error: {reply}"),
    }
    if let Some(input) = input {
        if !refused_envelope(&reply) {
            assert!(!input.notification, "a notification was answered: {reply}");
            if let Some(sent) = &input.id {
                assert_eq!(id, sent, "the reply's id is not the request's");
            }
        }
    }
}

fn check_notification(bytes: &[u8]) {
    let n: Value = serde_json::from_slice(bytes).expect("a notification is JSON");
    assert_eq!(n["jsonrpc"], "2.0");
    assert!(n.get("id").is_none(), "a notification has no id: {n}");
    assert!(
        n["method"]
            .as_str()
            .is_some_and(|m| m.starts_with("notifications/")),
        "{n}"
    );
}

fn round(data: &[u8], out_len: usize, input: Option<&Envelope>) {
    let server = &*SERVER;
    let mut out = vec![0u8; out_len];
    let mut notes = Collect::default();
    let handled = server.handle(
        data,
        Round::anonymous(1_700_000_000),
        &mut out,
        Some(&mut notes),
    );
    for note in &notes.0 {
        check_notification(note);
    }
    match handled {
        Ok(Handled::Reply(n)) => check_reply(&out[..n], input),
        Ok(Handled::Silent) => {
            if let Some(input) = input {
                assert!(
                    input.notification || input.response,
                    "a request got no reply"
                );
            }
        }
        Ok(Handled::Cancelled(_)) => {
            if let Some(input) = input {
                assert!(input.notification, "only a notification cancels");
            }
        }
        Ok(Handled::Listen(subscription)) => check_stream(&subscription, input),
        // This server has no task tools: no task request passes, no call becomes a task.
        Ok(handled @ (Handled::Task { .. } | Handled::BecameTask)) => {
            panic!("{handled:?} from a server without task tools")
        }
        Err(too_small) => {
            assert!(too_small.required > out_len, "{too_small:?} for {out_len}");
            // The size reported is enough.
            let mut out = vec![0u8; too_small.required];
            let again = server.handle(data, Round::anonymous(1_700_000_000), &mut out, None);
            match again {
                Ok(Handled::Reply(n)) => check_reply(&out[..n], input),
                other => panic!("with the size it asked for: {other:?}"),
            }
        }
    }
}

/// The acknowledgement is a notification; the closing response answers the request.
fn check_stream(subscription: &Subscription<'_>, input: Option<&Envelope>) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut w = Writer::new(&mut buf);
    subscription.write_acknowledged(&mut w);
    let n = w.finish().expect("the acknowledgement fits 64 KiB");
    check_notification(&buf[..n]);
    let mut w = Writer::new(&mut buf);
    subscription.write_closed(&mut w);
    let n = w.finish().expect("the closing response fits 64 KiB");
    check_response(&buf[..n], input, true);
}

fuzz_target!(|data: &[u8]| {
    let input = envelope(data);
    round(data, 64 * 1024, input.as_ref());
    round(data, 200, input.as_ref());
});
