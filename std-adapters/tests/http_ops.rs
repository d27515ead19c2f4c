//! What an operator sees: the metrics endpoint scraped after real requests, the in-flight
//! gauge during one, liveness and readiness, and the per-request span's fields (with no
//! argument values in them).

mod http_client;

#[path = "../examples/preferences/app.rs"]
mod app;
#[path = "../examples/preferences/flows.rs"]
mod flows;
#[path = "../examples/preferences/report.rs"]
mod report;

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use http_client::{logs, message, post, send, serve_service, with};
use serde_json::{Value, json};
use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
use snodo_std::AsyncHandler;
use snodo_std::http::ops::{Health, Metrics, OpsServer};
use snodo_std::http::{HttpConfig, McpService};
use tokio::sync::Notify;

fn loopback() -> HttpConfig {
    HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)))
}

/// Starts an operations endpoint and returns its address.
async fn ops(metrics: Option<Metrics>, health: Health) -> SocketAddr {
    let server = OpsServer::bind(SocketAddr::from(([127, 0, 0, 1], 0)), metrics, health)
        .await
        .expect("binds");
    let addr = server.local_addr().unwrap();
    tokio::spawn(server.serve());
    addr
}

async fn get(addr: SocketAddr, path: &str) -> http_client::Reply {
    let request = Request::get(format!("http://{addr}{path}"))
        .header("host", addr.to_string())
        .body(Full::new(Bytes::new()))
        .unwrap();
    send(addr, request).await
}

/// The value of the sample line `name` (with its labels) in an OpenMetrics text.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .map(|value| value.parse().expect("a number"))
}

fn eliciting(params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    });
    params
}

#[tokio::test]
async fn metrics_count_requests_by_method_and_outcome() {
    let metrics = Metrics::new();
    let server = Arc::new(app::server());
    let service = McpService::new(server, loopback()).with_metrics(metrics.clone());
    let running = serve_service(service).await;
    let addr = running.addr;

    let list = send(
        addr,
        post(addr, &message(json!(1), "tools/list", json!({}))),
    )
    .await;
    assert_eq!(list.status, StatusCode::OK);
    let flow = eliciting(json!({"name": "preference_preview", "arguments": {"subject": "m"}}));
    let first = send(
        addr,
        post(addr, &message(json!(2), "tools/call", flow.clone())),
    )
    .await;
    assert_eq!(first.json()["result"]["resultType"], "input_required");
    let mut forged = flow;
    forged["requestState"] = json!("s1..e30.AAAA");
    forged["inputResponses"] = json!({"color": {"action": "accept", "content": {"color": "red"}}});
    let refused = send(addr, post(addr, &message(json!(3), "tools/call", forged))).await;
    assert_eq!(refused.json()["error"]["code"], -32602);
    let unknown = send(addr, post(addr, &message(json!(4), "no/such", json!({})))).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let text_plain = with(
        post(addr, &message(json!(5), "tools/list", json!({}))),
        "content-type",
        b"text/plain",
    );
    assert_eq!(
        send(addr, text_plain).await.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );

    let scrape = get(ops(Some(metrics), Health::new()).await, "/metrics").await;
    assert_eq!(scrape.status, StatusCode::OK);
    assert!(
        scrape
            .content_type()
            .starts_with("application/openmetrics-text"),
        "{}",
        scrape.content_type()
    );
    let text = String::from_utf8(scrape.body.to_vec()).unwrap();
    let count = |labels: &str| sample(&text, &format!("mcp_requests_total{{{labels}}}"));
    assert_eq!(
        count(r#"method="tools/list",outcome="complete""#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        count(r#"method="tools/call",outcome="input_required""#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"method="tools/call",outcome="invalid_params""#),
        Some(1.0)
    );
    assert_eq!(
        count(r#"method="other",outcome="method_not_found""#),
        Some(1.0)
    );
    assert_eq!(count(r#"method="unknown",outcome="http_415""#), Some(1.0));
    assert_eq!(sample(&text, "mcp_input_required_total"), Some(1.0));
    assert_eq!(sample(&text, "mcp_state_open_failures_total"), Some(1.0));
    assert_eq!(sample(&text, "mcp_requests_in_flight"), Some(0.0));
    assert_eq!(
        sample(
            &text,
            r#"mcp_request_duration_seconds_count{method="tools/call"}"#
        ),
        Some(2.0)
    );
    assert!(text.contains("# TYPE mcp_request_duration_seconds histogram"));
    assert!(text.ends_with("# EOF\n"));
}

/// A tool that waits for the test.
struct Gate {
    started: Arc<Notify>,
    release: Arc<Notify>,
}

impl Registry for Gate {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("wait")];
        TOOLS
    }
}

impl AsyncHandler for Gate {
    async fn call_tool<'o>(
        &self,
        _: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        self.started.notify_one();
        self.release.notified().await;
        Ok(reply.text("released"))
    }
}

#[tokio::test]
async fn the_in_flight_gauge_counts_a_request_while_its_handler_runs() {
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let app = Gate {
        started: Arc::clone(&started),
        release: Arc::clone(&release),
    };
    let metrics = Metrics::new();
    let server =
        Arc::new(Server::new(Config::new("gate", "1.0.0"), app).expect("valid definitions"));
    let running =
        serve_service(McpService::new(server, loopback()).with_metrics(metrics.clone())).await;
    let addr = running.addr;
    let ops_addr = ops(Some(metrics), Health::new()).await;
    let call = message(
        json!(1),
        "tools/call",
        json!({"name": "wait", "arguments": {}}),
    );
    let waiting = tokio::spawn(send(addr, post(addr, &call)));
    started.notified().await;
    let during = String::from_utf8(get(ops_addr, "/metrics").await.body.to_vec()).unwrap();
    assert_eq!(
        sample(&during, "mcp_requests_in_flight"),
        Some(1.0),
        "{during}"
    );
    release.notify_one();
    assert_eq!(waiting.await.unwrap().status, StatusCode::OK);
    let after = String::from_utf8(get(ops_addr, "/metrics").await.body.to_vec()).unwrap();
    assert_eq!(
        sample(&after, "mcp_requests_in_flight"),
        Some(0.0),
        "{after}"
    );
}

#[tokio::test]
async fn liveness_and_readiness() {
    let health = Health::new();
    let addr = ops(None, health.clone()).await;
    assert_eq!(get(addr, "/healthz").await.status, StatusCode::OK);
    assert_eq!(
        get(addr, "/readyz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    health.set_ready(true);
    assert_eq!(get(addr, "/readyz").await.status, StatusCode::OK);
    // A required check that fails (a task store out of reach) makes it unready too.
    let store_up = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let up = std::sync::Arc::clone(&store_up);
    health.require(move || up.load(std::sync::atomic::Ordering::Relaxed));
    assert_eq!(
        get(addr, "/readyz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    store_up.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(get(addr, "/readyz").await.status, StatusCode::OK);
    health.set_ready(false);
    assert_eq!(
        get(addr, "/readyz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        get(addr, "/metrics").await.status,
        StatusCode::NOT_FOUND,
        "no metrics given"
    );
    let post = Request::post(format!("http://{addr}/healthz"))
        .header("host", addr.to_string())
        .body(Full::new(Bytes::new()))
        .unwrap();
    assert_eq!(
        send(addr, post).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
}

#[tokio::test]
async fn each_request_has_a_span_with_method_name_era_outcome_and_latency_but_no_arguments() {
    // The test's runtime has one thread, so the server's tasks log here too.
    let (captured, _guard) = logs::capture();

    let server = Arc::new(app::server());
    let running = serve_service(McpService::new(server, loopback())).await;
    let addr = running.addr;
    let secret_argument = "argument-value-7f3a";
    let flow = eliciting(json!({
        "name": "preference_preview",
        "arguments": {"subject": secret_argument}
    }));
    let first = send(addr, post(addr, &message(json!(1), "tools/call", flow))).await;
    assert_eq!(first.json()["result"]["resultType"], "input_required");
    let state = first.json()["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();

    let logs = captured.text();
    let answered = logs
        .lines()
        .find(|l| l.contains("mcp.request") && l.contains("answered"))
        .unwrap_or_else(|| panic!("an answered event: {logs}"));
    for field in [
        "method=\"tools/call\"",
        "name=\"preference_preview\"",
        "era=\"2026-07-28\"",
        "outcome=\"input_required\"",
        "latency_ms=",
    ] {
        assert!(answered.contains(field), "{field} in {answered}");
    }
    assert!(
        !logs.contains(secret_argument),
        "no argument values: {logs}"
    );
    assert!(!logs.contains(&state), "no answers: {logs}");
}
