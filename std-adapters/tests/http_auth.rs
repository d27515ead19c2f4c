//! The endpoint as an OAuth resource server (feature `auth`): protected resource metadata,
//! 401 and 403 challenges, RS256 and ES256 tokens checked against a JWKS served by a
//! loopback server of the test, key refresh on an unknown `kid` and when the key set is
//! older than its maximum age, per-target scopes in both eras, and the verified subject
//! binding sealed state.

mod auth_fixture;
mod http_client;

#[path = "../examples/preferences/app.rs"]
mod app;
#[path = "../examples/preferences/flows.rs"]
mod flows;
#[path = "../examples/preferences/report.rs"]
mod report;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use auth_fixture::{ISSUER, JwksServer, RESOURCE, SigningKey, bearer, jwks};
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use http_client::{Running, message, post, send, serve_service, with};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use snodo_std::http::auth::{
    AuthLayer, Authorization, JwksVerifier, Rejected, ResourceServer, ScopePolicy, TokenVerifier,
    Verified, VerifyFuture,
};
use snodo_std::http::{HttpConfig, McpService};
use tokio::net::TcpListener;

const METADATA_URL: &str = "https://mcp.test/.well-known/oauth-protected-resource/mcp";

fn resource_server() -> ResourceServer {
    ResourceServer::new(RESOURCE)
        .expect("canonical URI")
        .authorization_server(ISSUER)
        .scopes_supported(["prefs:read"])
        .required_scopes(["prefs:read"])
        .policy(
            ScopePolicy::new()
                .tool("preference_preview", ["prefs:write"])
                .tool("add", ["prefs:math"])
                .resource("preview://about", ["prefs:about"])
                .prompt("greeting_prompt", ["prefs:prompts"])
                .implies("prefs:admin", ["prefs:read", "prefs:write"]),
        )
}

fn preferences_service(verifier: JwksVerifier) -> McpService<snodo_std::typed::TypedApp> {
    let server = app::server();
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    McpService::new(Arc::new(server), config)
        .with_auth(Authorization::new(resource_server(), verifier))
}

/// The preferences server behind the resource server, its JWKS served by the test.
async fn start(keys: &[&SigningKey]) -> (Running, JwksServer) {
    let jwks_server = JwksServer::start(jwks(keys)).await;
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE).expect("verifier");
    (
        serve_service(preferences_service(verifier)).await,
        jwks_server,
    )
}

fn list_tools(addr: SocketAddr) -> Request<Full<Bytes>> {
    post(addr, &message(json!(1), "tools/list", json!({})))
}

fn challenge(reply: &http_client::Reply) -> &str {
    reply
        .headers
        .get("www-authenticate")
        .expect("a challenge")
        .to_str()
        .expect("text")
}

#[tokio::test]
async fn the_metadata_names_the_resource_its_authorization_server_and_scopes() {
    let (running, _jwks) = start(&[&SigningKey::rsa("r1")]).await;
    let addr = running.addr;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let request = Request::get(format!("http://{addr}{path}"))
            .header("host", addr.to_string())
            .body(Full::new(Bytes::new()))
            .unwrap();
        let reply = send(addr, request).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}");
        assert_eq!(reply.content_type(), "application/json");
        assert_eq!(
            reply.json(),
            json!({
                "resource": RESOURCE,
                "authorization_servers": [ISSUER],
                "scopes_supported": ["prefs:read"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}

#[tokio::test]
async fn a_request_without_a_token_is_401_naming_the_metadata_and_scope() {
    let (running, jwks) = start(&[&SigningKey::rsa("r1")]).await;
    let reply = send(running.addr, list_tools(running.addr)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        challenge(&reply),
        format!("Bearer scope=\"prefs:read\", resource_metadata=\"{METADATA_URL}\"")
    );
    let basic = with(
        list_tools(running.addr),
        "authorization",
        b"Basic dXNlcjpwYXNz",
    );
    let reply = send(running.addr, basic).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(jwks.fetches(), 0, "nothing to check, nothing fetched");
}

#[tokio::test]
async fn rs256_and_es256_tokens_from_the_jwks_pass() {
    let rsa = SigningKey::rsa("r1");
    let ec = SigningKey::ec("e1");
    let (running, jwks) = start(&[&rsa, &ec]).await;
    let addr = running.addr;
    for key in [&rsa, &ec] {
        let token = key.token(json!({"sub": "alice", "scope": "prefs:read"}));
        let reply = send(addr, bearer(list_tools(addr), &token)).await;
        assert_eq!(reply.status, StatusCode::OK, "{:?}", key.algorithm);
        assert!(reply.json()["result"]["tools"].is_array());
    }
    assert_eq!(jwks.fetches(), 1, "fetched once, then cached");
}

#[tokio::test]
async fn tokens_that_do_not_verify_are_401_invalid_token() {
    let rsa = SigningKey::rsa("r1");
    let (running, _jwks) = start(&[&rsa]).await;
    let addr = running.addr;
    let now = snodo_std::unix_seconds();
    let impostor = SigningKey::ec("r1"); // the right kid, another key (and algorithm)
    let mut cases = vec![
        (
            "another audience",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "aud": "https://other.test/mcp"})),
        ),
        (
            "another issuer",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "iss": "http://evil.test"})),
        ),
        (
            "expired",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "exp": now - 120})),
        ),
        (
            "not yet valid",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "nbf": now + 120})),
        ),
        ("no subject", rsa.token(json!({"scope": "prefs:read"}))),
        (
            "iss as an array",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "iss": [ISSUER]})),
        ),
        (
            "iss as an array naming another issuer first",
            rsa.token(
                json!({"sub": "a", "scope": "prefs:read", "iss": ["http://evil.test", ISSUER]}),
            ),
        ),
        (
            "sub as an array",
            rsa.token(json!({"sub": ["a"], "scope": "prefs:read"})),
        ),
        (
            "aud with a member that is not a string",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "aud": [RESOURCE, 5]})),
        ),
        (
            "aud as an object",
            rsa.token(json!({"sub": "a", "scope": "prefs:read", "aud": {"aud": RESOURCE}})),
        ),
        (
            "signed by another key",
            impostor.token(json!({"sub": "a", "scope": "prefs:read"})),
        ),
        ("not a JWT", "abc.def.ghi".to_owned()),
    ];
    let hs256 = jsonwebtoken::encode(
        &Header {
            kid: Some("r1".into()),
            ..Header::new(Algorithm::HS256)
        },
        &json!({"sub": "a", "iss": ISSUER, "aud": RESOURCE, "exp": now + 60}),
        &EncodingKey::from_secret(b"guessable"),
    )
    .unwrap();
    cases.push(("HS256", hs256));
    let mut tampered = rsa.token(json!({"sub": "alice", "scope": "prefs:read"}));
    tampered.replace_range(tampered.len() - 4.., "AAAA");
    cases.push(("tampered signature", tampered));
    for (case, token) in cases {
        let reply = send(addr, bearer(list_tools(addr), &token)).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{case}");
        assert_eq!(
            challenge(&reply),
            format!("Bearer error=\"invalid_token\", resource_metadata=\"{METADATA_URL}\""),
            "{case}"
        );
    }
}

#[tokio::test]
async fn a_tool_needing_a_scope_the_token_lacks_is_403_insufficient_scope() {
    let rsa = SigningKey::rsa("r1");
    let (running, _jwks) = start(&[&rsa]).await;
    let addr = running.addr;
    let call = |token: &str| {
        let body = message(
            json!(1),
            "tools/call",
            json!({"name": "preference_preview", "arguments": {"subject": "x"}}),
        );
        bearer(post(addr, &body), token)
    };
    let reader = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    let reply = send(addr, call(&reader)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(
        challenge(&reply),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"prefs:read prefs:write\", resource_metadata=\"{METADATA_URL}\""
        )
    );
    // Lacking the endpoint's own scope is 403 too, even for a method without a target.
    let writer_only = rsa.token(json!({"sub": "a", "scp": ["prefs:write"]}));
    let reply = send(addr, bearer(list_tools(addr), &writer_only)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    // Both scopes, or a broader scope that implies them, reach the tool (which then asks
    // for the capability this request did not declare: the core's -32021).
    for scope in ["prefs:read prefs:write", "prefs:admin"] {
        let token = rsa.token(json!({"sub": "a", "scope": scope}));
        let reply = send(addr, call(&token)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{scope}");
        assert_eq!(reply.json()["error"]["code"], -32021, "{scope}");
    }
}

/// A 2025-11-25 POST: no `Mcp-Method`, `Mcp-Name` or `_meta` envelope; the session's id
/// and version once it has one.
fn legacy_post(
    addr: SocketAddr,
    body: &Value,
    session: Option<&str>,
    token: &str,
) -> Request<Full<Bytes>> {
    let mut request = Request::post(format!("http://{addr}/mcp"))
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let request = request
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a request");
    bearer(request, token)
}

fn legacy_request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Opens a 2025-11-25 session (its client can answer form elicitations) for `token`.
async fn legacy_session(addr: SocketAddr, token: &str) -> String {
    let initialize = legacy_request(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {"form": {}}},
            "clientInfo": {"name": "legacy", "version": "1.0"},
        }),
    );
    let reply = send(addr, legacy_post(addr, &initialize, None, token)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);
    let session = reply.headers["mcp-session-id"].to_str().unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = send(addr, legacy_post(addr, &initialized, Some(&session), token)).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    session
}

/// The requests of a 2025-11-25 session that target a scoped tool, resource or prompt,
/// with the scope each needs beyond `prefs:read`.
fn scoped_legacy_requests() -> Vec<(Value, &'static str)> {
    vec![
        (
            legacy_request(
                1,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
            ),
            "prefs:math",
        ),
        (
            legacy_request(
                2,
                "tools/call",
                json!({"name": "preference_preview", "arguments": {"subject": "legacy"}}),
            ),
            "prefs:write",
        ),
        (
            legacy_request(3, "resources/read", json!({"uri": "preview://about"})),
            "prefs:about",
        ),
        (
            legacy_request(
                4,
                "prompts/get",
                json!({"name": "greeting_prompt", "arguments": {"name": "Ada"}}),
            ),
            "prefs:prompts",
        ),
        (
            legacy_request(
                5,
                "completion/complete",
                json!({
                    "ref": {"type": "ref/prompt", "name": "greeting_prompt"},
                    "argument": {"name": "name", "value": "A"},
                }),
            ),
            "prefs:prompts",
        ),
    ]
}

#[tokio::test]
async fn per_target_scopes_hold_for_2025_11_25_sessions_without_mcp_headers() {
    let rsa = SigningKey::rsa("r1");
    let (running, _jwks) = start(&[&rsa]).await;
    let addr = running.addr;
    let reader = rsa.token(json!({"sub": "alice", "scope": "prefs:read"}));
    let session = legacy_session(addr, &reader).await;
    for (request, scope) in scoped_legacy_requests() {
        let reply = send(addr, legacy_post(addr, &request, Some(&session), &reader)).await;
        // Refused whole before the handler runs: JSON, no event stream, no elicitation.
        assert_eq!(
            reply.status,
            StatusCode::FORBIDDEN,
            "{request}: {:?}",
            reply.body
        );
        assert_eq!(reply.content_type(), "application/json", "{request}");
        assert_eq!(
            challenge(&reply),
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"prefs:read {scope}\", resource_metadata=\"{METADATA_URL}\""
            ),
            "{request}"
        );
        assert!(reply.json()["result"].is_null(), "{request}");
    }
    // Unscoped targets are served as before.
    let echo = legacy_request(
        6,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let reply = send(addr, legacy_post(addr, &echo, Some(&session), &reader)).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.body);

    // The same subject with the scopes reaches every one of them.
    let granted = rsa.token(json!({
        "sub": "alice",
        "scope": "prefs:read prefs:math prefs:write prefs:about prefs:prompts",
    }));
    let [add, preview, rest @ ..] = &scoped_legacy_requests()[..] else {
        unreachable!()
    };
    let reply = send(addr, legacy_post(addr, &add.0, Some(&session), &granted)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json()["result"]["structuredContent"]["sum"], 5.0);
    for (request, _) in rest {
        let reply = send(addr, legacy_post(addr, request, Some(&session), &granted)).await;
        assert_eq!(reply.status, StatusCode::OK, "{request}");
        assert!(reply.json()["result"].is_object(), "{request}");
    }
    // A tool that asks for input: the bridged elicitation goes out.
    let mut stream = http_client::open(
        addr,
        legacy_post(addr, &preview.0, Some(&session), &granted),
    )
    .await;
    assert_eq!(stream.response.status(), StatusCode::OK);
    // A legacy stream's events carry ids (`id: <stream>-<n>`); read until the request.
    let mut text = String::new();
    while !text.contains("elicitation/create") {
        use http_body_util::BodyExt;
        let frame = tokio::time::timeout(http_client::PATIENCE, stream.response.body_mut().frame())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
            .expect("readable");
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).unwrap());
        }
    }
    stream.disconnect();
}

#[tokio::test]
async fn per_target_scopes_hold_behind_the_tower_layer_in_both_eras() {
    use http_body_util::BodyExt;
    use tower::{Layer, ServiceExt};

    let rsa = SigningKey::rsa("r1");
    let verifier = JwksVerifier::from_jwks(jwks(&[&rsa]).as_bytes(), ISSUER, RESOURCE).unwrap();
    let plain = McpService::new(Arc::new(app::server()), HttpConfig::new());
    let guarded = AuthLayer::new(Authorization::new(resource_server(), verifier)).layer(plain);
    let addr = SocketAddr::from(([127, 0, 0, 1], 8080));
    let reader = rsa.token(json!({"sub": "bob", "scope": "prefs:read"}));
    let add = json!({"name": "add", "arguments": {"a": 2, "b": 3}});

    let modern = bearer(
        post(addr, &message(json!(1), "tools/call", add.clone())),
        &reader,
    );
    let refused = guarded.clone().oneshot(modern).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);

    let initialize = legacy_request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "legacy", "version": "1.0"}}),
    );
    let opened = guarded
        .clone()
        .oneshot(legacy_post(addr, &initialize, None, &reader))
        .await
        .unwrap();
    assert_eq!(opened.status(), StatusCode::OK);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let call = legacy_post(
        addr,
        &legacy_request(1, "tools/call", add),
        Some(&session),
        &reader,
    );
    let refused = guarded.oneshot(call).await.unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(
        refused.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("scope=\"prefs:read prefs:math\"")
    );
    let body = refused.into_body().collect().await.unwrap().to_bytes();
    assert!(!String::from_utf8_lossy(&body).contains("sum"));
}

#[tokio::test]
async fn state_sealed_for_one_subject_does_not_open_for_another() {
    let rsa = SigningKey::rsa("r1");
    let (running, _jwks) = start(&[&rsa]).await;
    let addr = running.addr;
    let alice = rsa.token(json!({"sub": "alice", "scope": "prefs:read prefs:write"}));
    let bob = rsa.token(json!({"sub": "bob", "scope": "prefs:read prefs:write"}));
    let base = json!({
        "name": "preference_preview",
        "arguments": {"subject": "http"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }
    });
    let call = |id: u64, params: &Value, token: &str| {
        bearer(
            post(addr, &message(json!(id), "tools/call", params.clone())),
            token,
        )
    };
    let first = send(addr, call(1, &base, &alice)).await.json();
    assert_eq!(first["result"]["resultType"], "input_required");
    let mut retry = base.clone();
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"color": {"action": "accept", "content": {"color": "teal"}}});

    let stolen = send(addr, call(2, &retry, &bob)).await;
    assert_eq!(stolen.status, StatusCode::BAD_REQUEST);
    assert_eq!(stolen.json()["error"]["code"], -32602);

    let own = send(addr, call(3, &retry, &alice)).await;
    assert_eq!(own.status, StatusCode::OK);
    assert!(own.json()["result"]["inputRequests"]["style"].is_object());
}

#[tokio::test]
async fn an_unknown_key_id_fetches_the_jwks_again_within_a_bounded_rate() {
    let rsa = SigningKey::rsa("r1");
    let ec = SigningKey::ec("e2");
    let jwks_server = JwksServer::start(jwks(&[&rsa])).await;
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE)
        .expect("verifier")
        .with_min_refresh_interval(Duration::ZERO);
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let claims = json!({"sub": "a", "scope": "prefs:read"});
    let reply = send(addr, bearer(list_tools(addr), &rsa.token(claims.clone()))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 1);

    // The authorization server rotates in a new key: its first token fetches the set anew.
    *jwks_server.document.lock().unwrap() = jwks(&[&rsa, &ec]);
    let reply = send(addr, bearer(list_tools(addr), &ec.token(claims.clone()))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 2);
    let reply = send(addr, bearer(list_tools(addr), &ec.token(claims))).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 2, "a known key fetches nothing");
}

/// Moves tokio's clock (the verifier's) `by` ahead at once; real time runs on after it.
async fn jump(by: Duration) {
    tokio::time::pause();
    tokio::time::advance(by).await;
    tokio::time::resume();
}

/// The `Retry-After` of a `503`, in seconds.
fn retry_after(reply: &http_client::Reply) -> u64 {
    assert_eq!(
        reply.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        reply.body
    );
    let value = reply.headers.get("retry-after").expect("Retry-After");
    value.to_str().unwrap().parse().expect("seconds")
}

#[tokio::test]
async fn an_unknown_key_id_inside_the_cool_down_is_503_retry_after_and_fetches_nothing() {
    let rsa = SigningKey::rsa("r1");
    let (running, jwks_server) = start(&[&rsa]).await; // 30 s between fetches
    let addr = running.addr;
    let claims = json!({"sub": "a", "scope": "prefs:read"});
    assert_eq!(
        send(addr, bearer(list_tools(addr), &rsa.token(claims.clone())))
            .await
            .status,
        StatusCode::OK
    );
    for id in ["x1", "x2", "x3"] {
        let stranger = SigningKey::ec(id);
        let reply = send(
            addr,
            bearer(list_tools(addr), &stranger.token(claims.clone())),
        )
        .await;
        let wait = retry_after(&reply);
        assert!((1..=30).contains(&wait), "{id}: Retry-After {wait}");
    }
    assert_eq!(
        jwks_server.fetches(),
        1,
        "the first fetch was less than 30 s ago"
    );

    // A key the authorization server added inside the cool-down: its token cannot be
    // checked yet (not "invalid"), and once the cool-down is over it fetches the set anew.
    let added = SigningKey::ec("e2");
    *jwks_server.document.lock().unwrap() = jwks(&[&rsa, &added]);
    let token = added.token(claims.clone());
    let reply = send(addr, bearer(list_tools(addr), &token)).await;
    assert!(retry_after(&reply) <= 30);
    assert_eq!(jwks_server.fetches(), 1);
    jump(Duration::from_secs(31)).await;
    let reply = send(addr, bearer(list_tools(addr), &token)).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 2);
    // Past the cool-down a key id still unknown after the fetch is an invalid token.
    jump(Duration::from_secs(31)).await;
    let stranger = SigningKey::ec("x4").token(claims);
    let reply = send(addr, bearer(list_tools(addr), &stranger)).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(jwks_server.fetches(), 3);
}

#[tokio::test]
async fn a_key_removed_from_the_jwks_stops_admitting_once_the_key_set_is_older_than_its_max_age() {
    let old = SigningKey::rsa("r1");
    let kept = SigningKey::ec("e1");
    let jwks_server = JwksServer::start(jwks(&[&old, &kept])).await;
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE)
        .expect("verifier")
        .with_key_set_max_age(Duration::from_secs(60), Duration::from_secs(60))
        // Remembered far longer than the key set's age: only the refetch can forget it.
        .with_token_cache(16, Duration::from_secs(3600));
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let claims = json!({"sub": "a", "scope": "prefs:read"});
    let remembered = old.token(claims.clone());
    let status =
        |token: String| async move { send(addr, bearer(list_tools(addr), &token)).await.status };
    assert_eq!(status(remembered.clone()).await, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 1);

    // The authorization server revokes the key. Within the set's age nothing is fetched.
    *jwks_server.document.lock().unwrap() = jwks(&[&kept]);
    jump(Duration::from_secs(59)).await;
    assert_eq!(status(remembered.clone()).await, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 1);

    // Older than its age, the set is fetched again and the removed key verifies nothing, the
    // tokens it verified included: they name a key id the set lacks, which inside the
    // cool-down of that fetch cannot be looked for again (503), and after it is not found
    // (401). A token of a key still in the set passes throughout.
    jump(Duration::from_secs(2)).await;
    let reply = send(addr, bearer(list_tools(addr), &remembered)).await;
    assert!(retry_after(&reply) <= 30);
    assert_eq!(jwks_server.fetches(), 2);
    let reply = send(addr, bearer(list_tools(addr), &old.token(claims.clone()))).await;
    assert!(retry_after(&reply) <= 30);
    assert_eq!(status(kept.token(claims.clone())).await, StatusCode::OK);
    jump(Duration::from_secs(31)).await;
    assert_eq!(status(remembered).await, StatusCode::UNAUTHORIZED);
    assert_eq!(jwks_server.fetches(), 3);
    assert_eq!(status(kept.token(claims)).await, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 3, "the new set is kept for its age");
}

#[tokio::test]
async fn the_key_set_lives_as_long_as_its_cache_control_says_within_the_configured_range() {
    let rsa = SigningKey::rsa("r1");
    let jwks_server = JwksServer::start(jwks(&[&rsa])).await;
    *jwks_server.cache_control.lock().unwrap() = Some("public, max-age=120".to_owned());
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE)
        .expect("verifier")
        .with_key_set_max_age(Duration::from_secs(1), Duration::from_secs(3600));
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let token = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    let ok = || async { send(addr, bearer(list_tools(addr), &token)).await.status };
    assert_eq!(ok().await, StatusCode::OK);
    jump(Duration::from_secs(100)).await;
    assert_eq!(ok().await, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 1, "100 s into a 120 s age");
    jump(Duration::from_secs(21)).await;
    assert_eq!(ok().await, StatusCode::OK);
    assert_eq!(jwks_server.fetches(), 2, "past 120 s");
}

#[tokio::test]
async fn an_expired_key_set_that_cannot_be_fetched_admits_no_token() {
    let rsa = SigningKey::rsa("r1");
    let jwks_server = JwksServer::start(jwks(&[&rsa])).await;
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE)
        .expect("verifier")
        .with_key_set_max_age(Duration::from_secs(60), Duration::from_secs(60));
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let token = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    let reply = send(addr, bearer(list_tools(addr), &token)).await;
    assert_eq!(reply.status, StatusCode::OK);
    // The JWKS server fails: once the set is older than its age, a token (remembered or
    // not) cannot be checked, and the cool-down bounds the fetches that find out.
    jwks_server
        .failing
        .store(true, std::sync::atomic::Ordering::SeqCst);
    jump(Duration::from_secs(61)).await;
    for _ in 0..3 {
        let reply = send(addr, bearer(list_tools(addr), &token)).await;
        assert!(retry_after(&reply) <= 30);
    }
    assert_eq!(jwks_server.fetches(), 2);
}

#[tokio::test]
async fn an_unreachable_jwks_is_503_not_an_invalid_token() {
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", closed.local_addr().unwrap());
    drop(closed);
    let verifier = JwksVerifier::new(&url, ISSUER, RESOURCE).expect("verifier");
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let token = SigningKey::rsa("r1").token(json!({"sub": "a", "scope": "prefs:read"}));
    let reply = send(addr, bearer(list_tools(addr), &token)).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(reply.headers.get("retry-after").is_some());
}

#[tokio::test]
async fn the_tower_layer_guards_any_mcp_service_and_names_its_principal() {
    use tower::{Layer, ServiceExt};

    let rsa = SigningKey::rsa("r1");
    let verifier = JwksVerifier::from_jwks(jwks(&[&rsa]).as_bytes(), ISSUER, RESOURCE).unwrap();
    let server = app::server();
    let plain = McpService::new(Arc::new(server), HttpConfig::new());
    let guarded = AuthLayer::new(Authorization::new(resource_server(), verifier)).layer(plain);
    let addr = SocketAddr::from(([127, 0, 0, 1], 8080));

    let refused = guarded.clone().oneshot(list_tools(addr)).await.unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);

    let base = json!({
        "name": "preference_preview",
        "arguments": {"subject": "layer"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        }
    });
    let claims = |sub: &str| json!({"sub": sub, "scope": "prefs:read prefs:write"});
    let call = |id: u64, params: &Value, sub: &str| {
        bearer(
            post(addr, &message(json!(id), "tools/call", params.clone())),
            &rsa.token(claims(sub)),
        )
    };
    let body = |response: http::Response<snodo_std::http::McpBody>| async move {
        use http_body_util::BodyExt;
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice::<Value>(&bytes).unwrap()
    };
    let first = body(
        guarded
            .clone()
            .oneshot(call(1, &base, "alice"))
            .await
            .unwrap(),
    )
    .await;
    let mut retry = base;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"color": {"action": "accept", "content": {"color": "teal"}}});
    let stolen = body(
        guarded
            .clone()
            .oneshot(call(2, &retry, "bob"))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(stolen["error"]["code"], -32602);
    let own = body(guarded.oneshot(call(3, &retry, "alice")).await.unwrap()).await;
    assert!(own["result"]["inputRequests"]["style"].is_object(), "{own}");
}

#[tokio::test]
async fn tokens_are_never_logged() {
    let (captured, _guard) = http_client::logs::capture();
    let rsa = SigningKey::rsa("r1");
    let (running, _jwks) = start(&[&rsa]).await;
    let addr = running.addr;
    let good = rsa.token(json!({"sub": "carol", "scope": "prefs:read"}));
    let expired = rsa.token(json!({"sub": "carol", "scope": "prefs:read", "exp": 1}));
    assert_eq!(
        send(addr, bearer(list_tools(addr), &good)).await.status,
        StatusCode::OK
    );
    assert_eq!(
        send(addr, bearer(list_tools(addr), &expired)).await.status,
        StatusCode::UNAUTHORIZED
    );
    let logs = captured.text();
    assert!(
        logs.contains("mcp.request"),
        "the requests were logged: {logs}"
    );
    for token in [&good, &expired] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(!logs.contains(signature), "a token in the logs: {logs}");
    }
}

/// With feature `tls`, the JWKS comes over HTTPS from a server whose certificate the
/// verifier is told to trust (and only from such a server).
#[cfg(feature = "tls")]
#[tokio::test]
async fn the_jwks_is_fetched_over_https_from_a_trusted_server_only() {
    use tokio_rustls::TlsAcceptor;
    use tokio_rustls::rustls::{self, RootCertStore, ServerConfig};

    let rsa = SigningKey::rsa("r1");
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    let config =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![made.cert.der().clone()], key)
            .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let document = jwks(&[&rsa]);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (acceptor, document) = (acceptor.clone(), document.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(stream).await else {
                    return;
                };
                let service = hyper::service::service_fn(move |_request| {
                    let body = Full::new(Bytes::from(document.clone()));
                    async move { Ok::<_, std::convert::Infallible>(http::Response::new(body)) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    let url = format!("https://localhost:{port}/jwks.json");
    let token = rsa.token(json!({"sub": "erin", "scope": "prefs:read"}));

    let mut roots = RootCertStore::empty();
    roots.add(made.cert.der().clone()).unwrap();
    let trusting = JwksVerifier::new(&url, ISSUER, RESOURCE)
        .unwrap()
        .with_tls_roots(roots);
    let running = serve_service(preferences_service(trusting)).await;
    let reply = send(running.addr, bearer(list_tools(running.addr), &token)).await;
    assert_eq!(reply.status, StatusCode::OK);

    // The built-in roots do not include the test's certificate: no keys, so 503.
    let default_roots = JwksVerifier::new(&url, ISSUER, RESOURCE).unwrap();
    let running = serve_service(preferences_service(default_roots)).await;
    let reply = send(running.addr, bearer(list_tools(running.addr), &token)).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
}

/// Opaque tokens, checked by the application: `opaque.<subject>.<scope>` grants
/// `prefs:<scope>` for the test.
struct OpaqueTokens;

impl TokenVerifier for OpaqueTokens {
    fn verify<'a>(&'a self, token: &'a str) -> VerifyFuture<'a> {
        Box::pin(async move {
            let mut parts = token.split('.');
            match (parts.next(), parts.next(), parts.next()) {
                (Some("opaque"), Some(subject), Some(scope)) => Ok(Verified {
                    subject: subject.to_owned(),
                    scopes: vec![format!("prefs:{scope}")],
                }),
                _ if token == "down" => Err(Rejected::Unavailable),
                _ => Err(Rejected::Invalid),
            }
        })
    }
}

#[tokio::test]
async fn an_application_verifier_decides_instead_of_the_jwks() {
    let server = app::server();
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let service = McpService::new(Arc::new(server), config)
        .with_auth(Authorization::new(resource_server(), OpaqueTokens));
    let running = serve_service(service).await;
    let addr = running.addr;
    for (token, status) in [
        ("opaque.alice.read", StatusCode::OK),
        ("opaque.alice.other", StatusCode::FORBIDDEN),
        ("opaque:alice", StatusCode::UNAUTHORIZED), // not token68 syntax
        ("garbage", StatusCode::UNAUTHORIZED),
        ("down", StatusCode::SERVICE_UNAVAILABLE),
    ] {
        let reply = send(addr, bearer(list_tools(addr), token)).await;
        assert_eq!(reply.status, status, "{token}");
    }
}

#[tokio::test]
async fn resources_and_prompts_have_their_own_scopes() {
    let rsa = SigningKey::rsa("r1");
    let jwks_server = JwksServer::start(jwks(&[&rsa])).await;
    let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE).unwrap();
    let resource = resource_server().policy(
        ScopePolicy::new()
            .resource("preview://about", ["prefs:about"])
            .prompt("greeting_prompt", ["prefs:prompts"]),
    );
    let server = app::server();
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let service =
        McpService::new(Arc::new(server), config).with_auth(Authorization::new(resource, verifier));
    let running = serve_service(service).await;
    let addr = running.addr;
    let read = message(
        json!(1),
        "resources/read",
        json!({"uri": "preview://about"}),
    );
    let prompt = message(
        json!(2),
        "prompts/get",
        json!({"name": "greeting_prompt", "arguments": {"name": "Ada"}}),
    );
    let reader = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    for (body, scope) in [(&read, "prefs:about"), (&prompt, "prefs:prompts")] {
        let reply = send(addr, bearer(post(addr, body), &reader)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{scope}");
        assert!(
            challenge(&reply).contains(&format!("scope=\"prefs:read {scope}\"")),
            "{}",
            challenge(&reply)
        );
        let granted = rsa.token(json!({"sub": "a", "scope": format!("prefs:read {scope}")}));
        let reply = send(addr, bearer(post(addr, body), &granted)).await;
        assert_eq!(reply.status, StatusCode::OK, "{scope}: {:?}", reply.json());
        assert!(reply.json()["result"].is_object());
    }
}

#[tokio::test]
async fn the_token_goes_no_further_than_the_resource_server() {
    use tower::{Layer, ServiceBuilder, ServiceExt};

    let rsa = SigningKey::rsa("r1");
    let verifier = JwksVerifier::from_jwks(jwks(&[&rsa]).as_bytes(), ISSUER, RESOURCE).unwrap();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let server = app::server();
    let inner = ServiceBuilder::new()
        .map_request(move |request: Request<Full<Bytes>>| {
            let headers: Vec<String> = request.headers().keys().map(|k| k.to_string()).collect();
            record.lock().unwrap().push(headers);
            request
        })
        .service(McpService::new(Arc::new(server), HttpConfig::new()));
    let guarded = AuthLayer::new(Authorization::new(resource_server(), verifier)).layer(inner);
    let addr = SocketAddr::from(([127, 0, 0, 1], 8080));
    let token = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    let response = guarded
        .oneshot(bearer(list_tools(addr), &token))
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].iter().any(|h| h == "mcp-method"), "{seen:?}");
    assert!(!seen[0].iter().any(|h| h == "authorization"), "{seen:?}");
}

#[tokio::test]
async fn a_jwks_server_that_never_answers_is_given_up_on_in_time() {
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/jwks.json", silent.local_addr().unwrap());
    // Accepts connections and never answers.
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            open.push(stream);
        }
    });
    let verifier = JwksVerifier::new(&url, ISSUER, RESOURCE)
        .unwrap()
        .with_fetch_timeout(Duration::from_millis(100));
    let running = serve_service(preferences_service(verifier)).await;
    let addr = running.addr;
    let token = SigningKey::rsa("r1").token(json!({"sub": "a", "scope": "prefs:read"}));
    let reply = send(addr, bearer(list_tools(addr), &token)).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    held.abort();
}

#[tokio::test]
async fn a_jwks_over_its_size_limit_is_not_read() {
    let rsa = SigningKey::rsa("r1");
    let token = rsa.token(json!({"sub": "a", "scope": "prefs:read"}));
    // The same keys padded with an unknown member: 1 KiB is read, 70 KiB is not (64 KiB).
    for (pad, status) in [
        (1024, StatusCode::OK),
        (70 * 1024, StatusCode::SERVICE_UNAVAILABLE),
    ] {
        let padding = format!("{{\"pad\":\"{}\",", "x".repeat(pad));
        let jwks_server = JwksServer::start(jwks(&[&rsa]).replacen('{', &padding, 1)).await;
        let verifier = JwksVerifier::new(&jwks_server.url, ISSUER, RESOURCE).unwrap();
        let running = serve_service(preferences_service(verifier)).await;
        let addr = running.addr;
        let reply = send(addr, bearer(list_tools(addr), &token)).await;
        assert_eq!(reply.status, status, "{pad} bytes of padding");
    }
}
