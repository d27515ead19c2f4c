//! A comparison point for `http_load`, built only from crates.io (hyper 1, tokio,
//! serde_json): the same two tools on the same wire, with none of snodo.
//!
//! It serves `POST /mcp` on loopback, checks the headers a 2026-07-28 client sends
//! (`Content-Type`, `Accept`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` against the
//! body), parses the body into a `serde_json::Value`, and answers `tools/call` of `echo` and
//! of `preference_preview` (ask a color, ask a style, complete) with the same JSON shapes as
//! the `preferences` example. What it leaves out, so the comparison is a floor and not a
//! rival: the request state travels as plain JSON text, not sealed (no HMAC, no expiry);
//! no JSON Schema validation beyond "is a string"; no other methods, limits on connections
//! or read timeouts, no SSE. Same command line as the example:
//!
//! ```text
//! http_floor --http 127.0.0.1:0     # prints its URL as the first line on stdout
//! http_load --server target/release/http_floor
//! ```

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

const VERSION: &str = "2026-07-28";
const BODY_LIMIT: usize = 1 << 20;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = match (args.next().as_deref(), args.next()) {
        (Some("--http"), Some(addr)) => match addr.parse() {
            Ok(addr) => addr,
            Err(e) => {
                eprintln!("http_floor: `{addr}`: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("usage: http_floor --http ADDR   (e.g. 127.0.0.1:0)");
            return ExitCode::from(2);
        }
    };
    if !addr.ip().is_loopback() {
        eprintln!("http_floor: loopback only");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("http_floor: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(addr)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("http_floor: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(addr: SocketAddr) -> std::io::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "http://{}/mcp", listener.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(|request| async move {
                Ok::<_, Infallible>(handle(request).await)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn header<'r>(request: &'r Request<Incoming>, name: &str) -> Option<&'r str> {
    request
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

fn reply(status: StatusCode, body: &Value) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn error(status: StatusCode, id: &Value, code: i32, message: &str) -> Response<Full<Bytes>> {
    reply(
        status,
        &json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
    )
}

async fn handle(request: Request<Incoming>) -> Response<Full<Bytes>> {
    let none = Value::Null;
    if request.method() != Method::POST {
        let mut response = error(StatusCode::METHOD_NOT_ALLOWED, &none, -32600, "POST only");
        response
            .headers_mut()
            .insert("allow", HeaderValue::from_static("POST"));
        return response;
    }
    if request.uri().path() != "/mcp" {
        return error(StatusCode::NOT_FOUND, &none, -32600, "not found");
    }
    if !header(&request, "content-type").is_some_and(|v| v.starts_with("application/json")) {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &none,
            -32600,
            "JSON only",
        );
    }
    let accept = header(&request, ACCEPT.as_str()).unwrap_or("");
    if !(accept.contains("application/json") && accept.contains("text/event-stream")) {
        return error(StatusCode::NOT_ACCEPTABLE, &none, -32600, "Accept");
    }
    let version = header(&request, "mcp-protocol-version").map(str::to_owned);
    let method = header(&request, "mcp-method").map(str::to_owned);
    let name = header(&request, "mcp-name").map(str::to_owned);
    let body = match Limited::new(request.into_body(), BODY_LIMIT)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(_) => return error(StatusCode::PAYLOAD_TOO_LARGE, &none, -32600, "too large"),
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(_) => return error(StatusCode::BAD_REQUEST, &none, -32700, "parse error"),
    };
    let id = &message["id"];
    let params = &message["params"];
    if message["jsonrpc"] != "2.0" || id.is_null() || !params.is_object() {
        return error(StatusCode::BAD_REQUEST, id, -32600, "invalid request");
    }
    let meta = &params["_meta"];
    if meta["io.modelcontextprotocol/protocolVersion"] != VERSION {
        return error(StatusCode::BAD_REQUEST, id, -32602, "_meta");
    }
    if version.as_deref() != Some(VERSION)
        || method.as_deref() != message["method"].as_str()
        || (message["method"] == "tools/call"
            && !name
                .as_deref()
                .zip(params["name"].as_str())
                .is_some_and(|(h, b)| h.eq_ignore_ascii_case(b)))
    {
        return error(StatusCode::BAD_REQUEST, id, -32020, "headers disagree");
    }
    if message["method"] != "tools/call" {
        return error(StatusCode::NOT_FOUND, id, -32601, "method not found");
    }
    let result = match params["name"].as_str() {
        Some("echo") => match params["arguments"]["text"].as_str() {
            Some(text) => Ok(json!({
                "content": [{"type": "text", "text": text}],
                "resultType": "complete",
            })),
            None => Err("text must be a string"),
        },
        Some("preference_preview") => preferences(params),
        _ => Err("Unknown tool"),
    };
    match result {
        Ok(mut result) => {
            result["_meta"] = json!({"io.modelcontextprotocol/serverInfo": {
                "name": "http_floor", "version": env!("CARGO_PKG_VERSION")}});
            reply(
                StatusCode::OK,
                &json!({"jsonrpc": "2.0", "id": id, "result": result}),
            )
        }
        Err(problem) => error(StatusCode::BAD_REQUEST, id, -32602, problem),
    }
}

/// The flow of the example's `preference_preview`, its state as plain JSON text.
fn preferences(params: &Value) -> Result<Value, &'static str> {
    let form = |key: &str, message: &str| {
        json!({(key): {"method": "elicitation/create", "params": {"mode": "form",
            "message": message, "requestedSchema": {"type": "object",
            "properties": {(key): {"type": "string", "minLength": 1}}, "required": [key]}}}})
    };
    let ask = |key: &str, message: &str, state: Value| {
        json!({"inputRequests": form(key, message), "requestState": state.to_string(),
            "resultType": "input_required"})
    };
    if params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"]["form"]
        .is_null()
    {
        return Err("elicitation not declared");
    }
    let state: Value = match params["requestState"].as_str() {
        None => {
            return Ok(ask(
                "color",
                "Choose a color for a read-only preview",
                json!({"stage": "color"}),
            ));
        }
        Some(text) => serde_json::from_str(text).map_err(|_| "invalid state")?,
    };
    let answer = |key: &str| {
        let response = &params["inputResponses"][key];
        (response["action"] == "accept")
            .then(|| response["content"][key].as_str())
            .flatten()
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    match state["stage"].as_str() {
        Some("color") => match answer("color") {
            Some(color) => Ok(ask(
                "style",
                "Choose a style for a read-only preview",
                json!({"stage": "style", "color": color}),
            )),
            None => Err("a color is needed"),
        },
        Some("style") => match (state["color"].as_str(), answer("style")) {
            (Some(color), Some(style)) => {
                // In the example's order (a `Value` would sort the keys).
                let text = format!(
                    r#"{{"color":{},"style":{},"status":"preview"}}"#,
                    Value::from(color),
                    Value::from(style)
                );
                Ok(json!({"content": [{"type": "text", "text": text}],
                    "resultType": "complete"}))
            }
            _ => Err("a style is needed"),
        },
        _ => Err("invalid state"),
    }
}
