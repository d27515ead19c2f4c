//! The `preferences` example over Streamable HTTP: the preference flow's three legs, progress
//! as an event stream, capability errors, and the `--http` command line.

mod http_client;

#[path = "../examples/preferences/app.rs"]
mod app;
#[path = "../examples/preferences/flows.rs"]
mod flows;
#[path = "../examples/preferences/report.rs"]
mod report;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::Stdio;

use http::StatusCode;
use http_client::process::{Child, example};
use http_client::{Running, first_text, message, post, send, serve, serve_service, with};
use serde_json::{Value, json};
use snodo_std::http::{HttpConfig, McpService};

async fn start() -> Running {
    // The example's server, checked when built.
    let server = app::server();
    serve(server, HttpConfig::new()).await
}

/// `_meta` declaring form elicitation.
fn eliciting_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
    })
}

async fn leg(addr: SocketAddr, id: u64, params: Value) -> Value {
    let reply = send(addr, post(addr, &message(json!(id), "tools/call", params))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type(), "application/json");
    let body = reply.json();
    assert_eq!(body["id"], id);
    body["result"].clone()
}

#[tokio::test]
async fn the_preference_flow_takes_three_legs() {
    let running = start().await;
    let addr = running.addr;
    let base = json!({
        "name": "preference_preview",
        "arguments": {"subject": "http"},
        "_meta": eliciting_meta()
    });

    let first = leg(addr, 1, base.clone()).await;
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"]["color"]["method"],
        "elicitation/create"
    );
    let state = first["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned();

    let mut second_params = base.clone();
    second_params["requestState"] = json!(state);
    second_params["inputResponses"] =
        json!({"color": {"action": "accept", "content": {"color": "teal"}}});
    let second = leg(addr, 2, second_params).await;
    assert_eq!(second["resultType"], "input_required");
    assert!(second["inputRequests"]["style"].is_object());
    let state = second["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned();

    let mut third_params = base;
    third_params["requestState"] = json!(state);
    third_params["inputResponses"] =
        json!({"style": {"action": "accept", "content": {"style": "bold"}}});
    let third = leg(addr, 3, third_params).await;
    assert_eq!(third["resultType"], "complete");
    assert_eq!(
        third["content"][0]["text"],
        r#"{"color":"teal","style":"bold","status":"preview"}"#
    );
}

#[tokio::test]
async fn sealed_state_is_bound_to_the_principal_the_hook_names() {
    let server = app::server();
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let service = McpService::new(std::sync::Arc::new(server), config).with_principal(|parts| {
        let user = parts.headers.get("x-user")?.to_str().ok()?;
        Some(user.to_owned())
    });
    let running = serve_service(service).await;
    let addr = running.addr;
    let base = json!({
        "name": "preference_preview",
        "arguments": {"subject": "http"},
        "_meta": eliciting_meta()
    });
    let as_user = |id: u64, params: Value, user: &[u8]| {
        with(
            post(addr, &message(json!(id), "tools/call", params)),
            "x-user",
            user,
        )
    };
    let first = send(addr, as_user(1, base.clone(), b"alice")).await.json();
    let mut retry = base;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"color": {"action": "accept", "content": {"color": "teal"}}});
    let stolen = send(addr, as_user(2, retry.clone(), b"bob")).await;
    assert_eq!(stolen.status, StatusCode::BAD_REQUEST);
    assert_eq!(stolen.json()["error"]["code"], -32602);
    let own = send(addr, as_user(3, retry, b"alice")).await;
    assert_eq!(own.status, StatusCode::OK);
    assert_eq!(own.json()["result"]["resultType"], "input_required");
    assert!(own.json()["result"]["inputRequests"]["style"].is_object());
}

#[tokio::test]
async fn an_undeclared_capability_is_400_with_32021() {
    let running = start().await;
    let addr = running.addr;
    let request = message(
        json!("x"),
        "tools/call",
        json!({"name": "preference_preview", "arguments": {"subject": "http"}}),
    );
    let reply = send(addr, post(addr, &request)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let body = reply.json();
    assert_eq!(body["id"], "x");
    assert_eq!(body["error"]["code"], -32021);
    assert_eq!(
        body["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

#[tokio::test]
async fn slow_count_streams_its_progress() {
    let running = start().await;
    let addr = running.addr;
    let mut request = message(
        json!(7),
        "tools/call",
        json!({"name": "slow_count", "arguments": {"count": 3, "delayMs": 0}}),
    );
    request["params"]["_meta"]["progressToken"] = json!("count");
    let reply = send(addr, post(addr, &request)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.content_type(), "text/event-stream");
    let events = reply.events();
    assert_eq!(events.len(), 4, "{events:?}");
    for (step, event) in events[..3].iter().enumerate() {
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progressToken"], "count");
        assert_eq!(event["params"]["progress"], step as f64 + 1.0);
        assert_eq!(event["params"]["total"], 3.0);
    }
    assert_eq!(events[3]["id"], 7);
    assert_eq!(first_text(&events[3]), "Counted to 3.");
}

#[tokio::test]
async fn the_example_serves_http_and_prints_its_url_first() {
    let mut child = Child(
        example()
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts"),
    );
    let stdout = child.0.stdout.take().expect("stdout");
    let url = tokio::task::spawn_blocking(move || {
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("a line");
        line
    })
    .await
    .unwrap();
    let url = url.trim_end();
    let rest = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("a URL: {url:?}"));
    let port: u16 = rest.parse().expect("a port");
    assert_ne!(port, 0);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let request = message(
        json!(1),
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "over http"}}),
    );
    let reply = send(addr, post(addr, &request)).await;
    assert_eq!(first_text(&reply.json()), "over http");
}

#[test]
fn http_needs_an_address() {
    for args in [&["--http"][..], &["--http", "nowhere"]] {
        let out = example().args(args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage:"));
    }
}
