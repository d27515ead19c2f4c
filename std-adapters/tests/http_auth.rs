//! The endpoint as an OAuth resource server (feature `auth`): protected resource metadata,
//! 401 and 403 challenges, RS256 and ES256 tokens checked against a JWKS served by a
//! loopback server of the test, key refresh on an unknown `kid`, and the verified subject
//! binding sealed state.

mod auth_fixture;
mod http_client;

#[path = "../examples/preferences/app.rs"]
mod app;
#[path = "../examples/preferences/flows.rs"]
mod flows;

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

#[tokio::test]
async fn unknown_key_ids_do_not_fetch_more_often_than_the_refresh_interval() {
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
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{id}");
    }
    assert_eq!(
        jwks_server.fetches(),
        1,
        "the first fetch was less than 30 s ago"
    );
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
