//! The knobs of the HTTP listener, and what each one costs.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use crate::legacy::{BridgeConfig, SessionLimits};

/// Which values of a header are allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllowList {
    /// Any value.
    Any,
    /// Only these entries (see [`HttpConfig::hosts`] and [`HttpConfig::origins`] for how an
    /// entry matches).
    Only(Vec<String>),
}

impl AllowList {
    /// A list of these entries.
    pub fn only<I: IntoIterator<Item = S>, S: Into<String>>(entries: I) -> Self {
        AllowList::Only(entries.into_iter().map(Into::into).collect())
    }
}

/// Configuration of the Streamable HTTP listener ([`HttpListener`](super::HttpListener)) and
/// of the service it runs ([`McpService`](super::McpService)).
///
/// Memory is bounded by these numbers: at most `max_connections` connections, each with at
/// most one request in flight (HTTP/1.1), which holds its body (at most `max_body_len`
/// bytes), one output buffer of `max_response_len` bytes and at most `notification_queue`
/// progress or log notifications waiting for the client. Up to 64 idle output buffers are
/// kept for reuse.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// Where the listener binds. Default `127.0.0.1:8080`: loopback only. Binding another
    /// address does not widen [`hosts`](Self::hosts) or [`origins`](Self::origins).
    pub addr: SocketAddr,
    /// The MCP endpoint's path; other paths are 404. `None` serves every path (for a service
    /// mounted under a router that already chose the path). Default `/mcp`.
    pub path: Option<String>,
    /// Allowed `Host` header values; any other is 403 (DNS rebinding protection). An entry
    /// without a port (`localhost`) allows any port, one with a port (`example.com:8443`)
    /// only that one; names compare case-insensitively. A request without `Host` (not from a
    /// browser) passes. Default: `localhost`, `127.0.0.1`, `[::1]`.
    pub hosts: AllowList,
    /// Allowed `Origin` header values; any other is 403. An entry is `scheme://host` (any
    /// port) or `scheme://host:port`. A request without `Origin` passes. Default: `http` and
    /// `https` on `localhost`, `127.0.0.1` and `[::1]`.
    pub origins: AllowList,
    /// Largest request body in bytes; a larger one is 413. Default 1 MiB, the core's host
    /// message limit.
    pub max_body_len: usize,
    /// Size of each request's output buffer: the largest response the server can send. A
    /// result that does not fit is answered -32603 by the core. Default 1 MiB.
    pub max_response_len: usize,
    /// Most open connections; the listener stops accepting while this many are open.
    /// Default 1024.
    pub max_connections: usize,
    /// Longest wait for a request's headers (also how long an idle keep-alive connection
    /// stays open). Default 30 s.
    pub header_read_timeout: Duration,
    /// Longest wait for a request's whole body once its headers arrived; slower is 408.
    /// Default 30 s.
    pub body_read_timeout: Duration,
    /// How long a shutdown waits for requests in flight before dropping them. Default 10 s.
    pub shutdown_grace: Duration,
    /// How often an idle `subscriptions/listen` stream sends an SSE comment so proxies and
    /// clients keep it open. `None` sends none. Default 15 s.
    pub keep_alive: Option<Duration>,
    /// Most progress and log notifications of one request waiting for the client; when
    /// more are made, the newest are dropped. Default 64.
    pub notification_queue: usize,
    /// Whether a `notifications/cancelled` POST stops the request it names (among the
    /// requests in flight of the same principal, and only when exactly one has that id).
    /// Over HTTP a client cancels by closing the stream; this is a best-effort extra.
    /// Default true.
    pub cancel_by_notification: bool,
    /// The bounds of the legacy sessions (`initialize` era): how many, how long idle, and
    /// what each may hold. Sessions live in this process: a cluster needs sticky sessions
    /// on `Mcp-Session-Id` for legacy clients (`docs/deploy.md`).
    pub legacy_sessions: SessionLimits,
    /// The bounds of the bridge that serves a legacy session's requests whose handlers ask
    /// for input (`input_required`): legs per request, the wait for each answer, the answers'
    /// size, and how many bridged requests of a session wait at once.
    pub bridge: BridgeConfig,
}

/// The loopback names allowed by default.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl HttpConfig {
    /// The defaults.
    pub fn new() -> Self {
        HttpConfig {
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 8080)),
            path: Some("/mcp".to_owned()),
            hosts: AllowList::only(LOOPBACK),
            origins: AllowList::only(
                ["http", "https"]
                    .iter()
                    .flat_map(|s| LOOPBACK.iter().map(move |h| format!("{s}://{h}"))),
            ),
            max_body_len: 1 << 20,
            max_response_len: 1 << 20,
            max_connections: 1024,
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(10),
            keep_alive: Some(Duration::from_secs(15)),
            notification_queue: 64,
            cancel_by_notification: true,
            legacy_sessions: SessionLimits::DEFAULT,
            bridge: BridgeConfig::DEFAULT,
        }
    }

    /// Binding another address (port 0 picks a free one).
    #[must_use]
    pub fn with_addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// With another endpoint path (`None`: every path).
    #[must_use]
    pub fn with_path(mut self, path: Option<&str>) -> Self {
        self.path = path.map(str::to_owned);
        self
    }

    /// With other allowed hosts.
    #[must_use]
    pub fn with_hosts(mut self, hosts: AllowList) -> Self {
        self.hosts = hosts;
        self
    }

    /// With other allowed origins.
    #[must_use]
    pub fn with_origins(mut self, origins: AllowList) -> Self {
        self.origins = origins;
        self
    }

    /// With another body limit.
    #[must_use]
    pub fn with_max_body_len(mut self, bytes: usize) -> Self {
        self.max_body_len = bytes;
        self
    }

    /// With another output buffer size.
    #[must_use]
    pub fn with_max_response_len(mut self, bytes: usize) -> Self {
        self.max_response_len = bytes;
        self
    }

    /// With another connection bound.
    #[must_use]
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// With another header read timeout.
    #[must_use]
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// With another body read timeout.
    #[must_use]
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// With another shutdown grace period.
    #[must_use]
    pub fn with_shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// With another keep-alive interval for listen streams.
    #[must_use]
    pub fn with_keep_alive(mut self, every: Option<Duration>) -> Self {
        self.keep_alive = every;
        self
    }

    /// With another per-request notification queue length.
    #[must_use]
    pub fn with_notification_queue(mut self, messages: usize) -> Self {
        self.notification_queue = messages;
        self
    }

    /// Whether `notifications/cancelled` stops requests.
    #[must_use]
    pub fn with_cancel_by_notification(mut self, cancel: bool) -> Self {
        self.cancel_by_notification = cancel;
        self
    }
}

impl HttpConfig {
    /// With other bounds for legacy sessions.
    #[must_use]
    pub fn with_legacy_sessions(mut self, limits: SessionLimits) -> Self {
        self.legacy_sessions = limits;
        self
    }

    /// With other bounds for the bridge of legacy sessions.
    #[must_use]
    pub fn with_bridge(mut self, bridge: BridgeConfig) -> Self {
        self.bridge = bridge;
        self
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self::new()
    }
}
