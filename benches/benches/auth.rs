//! The cost of a bearer token: one `tools/call` through the HTTP endpoint's service
//! (`McpService::handle`, in process, no sockets) without authorization; with a JWT the
//! client sends again and again (the verifier remembers it: the usual case); and with the
//! signature checked on every request (RS256 with a 2048-bit key, ES256 on P-256; the
//! JWKS in memory, no fetch in the loop). Compare the figures of one run: the ratios are
//! what authorization adds per request.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::Full;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
use snodo_std::AsyncHandler;
use snodo_std::http::auth::{Authorization, JwksVerifier, ResourceServer};
use snodo_std::http::{HttpConfig, McpService};

const ISSUER: &str = "https://issuer.bench";
const RESOURCE: &str = "https://mcp.bench/mcp";

struct Ping;

impl Registry for Ping {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("ping")];
        TOOLS
    }
}

impl AsyncHandler for Ping {
    async fn call_tool<'o>(
        &self,
        _: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        Ok(reply.text("pong"))
    }
}

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn request(token: Option<&str>) -> http::Request<Full<Bytes>> {
    let mut request = http::Request::post("/mcp")
        .header("host", "127.0.0.1:8080")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "ping");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request
        .body(Full::new(Bytes::from_static(BODY.as_bytes())))
        .expect("request")
}

fn signed(key: &EncodingKey, alg: Algorithm, kid: &str) -> (Jwk, String) {
    let mut jwk = Jwk::from_encoding_key(key, alg).expect("JWK");
    jwk.common.key_id = Some(kid.to_owned());
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_owned());
    let claims = json!({
        "iss": ISSUER, "aud": RESOURCE, "sub": "bench-user",
        "exp": snodo_std::unix_seconds() + 3600, "scope": "mcp",
    });
    (
        jwk,
        jsonwebtoken::encode(&header, &claims, key).expect("token"),
    )
}

fn bench_auth(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let rsa = EncodingKey::from_rsa_pem(include_bytes!(
        "../../std-adapters/tests/fixtures/test_rsa_key.pem"
    ))
    .expect("RSA key");
    let ec_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256");
    let ec = EncodingKey::from_ec_pem(ec_pair.serialize_pem().as_bytes()).expect("EC key");
    let (rsa_jwk, rsa_token) = signed(&rsa, Algorithm::RS256, "rsa");
    let (ec_jwk, ec_token) = signed(&ec, Algorithm::ES256, "ec");
    let jwks = serde_json::to_vec(&JwkSet {
        keys: vec![rsa_jwk, ec_jwk],
    })
    .expect("JWKS");

    let server =
        Arc::new(Server::new(Config::new("bench", "1.0.0"), Ping).expect("valid definitions"));
    let plain = McpService::new(Arc::clone(&server), HttpConfig::new());
    let guard = |verifier: JwksVerifier| {
        let resource = ResourceServer::new(RESOURCE)
            .expect("URI")
            .authorization_server(ISSUER);
        McpService::new(Arc::clone(&server), HttpConfig::new())
            .with_auth(Authorization::new(resource, verifier))
    };
    let verifier = JwksVerifier::from_jwks(&jwks, ISSUER, RESOURCE).expect("verifier");
    let remembering = guard(verifier.clone());
    let guarded = guard(verifier.with_token_cache(0, Duration::ZERO));

    for (service, token) in [
        (&guarded, &rsa_token),
        (&guarded, &ec_token),
        (&remembering, &rsa_token),
    ] {
        let response = runtime.block_on(service.handle(request(Some(token))));
        assert_eq!(response.status(), http::StatusCode::OK, "the token passes");
    }

    let mut group = c.benchmark_group("http_auth");
    group.bench_function("tools_call_without_auth", |b| {
        b.iter(|| black_box(runtime.block_on(plain.handle(request(None)))));
    });
    group.bench_function("tools_call_rs256_remembered", |b| {
        b.iter(|| black_box(runtime.block_on(remembering.handle(request(Some(&rsa_token))))));
    });
    group.bench_function("tools_call_rs256", |b| {
        b.iter(|| black_box(runtime.block_on(guarded.handle(request(Some(&rsa_token))))));
    });
    group.bench_function("tools_call_es256", |b| {
        b.iter(|| black_box(runtime.block_on(guarded.handle(request(Some(&ec_token))))));
    });
    group.finish();
}

criterion_group!(benches, bench_auth);
criterion_main!(benches);
