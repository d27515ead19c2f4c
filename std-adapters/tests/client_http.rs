//! The Rust client over Streamable HTTP against a scripted endpoint, so every header and
//! body it sends can be read and every kind of response (JSON, event streams, errors, no
//! answer) can be played back.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use snodo_std::client::{Client, ClientError, CreateMessageResult, ElicitResult, InputKind, Root};
use tokio::net::TcpListener;

/// One request as the endpoint saw it.
#[derive(Clone, Debug)]
struct Seen {
    headers: HeaderMap,
    body: String,
}

impl Seen {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().expect("ASCII"))
    }
}

/// What the endpoint answers: status, content type, body.
type Answer = (u16, &'static str, String);
type Script = Arc<dyn Fn(usize, &Value) -> Answer + Send + Sync>;

/// Serves `script` on 127.0.0.1: the n-th request (from 0) gets `script(n, body)`.
async fn endpoint(script: Script) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = Arc::clone(&seen);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let script = Arc::clone(&script);
            let log = Arc::clone(&log);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let script = Arc::clone(&script);
                    let log = Arc::clone(&log);
                    async move {
                        let headers = request.headers().clone();
                        let body = request.into_body().collect().await.unwrap().to_bytes();
                        let body = String::from_utf8(body.to_vec()).unwrap();
                        let n = {
                            let mut log = log.lock().unwrap();
                            log.push(Seen {
                                headers,
                                body: body.clone(),
                            });
                            log.len() - 1
                        };
                        let parsed = serde_json::from_str(&body).unwrap_or(Value::Null);
                        let (status, content_type, text) = script(n, &parsed);
                        if status == 0 {
                            // Never answer.
                            tokio::time::sleep(Duration::from_secs(3600)).await;
                        }
                        let response = Response::builder()
                            .status(StatusCode::from_u16(status).unwrap())
                            .header("content-type", content_type)
                            .body(Full::new(Bytes::from(text)))
                            .unwrap();
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (format!("http://{addr}/mcp"), seen)
}

fn result(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn ok(id: &Value, r: Value) -> Answer {
    (200, "application/json", result(id, r))
}

const TOOL: &str = r#"{"name":"query","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"sql":{"type":"string"}}}}"#;
const BAD_TOOL: &str = r#"{"name":"bad","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}}"#;

fn tools_list(id: &Value) -> Answer {
    let tools: Vec<Value> = [TOOL, BAD_TOOL]
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    ok(
        id,
        json!({"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private"}),
    )
}

/// Pinned to 2026-07-28: these tests read every POST of the modern era in order, so no
/// `server/discover` probe comes first.
fn builder() -> snodo_std::client::ClientBuilder {
    Client::builder("http-tests", "0.1.0")
        .timeout(Some(Duration::from_secs(10)))
        .negotiation(snodo_std::client::Negotiation::Modern)
}

#[tokio::test]
async fn every_post_carries_the_required_headers_and_the_meta_envelope() {
    let (url, seen) = endpoint(Arc::new(|_, body| match body["method"].as_str() {
        Some("tools/list") => tools_list(&body["id"]),
        _ => ok(
            &body["id"],
            json!({"resultType": "complete", "content": []}),
        ),
    }))
    .await;
    let client = builder()
        .http_header(
            http::header::AUTHORIZATION,
            http::HeaderValue::from_static("Bearer t"),
        )
        .http(&url)
        .unwrap();
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1, "the tool with a number header is left out");
    assert_eq!(tools[0]["name"], "query");
    client
        .call_tool("query", json!({"region": "Zürich", "sql": "SELECT 1"}))
        .await
        .unwrap();
    match client.call_tool("bad", json!({"n": 1})).await {
        Err(ClientError::InvalidTool { name, reason }) => {
            assert_eq!(name, "bad");
            assert!(reason.contains("string, integer and boolean"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2, "the invalid tool is never sent");
    for request in &seen {
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(
            request.header("accept"),
            Some("application/json, text/event-stream")
        );
        assert_eq!(request.header("mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(request.header("authorization"), Some("Bearer t"));
        let meta = &request.json()["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"],
            json!({"name": "http-tests", "version": "0.1.0"})
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
    }
    assert_eq!(seen[0].header("mcp-method"), Some("tools/list"));
    assert_eq!(seen[0].header("mcp-name"), None);
    assert_eq!(seen[1].header("mcp-method"), Some("tools/call"));
    assert_eq!(seen[1].header("mcp-name"), Some("query"));
    assert_eq!(
        seen[1].header("mcp-param-region"),
        Some("=?base64?WsO8cmljaA==?=")
    );
    assert_eq!(
        seen[1]
            .headers
            .keys()
            .filter(|k| k.as_str().starts_with("mcp-param-"))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_header_mismatch_relists_the_tools_and_retries_once() {
    let (url, seen) = endpoint(Arc::new(|_, body| match body["method"].as_str() {
        Some("tools/list") => tools_list(&body["id"]),
        Some("tools/call") if body["params"]["arguments"]["region"].is_string() => {
            // The first call, made without the tool's definition, lacks Mcp-Param-Region.
            let error = json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32020, "message": "Header mismatch"}});
            (400, "application/json", error.to_string())
        }
        _ => ok(&body["id"], json!({"resultType": "complete", "content": []})),
    }))
    .await;
    let client = builder().http(&url).unwrap();
    // Every call of `query` with a region gets -32020 from this endpoint: after the relist
    // and one retry, the error stands.
    match client.call_tool("query", json!({"region": "eu"})).await {
        Err(ClientError::Server { code: -32020, .. }) => {}
        other => panic!("{other:?}"),
    }
    let seen = seen.lock().unwrap().clone();
    let methods: Vec<&str> = seen
        .iter()
        .map(|s| s.header("mcp-method").unwrap())
        .collect();
    assert_eq!(methods, ["tools/call", "tools/list", "tools/call"]);
    assert_eq!(seen[0].header("mcp-param-region"), None);
    assert_eq!(seen[2].header("mcp-param-region"), Some("eu"));
}

#[tokio::test]
async fn input_required_over_http_answers_every_kind_and_echoes_the_state_exactly() {
    // Raw non-ASCII, an escaped slash and an escaped quote: sent back exactly so.
    const STATE: &str = r#""s\/t\"a\u00e9te é""#;
    let (url, seen) = endpoint(Arc::new(|n, body| {
        let id = &body["id"];
        if n == 0 {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","inputRequests":{{
                "f":{{"method":"elicitation/create","params":{{"message":"Name?","requestedSchema":{{"type":"object","properties":{{"name":{{"type":"string"}}}},"required":["name"]}}}}}},
                "u":{{"method":"elicitation/create","params":{{"mode":"url","message":"Open","url":"https://example.com/a"}}}},
                "s":{{"method":"sampling/createMessage","params":{{"messages":[{{"role":"user","content":{{"type":"text","text":"Hi"}}}}],"maxTokens":9}}}},
                "r":{{"method":"roots/list"}}}},"requestState":{STATE}}}}}"#
            );
            return (200, "application/json", text);
        }
        ok(id, json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}))
    }))
    .await;
    let client = builder()
        .on_form(|form| async move {
            assert_eq!(form.message, "Name?");
            Ok(ElicitResult::accept(json!({"name": "Ada"})))
        })
        .on_url(|url| async move {
            assert_eq!(url.url, "https://example.com/a");
            Ok(ElicitResult::consent())
        })
        .on_sampling(|s| async move {
            assert_eq!(s.max_tokens(), Some(9));
            assert_eq!(s.messages().len(), 1);
            Ok(CreateMessageResult::text("m", "hello"))
        })
        .on_roots(|_| async { Ok(vec![Root::new("file:///work").named("work")]) })
        .http(&url)
        .unwrap();
    let done = client.call_tool("anything", Value::Null).await.unwrap();
    assert_eq!(done["content"][0]["text"], "done");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    let (first, retry) = (seen[0].json(), seen[1].json());
    assert_ne!(first["id"], retry["id"], "a fresh id");
    assert!(first["params"].get("requestState").is_none());
    assert!(
        seen[1].body.contains(&format!(r#""requestState":{STATE}"#)),
        "{}",
        seen[1].body
    );
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({
            "f": {"action": "accept", "content": {"name": "Ada"}},
            "u": {"action": "accept"},
            "s": {"role": "assistant", "content": {"type": "text", "text": "hello"}, "model": "m", "stopReason": "endTurn"},
            "r": {"roots": [{"uri": "file:///work", "name": "work"}]}
        })
    );
    assert_eq!(
        first["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
    );
    assert_eq!(seen[1].header("mcp-name"), Some("anything"));
}

#[tokio::test]
async fn event_streams_deliver_notifications_then_the_response() {
    let (url, _) = endpoint(Arc::new(|_, body| {
        let id = &body["id"];
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}});
        let other = json!({"jsonrpc": "2.0", "id": 999, "result": {}});
        let text = format!(
            ": keep-alive\r\n\r\nevent: message\r\ndata: {progress}\r\n\r\nevent: message\ndata: {other}\n\nid: 7\nevent: message\ndata: {}\n\n",
            result(id, json!({"content": [{"type": "text", "text": "streamed"}]}))
        );
        (200, "text/event-stream", text)
    }))
    .await;
    let notes = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&notes);
    let client = builder()
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .http(&url)
        .unwrap();
    let done = client.call_tool("t", json!({})).await.unwrap();
    assert_eq!(done["content"][0]["text"], "streamed");
    assert_eq!(notes.lock().unwrap().len(), 1);
    assert_eq!(notes.lock().unwrap()[0]["method"], "notifications/progress");

    let (url, _) = endpoint(Arc::new(|_, _| {
        (200, "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n".to_owned())
    }))
    .await;
    let client = builder().http(&url).unwrap();
    match client.discover().await {
        Err(ClientError::MalformedResponse(reason)) => {
            assert!(reason.contains("without the response"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_version_refusal_listing_our_version_is_retried() {
    let (url, seen) = endpoint(Arc::new(|n, body| {
        if n == 0 {
            let error = json!({"jsonrpc": "2.0", "id": body["id"], "error": {"code": -32022, "message": "Unsupported protocol version", "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}});
            return (400, "application/json", error.to_string());
        }
        ok(&body["id"], json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}))
    }))
    .await;
    let client = builder().http(&url).unwrap();
    let discovered = client.discover().await.unwrap();
    assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_ne!(seen[0].json()["id"], seen[1].json()["id"]);
}

#[tokio::test]
async fn http_failures_are_reported_as_such() {
    let (url, _) = endpoint(Arc::new(|_, _| {
        (404, "text/html", "<h1>Not here</h1>".to_owned())
    }))
    .await;
    match builder().http(&url).unwrap().discover().await {
        Err(ClientError::Http {
            status: 404,
            detail,
        }) => assert!(detail.contains("Not here")),
        other => panic!("{other:?}"),
    }
    let (url, _) = endpoint(Arc::new(|_, _| (202, "application/json", String::new()))).await;
    assert!(matches!(
        builder().http(&url).unwrap().discover().await,
        Err(ClientError::Http { status: 202, .. })
    ));
    let (url, _) = endpoint(Arc::new(|_, _| (0, "", String::new()))).await;
    let slow = builder()
        .timeout(Some(Duration::from_millis(200)))
        .http(&url)
        .unwrap();
    assert!(matches!(slow.discover().await, Err(ClientError::Timeout)));
    // Nothing listens there any more.
    let gone = {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        listener.local_addr().unwrap()
    };
    assert!(matches!(
        builder()
            .http(&format!("http://{gone}/mcp"))
            .unwrap()
            .discover()
            .await,
        Err(ClientError::Transport(_))
    ));
}

#[tokio::test]
async fn malformed_input_requests_name_their_key() {
    let (url, _) = endpoint(Arc::new(|_, body| {
        ok(
            &body["id"],
            json!({"resultType": "input_required", "inputRequests": {
                "fine": {"method": "roots/list"},
                "broken": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "javascript:alert(1)"}}
            }}),
        )
    }))
    .await;
    let client = builder()
        .on_url(|_| async { Ok(ElicitResult::consent()) })
        .on_roots(|_| async { Ok(vec![]) })
        .http(&url)
        .unwrap();
    match client.call_tool("t", json!({})).await {
        Err(ClientError::MalformedInputRequest { key, reason }) => {
            assert_eq!(key.as_deref(), Some("broken"));
            assert_eq!(reason, "elicitation URL must use http or https");
        }
        other => panic!("{other:?}"),
    }
    // Shape comes first: a malformed request is reported even when an earlier one has no
    // handler.
    let client = builder().http(&url).unwrap();
    assert!(matches!(
        client.call_tool("t", json!({})).await,
        Err(ClientError::MalformedInputRequest { .. })
    ));
    let (url, _) = endpoint(Arc::new(|_, body| {
        ok(
            &body["id"],
            json!({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}}),
        )
    }))
    .await;
    let client = builder()
        .on_form(|_| async { Ok(ElicitResult::cancel()) })
        .http(&url)
        .unwrap();
    assert!(matches!(
        client.call_tool("t", json!({})).await,
        Err(ClientError::MissingHandler(InputKind::Roots))
    ));
}
