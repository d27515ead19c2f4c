//! The Streamable HTTP listener over real loopback connections: every admission rule and
//! status code as a literal request, headers against bodies, event streams, cancellation,
//! limits and graceful shutdown.

mod http_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use http_client::{
    PATIENCE, also, first_text, message, open, post, send, serve, serve_service, with, without,
};
use serde_json::{Value, json};
use snodo_core::server::{
    Config, Done, Error, ListChanged, Registry, Resource, Server, ServerCapabilities, Tool,
    ToolCall, ToolReply,
};
use snodo_std::AsyncHandler;
use snodo_std::events::{EventBus, ServerEvent};
use snodo_std::http::{AllowList, HttpConfig, McpService};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// What the tests observe of and control in the fixture's tools.
#[derive(Clone, Default)]
struct Probes {
    /// `wait` signals here once it runs.
    started: Arc<Notify>,
    /// `wait` finishes when this is notified.
    gate: Arc<Notify>,
    /// `wait` signals here when its future is dropped before finishing.
    dropped: Arc<Notify>,
    abandoned: Arc<AtomicBool>,
}

struct Fixture {
    probes: Probes,
}

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo").input_schema(
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    ),
    Tool::new("route").input_schema(
        r#"{"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "count":{"type":"integer","x-mcp-header":"Count"},
            "query":{"type":"string"}},"required":["query"]}"#,
    ),
    Tool::new("wait"),
    Tool::new("progress"),
];

const RESOURCES: &[Resource<'static>] = &[Resource::new("test://broken", "broken")];

impl Registry for Fixture {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        RESOURCES
    }

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: true,
            resources: true,
            // Only the tool list changes at run time.
            list_changed: ListChanged {
                tools: true,
                ..ListChanged::NONE
            },
            ..ServerCapabilities::default()
        }
    }
}

/// Signals `dropped` when dropped before `finished` is called.
struct DropSignal(Option<Probes>);

impl DropSignal {
    fn finished(mut self) {
        self.0 = None;
    }
}

impl Drop for DropSignal {
    fn drop(&mut self) {
        if let Some(probes) = &self.0 {
            probes.abandoned.store(true, Ordering::SeqCst);
            probes.dropped.notify_one();
        }
    }
}

impl AsyncHandler for Fixture {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.name() {
            "echo" | "route" => {
                let text: String = call
                    .argument("text")
                    .or(call.argument("query"))
                    .and_then(|v| v.as_str())
                    .map(|s| s.chars().collect())
                    .unwrap_or_default();
                Ok(reply.text(&text))
            }
            "wait" => {
                let signal = DropSignal(Some(self.probes.clone()));
                self.probes.started.notify_one();
                self.probes.gate.notified().await;
                signal.finished();
                Ok(reply.text("released"))
            }
            "progress" => {
                for step in 1..=2 {
                    reply
                        .progress(f64::from(step), Some(2.0), Some("step"))
                        .map_err(|_| Error::internal("progress"))?;
                }
                Ok(reply.text("done"))
            }
            _ => Err(Error::invalid_params("Unknown tool")),
        }
    }
}

fn fixture() -> (Server<'static, Fixture>, Probes) {
    let probes = Probes::default();
    let app = Fixture {
        probes: probes.clone(),
    };
    (
        Server::new(Config::new("http-test", "0.0.1"), app).expect("valid definitions"),
        probes,
    )
}

async fn start(config: HttpConfig) -> (http_client::Running, Probes) {
    let (server, probes) = fixture();
    (serve(server, config).await, probes)
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    message(
        json!(id),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

/// Expects a JSON error reply with this status, code and id.
fn assert_error(reply: &http_client::Reply, status: StatusCode, code: i64, id: &Value) {
    assert_eq!(
        reply.status,
        status,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.content_type(), "application/json");
    let body = reply.json();
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(&body["id"], id, "{body}");
}

async fn header_case(addr: SocketAddr, request: Request<Full<Bytes>>, id: u64) {
    let reply = send(addr, request).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32020, &json!(id));
}

async fn accepted(addr: SocketAddr, request: Request<Full<Bytes>>) -> Value {
    let reply = send(addr, request).await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.content_type(), "application/json");
    reply.json()
}

#[tokio::test]
async fn a_request_gets_one_json_response() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    assert_eq!(running.url, format!("http://{addr}/mcp"));
    let body = accepted(
        addr,
        post(addr, &message(json!("a"), "tools/list", json!({}))),
    )
    .await;
    assert_eq!(body["id"], "a");
    assert_eq!(body["result"]["tools"][0]["name"], "echo");
    let body = accepted(addr, post(addr, &call(2, "echo", json!({"text": "hi"})))).await;
    assert_eq!(first_text(&body), "hi");
}

#[tokio::test]
async fn errors_map_to_statuses_and_echo_the_id() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let raw = |text: &str, method: &str| {
        let mut request = post(addr, &json!({"method": method}));
        *request.body_mut() = Full::new(Bytes::from(text.to_owned()));
        request
    };
    // -32700: not JSON, so no id to echo.
    let reply = send(addr, raw("{", "tools/list")).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32700, &Value::Null);
    // -32600: not a JSON-RPC 2.0 request.
    let reply = send(
        addr,
        raw(
            r#"{"jsonrpc":"1.0","id":5,"method":"tools/list"}"#,
            "tools/list",
        ),
    )
    .await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32600, &json!(5));
    // -32602: no _meta.
    let bare = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {}});
    let reply = send(addr, post(addr, &bare)).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32602, &json!(6));
    // -32601, also for removed methods.
    for (id, method) in [(7, "tools/lis"), (8, "initialize"), (9, "ping")] {
        let reply = send(addr, post(addr, &message(json!(id), method, json!({})))).await;
        assert_error(&reply, StatusCode::NOT_FOUND, -32601, &json!(id));
    }
    // -32022: a version header and body agree on, but the server does not speak.
    let old = json!({
        "io.modelcontextprotocol/protocolVersion": "2000-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let request = post(
        addr,
        &message(json!(10), "server/discover", json!({"_meta": old})),
    );
    let reply = send(addr, with(request, "mcp-protocol-version", b"2000-01-01")).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32022, &json!(10));
    assert_eq!(reply.json()["error"]["data"]["requested"], "2000-01-01");
    // -32603: a handler failure outside tools.
    let read = message(
        json!("r"),
        "resources/read",
        json!({"uri": "test://broken"}),
    );
    let reply = send(addr, post(addr, &read)).await;
    assert_error(
        &reply,
        StatusCode::INTERNAL_SERVER_ERROR,
        -32603,
        &json!("r"),
    );
    // An unknown tool is the request's fault.
    let reply = send(addr, post(addr, &call(11, "nope", json!({})))).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32602, &json!(11));
}

#[tokio::test]
async fn standard_headers_must_match_the_body() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let list = |id: u64| post(addr, &message(json!(id), "tools/list", json!({})));
    header_case(addr, without(list(1), "mcp-protocol-version"), 1).await;
    header_case(addr, without(list(2), "mcp-method"), 2).await;
    header_case(addr, with(list(3), "mcp-method", b"prompts/list"), 3).await;
    header_case(addr, with(list(4), "mcp-method", b"TOOLS/LIST"), 4).await;
    header_case(addr, also(list(5), "mcp-method", "tools/list"), 5).await;
    header_case(addr, with(list(6), "mcp-method", b"tools/list\x80"), 6).await;
    let echo = |id: u64| post(addr, &call(id, "echo", json!({"text": "x"})));
    header_case(addr, without(echo(7), "mcp-name"), 7).await;
    header_case(addr, with(echo(8), "mcp-name", b"wrong_tool_name"), 8).await;
    header_case(addr, with(echo(9), "mcp-name", b"=?base64?ZWNobw?="), 9).await;
    // One answer names every missing header, so a client fixes them all at once.
    let bare = without(
        without(without(echo(12), "mcp-name"), "mcp-method"),
        "mcp-protocol-version",
    );
    let reply = send(addr, bare).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32020, &json!(12));
    let said = reply.json()["error"]["message"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    for name in ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"] {
        assert!(said.contains(name), "{name} unnamed in {said:?}");
    }
    // The version in the header must be the body's.
    let other = json!({
        "io.modelcontextprotocol/protocolVersion": "v999.0.0",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let request = post(
        addr,
        &message(json!(10), "server/discover", json!({"_meta": other})),
    );
    header_case(addr, request, 10).await;
    let read = message(json!(11), "resources/read", json!({"uri": "test://broken"}));
    header_case(
        addr,
        with(post(addr, &read), "mcp-name", b"test://other"),
        11,
    )
    .await;

    // Names are case-insensitive, values trimmed, Base64 decoded.
    for name in ["mcp-method", "MCP-METHOD", "Mcp-Method"] {
        let request = with(list(20), name, b"tools/list");
        assert_eq!(accepted(addr, request).await["id"], 20);
    }
    let body = accepted(addr, with(echo(21), "mcp-name", b"  echo  ")).await;
    assert_eq!(first_text(&body), "x");
    let body = accepted(addr, with(echo(22), "mcp-name", b"=?base64?ZWNobw==?=")).await;
    assert_eq!(first_text(&body), "x");
    // Headers that are right but a body without _meta: the body's fault, -32602.
    let bare = json!({"jsonrpc": "2.0", "id": 23, "method": "tools/list", "params": {}});
    let reply = send(addr, post(addr, &bare)).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, -32602, &json!(23));
}

#[tokio::test]
async fn param_headers_mirror_x_mcp_header_arguments() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let route = |id: u64, arguments: Value| post(addr, &call(id, "route", arguments));
    let ok = accepted(addr, route(1, json!({"query": "q"}))).await;
    assert_eq!(first_text(&ok), "q");
    let both = route(2, json!({"query": "q", "region": "us-west1", "count": 42}));
    let both = with(
        with(both, "mcp-param-region", b"us-west1"),
        "MCP-PARAM-COUNT",
        b"42",
    );
    assert_eq!(first_text(&accepted(addr, both).await), "q");
    let float = route(3, json!({"query": "q", "count": 42.0}));
    assert!(accepted(addr, with(float, "mcp-param-count", b"42")).await["result"].is_object());
    let encoded = route(4, json!({"query": "q", "region": "Hello, 世界"}));
    let encoded = with(
        encoded,
        "mcp-param-region",
        b"=?base64?SGVsbG8sIOS4lueVjA==?=",
    );
    assert!(accepted(addr, encoded).await["result"].is_object());
    let null = route(5, json!({"query": "q", "region": null}));
    assert!(accepted(addr, null).await["result"].is_object());
    let literal = route(6, json!({"query": "q", "region": "=?base64?SGVsbG8="}));
    let literal = with(literal, "mcp-param-region", b"=?base64?SGVsbG8=");
    assert!(accepted(addr, literal).await["result"].is_object());

    let missing = route(10, json!({"query": "q", "region": "us-west1"}));
    header_case(addr, missing, 10).await;
    let wrong = route(11, json!({"query": "q", "region": "us-west1"}));
    header_case(addr, with(wrong, "mcp-param-region", b"us-east1"), 11).await;
    let absent = route(12, json!({"query": "q"}));
    header_case(addr, with(absent, "mcp-param-region", b"us-west1"), 12).await;
    let padding = route(13, json!({"query": "q", "region": "Hello"}));
    header_case(
        addr,
        with(padding, "mcp-param-region", b"=?base64?SGVsbG8?="),
        13,
    )
    .await;
    let alphabet = route(14, json!({"query": "q", "region": "Hello"}));
    header_case(
        addr,
        with(alphabet, "mcp-param-region", b"=?base64?SGVs!!!bG8=?="),
        14,
    )
    .await;
    let number = route(15, json!({"query": "q", "count": 42}));
    header_case(addr, with(number, "mcp-param-count", b"43"), 15).await;
    let repeated = route(16, json!({"query": "q", "region": "a"}));
    let repeated = also(
        also(repeated, "mcp-param-region", "a"),
        "mcp-param-region",
        "a",
    );
    header_case(addr, repeated, 16).await;
}

#[tokio::test]
async fn notifications_and_client_responses_are_202() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(addr, without(post(addr, &note), "mcp-protocol-version")).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.body.is_empty());
    assert!(reply.headers.get("content-type").is_none());
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
    let reply = send(addr, post(addr, &response)).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert!(reply.body.is_empty());
}

#[tokio::test]
async fn only_post_on_the_endpoint() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    for method in ["GET", "DELETE", "PUT"] {
        let mut request = post(addr, &message(json!(1), "tools/list", json!({})));
        *request.method_mut() = method.parse().unwrap();
        let reply = send(addr, request).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.headers["allow"], "POST");
    }
    let mut request = post(addr, &message(json!(1), "tools/list", json!({})));
    *request.uri_mut() = format!("http://{addr}/other").parse().unwrap();
    let reply = send(addr, request).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert!(reply.body.is_empty());
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_forbidden() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let list = || post(addr, &message(json!(1), "tools/list", json!({})));
    for origin in [
        "http://evil.example",
        "null",
        "https://localhost.evil.example",
    ] {
        let reply = send(addr, with(list(), "origin", origin.as_bytes())).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{origin}");
        assert_eq!(reply.json()["id"], Value::Null);
    }
    for host in ["evil.example", "evil.example:80", "127.0.0.2"] {
        let reply = send(addr, with(list(), "host", host.as_bytes())).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{host}");
    }
    for origin in [
        "http://localhost:5173",
        "https://127.0.0.1",
        "http://[::1]:1",
    ] {
        accepted(addr, with(list(), "origin", origin.as_bytes())).await;
    }
    for host in ["localhost", "LOCALHOST:9", "[::1]:80"] {
        accepted(addr, with(list(), "host", host.as_bytes())).await;
    }

    let config = HttpConfig::new()
        .with_hosts(AllowList::only(["mcp.example"]))
        .with_origins(AllowList::only(["https://app.example"]));
    let (running, _) = start(config).await;
    let addr = running.addr;
    let list = || post(addr, &message(json!(1), "tools/list", json!({})));
    let reply = send(addr, list()).await;
    assert_eq!(
        reply.status,
        StatusCode::FORBIDDEN,
        "127.0.0.1 is no longer listed"
    );
    let ok = with(list(), "host", b"mcp.example:443");
    accepted(addr, with(ok, "origin", b"https://app.example")).await;
    let foreign = with(
        with(list(), "host", b"mcp.example"),
        "origin",
        b"http://app.example",
    );
    assert_eq!(send(addr, foreign).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn media_types_are_checked() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let list = || post(addr, &message(json!(1), "tools/list", json!({})));
    for content_type in [&b"text/plain"[..], b"application/jsonx", b""] {
        let reply = send(addr, with(list(), "content-type", content_type)).await;
        assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    assert_eq!(
        send(addr, without(list(), "content-type")).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    accepted(
        addr,
        with(list(), "content-type", b"Application/JSON; charset=UTF-8"),
    )
    .await;
    for accept in [
        &b"application/json"[..],
        b"text/event-stream",
        b"text/html",
        b"application/json, text/event-stream;q=0",
    ] {
        let reply = send(addr, with(list(), "accept", accept)).await;
        assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    }
    assert_eq!(
        send(addr, without(list(), "accept")).await.status,
        StatusCode::NOT_ACCEPTABLE
    );
    for accept in [
        &b"*/*"[..],
        b"application/*, text/*",
        b"text/event-stream, application/json",
    ] {
        accepted(addr, with(list(), "accept", accept)).await;
    }
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let (running, _) = start(HttpConfig::new().with_max_body_len(512)).await;
    let addr = running.addr;
    let big = call(1, "echo", json!({"text": "x".repeat(600)}));
    let reply = send(addr, post(addr, &big)).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    // Without a declared length, the limit holds while reading.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ntransfer-encoding: chunked\r\n\
         connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let chunk = "y".repeat(400);
    for _ in 0..2 {
        let _ = stream
            .write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes())
            .await;
    }
    let response = read_all(&mut stream).await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response}");
}

#[tokio::test]
async fn a_slow_body_is_408_and_slow_headers_close_the_connection() {
    let config = HttpConfig::new()
        .with_body_read_timeout(Duration::from_millis(200))
        .with_header_read_timeout(Duration::from_millis(200));
    let (running, _) = start(config).await;
    let addr = running.addr;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: 100\r\n\r\n{{\"jsonrpc\""
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let response = read_all(&mut stream).await;
    assert!(response.starts_with("HTTP/1.1 408"), "{response}");

    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nhost: loc")
        .await
        .unwrap();
    let response = read_all(&mut stream).await;
    assert!(
        response.is_empty() || response.starts_with("HTTP/1.1 408"),
        "{response}"
    );
}

/// Reads until the server closes the connection.
async fn read_all(stream: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut out))
        .await
        .expect("the server closes in time");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn sessions_and_resumption_headers_are_ignored() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let request = post(addr, &message(json!(1), "tools/list", json!({})));
    let request = with(
        with(request, "mcp-session-id", b"abc"),
        "last-event-id",
        b"7",
    );
    let reply = send(addr, request).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert!(reply.headers.get("mcp-session-id").is_none());
}

#[tokio::test]
async fn progress_turns_the_response_into_an_event_stream() {
    let (running, _) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let mut with_token = call(1, "progress", json!({}));
    with_token["params"]["_meta"]["progressToken"] = json!("tok");
    let reply = send(addr, post(addr, &with_token)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type(), "text/event-stream");
    assert_eq!(reply.headers["x-accel-buffering"], "no");
    let events = reply.events();
    assert_eq!(events.len(), 3, "{events:?}");
    for (i, event) in events[..2].iter().enumerate() {
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progressToken"], "tok");
        assert_eq!(event["params"]["progress"], i as f64 + 1.0);
    }
    assert_eq!(events[2]["id"], 1);
    assert_eq!(first_text(&events[2]), "done");
    // Without a progress token there is nothing to stream.
    let plain = accepted(addr, post(addr, &call(2, "progress", json!({})))).await;
    assert_eq!(first_text(&plain), "done");
}

#[tokio::test]
async fn closing_the_connection_drops_the_handler() {
    let (running, probes) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let request = post(addr, &call(1, "wait", json!({})));
    let client = tokio::spawn(async move { open(addr, request).await });
    tokio::time::timeout(PATIENCE, probes.started.notified())
        .await
        .expect("the handler starts");
    client.abort();
    tokio::time::timeout(PATIENCE, probes.dropped.notified())
        .await
        .expect("the handler is dropped");
    assert!(probes.abandoned.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_cancellation_notification_stops_the_request_it_names() {
    let (running, probes) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let request = post(addr, &call(41, "wait", json!({})));
    let waiting = tokio::spawn(async move { send(addr, request).await });
    tokio::time::timeout(PATIENCE, probes.started.notified())
        .await
        .expect("the handler starts");
    let cancel = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": 41, "reason": "test"}
    });
    assert_eq!(
        send(addr, post(addr, &cancel)).await.status,
        StatusCode::ACCEPTED
    );
    let reply = waiting.await.unwrap();
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type(), "text/event-stream");
    assert!(
        reply.events().is_empty(),
        "no response for a cancelled request"
    );
    assert!(probes.abandoned.load(Ordering::SeqCst));
}

#[tokio::test]
async fn shutdown_waits_for_requests_in_flight() {
    let (running, probes) = start(HttpConfig::new()).await;
    let addr = running.addr;
    let request = post(addr, &call(1, "wait", json!({})));
    let waiting = tokio::spawn(async move { send(addr, request).await });
    tokio::time::timeout(PATIENCE, probes.started.notified())
        .await
        .expect("the handler starts");
    running.shutdown.shutdown();
    // Once the listener is closed, the shutdown is draining.
    tokio::time::timeout(PATIENCE, async {
        while TcpStream::connect(addr).await.is_ok() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the listener closes");
    assert!(
        !running.served.is_finished(),
        "the request is still in flight"
    );
    probes.gate.notify_one();
    let reply = waiting.await.unwrap();
    assert_eq!(first_text(&reply.json()), "released");
    tokio::time::timeout(PATIENCE, running.served)
        .await
        .expect("serve returns")
        .unwrap()
        .unwrap();
    assert!(!probes.abandoned.load(Ordering::SeqCst));
}

#[tokio::test]
async fn shutdown_drops_what_outlives_the_grace_period() {
    let config = HttpConfig::new().with_shutdown_grace(Duration::from_millis(100));
    let (running, probes) = start(config).await;
    let addr = running.addr;
    let request = post(addr, &call(1, "wait", json!({})));
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let body = request.body().clone();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n\
         mcp-method: tools/call\r\nmcp-name: wait\r\ncontent-length: {}\r\n\r\n",
        http_body::Body::size_hint(&body).exact().unwrap()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let bytes = http_body_util::BodyExt::collect(body)
        .await
        .unwrap()
        .to_bytes();
    stream.write_all(&bytes).await.unwrap();
    tokio::time::timeout(PATIENCE, probes.started.notified())
        .await
        .expect("the handler starts");
    running.shutdown.shutdown();
    tokio::time::timeout(PATIENCE, running.served)
        .await
        .expect("serve returns after the grace period")
        .unwrap()
        .unwrap();
    assert_eq!(
        read_all(&mut stream).await,
        "",
        "the connection was dropped"
    );
    tokio::time::timeout(PATIENCE, probes.dropped.notified())
        .await
        .expect("the handler is dropped");
}

#[tokio::test]
async fn connections_beyond_the_bound_wait_for_a_free_slot() {
    let (running, probes) = start(HttpConfig::new().with_max_connections(1)).await;
    let addr = running.addr;
    let request = post(addr, &call(1, "wait", json!({})));
    let first = tokio::spawn(async move { open(addr, request).await });
    tokio::time::timeout(PATIENCE, probes.started.notified())
        .await
        .expect("the handler starts");
    let second = tokio::spawn(async move {
        send(
            addr,
            post(addr, &call(2, "echo", json!({"text": "second"}))),
        )
        .await
    });
    // The second connection is not served while the first holds the only slot.
    let early = tokio::time::timeout(Duration::from_millis(300), async {
        while !second.is_finished() {
            tokio::task::yield_now().await;
        }
    })
    .await;
    assert!(early.is_err(), "the second request was served too early");
    probes.gate.notify_one();
    let first = first.await.unwrap().finish().await;
    assert_eq!(first_text(&first.json()), "released");
    let second = tokio::time::timeout(PATIENCE, second)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first_text(&second.json()), "second");
}

#[tokio::test]
async fn listen_streams_deliver_wanted_events_and_close_at_shutdown() {
    let (server, _) = fixture();
    let bus = EventBus::new();
    let config = HttpConfig::new()
        .with_addr(SocketAddr::from(([127, 0, 0, 1], 0)))
        .with_keep_alive(None);
    let service = McpService::new(Arc::new(server), config).with_events(bus.clone());
    let running = serve_service(service).await;
    let addr = running.addr;
    let listen = message(
        json!("sub-1"),
        "subscriptions/listen",
        json!({"notifications": {
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": true
        }}),
    );
    let mut stream = open(addr, post(addr, &listen)).await;
    assert_eq!(stream.response.status(), StatusCode::OK);
    assert_eq!(
        stream.response.headers()["content-type"],
        "text/event-stream"
    );
    let ack = stream.next_event().await.expect("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    // Prompts are not advertised and the resource list announces no changes, so only tools
    // are honoured.
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(bus.listeners(), 1);
    bus.publish(ServerEvent::PromptsListChanged);
    bus.publish(ServerEvent::resource_updated("test://broken"));
    bus.publish(ServerEvent::ToolsListChanged);
    let event = stream.next_event().await.expect("an event");
    assert_eq!(event["method"], "notifications/tools/list_changed");
    assert_eq!(
        event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    running.shutdown.shutdown();
    let closed = stream.next_event().await.expect("the closing response");
    assert_eq!(closed["id"], "sub-1");
    assert_eq!(closed["result"]["resultType"], "complete");
    assert_eq!(stream.next_event().await, None);
    tokio::time::timeout(PATIENCE, running.served)
        .await
        .expect("serve returns")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn the_service_mounts_in_an_axum_router() {
    use tower::ServiceExt;

    let (server, _) = fixture();
    let service = McpService::new(Arc::new(server), HttpConfig::new());
    let router = axum::Router::new().route_service("/mcp", service.clone());
    let body = message(json!(1), "tools/list", json!({}));
    let request = Request::post("/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(axum::body::Body::from(body.to_string()))
        .unwrap();
    let response = router.oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let reply: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(reply["result"]["tools"][0]["name"], "echo");

    // And directly, as a tower::Service over any body.
    let request = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "*/*")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "echo")
        .body(Full::new(Bytes::from(
            call(2, "echo", json!({"text": "direct"})).to_string(),
        )))
        .unwrap();
    let response = service.oneshot(request).await.unwrap();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let reply: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(first_text(&reply), "direct");
}
