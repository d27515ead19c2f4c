//! HTTPS for the listener with rustls (feature `tls`): a certificate chain and key from PEM,
//! and the client side the JWKS fetch uses for `https` URLs.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::net::TcpStream;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore, ServerConfig};
use tokio_rustls::{TlsAcceptor, TlsConnector, client, server};

/// A server certificate chain and its private key, ready to accept TLS connections
/// (TLS 1.2 and 1.3, ALPN `http/1.1`, the `ring` provider).
#[derive(Clone)]
pub struct TlsConfig {
    acceptor: TlsAcceptor,
}

impl fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsConfig").finish_non_exhaustive()
    }
}

fn invalid(what: &str, e: impl fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("{what}: {e}"))
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl TlsConfig {
    /// The chain (leaf first) and key from PEM files, as `--tls-cert` and `--tls-key` name
    /// them. The key may be PKCS#8, PKCS#1 (RSA) or SEC1 (EC).
    pub fn from_pem_files(cert: &Path, key: &Path) -> io::Result<Self> {
        let read = |path: &Path| {
            std::fs::read(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        };
        Self::from_pem(&read(cert)?, &read(key)?)
    }

    /// The chain (leaf first) and key from PEM text.
    pub fn from_pem(cert: &[u8], key: &[u8]) -> io::Result<Self> {
        let chain = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid("certificate", e))?;
        if chain.is_empty() {
            return Err(invalid("certificate", "no CERTIFICATE block"));
        }
        let key = PrivateKeyDer::from_pem_slice(key).map_err(|e| invalid("private key", e))?;
        let mut config = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| invalid("TLS", e))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| invalid("certificate and key", e))?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(TlsConfig {
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// Runs the server side of the handshake on `stream`.
    pub(crate) async fn accept(
        &self,
        stream: TcpStream,
    ) -> io::Result<server::TlsStream<TcpStream>> {
        self.acceptor.accept(stream).await
    }
}

/// Runs the client side of the handshake with `host` on `stream`, trusting `roots` (the
/// Mozilla roots when `None`). Only the JWKS fetch of feature `auth` connects out.
#[cfg_attr(not(feature = "auth"), allow(dead_code))]
pub(crate) async fn connect(
    stream: TcpStream,
    host: &str,
    roots: Option<Arc<RootCertStore>>,
) -> io::Result<client::TlsStream<TcpStream>> {
    let roots = roots.unwrap_or_else(|| {
        Arc::new(RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        })
    });
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid("TLS", e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(host.to_owned()).map_err(|e| invalid("server name", e))?;
    TlsConnector::from(Arc::new(config))
        .connect(name, stream)
        .await
}

/// One HTTPS connection: the handshake within `timeout`, then HTTP/1.1 with `service`,
/// watched for graceful shutdown.
pub(crate) async fn serve_tls<S>(
    tls: TlsConfig,
    stream: TcpStream,
    timeout: std::time::Duration,
    http: hyper::server::conn::http1::Builder,
    service: S,
    watcher: hyper_util::server::graceful::Watcher,
) where
    S: hyper::service::HttpService<hyper::body::Incoming> + Send,
    S::Future: Send + 'static,
    S::ResBody: Send + 'static,
    <S::ResBody as http_body::Body>::Data: Send,
    <S::ResBody as http_body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = match tokio::time::timeout(timeout, tls.accept(stream)).await {
        Ok(Ok(stream)) => stream,
        Ok(Err(e)) => return tracing::debug!("TLS handshake failed: {e}"),
        Err(_) => return tracing::debug!("TLS handshake timed out"),
    };
    let connection = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
    if let Err(e) = watcher.watch(connection).await {
        tracing::debug!("connection ended: {e}");
    }
}
