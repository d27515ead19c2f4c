//! Legacy (2025-11-25) sessions over Streamable HTTP, as literal requests to the endpoint
//! in-process: the handshake, the session rules (id minted, 400 without it, 404 once ended,
//! unknown or expired, the version header), the session's `GET` stream and `DELETE`,
//! subscriptions, notifications on a POST's event stream (priming event, numbered events,
//! resumption with `Last-Event-ID`), results in the 2025 shape, the eras an endpoint may be
//! limited to, and every bridged input kind over the POST's stream: form, URL, sampling,
//! roots, mixed, declined, refused by the client, timed out (paused clock), cancelled, and
//! not declared by the client.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};
use snodo_core::mrtr::{CreateMessage, ElicitAnswer, Elicitation, ListRoots, Response};
use snodo_core::server::{
    Config, Done, Error, ListChanged, Registry, Resource, Server, ServerCapabilities, Tool,
    ToolCall, ToolReply,
};
use snodo_std::events::{EventBus, ServerEvent};
use snodo_std::http::{BridgeConfig, EraSupport, HttpConfig, McpBody, McpService, SessionLimits};
use snodo_std::{AsyncHandler, ServerSlot};
use tokio::sync::Notify;

/// How long a test waits for a frame before it fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// The fixture: `echo`, `progress` (a progress and a log message, then `done`) and `slow`
/// (a progress message, then waits for `gate` before it answers).
#[derive(Default)]
struct App {
    gate: Arc<Notify>,
}

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo").input_schema(
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    ),
    Tool::new("progress"),
    Tool::new("slow"),
    Tool::new("quiet"),
    Tool::new("form"),
    Tool::new("url"),
    Tool::new("sample"),
    Tool::new("roots"),
    Tool::new("mixed"),
];

const NAME_FORM: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;
const SAMPLING: &str =
    r#"{"messages":[{"role":"user","content":{"type":"text","text":"Hi?"}}],"maxTokens":10}"#;

/// One MRTR tool: asks once, answers with what it got.
fn ask<'o>(call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
    let bad = |_| Error::internal("a bad fixture");
    let form = Elicitation::form("Your name?", NAME_FORM).map_err(bad)?;
    let url = Elicitation::url("Sign in", "https://example.com/login").map_err(bad)?;
    let sample = CreateMessage::new(SAMPLING).map_err(bad)?;
    let name = |r: Response<ElicitAnswer<'_>>| match r {
        Response::Answered(a) if a.accepted() => a.str("name").map(|n| n.chars().collect()),
        Response::Answered(_) => Ok("nobody".to_owned()),
        Response::Missing => Ok(String::new()),
    };
    match call.name() {
        "form" => match call.response("name", &form)? {
            Response::Missing => Ok(reply.input_required().request("name", form).done()),
            answered => Ok(reply.text_fmt(format_args!("Hello, {}", name(answered)?))),
        },
        "url" => match call.response("login", &url)? {
            Response::Missing => Ok(reply.input_required().request("login", url).done()),
            Response::Answered(a) => Ok(reply.text_fmt(format_args!("consent: {}", a.accepted()))),
        },
        "sample" => match call.response("s", &sample)? {
            Response::Missing => Ok(reply.input_required().request("s", sample).done()),
            Response::Answered(m) => {
                let text: String = m.text().map(|t| t.chars().collect()).unwrap_or_default();
                Ok(reply.text_fmt(format_args!("sampled: {text}")))
            }
        },
        "roots" => match call.response("r", &ListRoots)? {
            Response::Missing => Ok(reply.input_required().request("r", ListRoots).done()),
            Response::Answered(roots) => Ok(reply.text_fmt(format_args!("roots: {}", roots.len()))),
        },
        _ => {
            let answers = (
                call.response("name", &form)?,
                call.response("s", &sample)?,
                call.response("r", &ListRoots)?,
            );
            match answers {
                (n @ Response::Answered(_), Response::Answered(m), Response::Answered(r)) => {
                    let text: String = m.text().map(|t| t.chars().collect()).unwrap_or_default();
                    Ok(reply.text_fmt(format_args!("{} {text} {}", name(n)?, r.len())))
                }
                _ => Ok(reply
                    .input_required()
                    .request("name", form)
                    .request("s", sample)
                    .request("r", ListRoots)
                    .done()),
            }
        }
    }
}

const RESOURCES: &[Resource<'static>] = &[Resource::new("test://watched", "watched")];

impl Registry for App {
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
            logging: true,
            subscribe: true,
            list_changed: ListChanged {
                tools: true,
                ..ListChanged::NONE
            },
            ..ServerCapabilities::default()
        }
    }
}

impl AsyncHandler for App {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        let mut reply = reply;
        match call.name() {
            "echo" => {
                let text: String = call
                    .argument("text")
                    .and_then(|v| v.as_str())
                    .map(|s| s.chars().collect())
                    .unwrap_or_default();
                Ok(reply.text(&text))
            }
            "progress" => {
                reply
                    .progress(1.0, Some(2.0), Some("half"))
                    .map_err(|_| Error::internal("too large"))?;
                reply
                    .log(
                        snodo_core::protocol::LogLevel::Info,
                        None,
                        format_args!("working"),
                    )
                    .map_err(|_| Error::internal("too large"))?;
                Ok(reply.text("done"))
            }
            "slow" => {
                reply
                    .progress(1.0, None, None)
                    .map_err(|_| Error::internal("too large"))?;
                self.gate.notified().await;
                Ok(reply.text("finally"))
            }
            "quiet" => {
                self.gate.notified().await;
                Ok(reply.text("at last"))
            }
            _ => ask(call, reply),
        }
    }
}

fn service(config: HttpConfig) -> McpService<App> {
    service_of(App::default(), config)
}

fn service_of(app: App, config: HttpConfig) -> McpService<App> {
    serving(app, EraSupport::Both, config)
}

/// The endpoint of a server that speaks `eras`.
fn serving(app: App, eras: EraSupport, config: HttpConfig) -> McpService<App> {
    let config_of_server = Config::new("legacy-http", "1.0.0").with_eras(eras);
    let server = Server::new(config_of_server, app).expect("definitions");
    McpService::new(Arc::new(server), config.with_path(None))
}

/// A POST of `body` as a 2025-11-25 client sends it: no `Mcp-Method`, the session's id and
/// version header once it has them.
fn post(body: &str, session: Option<&str>) -> Request<Full<Bytes>> {
    let mut request = Request::post("http://localhost/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(id) = session {
        request = request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-11-25");
    }
    request
        .body(Full::new(Bytes::from(body.to_owned())))
        .expect("a request")
}

/// A `GET` or `DELETE` of the session.
fn session_request(method: &str, session: &str) -> Request<Full<Bytes>> {
    Request::builder()
        .method(method)
        .uri("http://localhost/mcp")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Full::new(Bytes::new()))
        .expect("a request")
}

/// A response read whole.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// The messages of an event-stream body.
    fn events(&self) -> Vec<Value> {
        assert_eq!(self.headers["content-type"], "text/event-stream");
        events(&self.body)
    }
}

fn events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter_map(|event| {
            event
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .filter(|data| !data.is_empty())
        })
        .map(|data| serde_json::from_str(data).expect("JSON data"))
        .collect()
}

async fn send(service: &McpService<App>, request: Request<Full<Bytes>>) -> Reply {
    let (parts, body) = service.handle(request).await.into_parts();
    let body = tokio::time::timeout(PATIENCE, body.collect())
        .await
        .expect("the body in time")
        .expect("readable")
        .to_bytes();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body: String::from_utf8(body.to_vec()).expect("UTF-8"),
    }
}

/// The next data frame of a streamed body, as text.
/// The next `count` messages of an open event stream (keep-alives skipped).
async fn next_events(body: &mut McpBody, count: usize) -> Vec<Value> {
    let mut seen = Vec::new();
    while seen.len() < count {
        let frame = next_frame(body).await.expect("open");
        seen.extend(events(&frame));
    }
    seen
}

async fn next_frame(body: &mut McpBody) -> Option<String> {
    let frame = tokio::time::timeout(PATIENCE, body.frame())
        .await
        .expect("a frame in time")?;
    let data = frame.expect("readable").into_data().expect("a data frame");
    Some(String::from_utf8(data.to_vec()).expect("UTF-8"))
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"host","version":"1.0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `initialize` and `notifications/initialized`: the session id.
async fn handshake(service: &McpService<App>) -> String {
    let reply = send(service, post(INITIALIZE, None)).await;
    assert_eq!(reply.status, StatusCode::OK);
    let id = reply.headers["mcp-session-id"]
        .to_str()
        .expect("visible ASCII")
        .to_owned();
    let initialized = send(service, post(INITIALIZED, Some(&id))).await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    assert!(initialized.body.is_empty());
    id
}

#[tokio::test]
async fn initialize_mints_a_session_id_and_answers_in_the_2025_shape() {
    let service = service(HttpConfig::new());
    let reply = send(&service, post(INITIALIZE, None)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.headers["content-type"], "application/json");
    let id = reply.headers["mcp-session-id"].to_str().unwrap();
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{id}");
    assert_eq!(
        reply.json(),
        json!({"jsonrpc":"2.0","id":0,"result":{
            "protocolVersion":"2025-11-25",
            "capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},"logging":{}},
            "serverInfo":{"name":"legacy-http","version":"1.0.0"}}})
    );
    // Each initialize opens its own session.
    let again = send(&service, post(INITIALIZE, None)).await;
    assert_ne!(again.headers["mcp-session-id"].to_str().unwrap(), id);
}

#[tokio::test]
async fn an_unknown_version_gets_the_newest_and_an_older_one_is_kept() {
    let service = service(HttpConfig::new());
    for (asked, got) in [
        ("2024-11-05", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
    ] {
        let body = INITIALIZE.replace("2025-11-25", asked);
        let reply = send(&service, post(&body, None)).await;
        assert_eq!(reply.json()["result"]["protocolVersion"], got, "{asked}");
    }
}

#[tokio::test]
async fn session_requests_run_the_handlers_and_lose_the_2026_fields() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let list = send(
        &service,
        post(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            Some(&id),
        ),
    )
    .await;
    assert_eq!(list.status, StatusCode::OK);
    let result = &list.json()["result"];
    assert_eq!(result["tools"][0]["name"], "echo");
    for modern_only in ["resultType", "ttlMs", "cacheScope", "_meta"] {
        assert!(result.get(modern_only).is_none(), "{modern_only}: {result}");
    }
    let call = r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    let reply = send(&service, post(call, Some(&id))).await;
    assert_eq!(
        reply.json(),
        json!({"jsonrpc":"2.0","id":"c","result":{"content":[{"type":"text","text":"hi"}]}})
    );
    let ping = send(
        &service,
        post(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, Some(&id)),
    )
    .await;
    assert_eq!(ping.json(), json!({"jsonrpc":"2.0","id":2,"result":{}}));
    // An error is a JSON-RPC error with HTTP 200: the session is fine.
    let unknown = send(
        &service,
        post(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/lis"}"#,
            Some(&id),
        ),
    )
    .await;
    assert_eq!(unknown.status, StatusCode::OK);
    assert_eq!(unknown.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn without_a_session_id_a_legacy_request_is_400() {
    let service = service(HttpConfig::new());
    let _ = handshake(&service).await;
    let reply = send(
        &service,
        post(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, None),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert!(reply.json().get("error").is_some());
}

#[tokio::test]
async fn unknown_and_deleted_sessions_are_404() {
    let service = service(HttpConfig::new());
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for unknown in ["0123456789abcdef0123456789abcdef", "not-a-session"] {
        let reply = send(&service, post(list, Some(unknown))).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{unknown}");
        assert_eq!(reply.json()["error"]["code"], -32001);
    }
    let id = handshake(&service).await;
    let deleted = send(&service, session_request("DELETE", &id)).await;
    assert_eq!(deleted.status, StatusCode::OK);
    let reply = send(&service, post(list, Some(&id))).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    for method in ["GET", "DELETE"] {
        let reply = send(&service, session_request(method, &id)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}");
    }
}

#[tokio::test]
async fn the_version_header_must_be_a_legacy_version_the_server_speaks() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for (version, status) in [
        (Some("2025-06-18"), StatusCode::OK),
        (None, StatusCode::OK),
        (Some("2026-07-28"), StatusCode::BAD_REQUEST),
        (Some("1999-01-01"), StatusCode::BAD_REQUEST),
    ] {
        let mut request = post(ping, Some(&id));
        request.headers_mut().remove("mcp-protocol-version");
        if let Some(version) = version {
            request
                .headers_mut()
                .insert("mcp-protocol-version", version.parse().unwrap());
        }
        assert_eq!(send(&service, request).await.status, status, "{version:?}");
    }
}

#[tokio::test]
async fn progress_and_log_messages_make_the_response_an_event_stream() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let level = r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#;
    assert_eq!(
        send(&service, post(level, Some(&id))).await.json(),
        json!({"jsonrpc":"2.0","id":1,"result":{}})
    );
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}}"#;
    let reply = send(&service, post(call, Some(&id))).await;
    assert_eq!(
        reply.events(),
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1.0,"total":2.0,"message":"half"}}),
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}),
            json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"done"}]}}),
        ]
    );
}

#[tokio::test]
async fn the_get_stream_carries_list_changes_and_subscribed_updates_until_delete() {
    let events = EventBus::new();
    let service = service(HttpConfig::new()).with_events(events.clone());
    let id = handshake(&service).await;
    let subscribe = r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched"}}"#;
    assert_eq!(
        send(&service, post(subscribe, Some(&id))).await.json(),
        json!({"jsonrpc":"2.0","id":1,"result":{}})
    );
    let stream = service.handle(session_request("GET", &id)).await;
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    // A second stream for the same session is refused.
    let second = send(&service, session_request("GET", &id)).await;
    assert_eq!(second.status, StatusCode::CONFLICT);
    let mut body = stream.into_body();
    assert_eq!(next_frame(&mut body).await.as_deref(), Some(":\n\n"));
    events.publish(ServerEvent::resource_updated("test://other"));
    events.publish(ServerEvent::resource_updated("test://watched"));
    events.publish(ServerEvent::PromptsListChanged);
    events.publish(ServerEvent::ToolsListChanged);
    let seen = next_events(&mut body, 2).await;
    assert_eq!(
        seen,
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched"}}),
            json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}),
        ]
    );
    assert_eq!(
        send(&service, session_request("DELETE", &id)).await.status,
        StatusCode::OK
    );
    while let Some(frame) = next_frame(&mut body).await {
        assert!(self::events(&frame).is_empty(), "{frame}");
    }
}

/// A session stream that falls behind the bus is sent everything it watches (the list
/// changes the server announces and an update of each subscribed resource), as a modern
/// `subscriptions/listen` stream is, rather than silently missing events.
#[tokio::test]
async fn a_session_stream_that_falls_behind_is_sent_everything_it_watches() {
    let events = EventBus::with_capacity(1);
    let service = service(HttpConfig::new()).with_events(events.clone());
    let id = handshake(&service).await;
    let subscribe = r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://watched"}}"#;
    send(&service, post(subscribe, Some(&id))).await;
    let stream = service.handle(session_request("GET", &id)).await;
    let mut body = stream.into_body();
    assert_eq!(next_frame(&mut body).await.as_deref(), Some(":\n\n"));
    // Three events before the stream reads again: it misses two of them.
    for _ in 0..3 {
        events.publish(ServerEvent::resource_updated("test://other"));
    }
    let seen = next_events(&mut body, 2).await;
    assert_eq!(
        seen,
        vec![
            json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"}),
            json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched"}}),
        ]
    );
    send(&service, session_request("DELETE", &id)).await;
}

#[tokio::test]
async fn a_full_session_table_refuses_initialize_with_503() {
    let limits = SessionLimits::DEFAULT.with_max_sessions(1);
    let service = service(HttpConfig::new().with_legacy_sessions(limits));
    let id = handshake(&service).await;
    let refused = send(&service, post(INITIALIZE, None)).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.json()["id"], 0);
    assert!(refused.headers.get("mcp-session-id").is_none());
    send(&service, session_request("DELETE", &id)).await;
    assert_eq!(
        send(&service, post(INITIALIZE, None)).await.status,
        StatusCode::OK
    );
}

#[tokio::test(start_paused = true)]
async fn an_idle_session_expires() {
    let limits = SessionLimits::DEFAULT.with_idle_timeout(Duration::from_secs(60));
    let service = service(HttpConfig::new().with_legacy_sessions(limits));
    let id = handshake(&service).await;
    tokio::time::advance(Duration::from_secs(59)).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(
        send(&service, post(ping, Some(&id))).await.status,
        StatusCode::OK
    );
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(
        send(&service, post(ping, Some(&id))).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn modern_requests_ignore_a_stray_session_id() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut request = post(body, Some(&id));
    request
        .headers_mut()
        .insert("mcp-protocol-version", "2026-07-28".parse().unwrap());
    request
        .headers_mut()
        .insert("mcp-method", "tools/list".parse().unwrap());
    let reply = send(&service, request).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json()["result"]["resultType"], "complete");
}

/// Sends `initialize` in the 2026-07-28 envelope, with the modern headers (a modern request,
/// which the core refuses), and checks it is refused -32601 (404) saying `message`.
async fn refuses_modern_initialize(service: &McpService<App>, message: &str) {
    let body = r#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut request = post(body, None);
    let headers = request.headers_mut();
    headers.insert("mcp-protocol-version", "2026-07-28".parse().unwrap());
    headers.insert("mcp-method", "initialize".parse().unwrap());
    let reply = send(service, request).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{}", reply.body);
    assert_eq!(
        reply.json(),
        json!({"jsonrpc": "2.0", "id": 5, "error": {
            "code": -32601,
            "message": message,
            "data": {"supported": ["2026-07-28"]}
        }})
    );
    assert!(reply.headers.get("mcp-session-id").is_none());
}

#[tokio::test]
async fn a_dual_era_endpoint_refuses_a_modern_initialize_saying_a_session_opens_only_before() {
    let service = service(HttpConfig::new());
    refuses_modern_initialize(
        &service,
        "This connection speaks MCP 2026-07-28 (a request with the _meta envelope or \
         server/discover came first): initialize opens a 2025-11-25 session only before any \
         2026-07-28 request",
    )
    .await;
    // The same endpoint still opens a session for a legacy client's `initialize`.
    let _ = handshake(&service).await;
}

#[tokio::test]
async fn a_modern_only_endpoint_refuses_a_modern_initialize_as_speaking_2026_07_28_only() {
    let service = serving(App::default(), EraSupport::ModernOnly, HttpConfig::new());
    refuses_modern_initialize(
        &service,
        "initialize is not part of protocol 2026-07-28; this server speaks 2026-07-28 only",
    )
    .await;
}

#[tokio::test]
async fn a_modern_only_endpoint_refuses_initialize_naming_its_version_and_has_no_sessions() {
    let service = serving(App::default(), EraSupport::ModernOnly, HttpConfig::new());
    let reply = send(&service, post(INITIALIZE, None)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json();
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(body["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert!(reply.headers.get("mcp-session-id").is_none());
    for method in ["GET", "DELETE"] {
        let reply = send(
            &service,
            session_request(method, "0123456789abcdef0123456789abcdef"),
        )
        .await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
    }
}

#[tokio::test]
async fn a_legacy_only_endpoint_refuses_modern_requests() {
    let service = serving(App::default(), EraSupport::LegacyOnly, HttpConfig::new());
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let reply = send(&service, post(body, None)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.json()["error"]["data"]["supported"],
        json!(["2025-11-25", "2025-06-18", "2025-03-26"])
    );
    let _ = handshake(&service).await;
}

#[tokio::test]
async fn host_and_origin_rules_hold_for_session_streams_too() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let mut request = session_request("GET", &id);
    request
        .headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    assert_eq!(send(&service, request).await.status, StatusCode::FORBIDDEN);
    let mut request = post(INITIALIZE, None);
    request
        .headers_mut()
        .insert("host", "evil.example".parse().unwrap());
    assert_eq!(send(&service, request).await.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_post_stream_opens_with_a_priming_event_and_numbers_its_events() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p"}}}"#;
    let reply = send(&service, post(call, Some(&id))).await;
    let frames: Vec<&str> = reply.body.split_terminator("\n\n").collect();
    assert_eq!(frames.len(), 3, "{}", reply.body);
    assert_eq!(frames[0], "id: 1-0\nretry: 1000\ndata: ");
    assert!(
        frames[1].starts_with("id: 1-1\nevent: message\ndata: {"),
        "{}",
        frames[1]
    );
    assert!(
        frames[2].starts_with("id: 1-2\nevent: message\ndata: {"),
        "{}",
        frames[2]
    );
    // The next stream of the session is numbered on.
    let reply = send(&service, post(call, Some(&id))).await;
    assert!(reply.body.starts_with("id: 2-0\n"), "{}", reply.body);
}

#[tokio::test]
async fn a_dropped_post_stream_is_not_a_cancellation_and_resumes_with_last_event_id() {
    let app = App::default();
    let gate = Arc::clone(&app.gate);
    let service = service_of(app, HttpConfig::new());
    let id = handshake(&service).await;
    let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":1}}}"#;
    let response = service.handle(post(call, Some(&id))).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    assert_eq!(
        next_frame(&mut body).await.as_deref(),
        Some("id: 1-0\nretry: 1000\ndata: \n\n")
    );
    let progress = next_frame(&mut body).await.expect("the progress event");
    assert!(progress.starts_with("id: 1-1\n"), "{progress}");
    // The client goes away; the request runs on.
    drop(body);
    gate.notify_one();
    let mut resume = session_request("GET", &id);
    resume
        .headers_mut()
        .insert("last-event-id", "1-1".parse().unwrap());
    let resumed = send(&service, resume).await;
    assert_eq!(resumed.status, StatusCode::OK);
    assert_eq!(
        resumed.body,
        "id: 1-2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"finally\"}]}}\n\n"
    );
    // From the start, the whole stream again (no priming on a resumed stream).
    let mut replay = session_request("GET", &id);
    replay
        .headers_mut()
        .insert("last-event-id", "1-0".parse().unwrap());
    let replayed = send(&service, replay).await;
    assert_eq!(replayed.body.matches("\nevent: message\n").count(), 2);
}

#[tokio::test]
async fn a_cancelled_request_ends_its_stream_without_a_response() {
    let service = service(HttpConfig::new());
    let id = handshake(&service).await;
    let call = r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":1}}}"#;
    let response = service.handle(post(call, Some(&id))).await;
    let mut body = response.into_body();
    next_frame(&mut body).await.expect("priming");
    next_frame(&mut body).await.expect("progress");
    let cancel =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}"#;
    assert_eq!(
        send(&service, post(cancel, Some(&id))).await.status,
        StatusCode::ACCEPTED
    );
    assert_eq!(next_frame(&mut body).await, None);
}

#[tokio::test]
async fn running_requests_of_a_session_are_bounded() {
    let limits = SessionLimits::DEFAULT.with_max_requests(1);
    let service = service(HttpConfig::new().with_legacy_sessions(limits));
    let id = handshake(&service).await;
    let slow = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":1}}}"#;
    let response = service.handle(post(slow, Some(&id))).await;
    let mut body = response.into_body();
    next_frame(&mut body).await.expect("priming");
    let echo = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#;
    let refused = send(&service, post(echo, Some(&id))).await;
    assert_eq!(refused.status, StatusCode::OK);
    assert_eq!(refused.json()["error"]["code"], -32603);
    // Ending the session ends its requests.
    send(&service, session_request("DELETE", &id)).await;
    while next_frame(&mut body).await.is_some() {}
}

/// The messages of the frames of `body` up to and including the next one with data.
async fn next_message(body: &mut McpBody) -> Value {
    loop {
        let frame = next_frame(body).await.expect("the stream goes on");
        if let Some(message) = events(&frame).into_iter().next() {
            return message;
        }
    }
}

const INITIALIZE_ALL: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}},"clientInfo":{"name":"host","version":"1.0"}}}"#;

/// A session whose client declared `initialize` (its capabilities).
async fn session_with(service: &McpService<App>, initialize: &str) -> String {
    let reply = send(service, post(initialize, None)).await;
    let id = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    send(service, post(INITIALIZED, Some(&id))).await;
    id
}

/// Calls `tool` on the session and returns the open event stream, after its priming event.
async fn call_streamed(service: &McpService<App>, session: &str, tool: &str) -> McpBody {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    );
    let response = service.handle(post(&call, Some(session))).await;
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.into_body();
    let priming = next_frame(&mut body).await.expect("priming");
    assert!(priming.ends_with("retry: 1000\ndata: \n\n"), "{priming}");
    body
}

/// POSTs the client's `answer` to the session: 202.
async fn answer(service: &McpService<App>, session: &str, answer: Value) {
    let reply = send(service, post(&answer.to_string(), Some(session))).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{}", reply.body);
}

#[tokio::test]
async fn a_form_elicitation_is_bridged_over_the_post_stream() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "form").await;
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
    );
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"name":"Ada"}}})).await;
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","id":"call","result":{"content":[{"type":"text","text":"Hello, Ada"}]}})
    );
    assert_eq!(next_frame(&mut body).await, None);
}

#[tokio::test]
async fn a_declined_form_reaches_the_handler_as_declined() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "form").await;
    let request = next_message(&mut body).await;
    answer(
        &service,
        &id,
        json!({"jsonrpc":"2.0","id":request["id"],"result":{"action":"decline"}}),
    )
    .await;
    assert_eq!(
        next_message(&mut body).await["result"]["content"][0]["text"],
        "Hello, nobody"
    );
}

#[tokio::test]
async fn a_url_elicitation_carries_an_elicitation_id() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "url").await;
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-1","method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/login","elicitationId":"snodo-bridge-1"}})
    );
    answer(
        &service,
        &id,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept"}}),
    )
    .await;
    assert_eq!(
        next_message(&mut body).await["result"]["content"][0]["text"],
        "consent: true"
    );
}

#[tokio::test]
async fn sampling_and_roots_are_bridged() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "sample").await;
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Hi?"}}],"maxTokens":10}})
    );
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"role":"assistant","content":{"type":"text","text":"Hello"},"model":"m"}})).await;
    assert_eq!(
        next_message(&mut body).await["result"]["content"][0]["text"],
        "sampled: Hello"
    );
    let mut body = call_streamed(&service, &id, "roots").await;
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-2","method":"roots/list","params":{}})
    );
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-2","result":{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}})).await;
    assert_eq!(
        next_message(&mut body).await["result"]["content"][0]["text"],
        "roots: 2"
    );
}

#[tokio::test]
async fn mixed_input_requests_are_all_sent_and_answered_in_any_order() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "mixed").await;
    let methods: Vec<Value> = [
        next_message(&mut body).await,
        next_message(&mut body).await,
        next_message(&mut body).await,
    ]
    .iter()
    .map(|m| json!([m["id"], m["method"]]))
    .collect();
    assert_eq!(
        methods,
        vec![
            json!(["snodo-bridge-1", "elicitation/create"]),
            json!(["snodo-bridge-2", "sampling/createMessage"]),
            json!(["snodo-bridge-3", "roots/list"]),
        ]
    );
    answer(
        &service,
        &id,
        json!({"jsonrpc":"2.0","id":"snodo-bridge-3","result":{"roots":[]}}),
    )
    .await;
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"name":"Bo"}}})).await;
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-2","result":{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m"}})).await;
    assert_eq!(
        next_message(&mut body).await["result"]["content"][0]["text"],
        "Bo yo 0"
    );
}

#[tokio::test]
async fn an_input_the_client_did_not_declare_is_never_sent() {
    let service = service(HttpConfig::new());
    // Elicitation only: no sampling.
    let id = handshake(&service).await;
    let call = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"sample","arguments":{}}}"#;
    let reply = send(&service, post(call, Some(&id))).await;
    assert_eq!(reply.headers["content-type"], "application/json");
    let error = &reply.json()["error"];
    assert_eq!(error["code"], -32603);
    assert!(
        error["message"].as_str().unwrap().contains("sampling"),
        "{error}"
    );
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"sampling":{}})
    );
}

#[tokio::test]
async fn an_error_from_the_client_ends_the_request() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "sample").await;
    let request = next_message(&mut body).await;
    answer(&service, &id, json!({"jsonrpc":"2.0","id":request["id"],"error":{"code":-1,"message":"User rejected sampling"}})).await;
    let mut end = next_message(&mut body).await;
    while end.get("method").is_some() {
        end = next_message(&mut body).await;
    }
    assert_eq!(end["id"], "call");
    assert_eq!(end["error"]["code"], -32603);
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_request_times_out_and_is_cancelled() {
    let bridge = BridgeConfig::DEFAULT.with_answer_timeout(Duration::from_secs(1));
    let service = service(HttpConfig::new().with_bridge(bridge));
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "form").await;
    assert_eq!(
        next_message(&mut body).await["method"],
        "elicitation/create"
    );
    // Nobody answers: the paused clock runs on to the timeout.
    assert_eq!(
        next_message(&mut body).await,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"snodo-bridge-1","reason":"No answer in time"}})
    );
    let end = next_message(&mut body).await;
    assert_eq!(end["id"], "call");
    assert_eq!(end["error"]["code"], -32603);
    // A late answer changes nothing.
    answer(&service, &id, json!({"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"name":"x"}}})).await;
}

#[tokio::test]
async fn cancelling_the_request_ends_the_wait_for_answers() {
    let service = service(HttpConfig::new());
    let id = session_with(&service, INITIALIZE_ALL).await;
    let mut body = call_streamed(&service, &id, "form").await;
    assert_eq!(
        next_message(&mut body).await["method"],
        "elicitation/create"
    );
    let cancel =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call"}}"#;
    assert_eq!(
        send(&service, post(cancel, Some(&id))).await.status,
        StatusCode::ACCEPTED
    );
    // No response for a cancelled request; the stream ends.
    while let Some(frame) = next_frame(&mut body).await {
        assert!(
            events(&frame)
                .iter()
                .all(|m| m.get("result").is_none() && m.get("error").is_none()),
            "{frame}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_quiet_request_is_polled_when_the_endpoint_asks_for_it() {
    let app = App::default();
    let gate = Arc::clone(&app.gate);
    let limits = SessionLimits::DEFAULT.with_poll_after(Some(Duration::from_secs(1)));
    let service = service_of(app, HttpConfig::new().with_legacy_sessions(limits));
    let id = handshake(&service).await;
    let call = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"quiet","arguments":{}}}"#;
    // Nothing for a second (the paused clock gets there at once): the priming event only.
    let polled = send(&service, post(call, Some(&id))).await;
    assert_eq!(polled.headers["content-type"], "text/event-stream");
    assert_eq!(polled.body, "id: 1-0\nretry: 1000\ndata: \n\n");
    gate.notify_one();
    let mut resume = session_request("GET", &id);
    resume
        .headers_mut()
        .insert("last-event-id", "1-0".parse().unwrap());
    let resumed = send(&service, resume).await;
    assert_eq!(
        resumed.body,
        "id: 1-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"at last\"}]}}\n\n"
    );
    // Quick requests still get JSON.
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
    assert_eq!(
        send(&service, post(ping, Some(&id))).await.headers["content-type"],
        "application/json"
    );
}

#[tokio::test]
async fn a_session_answers_only_the_principal_that_opened_it() {
    let service = service(HttpConfig::new()).with_principal(|parts| {
        parts
            .headers
            .get("x-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    });
    let as_user = |mut request: Request<Full<Bytes>>, user: &str| {
        request
            .headers_mut()
            .insert("x-user", user.parse().unwrap());
        request
    };
    let opened = send(&service, as_user(post(INITIALIZE, None), "alice")).await;
    let id = opened.headers["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let alice = send(&service, as_user(post(ping, Some(&id)), "alice")).await;
    assert_eq!(alice.status, StatusCode::OK);
    for request in [
        as_user(post(ping, Some(&id)), "bob"),
        post(ping, Some(&id)),
        as_user(session_request("GET", &id), "bob"),
        as_user(session_request("DELETE", &id), "bob"),
    ] {
        assert_eq!(send(&service, request).await.status, StatusCode::NOT_FOUND);
    }
}

#[tokio::test]
async fn sessions_outlive_a_server_replaced_in_its_slot() {
    let first = Server::new(Config::new("legacy-http", "1.0.0"), App::default()).unwrap();
    let slot = ServerSlot::new(Arc::new(first));
    let service = McpService::with_slot(slot.clone(), HttpConfig::new().with_path(None));
    let id = handshake(&service).await;
    let second = Server::new(Config::new("legacy-http", "2.0.0"), App::default()).unwrap();
    slot.replace(Arc::new(second));
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}"#;
    let reply = send(&service, post(call, Some(&id))).await;
    assert_eq!(reply.json()["result"]["content"][0]["text"], "still here");
    // New sessions meet the new server.
    let opened = send(&service, post(INITIALIZE, None)).await;
    assert_eq!(opened.json()["result"]["serverInfo"]["version"], "2.0.0");
}
