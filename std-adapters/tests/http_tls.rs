//! HTTPS (feature `tls`): the listener with a self-signed certificate made by the test, a
//! client that trusts it, and clients that do not get an MCP answer.

mod http_client;

use std::net::SocketAddr;
use std::sync::Arc;

use http::StatusCode;
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
use snodo_std::AsyncHandler;
use snodo_std::http::{HttpConfig, HttpListener, McpService, ShutdownHandle, TlsConfig};
use tokio::net::TcpStream;
use tokio_rustls::rustls::RootCertStore;

use http_client::{PATIENCE, message, post, tls};

struct Echo;

impl Registry for Echo {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("ping")];
        TOOLS
    }
}

impl AsyncHandler for Echo {
    async fn call_tool<'o>(
        &self,
        _: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        Ok(reply.text("pong"))
    }
}

/// A certificate for `localhost` made now, and an HTTPS listener serving with it.
async fn start() -> (SocketAddr, String, rcgen::Certificate, ShutdownHandle) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).expect("cert");
    let tls = TlsConfig::from_pem(
        made.cert.pem().as_bytes(),
        made.signing_key.serialize_pem().as_bytes(),
    )
    .expect("TLS configuration");
    let server =
        Arc::new(Server::new(Config::new("tls", "1.0.0"), Echo).expect("valid definitions"));
    let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
    let listener = HttpListener::bind_service(McpService::new(server, config))
        .await
        .expect("binds")
        .with_tls(tls);
    let addr = listener.local_addr().unwrap();
    let url = listener.url().unwrap();
    let shutdown = listener.shutdown_handle();
    tokio::spawn(listener.serve());
    (addr, url, made.cert, shutdown)
}

#[tokio::test]
async fn a_client_that_trusts_the_certificate_gets_answers_over_https() {
    let (addr, url, cert, shutdown) = start().await;
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let tls = tls::connect(addr, tls::trusting(&cert))
        .await
        .expect("handshake");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(connection);
    // Two requests on one connection: keep-alive works through TLS.
    for id in 1..=2 {
        let request = post(
            addr,
            &message(
                json!(id),
                "tools/call",
                json!({"name": "ping", "arguments": {}}),
            ),
        );
        let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["id"], id);
        assert_eq!(body["result"]["content"][0]["text"], "pong");
    }
    shutdown.shutdown();
}

#[tokio::test]
async fn a_client_that_does_not_trust_it_or_speaks_plain_http_gets_nothing() {
    let (addr, _url, _cert, shutdown) = start().await;
    let refused = tls::connect(addr, RootCertStore::empty()).await;
    assert!(
        refused.is_err(),
        "an untrusted certificate fails the handshake"
    );

    let stream = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let request = post(addr, &message(json!(1), "tools/list", json!({})));
    let plain = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("the server ends the connection in time");
    assert!(plain.is_err(), "plain HTTP gets no response: {plain:?}");
    shutdown.shutdown();
}

#[test]
fn malformed_pem_is_refused_with_a_message() {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let key = made.signing_key.serialize_pem();
    let no_cert = TlsConfig::from_pem(b"", key.as_bytes()).unwrap_err();
    assert!(no_cert.to_string().contains("certificate"), "{no_cert}");
    let no_key = TlsConfig::from_pem(made.cert.pem().as_bytes(), b"junk").unwrap_err();
    assert!(no_key.to_string().contains("private key"), "{no_key}");
}
