//! The TCP side: accepting connections within a bound, serving HTTP/1.1 on each with a header
//! read timeout, and shutting down gracefully; written once for every [`Endpoint`] (the
//! server's [`McpService`], and the serial bridge's `BridgeService`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use snodo_core::server::Server;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use super::body::McpBody;
use super::config::HttpConfig;
use super::service::McpService;
use crate::handler::AsyncHandler;

/// What a listener serves on every connection: the MCP endpoint of a server in this
/// process ([`McpService`]) or of a device behind the serial bridge (`BridgeService`, feature
/// `bridge`). Implemented by those two; the listener's connection bound, timeouts, TLS and
/// graceful shutdown are the same for both.
pub trait Endpoint: Clone + Send + Sync + 'static + sealed::Sealed {
    /// The configuration (address, connection bound, timeouts, grace).
    fn config(&self) -> &HttpConfig;

    /// Answers one HTTP request.
    fn answer(
        &self,
        request: hyper::Request<Incoming>,
    ) -> impl Future<Output = hyper::Response<McpBody>> + Send;

    /// Ends the endpoint's long-lived streams with their closing response (at shutdown).
    fn close_streams(&self);
}

pub(crate) mod sealed {
    /// Only this crate's endpoints run under its listener.
    pub trait Sealed {}
}

impl<A> sealed::Sealed for McpService<A> {}

impl<A: AsyncHandler + 'static> Endpoint for McpService<A> {
    fn config(&self) -> &HttpConfig {
        McpService::config(self)
    }

    fn answer(
        &self,
        request: hyper::Request<Incoming>,
    ) -> impl Future<Output = hyper::Response<McpBody>> + Send {
        self.handle(request)
    }

    fn close_streams(&self) {
        McpService::close_streams(self);
    }
}

/// A bound Streamable HTTP listener for an [`Endpoint`]. [`serve`](Self::serve) runs it
/// until a [`ShutdownHandle`] asks it to stop.
#[derive(Debug)]
pub struct HttpListener<E> {
    listener: TcpListener,
    service: E,
    stop: watch::Sender<bool>,
    #[cfg(feature = "tls")]
    tls: Option<super::tls::TlsConfig>,
}

/// Asks a listener to shut down: stop accepting, end subscription streams with their closing
/// response, let requests in flight finish within the grace period, then return.
#[derive(Clone, Debug)]
pub struct ShutdownHandle {
    stop: watch::Sender<bool>,
}

impl ShutdownHandle {
    /// Starts the shutdown (again is harmless).
    pub fn shutdown(&self) {
        self.stop.send_replace(true);
    }
}

impl<A: AsyncHandler + 'static> HttpListener<McpService<A>> {
    /// Binds [`HttpConfig::addr`] for `server`, with anonymous callers and no change events
    /// ([`serve_http`](crate::serve_http) does this and starts the runtime too).
    pub async fn bind(server: Arc<Server<'static, A>>, config: HttpConfig) -> io::Result<Self> {
        Self::bind_service(McpService::new(server, config)).await
    }
}

impl<E: Endpoint> HttpListener<E> {
    /// Binds the address of the service's configuration for `service` (which may carry a
    /// principal hook or an event bus).
    pub async fn bind_service(service: E) -> io::Result<Self> {
        let config = service.config();
        let listener = TcpListener::bind(config.addr).await?;
        let bound = listener.local_addr()?;
        if !bound.ip().is_loopback() && config.hosts == HttpConfig::new().hosts {
            tracing::warn!(
                %bound,
                "listening beyond loopback while only loopback Host names are allowed"
            );
        }
        Ok(HttpListener {
            listener,
            service,
            stop: watch::Sender::new(false),
            #[cfg(feature = "tls")]
            tls: None,
        })
    }

    /// Serves HTTPS: every connection starts with a TLS handshake, which must finish within
    /// [`HttpConfig::header_read_timeout`].
    #[cfg(feature = "tls")]
    #[must_use]
    pub fn with_tls(mut self, tls: super::tls::TlsConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// The bound address (with the port the system picked for port 0).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The MCP endpoint's URL, e.g. `http://127.0.0.1:8080/mcp`.
    pub fn url(&self) -> io::Result<String> {
        let path = self.service.config().path.as_deref().unwrap_or("/");
        #[cfg(feature = "tls")]
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        #[cfg(not(feature = "tls"))]
        let scheme = "http";
        Ok(format!("{scheme}://{}{path}", self.local_addr()?))
    }

    /// The service every connection runs.
    pub fn service(&self) -> &E {
        &self.service
    }

    /// A handle that stops [`serve`](Self::serve).
    pub fn shutdown_handle(&self) -> ShutdownHandle {
        ShutdownHandle {
            stop: self.stop.clone(),
        }
    }

    /// Accepts and serves connections until shut down; returns once requests in flight have
    /// finished or the grace period is over (the rest are dropped).
    pub async fn serve(self) -> io::Result<()> {
        let HttpListener {
            listener,
            service,
            stop,
            #[cfg(feature = "tls")]
            tls,
        } = self;
        let config = service.config().clone();
        let mut stopping = stop.subscribe();
        let slots = Arc::new(Semaphore::new(config.max_connections.max(1)));
        let graceful = GracefulShutdown::new();
        let mut connections = JoinSet::new();
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(config.header_read_timeout)
            .keep_alive(true);
        loop {
            while connections.try_join_next().is_some() {}
            let slot = tokio::select! {
                biased;
                _ = stopping.wait_for(|stop| *stop) => break,
                slot = Arc::clone(&slots).acquire_owned() => match slot {
                    Ok(slot) => slot,
                    Err(_) => break,
                },
            };
            let accepted = tokio::select! {
                biased;
                _ = stopping.wait_for(|stop| *stop) => break,
                accepted = listener.accept() => accepted,
            };
            let (stream, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors and the like: pause rather than spin.
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(%peer, "nodelay: {e}");
            }
            let per_connection = service.clone();
            // Boxed: hyper keeps a slot of the future's size for every connection, idle
            // ones too (1.2 KiB unboxed); boxed, the slot is a pointer and the request's
            // state lives only while the request does.
            let hyper_service = service_fn(move |request: hyper::Request<Incoming>| {
                let service = per_connection.clone();
                Box::pin(
                    async move { Ok::<_, std::convert::Infallible>(service.answer(request).await) },
                )
            });
            #[cfg(feature = "tls")]
            if let Some(tls) = &tls {
                let handshake = super::tls::serve_tls(
                    tls.clone(),
                    stream,
                    config.header_read_timeout,
                    http.clone(),
                    hyper_service,
                    graceful.watcher(),
                );
                connections.spawn(async move {
                    handshake.await;
                    drop(slot);
                });
                continue;
            }
            let connection =
                graceful.watch(http.serve_connection(TokioIo::new(stream), hyper_service));
            connections.spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!(%peer, "connection ended: {e}");
                }
                drop(slot);
            });
        }
        drop(listener);
        service.close_streams();
        while connections.try_join_next().is_some() {}
        let in_flight = connections.len();
        tracing::info!(connections = in_flight, "shutting down");
        tokio::select! {
            () = graceful.shutdown() => tracing::info!("every request in flight finished"),
            () = tokio::time::sleep(config.shutdown_grace) => {
                tracing::warn!(
                    connections = connections.len(),
                    "grace period over; dropping what is still running"
                );
            }
        }
        connections.shutdown().await;
        Ok(())
    }
}
