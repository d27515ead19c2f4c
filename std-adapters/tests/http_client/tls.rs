//! The client side of HTTPS (feature `tls`): a connector that trusts one certificate, and
//! a request sent through it.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

use super::PATIENCE;

/// A TLS client trusting `roots` only.
pub fn client(roots: RootCertStore) -> TlsConnector {
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
    TlsConnector::from(Arc::new(config))
}

/// Roots holding `cert` alone.
pub fn trusting(cert: &rcgen::Certificate) -> RootCertStore {
    let mut roots = RootCertStore::empty();
    roots.add(cert.der().clone()).expect("a certificate");
    roots
}

/// A TLS connection to `addr` as `localhost`, trusting `roots` only.
pub async fn connect(
    addr: SocketAddr,
    roots: RootCertStore,
) -> std::io::Result<TlsStream<TcpStream>> {
    let stream = TcpStream::connect(addr).await?;
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("a name");
    client(roots).connect(name, stream).await
}

/// Sends `request` on a fresh TLS connection trusting `cert`; the status and the body as
/// JSON (`null` when it is not).
pub async fn send(
    addr: SocketAddr,
    cert: &rcgen::Certificate,
    request: Request<Full<Bytes>>,
) -> (StatusCode, serde_json::Value) {
    let tls = connect(addr, trusting(cert)).await.expect("handshake");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("HTTP handshake");
    tokio::spawn(connection);
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .expect("a response in time")
        .expect("a response");
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("a body")
        .to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or_default())
}
