//! The `preferences` example deployed with every `--http` flag of features `auth` and
//! `tls`: HTTPS with a certificate made by the test, bearer tokens from the test's
//! authorization server, and the operations endpoint scraped after the requests.

mod auth_fixture;
mod http_client;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;

use auth_fixture::{ISSUER, JwksServer, RESOURCE, SigningKey, bearer, jwks};
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore};

use http_client::{PATIENCE, message, post, send};

fn example() -> Command {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let path = dir
        .join("examples")
        .join(format!("preferences{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing", path.display());
    Command::new(path)
}

/// Kills the child when dropped, so a failing test leaves no server behind.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A directory of this test's own, removed at the end.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sends `request` over a TLS connection that trusts `cert` only.
async fn send_tls(
    addr: SocketAddr,
    cert: &rcgen::Certificate,
    request: Request<Full<Bytes>>,
) -> (StatusCode, serde_json::Value) {
    let mut roots = RootCertStore::empty();
    roots.add(cert.der().clone()).unwrap();
    let config =
        ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
    let stream = TcpStream::connect(addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let tls = TlsConnector::from(Arc::new(config))
        .connect(name, stream)
        .await
        .expect("handshake");
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(connection);
    let response = tokio::time::timeout(PATIENCE, sender.send_request(request))
        .await
        .unwrap()
        .unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or_default())
}

#[tokio::test]
async fn the_example_serves_https_with_bearer_tokens_and_metrics() {
    let dir = TempDir(std::env::temp_dir().join(format!("snodo-deploy-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert_path, key_path) = (dir.0.join("cert.pem"), dir.0.join("key.pem"));
    std::fs::write(&cert_path, made.cert.pem()).unwrap();
    std::fs::write(&key_path, made.signing_key.serialize_pem()).unwrap();
    let key = SigningKey::ec("deploy");
    let jwks_server = JwksServer::start(jwks(&[&key])).await;

    let mut child = Child(
        example()
            .arg("--http")
            .arg("127.0.0.1:0")
            .arg("--tls-cert")
            .arg(&cert_path)
            .arg("--tls-key")
            .arg(&key_path)
            .args(["--auth-issuer", ISSUER, "--auth-jwks", &jwks_server.url])
            .args(["--auth-resource", RESOURCE, "--auth-scopes", "prefs:read"])
            .args(["--auth-tool-scope", "preference_preview=prefs:write"])
            .args(["--metrics", "127.0.0.1:0"])
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts"),
    );
    let stdout = child.0.stdout.take().unwrap();
    let stderr = child.0.stderr.take().unwrap();
    // The log names the operations endpoint's address; the rest of it is drained so the
    // server never writes into a closed pipe.
    let (found, ops) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let addr = line
                .contains("operations endpoint")
                .then(|| {
                    line.split("addr=")
                        .nth(1)?
                        .split_whitespace()
                        .next()?
                        .parse()
                        .ok()
                })
                .flatten();
            if let Some(addr) = addr {
                let _ = found.send(addr);
            }
        }
    });
    let started = tokio::task::spawn_blocking(move || {
        let mut url = String::new();
        BufReader::new(stdout).read_line(&mut url).expect("a line");
        let ops: Option<SocketAddr> = ops.recv_timeout(PATIENCE).ok();
        (url, ops)
    });
    // Past the patience, dropping the child ends its output and so the reading.
    let (url, ops) = tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the URL in time")
        .unwrap();
    let port: u16 = url
        .trim_end()
        .strip_prefix("https://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/mcp"))
        .unwrap_or_else(|| panic!("an https URL: {url:?}"))
        .parse()
        .unwrap();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let ops = ops.expect("the operations endpoint's address in the log");

    let list = || post(addr, &message(json!(1), "tools/list", json!({})));
    let (status, _) = send_tls(addr, &made.cert, list()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let reader = key.token(json!({"sub": "dana", "scope": "prefs:read"}));
    let (status, body) = send_tls(addr, &made.cert, bearer(list(), &reader)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body["result"]["tools"].is_array());
    let preview = post(
        addr,
        &message(
            json!(2),
            "tools/call",
            json!({"name": "preference_preview", "arguments": {"subject": "x"}}),
        ),
    );
    let (status, _) = send_tls(addr, &made.cert, bearer(preview, &reader)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let get = |path: &str| {
        Request::get(format!("http://{ops}{path}"))
            .header("host", ops.to_string())
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    assert_eq!(send(ops, get("/readyz")).await.status, StatusCode::OK);
    let metrics = send(ops, get("/metrics")).await;
    let text = String::from_utf8(metrics.body.to_vec()).unwrap();
    for line in [
        r#"mcp_requests_total{method="tools/list",outcome="complete"} 1"#,
        r#"mcp_requests_total{method="unknown",outcome="unauthorized"} 1"#,
        r#"mcp_requests_total{method="unknown",outcome="forbidden"} 1"#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
}
