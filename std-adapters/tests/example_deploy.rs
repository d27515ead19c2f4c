//! The `preferences` example deployed with every `--http` flag of features `auth` and
//! `tls`: HTTPS with a certificate made by the test, bearer tokens from the test's
//! authorization server, and the operations endpoint scraped after the requests.

mod auth_fixture;
mod http_client;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;

use auth_fixture::{ISSUER, JwksServer, RESOURCE, SigningKey, bearer, jwks};
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::Full;
use serde_json::json;

use http_client::process::{Child, example};
use http_client::{PATIENCE, message, post, send, tls};

/// A directory of this test's own, removed at the end.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
        .unwrap_or_else(|| {
            panic!(
                "an https URL: {url:?} (an example built without features auth and tls \
                 exits at once: `cargo test -p snodo-std --features auth,tls` builds it with them)"
            )
        })
        .parse()
        .unwrap();
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let ops = ops.expect("the operations endpoint's address in the log");

    let list = || post(addr, &message(json!(1), "tools/list", json!({})));
    let (status, _) = tls::send(addr, &made.cert, list()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let reader = key.token(json!({"sub": "dana", "scope": "prefs:read"}));
    let (status, body) = tls::send(addr, &made.cert, bearer(list(), &reader)).await;
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
    let (status, _) = tls::send(addr, &made.cert, bearer(preview, &reader)).await;
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
        // Refused on its parsed body, so the refusal knows its method.
        r#"mcp_requests_total{method="tools/call",outcome="forbidden"} 1"#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
}
