//! Literal wire tests of the legacy era (2025-11-25 and earlier, opened by `initialize`) over
//! the stdio transport, in-process over an in-memory pipe.
//!
//! The handshake, version negotiation, `ping`, `logging/setLevel`, the era mix refused, and
//! the MRTR bridge for every input kind: the MRTR fixture's tools (`book_trip`: three forms;
//! `summarize`: sampling; `scan_roots`: roots; `audit`: all three at once) and the
//! `preferences` example's typed flows (`preference_preview`: two legs; `url_preview`: URL
//! consent), written once in the 2026-07-28 style, asked by a legacy client that answers the
//! bridged requests on the same connection. Waits that end by timeout run on tokio's paused
//! clock, which jumps to the bridge's deadline as soon as every task is idle.
//!
//! Expected values are written from the 2025-11-25 schema and the fixtures' definitions.

use std::sync::Arc;

use serde_json::{Value, json};
use snodo_core::protocol::LogLevel;
use snodo_core::server::{
    Config, Done, Error, Handler, ListChanged, Registry, Resource, Server, ServerCapabilities,
    Tool, ToolCall, ToolReply,
};
use snodo_std::AsyncHandler;
use snodo_std::events::{EventBus, ServerEvent};
use snodo_std::legacy::{BridgeConfig, EraSupport};
use snodo_std::stdio::{StdioConfig, serve_with_events};
use snodo_tests::boundary::StateKeys;
use snodo_tests::mrtr_fixture::{
    APPROVAL_FORM, CITY_FORM, DATE_FORM, SAMPLING_PLAIN, mrtr_server, state_options,
    typed_preferences_server,
};
use std::process::Stdio;

use snodo_tests::boundary::{Transport, example_command};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};
use tokio::task::JoinHandle;

const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INTERNAL_ERROR: i64 = -32603;

// ---------------------------------------------------------------------------------------
// A connection
// ---------------------------------------------------------------------------------------

/// The client's end of one stdio connection.
struct Client {
    input: Option<Box<dyn AsyncWrite + Unpin + Send>>,
    lines: Lines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>,
    serving: Serving,
}

/// What serves the connection.
enum Serving {
    /// The adapter in a task of this test.
    Task(JoinHandle<std::io::Result<()>>),
    /// The example binary.
    Process(tokio::process::Child),
}

impl Client {
    fn start<A: AsyncHandler + 'static>(server: Server<'static, A>, config: StdioConfig) -> Self {
        Self::with_events(server, config, EventBus::new())
    }

    fn with_events<A: AsyncHandler + 'static>(
        server: Server<'static, A>,
        config: StdioConfig,
        events: EventBus,
    ) -> Self {
        let (client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(serve_with_events(
            Arc::new(server),
            server_in,
            server_out,
            config,
            events,
        ));
        Client {
            input: Some(Box::new(client_in)),
            lines: BufReader::new(Box::new(client_out) as Box<dyn AsyncRead + Unpin + Send>)
                .lines(),
            serving: Serving::Task(serving),
        }
    }

    /// The `preferences` example binary on stdio, as a desktop host starts it.
    fn example() -> Self {
        let mut command = tokio::process::Command::from(example_command(Transport::Stdio));
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("the example starts");
        let input = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        Client {
            input: Some(Box::new(input)),
            lines: BufReader::new(Box::new(output) as Box<dyn AsyncRead + Unpin + Send>).lines(),
            serving: Serving::Process(child),
        }
    }

    async fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string()).await;
    }

    async fn send_raw(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        input.write_all(line.as_bytes()).await.expect("writable");
        input.write_all(b"\n").await.expect("writable");
    }

    /// The next line the server writes, as JSON.
    async fn next(&mut self) -> Value {
        let line = self
            .lines
            .next_line()
            .await
            .expect("readable")
            .expect("a line before the end of output");
        serde_json::from_str(&line).expect("each line is JSON")
    }

    /// Sends `initialize` for `version` with `capabilities` and `notifications/initialized`;
    /// the `InitializeResult`.
    async fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "legacy-host", "version": "1.0"}
            }}),
        )
        .await;
        let result = self.next().await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        result
    }

    /// Ends the input; every line the server still writes, until it exits.
    async fn close(mut self) -> Vec<Value> {
        drop(self.input.take());
        let mut rest = Vec::new();
        while let Some(line) = self.lines.next_line().await.expect("readable") {
            rest.push(serde_json::from_str(&line).expect("each line is JSON"));
        }
        match self.serving {
            Serving::Task(task) => task.await.expect("no panic").expect("served"),
            Serving::Process(mut child) => {
                assert!(child.wait().await.expect("waited").success(), "clean exit");
            }
        }
        rest
    }
}

fn call(id: u64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

fn result(id: impl Into<Value>, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "result": result})
}

fn text(id: u64, text: &str) -> Value {
    result(id, json!({"content": [{"type": "text", "text": text}]}))
}

fn server_request(id: &str, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn cancelled(id: &str, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": reason}})
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn form(message: &str, schema: &str) -> Value {
    json!({"mode": "form", "message": message,
        "requestedSchema": serde_json::from_str::<Value>(schema).expect("a schema")})
}

/// A default-configured connection to `server` with a 2025-11-25 session whose client
/// declared `capabilities`.
async fn session<A: AsyncHandler + 'static>(
    server: Server<'static, A>,
    capabilities: Value,
) -> Client {
    let mut client = Client::start(server, StdioConfig::default());
    client.initialize("2025-11-25", capabilities).await;
    client
}

/// The reply's first text block, parsed as JSON.
fn text_json(reply: &Value) -> Value {
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block");
    serde_json::from_str(text).expect("JSON text")
}

/// A form-capable legacy session whose `book_trip` call `id` has asked its three questions:
/// the session and the three bridged requests.
async fn trip_asked(id: u64) -> (Client, [Value; 3]) {
    let mut client = session(fixture(), json!({"elicitation": {}})).await;
    client
        .send(call(id, "book_trip", json!({"traveller": "Ada"})))
        .await;
    let asked = [
        client.next().await,
        client.next().await,
        client.next().await,
    ];
    (client, asked)
}

fn all_caps() -> Value {
    json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
}

// ---------------------------------------------------------------------------------------
// A small server: tools that log and report progress, a subscribable resource
// ---------------------------------------------------------------------------------------

struct Demo;

impl Registry for Demo {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("echo"), Tool::new("chatty")];
        TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        const RESOURCES: &[Resource<'static>] = &[Resource::new("demo://watched", "watched")];
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
                ..ListChanged::default()
            },
            ..ServerCapabilities::default()
        }
    }
}

impl Handler for Demo {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        if call.name() == "echo" {
            let said = call.argument("text").and_then(|t| t.as_str());
            let said: String = said.map(|t| t.chars().collect()).unwrap_or_default();
            return Ok(reply.text_fmt(format_args!("{said}")));
        }
        let failed = |_| Error::internal("notification too large");
        reply.progress(1.0, Some(2.0), None).map_err(failed)?;
        reply
            .log(LogLevel::Debug, Some("demo"), format_args!("detail"))
            .map_err(failed)?;
        reply
            .log(LogLevel::Info, Some("demo"), format_args!("half way"))
            .map_err(failed)?;
        reply.progress(2.0, Some(2.0), None).map_err(failed)?;
        Ok(reply.text("done"))
    }
}

fn demo() -> Server<'static, Demo> {
    demo_speaking(EraSupport::Both)
}

fn demo_speaking(eras: EraSupport) -> Server<'static, Demo> {
    let config = Config::new("demo", "1.0.0").with_eras(eras);
    Server::new(config, Demo).expect("valid definitions")
}

fn fixture() -> Server<'static, snodo_tests::mrtr_fixture::MrtrFixture> {
    mrtr_server(Box::leak(Box::new(state_options())))
}

// ---------------------------------------------------------------------------------------
// The handshake and the session's own methods
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn initialize_negotiates_the_version_and_ping_answers_empty() {
    let mut client = Client::start(demo(), StdioConfig::default());
    let init = client.initialize("2025-06-18", json!({})).await;
    assert_eq!(
        init,
        result(
            0,
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {
                    "tools": {"listChanged": true},
                    "resources": {"subscribe": true},
                    "logging": {}
                },
                "serverInfo": {"name": "demo", "version": "1.0.0"}
            })
        )
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(client.next().await, result(1, json!({})));
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "again", "version": "1"}}}),
        )
        .await;
    let again = client.next().await;
    assert_eq!(again["id"], 2);
    assert_eq!(again["error"]["code"], INVALID_REQUEST);
    assert_eq!(
        again["error"]["message"],
        "The session is already initialized"
    );
    assert_eq!(client.close().await, Vec::<Value>::new());
}

#[tokio::test]
async fn an_unknown_version_gets_the_newest_and_an_older_one_itself() {
    for (asked, answered) in [
        ("2024-01-01", "2025-11-25"),
        ("2025-03-26", "2025-03-26"),
        ("2025-11-25", "2025-11-25"),
    ] {
        let mut client = Client::start(demo(), StdioConfig::default());
        let init = client.initialize(asked, json!({})).await;
        assert_eq!(init["result"]["protocolVersion"], answered, "asked {asked}");
        client.close().await;
    }
}

#[tokio::test]
async fn results_lose_the_2026_only_fields() {
    let mut client = session(demo(), json!({})).await;
    client.send(call(1, "echo", json!({"text": "hi"}))).await;
    assert_eq!(client.next().await, text(1, "hi"));
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(
        client.next().await,
        result(
            2,
            json!({"tools": [
                {"name": "echo", "inputSchema": {"type": "object"}},
                {"name": "chatty", "inputSchema": {"type": "object"}}
            ]})
        )
    );
    client.close().await;
}

#[tokio::test]
async fn set_level_reaches_handlers_and_progress_echoes_the_token() {
    let mut client = session(demo(), json!({})).await;
    // Before setLevel the handler logs nothing.
    client
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "chatty", "_meta": {"progressToken": "p1"}}}))
        .await;
    let progress = |token: &str, n: f64| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": n, "total": 2.0}})
    };
    assert_eq!(client.next().await, progress("p1", 1.0));
    assert_eq!(client.next().await, progress("p1", 2.0));
    assert_eq!(client.next().await, text(1, "done"));
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
            "params": {"level": "info"}}),
        )
        .await;
    assert_eq!(client.next().await, result(2, json!({})));
    client.send(call(3, "chatty", json!({}))).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "logger": "demo", "data": "half way"}})
    );
    assert_eq!(client.next().await, text(3, "done"));
    client.close().await;
}

#[tokio::test]
async fn subscribed_updates_and_list_changes_arrive_in_the_legacy_shape() {
    let bus = EventBus::new();
    let mut client = Client::with_events(demo(), StdioConfig::default(), bus.clone());
    client.initialize("2025-11-25", json!({})).await;
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
            "params": {"uri": "demo://watched"}}),
        )
        .await;
    assert_eq!(client.next().await, result(1, json!({})));
    bus.publish(ServerEvent::resource_updated("demo://other"));
    bus.publish(ServerEvent::PromptsListChanged);
    bus.publish(ServerEvent::resource_updated("demo://watched"));
    bus.publish(ServerEvent::ToolsListChanged);
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": {"uri": "demo://watched"}})
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    );
    client
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/unsubscribe",
            "params": {"uri": "demo://watched"}}),
        )
        .await;
    assert_eq!(client.next().await, result(2, json!({})));
    bus.publish(ServerEvent::resource_updated("demo://watched"));
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(
        client.next().await,
        result(3, json!({})),
        "no update once unsubscribed"
    );
    client.close().await;
}

// ---------------------------------------------------------------------------------------
// The era of a connection
// ---------------------------------------------------------------------------------------

fn modern_ping(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

#[tokio::test]
async fn a_modern_request_on_a_legacy_connection_is_refused() {
    let mut client = session(demo(), json!({})).await;
    client.send(modern_ping(1)).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INVALID_REQUEST,
            "message": "This connection opened with initialize (MCP 2025-11-25 and earlier): \
                requests with the 2026-07-28 _meta envelope are refused on it",
            "data": {"supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]}
        }})
    );
    client.close().await;
}

/// What a dual-era server answers `initialize` on a connection a 2026-07-28 request made
/// modern: why, in the connection's terms.
fn initialize_refused_on_modern(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": METHOD_NOT_FOUND,
        "message": "This connection speaks MCP 2026-07-28 (a request with the _meta envelope \
            or server/discover came first): initialize opens a 2025-11-25 session only before \
            any 2026-07-28 request",
        "data": {"supported": ["2026-07-28"]}
    }})
}

/// What a modern-only server answers `initialize`.
fn initialize_refused(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": METHOD_NOT_FOUND,
        "message": "initialize is not part of protocol 2026-07-28; this server speaks 2026-07-28 only",
        "data": {"supported": ["2026-07-28"]}
    }})
}

fn initialize_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "late", "version": "1"}}})
}

#[tokio::test]
async fn initialize_on_a_modern_connection_is_refused() {
    let mut client = Client::start(demo(), StdioConfig::default());
    client.send(modern_ping(1)).await;
    assert_eq!(client.next().await["result"]["resultType"], "complete");
    client.send(initialize_request(2)).await;
    assert_eq!(client.next().await, initialize_refused_on_modern(2));
    client.close().await;
}

#[tokio::test]
async fn a_modern_only_server_answers_initialize_as_today() {
    let server = demo_speaking(EraSupport::ModernOnly);
    let mut client = Client::start(server, StdioConfig::default());
    client.send(initialize_request(1)).await;
    assert_eq!(client.next().await, initialize_refused(1));
    // The connection is still free to speak 2026-07-28.
    client.send(modern_ping(2)).await;
    assert_eq!(client.next().await["result"]["resultType"], "complete");
    client.close().await;
}

#[tokio::test]
async fn a_legacy_only_server_refuses_modern_requests() {
    let server = demo_speaking(EraSupport::LegacyOnly);
    let mut client = Client::start(server, StdioConfig::default());
    client.send(modern_ping(1)).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INVALID_REQUEST,
            "message": "This server speaks only the initialize era (MCP 2025-11-25 and earlier)",
            "data": {"supported": ["2025-11-25", "2025-06-18", "2025-03-26"]}
        }})
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    let early = client.next().await;
    assert_eq!(
        early["error"]["message"],
        "The session is not initialized: send initialize first"
    );
    client.initialize("2025-11-25", json!({})).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(client.next().await, result(3, json!({})));
    client.close().await;
}

// ---------------------------------------------------------------------------------------
// The bridge
// ---------------------------------------------------------------------------------------

fn trip_requests() -> [Value; 3] {
    [
        server_request(
            "snodo-bridge-1",
            "elicitation/create",
            form("Where do you leave from?", CITY_FORM),
        ),
        server_request(
            "snodo-bridge-2",
            "elicitation/create",
            form("Where are you going?", CITY_FORM),
        ),
        server_request(
            "snodo-bridge-3",
            "elicitation/create",
            form("When do you leave?", DATE_FORM),
        ),
    ]
}

#[tokio::test]
async fn form_elicitations_are_bridged_and_the_handler_finishes_with_the_answers() {
    let (mut client, asked) = trip_asked(7).await;
    assert_eq!(asked, trip_requests());
    client
        .send(result("snodo-bridge-2", accept(json!({"city": "Oslo"}))))
        .await;
    client
        .send(result("snodo-bridge-1", accept(json!({"city": "Lyon"}))))
        .await;
    client
        .send(result(
            "snodo-bridge-3",
            accept(json!({"day": "2026-08-01"})),
        ))
        .await;
    let done = client.next().await;
    assert_eq!(done["id"], 7);
    let trip = text_json(&done);
    assert_eq!(
        trip,
        json!({"traveller": "Ada", "origin": "Lyon", "destination": "Oslo", "date": "2026-08-01"})
    );
    assert!(done["result"].get("resultType").is_none(), "{done}");
    client.close().await;
}

#[tokio::test]
async fn an_older_client_gets_forms_without_mode() {
    let mut client = Client::start(fixture(), StdioConfig::default());
    client
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    client.send(call(1, "audit", json!({}))).await;
    // Only the form is sent: the client declared no sampling or roots.
    let refused = client.next().await;
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["error"]["code"], INTERNAL_ERROR);
    client
        .send(call(2, "book_trip", json!({"traveller": "Ada"})))
        .await;
    let first = client.next().await;
    assert_eq!(
        first,
        server_request(
            "snodo-bridge-1",
            "elicitation/create",
            json!({
                "message": "Where do you leave from?",
                "requestedSchema": serde_json::from_str::<Value>(CITY_FORM).expect("a schema")
            })
        )
    );
    // The input ends while the three forms wait: the request ends at once, with an error.
    let rest = client.close().await;
    let last = rest.last().expect("a reply");
    assert_eq!(
        *last,
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": INTERNAL_ERROR,
            "message": "The client can no longer answer the server's request"
        }})
    );
}

#[tokio::test]
async fn a_url_elicitation_carries_the_bridge_id_as_its_elicitation_id() {
    let server = typed_preferences_server(&StateKeys::Own);
    let mut client = session(server, json!({"elicitation": {"url": {}}})).await;
    client.send(call(1, "url_preview", json!({}))).await;
    assert_eq!(
        client.next().await,
        server_request(
            "snodo-bridge-1",
            "elicitation/create",
            json!({
                "mode": "url",
                "message": "Open the preview page to continue",
                "url": "https://example.com/preferences/preview",
                "elicitationId": "snodo-bridge-1"
            })
        )
    );
    client
        .send(result("snodo-bridge-1", json!({"action": "accept"})))
        .await;
    let done = client.next().await;
    assert_eq!(done["id"], 1);
    let consent = text_json(&done);
    assert_eq!(consent["consent"], "accept");
    client.close().await;
}

#[tokio::test]
async fn sampling_is_bridged() {
    let mut client = session(fixture(), json!({"sampling": {}})).await;
    client.send(call(1, "summarize", json!({}))).await;
    assert_eq!(
        client.next().await,
        server_request(
            "snodo-bridge-1",
            "sampling/createMessage",
            serde_json::from_str(SAMPLING_PLAIN).expect("params")
        )
    );
    client
        .send(result(
            "snodo-bridge-1",
            json!({"role": "assistant",
            "content": {"type": "text", "text": "All good."}, "model": "m1",
            "stopReason": "endTurn"}),
        ))
        .await;
    assert_eq!(
        client.next().await,
        text(1, r#"{"summary":"All good.","model":"m1"}"#)
    );
    client.close().await;
}

#[tokio::test]
async fn roots_are_bridged() {
    let mut client = session(fixture(), json!({"roots": {}})).await;
    client.send(call(1, "scan_roots", json!({}))).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": "snodo-bridge-1", "method": "roots/list", "params": {}})
    );
    client
        .send(result(
            "snodo-bridge-1",
            json!({"roots": [{"uri": "file:///work"}]}),
        ))
        .await;
    assert_eq!(
        client.next().await,
        text(1, r#"{"roots":["file:///work"]}"#)
    );
    client.close().await;
}

#[tokio::test]
async fn a_mixed_leg_sends_all_three_kinds_at_once() {
    let mut client = session(fixture(), all_caps()).await;
    client.send(call(1, "audit", json!({}))).await;
    let mut asked = [
        client.next().await,
        client.next().await,
        client.next().await,
    ];
    asked.sort_by_key(|r| r["id"].as_str().map(str::to_owned));
    assert_eq!(
        asked,
        [
            server_request(
                "snodo-bridge-1",
                "elicitation/create",
                form("Approve the audit?", APPROVAL_FORM)
            ),
            server_request(
                "snodo-bridge-2",
                "sampling/createMessage",
                serde_json::from_str(SAMPLING_PLAIN).expect("params")
            ),
            json!({"jsonrpc": "2.0", "id": "snodo-bridge-3", "method": "roots/list", "params": {}}),
        ]
    );
    client
        .send(result(
            "snodo-bridge-3",
            json!({"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}),
        ))
        .await;
    client
        .send(result("snodo-bridge-1", accept(json!({"approve": true}))))
        .await;
    client
        .send(result(
            "snodo-bridge-2",
            json!({"role": "assistant",
            "content": {"type": "text", "text": "Fine."}, "model": "m"}),
        ))
        .await;
    assert_eq!(
        client.next().await,
        text(1, r#"{"approve":true,"summary":"Fine.","roots":2}"#)
    );
    client.close().await;
}

#[tokio::test]
async fn two_legs_on_one_slot_read_the_answers_while_it_waits() {
    // One slot: the request waiting for its answers holds it, and the answers still arrive.
    let config = StdioConfig::default().with_max_concurrency(1);
    let server = typed_preferences_server(&StateKeys::Own);
    let mut client = Client::start(server, config);
    client
        .initialize("2025-11-25", json!({"elicitation": {}}))
        .await;
    client
        .send(call(1, "preference_preview", json!({"subject": "desk"})))
        .await;
    let color = client.next().await;
    assert_eq!(color["id"], "snodo-bridge-1");
    assert_eq!(
        color["params"]["message"],
        "Choose a color for a read-only preview"
    );
    client
        .send(result("snodo-bridge-1", accept(json!({"color": "teal"}))))
        .await;
    let style = client.next().await;
    assert_eq!(style["id"], "snodo-bridge-2");
    assert_eq!(
        style["params"]["message"],
        "Choose a style for a read-only preview"
    );
    client
        .send(result(
            "snodo-bridge-2",
            accept(json!({"style": "compact"})),
        ))
        .await;
    let done = client.next().await;
    assert_eq!(done["id"], 1);
    let preview = text_json(&done);
    assert_eq!(preview["color"], "teal");
    assert_eq!(preview["style"], "compact");
    client.close().await;
}

#[tokio::test]
async fn a_declined_form_reaches_the_handler() {
    let (mut client, _) = trip_asked(1).await;
    client
        .send(result("snodo-bridge-1", json!({"action": "decline"})))
        .await;
    client
        .send(result("snodo-bridge-2", json!({"action": "cancel"})))
        .await;
    client
        .send(result(
            "snodo-bridge-3",
            accept(json!({"day": "2026-08-01"})),
        ))
        .await;
    assert_eq!(client.next().await, text(1, r#"{"status":"decline"}"#));
    client.close().await;
}

#[tokio::test]
async fn an_error_answer_ends_the_request_and_cancels_the_rest() {
    let (mut client, _) = trip_asked(1).await;
    client
        .send(json!({"jsonrpc": "2.0", "id": "snodo-bridge-2",
            "error": {"code": -1, "message": "User rejected"}}))
        .await;
    assert_eq!(
        client.next().await,
        cancelled("snodo-bridge-1", "The request ended")
    );
    assert_eq!(
        client.next().await,
        cancelled("snodo-bridge-3", "The request ended")
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INTERNAL_ERROR,
            "message": "The client answered elicitation/create with an error",
            "data": {"code": -1, "message": "User rejected"}
        }})
    );
    client.close().await;
}

#[tokio::test]
async fn cancelling_the_request_ends_the_wait_without_a_response() {
    let (mut client, _) = trip_asked(4).await;
    client
        .send(result("snodo-bridge-1", accept(json!({"city": "Lyon"}))))
        .await;
    client
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 4, "reason": "user closed the dialog"}}),
        )
        .await;
    assert_eq!(
        client.next().await,
        cancelled("snodo-bridge-2", "The request was cancelled")
    );
    assert_eq!(
        client.next().await,
        cancelled("snodo-bridge-3", "The request was cancelled")
    );
    client
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}))
        .await;
    assert_eq!(
        client.next().await,
        result(5, json!({})),
        "no response to the cancelled request"
    );
    assert_eq!(client.close().await, Vec::<Value>::new());
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_request_times_out() {
    let bridge = BridgeConfig::DEFAULT.with_answer_timeout(std::time::Duration::from_secs(30));
    let config = StdioConfig::default().with_bridge(bridge);
    let mut client = Client::start(fixture(), config);
    client.initialize("2025-11-25", json!({"roots": {}})).await;
    client.send(call(1, "scan_roots", json!({}))).await;
    assert_eq!(client.next().await["method"], "roots/list");
    // Nothing answers: the paused clock runs to the deadline.
    assert_eq!(
        client.next().await,
        cancelled("snodo-bridge-1", "No answer in time")
    );
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INTERNAL_ERROR,
            "message": "The client did not answer the server's request in time"
        }})
    );
    client.close().await;
}

#[tokio::test]
async fn a_client_without_the_capability_is_never_asked() {
    let mut client = session(fixture(), json!({"elicitation": {}})).await;
    client.send(call(1, "summarize", json!({}))).await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INTERNAL_ERROR,
            "message": "Client does not support sampling (required by this request)",
            "data": {"requiredCapabilities": {"sampling": {}}}
        }})
    );
    assert_eq!(client.close().await, Vec::<Value>::new());
}

#[tokio::test]
async fn the_rounds_are_bounded() {
    let config = StdioConfig::default().with_bridge(BridgeConfig::DEFAULT.with_max_rounds(1));
    let server = typed_preferences_server(&StateKeys::Own);
    let mut client = Client::start(server, config);
    client
        .initialize("2025-11-25", json!({"elicitation": {}}))
        .await;
    client
        .send(call(1, "preference_preview", json!({"subject": "desk"})))
        .await;
    assert_eq!(client.next().await["id"], "snodo-bridge-1");
    client
        .send(result("snodo-bridge-1", accept(json!({"color": "teal"}))))
        .await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 1, "error": {
            "code": INTERNAL_ERROR,
            "message": "The request asked the client for input more times than the server allows"
        }})
    );
    client.close().await;
}

#[tokio::test]
async fn the_example_binary_serves_a_legacy_host() {
    let mut client = Client::example();
    let init = client
        .initialize("2025-06-18", json!({"elicitation": {}}))
        .await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "snodo-preferences");
    client
        .send(call(
            1,
            "preference_preview",
            json!({"subject": "dashboard"}),
        ))
        .await;
    let color = client.next().await;
    assert_eq!(color["method"], "elicitation/create");
    assert_eq!(
        color["params"]["message"],
        "Choose a color for a read-only preview"
    );
    assert!(
        color["params"].get("mode").is_none(),
        "no mode before 2025-11-25: {color}"
    );
    client
        .send(result(
            color["id"].clone(),
            accept(json!({"color": "teal"})),
        ))
        .await;
    let style = client.next().await;
    assert_eq!(
        style["params"]["message"],
        "Choose a style for a read-only preview"
    );
    client
        .send(result(
            style["id"].clone(),
            accept(json!({"style": "compact"})),
        ))
        .await;
    let done = client.next().await;
    assert_eq!(done["id"], 1);
    let preview = text_json(&done);
    assert_eq!(preview["color"], "teal");
    assert_eq!(preview["style"], "compact");
    assert_eq!(client.close().await, Vec::<Value>::new());
}

#[tokio::test]
async fn a_request_behind_answers_that_every_slot_waits_for_is_refused() {
    // One slot, waiting for the client's answers: a request written before them cannot be
    // held (the answers lie behind it), so it is refused and the answers still arrive.
    let config = StdioConfig::default().with_max_concurrency(1);
    let mut client = Client::start(fixture(), config);
    client.initialize("2025-11-25", json!({"roots": {}})).await;
    client.send(call(1, "scan_roots", json!({}))).await;
    assert_eq!(client.next().await["method"], "roots/list");
    client.send(call(2, "scan_roots", json!({}))).await;
    client
        .send(result(
            "snodo-bridge-1",
            json!({"roots": [{"uri": "file:///w"}]}),
        ))
        .await;
    assert_eq!(
        client.next().await,
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": INTERNAL_ERROR,
            "message": "The server is busy: every request in flight waits for this client's answers"
        }})
    );
    assert_eq!(client.next().await, text(1, r#"{"roots":["file:///w"]}"#));
    client.close().await;
}

// ---------------------------------------------------------------------------------------
// One subscription set for every transport
// ---------------------------------------------------------------------------------------

fn subscribe(id: u64, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": {"uri": uri}})
}

/// The error code and message of `reply`, `(0, "")` for a result.
fn outcome(reply: &Value) -> (i64, String) {
    let error = &reply["error"];
    let message = error["message"].as_str().unwrap_or_default().to_owned();
    (error["code"].as_i64().unwrap_or_default(), message)
}

/// Two subscriptions (the bound set here), the first again, a third, a URI over 2048
/// bytes, and the third once the first is unsubscribed: what each is answered.
async fn subscription_outcomes<F, Fut>(mut send: F) -> Vec<(i64, String)>
where
    F: FnMut(Value) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let long = format!("demo://{}", "x".repeat(2048));
    let unsubscribe = json!({"jsonrpc": "2.0", "id": 6, "method": "resources/unsubscribe",
        "params": {"uri": "demo://1"}});
    let messages = [
        subscribe(1, "demo://1"),
        subscribe(2, "demo://2"),
        subscribe(3, "demo://1"),
        subscribe(4, "demo://3"),
        subscribe(5, &long),
        unsubscribe,
        subscribe(7, "demo://3"),
    ];
    let mut outcomes = Vec::new();
    for message in messages {
        let id = message["id"].clone();
        let reply = send(message).await;
        assert_eq!(reply["id"], id, "{reply}");
        outcomes.push(outcome(&reply));
    }
    outcomes
}

#[tokio::test]
async fn stdio_and_http_bound_a_sessions_subscriptions_alike() {
    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use snodo_std::http::{HttpConfig, McpService};
    use snodo_std::legacy::SessionLimits;

    let ok = (0, String::new());
    let too_many = (
        -32603,
        "Too many resource subscriptions in this session".to_owned(),
    );
    let too_long = (
        -32602,
        "The resource URI is longer than the 2048 bytes a session subscribes to".to_owned(),
    );
    let expected = vec![
        ok.clone(),
        ok.clone(),
        ok.clone(),
        too_many,
        too_long,
        ok.clone(),
        ok,
    ];

    let config = StdioConfig::default().with_legacy_subscriptions(2);
    let mut client = Client::start(demo(), config);
    client.initialize("2025-11-25", json!({})).await;
    let client = tokio::sync::Mutex::new(client);
    let over_stdio = subscription_outcomes(|message| {
        let client = &client;
        async move {
            let mut client = client.lock().await;
            client.send(message).await;
            client.next().await
        }
    })
    .await;
    assert_eq!(over_stdio, expected);
    client.into_inner().close().await;

    let sessions = SessionLimits::DEFAULT.with_max_subscriptions(2);
    let service = McpService::new(
        Arc::new(demo()),
        HttpConfig::new().with_legacy_sessions(sessions),
    );
    let post = |body: &Value, session: Option<&str>| {
        let mut request = hyper::Request::post("http://127.0.0.1:8080/mcp")
            .header("host", "127.0.0.1:8080")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "legacy-host", "version": "1.0"}}});
    let opened = service.handle(post(&initialize, None)).await;
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    service.handle(post(&initialized, Some(&session))).await;
    let over_http = subscription_outcomes(|message| {
        let request = post(&message, Some(&session));
        let service = &service;
        async move {
            let response = service.handle(request).await;
            let body = response.into_body().collect().await.unwrap().to_bytes();
            serde_json::from_slice(&body).expect("one JSON reply")
        }
    })
    .await;
    assert_eq!(over_http, over_stdio);
}
