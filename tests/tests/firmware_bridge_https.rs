//! The serial bridge on the server's own listener (`HttpListener::bind_service` with a
//! `BridgeService`): HTTPS comes with it, the same TLS path as a server's. The device is the
//! unchanged firmware on a pseudo-terminal; the bridge runs in process with a certificate the
//! test makes, and a client that trusts only that certificate reaches the device's tools.

mod firmware_common;

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use firmware_common::*;
use http_body_util::{BodyExt, Full};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use snodo_core::io::Framing;
use snodo_std::bridge::{BridgeService, Device as Link, DeviceConfig, SerialConfig};
use snodo_std::http::{HttpConfig, HttpListener, TlsConfig};
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

/// A client trusting `cert` alone, connected to `addr` as `localhost`.
async fn connect(
    addr: SocketAddr,
    cert: &rcgen::Certificate,
) -> std::io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
    let mut roots = RootCertStore::empty();
    roots.add(cert.der().clone()).expect("a certificate");
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("a name");
    TlsConnector::from(Arc::new(config))
        .connect(name, stream)
        .await
}

/// `body` POSTed with the headers a 2026-07-28 client sends.
fn post(addr: SocketAddr, body: &Value) -> Request<Full<Bytes>> {
    Request::post(format!("https://localhost:{}/mcp", addr.port()))
        .header("host", format!("localhost:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .header("mcp-method", body["method"].as_str().unwrap())
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap()
}

#[test]
fn the_bridge_serves_https_through_the_servers_listener() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let tls = TlsConfig::from_pem(
            made.cert.pem().as_bytes(),
            made.signing_key.serialize_pem().as_bytes(),
        )
        .expect("TLS configuration");
        let link = Link::open(DeviceConfig::new(SerialConfig {
            path: pty.slave_path.clone(),
            baud: 115_200,
            framing: Framing::Cobs,
        }))
        .expect("the port opens");
        let config = HttpConfig::new().with_addr(SocketAddr::from(([127, 0, 0, 1], 0)));
        let listener = HttpListener::bind_service(BridgeService::new(link, config))
            .await
            .expect("binds")
            .with_tls(tls);
        let addr = listener.local_addr().unwrap();
        assert!(listener.url().unwrap().starts_with("https://"));
        let shutdown = listener.shutdown_handle();
        let served = tokio::spawn(listener.serve());

        let stream = connect(addr, &made.cert).await.expect("the handshake");
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("HTTP over TLS");
        tokio::spawn(connection);
        let response = sender
            .send_request(post(addr, &request(1, "tools/list", json!({}))))
            .await
            .expect("a response");
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let reply: Value = serde_json::from_slice(&body).expect("JSON");
        let names: Vec<&str> = reply["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("the device's tools: {reply}"))
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["read_sensor"],
            "the first page of the device's tools: {reply}"
        );

        // A plain-text client gets no MCP answer from the HTTPS port.
        let plain = tokio::net::TcpStream::connect(addr).await.unwrap();
        let plain = hyper::client::conn::http1::handshake(TokioIo::new(plain)).await;
        if let Ok((mut sender, connection)) = plain {
            tokio::spawn(connection);
            let answered = sender
                .send_request(post(addr, &request(2, "tools/list", json!({}))))
                .await;
            assert!(answered.is_err(), "plain HTTP is not served: {answered:?}");
        }

        shutdown.shutdown();
        served.await.unwrap().expect("the listener stops cleanly");
    });
    stop(&mut device);
}
