//! The serial bridge's HTTP side as an OAuth resource server (`BridgeService::with_auth`):
//! the same gate as the HTTP server's, and the scopes of a request's tool or resource
//! checked on its parsed body in both eras, so a 2025-11-25 session (which sends no
//! `Mcp-Method`/`Mcp-Name` headers) cannot reach a tool its token lacks the scope for. The
//! device is the unchanged firmware on a pseudo-terminal; the bridge runs in process.

mod firmware_common;

use bytes::Bytes;
use firmware_common::*;
use http_body_util::{BodyExt, Full};
use hyper::{Request, StatusCode};
use serde_json::{Value, json};
use snodo_core::io::Framing;
use snodo_std::bridge::{BridgeService, Device as Link, DeviceConfig, SerialConfig};
use snodo_std::http::HttpConfig;
use snodo_std::http::auth::{
    Authorization, Rejected, ResourceServer, ScopePolicy, TokenVerifier, Verified, VerifyFuture,
};

/// Opaque test tokens `<subject>.<scope>+<scope>...`.
struct Tokens;

impl TokenVerifier for Tokens {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            let (subject, scopes) = token.split_once('.').ok_or(Rejected::Invalid)?;
            Ok(Verified {
                subject: subject.to_owned(),
                scopes: scopes.split('+').map(str::to_owned).collect(),
            })
        })
    }
}

fn service(pty: &Pty) -> BridgeService {
    let link = Link::open(DeviceConfig::new(SerialConfig {
        path: pty.slave_path.clone(),
        baud: 115_200,
        framing: Framing::Cobs,
    }))
    .expect("the port opens");
    let resource = ResourceServer::new("https://bridge.test/mcp")
        .unwrap()
        .required_scopes(["dev-use"])
        .policy(
            ScopePolicy::new()
                .tool("set_relay", ["relay-write"])
                .resource("device://info", ["dev-info"]),
        );
    BridgeService::new(link, HttpConfig::new()).with_auth(Authorization::new(resource, Tokens))
}

/// A POST of `body` with `token`; the modern headers when `modern`, the session's when
/// `session` names one.
fn post(
    body: &Value,
    token: Option<&str>,
    modern: bool,
    session: Option<&str>,
) -> Request<Full<Bytes>> {
    let mut request = Request::post("http://127.0.0.1:8080/mcp")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if modern {
        request = request
            .header("mcp-protocol-version", PROTOCOL)
            .header("mcp-method", body["method"].as_str().unwrap());
        let name = body["params"]["name"]
            .as_str()
            .or(body["params"]["uri"].as_str());
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
    }
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

fn legacy(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// `request` answered by `bridge`, read whole: its status, challenge and body.
async fn call(
    bridge: &BridgeService,
    request: Request<Full<Bytes>>,
) -> (StatusCode, String, String) {
    let response = bridge.handle(request).await;
    let status = response.status();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        challenge,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

#[test]
fn the_bridge_checks_tokens_and_per_target_scopes_in_both_eras() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let bridge = service(&pty);
        let user = "alice.dev-use";
        let relay = tool_call(1, "set_relay", json!({"channel": 0, "on": true}));

        let (status, challenge, _) = call(&bridge, post(&relay, None, true, None)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(challenge.starts_with("Bearer "), "{challenge}");

        let (status, challenge, _) = call(&bridge, post(&relay, Some(user), true, None)).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(
            challenge.contains("scope=\"dev-use relay-write\""),
            "{challenge}"
        );

        // A reading tool without a scope of its own reaches the device.
        let read = tool_call(2, "read_sensor", json!({"channel": 0}));
        let (status, _, body) = call(&bridge, post(&read, Some(user), true, None)).await;
        assert_eq!(status, StatusCode::OK, "{body}");

        // A 2025-11-25 session of the same user: no MCP headers, the same refusals.
        let initialize = legacy(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
                   "clientInfo": {"name": "legacy", "version": "1.0"}}),
        );
        let opened = bridge
            .handle(post(&initialize, Some(user), false, None))
            .await;
        assert_eq!(opened.status(), StatusCode::OK);
        let session = opened.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let session = Some(session.as_str());
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let (status, _, _) = call(&bridge, post(&initialized, Some(user), false, session)).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        for (request, scope) in [
            (
                legacy(
                    3,
                    "tools/call",
                    json!({"name": "set_relay", "arguments": {"channel": 0, "on": true}}),
                ),
                "relay-write",
            ),
            (
                legacy(4, "resources/read", json!({"uri": "device://info"})),
                "dev-info",
            ),
        ] {
            let (status, challenge, body) =
                call(&bridge, post(&request, Some(user), false, session)).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{request}: {body}");
            assert!(
                challenge.contains(&format!("scope=\"dev-use {scope}\"")),
                "{challenge}"
            );
            assert!(!body.contains("elicitation"), "{body}");
        }

        // The session is its opener's: another subject does not reach it.
        let other = legacy(
            5,
            "tools/call",
            json!({"name": "read_sensor", "arguments": {"channel": 0}}),
        );
        let (status, _, _) = call(&bridge, post(&other, Some("bob.dev-use"), false, session)).await;
        assert_eq!(status, StatusCode::NOT_FOUND);

        // With the scopes the session's requests get through, the relay's confirmation
        // bridged to the client.
        let granted = "alice.dev-use+relay-write+dev-info";
        let info = legacy(6, "resources/read", json!({"uri": "device://info"}));
        let (status, _, body) = call(&bridge, post(&info, Some(granted), false, session)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(body.contains("relays"), "{body}");
        let switch = legacy(
            7,
            "tools/call",
            json!({"name": "set_relay", "arguments": {"channel": 0, "on": true}}),
        );
        let response = bridge
            .handle(post(&switch, Some(granted), false, session))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let mut body = response.into_body();
        let mut text = String::new();
        while !text.contains("elicitation/create") {
            let frame = tokio::time::timeout(std::time::Duration::from_secs(10), body.frame())
                .await
                .expect("an event in time")
                .expect("the stream goes on")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                text.push_str(std::str::from_utf8(&data).unwrap());
            }
        }
    });
    stop(&mut device);
}
