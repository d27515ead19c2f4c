//! The operations endpoint: metrics and health on a port of their own, away from the
//! public MCP endpoint.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ALLOW, CONTENT_TYPE, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::metrics::Metrics;

/// Most connections the operations endpoint serves at once (scrapers and probes).
const MAX_CONNECTIONS: usize = 32;
/// Longest wait for a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether this process should receive traffic, as `/readyz` reports it. Starts not ready;
/// the host sets it ready once it serves and unready when it starts to drain, and may add
/// checks that must hold too (the task store reachable). Cheap to clone; clones share the
/// flag and the checks.
#[derive(Clone, Default)]
pub struct Health {
    ready: Arc<AtomicBool>,
    checks: Arc<Mutex<Vec<Check>>>,
}

/// A readiness check: cheap, for it runs on every probe.
type Check = Arc<dyn Fn() -> bool + Send + Sync>;

impl std::fmt::Debug for Health {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Health")
            .field("ready", &self.ready.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Health {
    /// Not ready yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ready (or not) for traffic.
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
    }

    /// Ready only while `check` holds as well, for example the task store reachable:
    /// `health.require(move || host.store_reachable())`.
    pub fn require(&self, check: impl Fn() -> bool + Send + Sync + 'static) {
        let mut checks = self.checks.lock().unwrap_or_else(PoisonError::into_inner);
        checks.push(Arc::new(check));
    }

    /// Whether ready for traffic: set ready, and every required check holds.
    pub fn is_ready(&self) -> bool {
        if !self.ready.load(Ordering::Acquire) {
            return false;
        }
        let checks = self.checks.lock().unwrap_or_else(PoisonError::into_inner);
        checks.iter().all(|check| check())
    }
}

/// An HTTP/1.1 listener for operators, on its own address (keep it off the public
/// network):
///
/// - `GET /metrics`: the [`Metrics`] in the OpenMetrics text format (404 without metrics);
/// - `GET /healthz`: `200` while the process serves (liveness);
/// - `GET /readyz`: `200` when [`Health`] is ready, `503` otherwise (readiness).
///
/// At most 32 connections at once, 10 s for a request's headers.
#[derive(Debug)]
pub struct OpsServer {
    listener: TcpListener,
    metrics: Option<Metrics>,
    health: Health,
}

impl OpsServer {
    /// Binds `addr`.
    pub async fn bind(
        addr: SocketAddr,
        metrics: Option<Metrics>,
        health: Health,
    ) -> io::Result<Self> {
        Ok(OpsServer {
            listener: TcpListener::bind(addr).await?,
            metrics,
            health,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until the future is dropped.
    pub async fn serve(self) -> io::Result<()> {
        let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIMEOUT);
        let mut connections = tokio::task::JoinSet::new();
        loop {
            while connections.try_join_next().is_some() {}
            let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
                return Ok(());
            };
            let (stream, _) = match self.listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!("operations endpoint: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let (metrics, health) = (self.metrics.clone(), self.health.clone());
            let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                let response = answer(&request, metrics.as_ref(), &health);
                async move { Ok::<_, Infallible>(response) }
            });
            let connection = http.serve_connection(TokioIo::new(stream), service);
            connections.spawn(async move {
                let _ = connection.await;
                drop(slot);
            });
        }
    }
}

fn answer<B>(
    request: &Request<B>,
    metrics: Option<&Metrics>,
    health: &Health,
) -> Response<Full<Bytes>> {
    let path = request.uri().path();
    let known = matches!(path, "/metrics" | "/healthz" | "/readyz");
    if known && request.method() != Method::GET {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "GET only\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return response;
    }
    match (path, metrics) {
        ("/metrics", Some(metrics)) => {
            let mut response = text(StatusCode::OK, metrics.encode());
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                ),
            );
            response
        }
        ("/healthz", _) => text(StatusCode::OK, "ok\n"),
        ("/readyz", _) if health.is_ready() => text(StatusCode::OK, "ready\n"),
        ("/readyz", _) => text(StatusCode::SERVICE_UNAVAILABLE, "not ready\n"),
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
