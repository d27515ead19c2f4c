//! A client for the stdio adapter over in-memory pipes, and request builders.
#![allow(dead_code)] // each test file uses a part of it

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use snodo_core::server::{Config, Server};
use snodo_std::AsyncHandler;
use snodo_std::stdio::{StdioConfig, serve};
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;

/// How long a test waits for a line before it fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The client end of a server running on in-memory pipes.
pub struct Client {
    input: Option<DuplexStream>,
    output: BufReader<DuplexStream>,
    pub server: JoinHandle<io::Result<()>>,
}

/// Starts `app` on pipes with default buffers.
pub fn start<A: AsyncHandler + 'static>(app: A, config: StdioConfig) -> Client {
    start_with(app, config, 64 * 1024, |w| w)
}

/// Starts `app`; `pipe` is the capacity of each pipe, `wrap` may wrap the server's output.
pub fn start_with<A, W>(
    app: A,
    config: StdioConfig,
    pipe: usize,
    wrap: impl FnOnce(DuplexStream) -> W,
) -> Client
where
    A: AsyncHandler + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let server = Server::new(Config::new("stdio-test", "0.0.1"), app).expect("valid definitions");
    start_server(server, config, pipe, wrap)
}

/// Starts `server`; `pipe` is the capacity of each pipe, `wrap` may wrap its output.
pub fn start_server<A, W>(
    server: Server<'static, A>,
    config: StdioConfig,
    pipe: usize,
    wrap: impl FnOnce(DuplexStream) -> W,
) -> Client
where
    A: AsyncHandler + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (client_in, server_in) = tokio::io::duplex(pipe);
    let (server_out, client_out) = tokio::io::duplex(pipe);
    let server = tokio::spawn(serve(Arc::new(server), server_in, wrap(server_out), config));
    Client {
        input: Some(client_in),
        output: BufReader::new(client_out),
        server,
    }
}

impl Client {
    /// Sends one line (a newline is added).
    pub async fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes()).await;
    }

    /// Sends raw bytes.
    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("input is open");
        input.write_all(bytes).await.expect("server reads");
    }

    /// Ends the input.
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// The next output line, without its newline.
    pub async fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(PATIENCE, self.output.read_line(&mut line))
            .await
            .expect("a line in time")
            .expect("readable output");
        assert!(n > 0, "output ended while a line was expected");
        assert!(line.ends_with('\n'), "a whole line: {line:?}");
        line.pop();
        line
    }

    /// The next output message.
    pub async fn recv(&mut self) -> Value {
        let line = self.recv_line().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Ends the input, reads every remaining line and waits for the server to return.
    pub async fn finish(mut self) -> Vec<Value> {
        self.close_input();
        let mut rest = Vec::new();
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(PATIENCE, self.output.read_line(&mut line))
                .await
                .expect("output ends in time")
                .expect("readable output");
            if n == 0 {
                break;
            }
            rest.push(serde_json::from_str(line.trim_end()).expect("JSON"));
        }
        tokio::time::timeout(PATIENCE, self.server)
            .await
            .expect("server returns in time")
            .expect("server task")
            .expect("server ends cleanly");
        rest
    }
}

/// The `_meta` every 2026-07-28 request carries.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A request line with `params` plus the required `_meta`.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> String {
    let mut params = params;
    params
        .as_object_mut()
        .expect("params object")
        .insert("_meta".into(), meta());
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

/// A `tools/call` line.
pub fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    )
}

/// A `tools/call` line that asks for progress under `token`.
pub fn call_with_progress(
    id: impl Into<Value>,
    tool: &str,
    arguments: Value,
    token: &str,
) -> String {
    let mut meta = meta();
    meta["progressToken"] = json!(token);
    json!({
        "jsonrpc": "2.0",
        "id": id.into(),
        "method": "tools/call",
        "params": {"_meta": meta, "name": tool, "arguments": arguments}
    })
    .to_string()
}

/// A `notifications/cancelled` line for `id`.
pub fn cancel(id: impl Into<Value>) -> String {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id.into(), "reason": "test"}
    })
    .to_string()
}

/// The text of a tool result's first content block.
pub fn first_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {response}"))
}

/// A request to the example with the Tasks extension (and form elicitation) declared.
pub fn declaring(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}},
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        }
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}
