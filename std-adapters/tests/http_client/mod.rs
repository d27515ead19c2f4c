//! A literal HTTP/1.1 client for the Streamable HTTP listener: one connection per request,
//! every header spelled out, bodies read whole or event by event.
#![allow(dead_code)] // each test file uses a part of it

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use snodo_core::server::Server;
use snodo_std::AsyncHandler;
use snodo_std::http::{HttpConfig, HttpListener, McpService, ShutdownHandle};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

pub mod logs;
pub mod process;
pub mod tasks;
#[cfg(feature = "tls")]
pub mod tls;

/// How long a test waits for anything before it fails.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A listener serving on 127.0.0.1 with a free port.
pub struct Running {
    pub addr: SocketAddr,
    pub url: String,
    pub shutdown: ShutdownHandle,
    pub served: JoinHandle<std::io::Result<()>>,
}

/// Serves `service` on 127.0.0.1:0.
pub async fn serve_service<A: AsyncHandler + 'static>(service: McpService<A>) -> Running {
    let listener = HttpListener::bind_service(service).await.expect("binds");
    let addr = listener.local_addr().expect("address");
    let url = listener.url().expect("url");
    let shutdown = listener.shutdown_handle();
    let served = tokio::spawn(listener.serve());
    Running {
        addr,
        url,
        shutdown,
        served,
    }
}

/// Serves `server` with `config` on 127.0.0.1:0.
pub async fn serve<A: AsyncHandler + 'static>(
    server: Server<'static, A>,
    config: HttpConfig,
) -> Running {
    let config = config.with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    serve_service(McpService::new(Arc::new(server), config)).await
}

/// A response: status, headers and the raw body, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {:?} {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The `Content-Type`.
    pub fn content_type(&self) -> &str {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The messages of an event stream body, in order.
    pub fn events(&self) -> Vec<Value> {
        parse_events(&String::from_utf8_lossy(&self.body))
    }
}

/// The JSON messages of the complete events in `text`; checks each event's framing.
pub fn parse_events(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter(|event| !event.trim().is_empty() && !event.starts_with(':'))
        .map(|event| {
            let mut lines = event.lines();
            assert_eq!(lines.next(), Some("event: message"), "{event:?}");
            let data = lines.next().and_then(|l| l.strip_prefix("data: "));
            assert_eq!(lines.next(), None, "one data line: {event:?}");
            serde_json::from_str(data.expect("a data line")).expect("JSON data")
        })
        .collect()
}

/// An open connection with a response whose body has not been read yet.
pub struct Open {
    pub response: http::Response<Incoming>,
    pub connection: JoinHandle<()>,
    text: String,
}

impl Open {
    /// The next event's message, or `None` when the stream ended.
    pub async fn next_event(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                let event: String = self.text.drain(..end + 2).collect();
                if event.starts_with(':') {
                    continue;
                }
                return parse_events(&event).into_iter().next();
            }
            let frame = tokio::time::timeout(PATIENCE, self.response.body_mut().frame())
                .await
                .expect("an event in time");
            match frame {
                None => return None,
                Some(frame) => {
                    let frame = frame.expect("readable body");
                    if let Ok(data) = frame.into_data() {
                        self.text
                            .push_str(std::str::from_utf8(&data).expect("UTF-8"));
                    }
                }
            }
        }
    }

    /// Reads the rest of the body.
    pub async fn finish(self) -> Reply {
        let (parts, body) = self.response.into_parts();
        let rest = tokio::time::timeout(PATIENCE, body.collect())
            .await
            .expect("the body in time")
            .expect("readable body")
            .to_bytes();
        let mut body = self.text.into_bytes();
        body.extend_from_slice(&rest);
        Reply {
            status: parts.status,
            headers: parts.headers,
            body: Bytes::from(body),
        }
    }

    /// Closes the connection without reading further.
    pub fn disconnect(self) {
        self.connection.abort();
    }
}

/// Sends `request` on a fresh connection and returns once the response head arrived.
pub async fn open(addr: SocketAddr, request: Request<Full<Bytes>>) -> Open {
    let stream = TcpStream::connect(addr).await.expect("connects");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    let connection = tokio::spawn(async move {
        let _ = connection.await;
    });
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("a response in time")
        .expect("a response");
    Open {
        response,
        connection,
        text: String::new(),
    }
}

/// Sends `request` and reads the whole response.
pub async fn send(addr: SocketAddr, request: Request<Full<Bytes>>) -> Reply {
    open(addr, request).await.finish().await
}

/// The `_meta` every 2026-07-28 request carries.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A JSON-RPC request with `params` plus the required `_meta` (unless it has one).
pub fn message(id: Value, method: &str, mut params: Value) -> Value {
    let object = params.as_object_mut().expect("params object");
    object.entry("_meta").or_insert_with(meta);
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A POST of `body` to `/mcp` with the headers a conformant client sends for it: JSON and
/// event-stream `Accept`, `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` when the method
/// names something. Change them with [`with`] and [`without`].
pub fn post(addr: SocketAddr, body: &Value) -> Request<Full<Bytes>> {
    let method = body["method"].as_str().unwrap_or("");
    let mut request = Request::post(format!("http://{addr}/mcp"))
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    let params = &body["params"];
    let name = match method {
        "tools/call" | "prompts/get" => params["name"].as_str(),
        "resources/read" => params["uri"].as_str(),
        "tasks/get" | "tasks/update" | "tasks/cancel" => params["taskId"].as_str(),
        _ => None,
    };
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    request
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request")
}

/// `request` with header `name` set to `value` (replacing any).
pub fn with(mut request: Request<Full<Bytes>>, name: &str, value: &[u8]) -> Request<Full<Bytes>> {
    let name = http::HeaderName::from_bytes(name.as_bytes()).expect("header name");
    request.headers_mut().remove(&name);
    request.headers_mut().insert(
        name,
        http::HeaderValue::from_bytes(value).expect("header value"),
    );
    request
}

/// `request` with another header `name: value` added (keeping any already there).
pub fn also(mut request: Request<Full<Bytes>>, name: &str, value: &str) -> Request<Full<Bytes>> {
    let name = http::HeaderName::from_bytes(name.as_bytes()).expect("header name");
    request
        .headers_mut()
        .append(name, value.parse().expect("header value"));
    request
}

/// `request` without header `name`.
pub fn without(mut request: Request<Full<Bytes>>, name: &str) -> Request<Full<Bytes>> {
    request.headers_mut().remove(name);
    request
}

/// The text of a tool result's first content block.
pub fn first_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {response}"))
}
