//! The test's authorization server: signing keys (a committed test-only RSA key, P-256
//! keys made on the spot), tokens, and a JWKS served on loopback.
#![allow(dead_code)] // each test file uses a part of it

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::Request;
use http_body_util::Full;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The issuer of the test's tokens.
pub const ISSUER: &str = "http://issuer.test";
/// The canonical server URI the tokens are for.
pub const RESOURCE: &str = "https://mcp.test/mcp";

/// A signing key of the test's authorization server.
pub struct SigningKey {
    pub id: &'static str,
    pub algorithm: Algorithm,
    pub key: EncodingKey,
}

impl SigningKey {
    /// The committed test-only RSA key.
    pub fn rsa(id: &'static str) -> Self {
        let pem = include_bytes!("../fixtures/test_rsa_key.pem");
        SigningKey {
            id,
            algorithm: Algorithm::RS256,
            key: EncodingKey::from_rsa_pem(pem).expect("RSA key"),
        }
    }

    /// A P-256 key made now.
    pub fn ec(id: &'static str) -> Self {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256");
        SigningKey {
            id,
            algorithm: Algorithm::ES256,
            key: EncodingKey::from_ec_pem(pair.serialize_pem().as_bytes()).expect("EC key"),
        }
    }

    /// The public half as a JWK.
    pub fn jwk(&self) -> Jwk {
        let mut jwk = Jwk::from_encoding_key(&self.key, self.algorithm).expect("JWK");
        jwk.common.key_id = Some(self.id.to_owned());
        jwk
    }

    /// A token with `claims`, the standard ones filled in unless given.
    pub fn token(&self, mut claims: Value) -> String {
        let now = snodo_std::unix_seconds();
        let fill = claims.as_object_mut().expect("claims object");
        fill.entry("iss").or_insert(json!(ISSUER));
        fill.entry("aud").or_insert(json!(RESOURCE));
        fill.entry("exp").or_insert(json!(now + 300));
        fill.entry("nbf").or_insert(json!(now - 1));
        let mut header = Header::new(self.algorithm);
        header.kid = Some(self.id.to_owned());
        jsonwebtoken::encode(&header, &claims, &self.key).expect("signs")
    }
}

/// A JWKS document with the public halves of `keys`.
pub fn jwks(keys: &[&SigningKey]) -> String {
    let set = JwkSet {
        keys: keys.iter().map(|k| k.jwk()).collect(),
    };
    serde_json::to_string(&set).expect("JWKS")
}

/// The authorization server's JWKS endpoint: a document and a `Cache-Control` the test can
/// change, and how often it was fetched.
#[derive(Clone)]
pub struct JwksServer {
    pub url: String,
    pub document: Arc<Mutex<String>>,
    pub cache_control: Arc<Mutex<Option<String>>>,
    /// Set: every fetch is answered 500.
    pub failing: Arc<AtomicBool>,
    fetches: Arc<AtomicUsize>,
}

impl JwksServer {
    pub async fn start(document: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let url = format!("http://{}/jwks.json", listener.local_addr().expect("addr"));
        let server = JwksServer {
            url,
            document: Arc::new(Mutex::new(document)),
            cache_control: Arc::new(Mutex::new(None)),
            failing: Arc::new(AtomicBool::new(false)),
            fetches: Arc::new(AtomicUsize::new(0)),
        };
        let state = server.clone();
        let router = axum::Router::new().route(
            "/jwks.json",
            axum::routing::get(move || {
                let state = state.clone();
                async move {
                    state.fetches.fetch_add(1, Ordering::SeqCst);
                    let mut response =
                        http::Response::new(state.document.lock().expect("lock").clone());
                    if state.failing.load(Ordering::SeqCst) {
                        *response.status_mut() = http::StatusCode::INTERNAL_SERVER_ERROR;
                    }
                    if let Some(value) = state.cache_control.lock().expect("lock").clone() {
                        let value = value.parse().expect("header value");
                        response.headers_mut().insert("cache-control", value);
                    }
                    response
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        server
    }

    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

/// `request` with `Authorization: Bearer <token>`.
pub fn bearer(mut request: Request<Full<Bytes>>, token: &str) -> Request<Full<Bytes>> {
    let value = format!("Bearer {token}").parse().expect("header value");
    request.headers_mut().insert("authorization", value);
    request
}
