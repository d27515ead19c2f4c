//! The Streamable HTTP transport of MCP 2026-07-28 on hyper 1: one endpoint, one POST per
//! message, no sessions; and on the same endpoint the sessions of 2025-11-25 clients (see
//! [Legacy sessions](#legacy-sessions)).
//!
//! [`McpService`] is the endpoint as a `tower::Service`; [`HttpListener`] runs it on a TCP
//! listener with a connection bound, timeouts and graceful shutdown. Mounted in an axum app
//! instead, it is `Router::new().route_service("/mcp", service)`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
//! use snodo_std::AsyncHandler;
//! use snodo_std::http::{HttpConfig, HttpListener};
//!
//! struct App;
//!
//! impl Registry for App {
//!     fn tools(&self) -> &[Tool<'_>] {
//!         const TOOLS: &[Tool<'static>] = &[Tool::new("ping")];
//!         TOOLS
//!     }
//! }
//!
//! impl AsyncHandler for App {
//!     async fn call_tool<'o>(&self, _: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
//!         Ok(reply.text("pong"))
//!     }
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = Server::new(Config::new("ping", "1.0.0"), App).map_err(std::io::Error::other)?;
//! let listener = HttpListener::bind(Arc::new(server), HttpConfig::new()).await?;
//! println!("{}", listener.url()?); // http://127.0.0.1:8080/mcp
//! let shutdown = listener.shutdown_handle(); // shutdown.shutdown() ends `serve` gracefully
//! listener.serve().await
//! # }
//! ```
//!
//! # How a POST travels
//!
//! 1. **HTTP admission**, before the body is read: another path is 404 (no body), another
//!    method 405 with `Allow: POST`; a `Host` or an `Origin` outside the allow-lists is 403
//!    (loopback names by default, against DNS rebinding); `Content-Type` must be
//!    `application/json` (415, parameters such as `charset` tolerated); `Accept` must allow
//!    both `application/json` and `text/event-stream` (406; `*/*`, `application/*` and
//!    `text/*` count); a body over [`HttpConfig::max_body_len`] is 413 and one slower than
//!    [`HttpConfig::body_read_timeout`] 408. These refusals carry a JSON-RPC error without an
//!    id.
//! 2. **Headers against the body**: a request's `MCP-Protocol-Version`, `Mcp-Method`,
//!    `Mcp-Name` and `Mcp-Param-*` headers are checked by the core's pure
//!    [`check_request`](snodo_core::protocol::http::check_request); a disagreement is 400
//!    with -32020, echoing the request's id. Notifications carry no header requirements.
//! 3. **The round** ([`Server::accept`](snodo_core::server::Server::accept), the
//!    [`AsyncHandler`](crate::AsyncHandler), `finish`):
//!    - a reply is one `application/json` message whose status follows its error code:
//!      400 for -32700, -32600, -32602, -32020, -32021 and -32022, 404 for -32601, 500 for
//!      -32603, 200 otherwise ([`status_for`](snodo_core::protocol::http::status_for));
//!    - when the handler reports progress or logs before it finishes, the response becomes a
//!      `text/event-stream` at the first notification: each message an `event: message`
//!      with one `data:` line, the reply the last event;
//!    - a notification or a client's response is 202 with no body; a
//!      `notifications/cancelled` also stops the request in flight it names, best effort
//!      ([`HttpConfig::cancel_by_notification`]);
//!    - `subscriptions/listen` is an event stream that opens with the acknowledgement,
//!      carries the [`ServerEvent`](crate::events::ServerEvent)s its filter wants (from an
//!      [`EventBus`](crate::events::EventBus) given to [`McpService::with_events`]) and SSE
//!      comments as keep-alives, and ends with the closing response when the service closes
//!      its streams (at shutdown).
//!
//! A client that closes the connection cancels its request: the handler's future is dropped
//! and nothing more is sent. On a modern request a stray `Mcp-Session-Id` or `Last-Event-ID`
//! is ignored.
//!
//! # Legacy sessions
//!
//! Clients of the `initialize` era (2025-11-25, 2025-06-18, 2025-03-26) are served on the
//! same URL unless the server's [`Config::eras`](snodo_core::server::Config::eras) says
//! otherwise ([`EraSupport`]). Each POST is
//! classified by its message: a request with the 2026-07-28 `_meta` envelope takes the path
//! above whatever its headers; `initialize` opens a session, whose random id (32 hex digits)
//! the response carries in `Mcp-Session-Id`; every other message with that header belongs to
//! its session:
//!
//! - an unknown, ended or expired session is 404; an `MCP-Protocol-Version` that is not a
//!   served legacy version is 400 (absent: the negotiated one); a message without the header
//!   and without the envelope takes the modern path and gets its 400;
//! - requests run the same handlers (lifted into the modern shape with the session's
//!   version, capabilities and log level, their results lowered to the 2025 shape); JSON-RPC
//!   errors are HTTP 200;
//! - a handler that returns `input_required` is bridged ([`BridgeConfig`]): each input
//!   request goes to the client as `elicitation/create`, `sampling/createMessage` or
//!   `roots/list` on the POST's event stream (never one the client did not declare in
//!   `initialize`), the client POSTs its answers to the session (202), and the handler runs
//!   again with them;
//! - a response with progress, log messages or bridged requests is an event stream: a
//!   priming event (id, `retry`, empty data), then events with ids `<stream>-<n>`. Closing
//!   the connection does not cancel the request (2025-11-25): it runs on, and `GET` with
//!   `Last-Event-ID` resumes its stream from the events the session keeps
//!   ([`SessionLimits::replay_bytes`]); `notifications/cancelled` cancels it;
//! - `ping`, `logging/setLevel` and `resources/subscribe`/`unsubscribe` are the session's;
//!   notifications and the client's responses are 202;
//! - `GET` opens the session's event stream (one at a time, 409 for a second): list changes
//!   and updates of the resources it subscribed to, from the [`EventBus`](crate::events)
//!   given to [`McpService::with_events`]; `DELETE` ends the session.
//!
//! Host, Origin and authentication rules hold for both eras (a request's per-target scopes
//! are read from its body, which a 2025-11-25 request carries without `Mcp-Method` or
//! `Mcp-Name` headers), and a session is reachable only by the principal that opened it. Sessions are bounded by [`SessionLimits`] (how many, idle
//! expiry, subscriptions and waiting answers per session) and live in this process: behind a
//! balancer, legacy clients need sticky sessions (`docs/deploy.md`).
//!
//! # Who and when
//!
//! Callers are [`Principal::Anonymous`](snodo_core::server::Principal) unless
//! [`McpService::with_principal`] names them from the request (after an authentication layer
//! in front has verified them), or the OAuth resource server of `McpService::with_auth`
//! (feature `auth`, module `auth`) has verified their bearer token; `now` is the system
//! clock in Unix seconds. Each request runs in a `tracing` span, and
//! [`McpService::with_metrics`] counts it ([`ops`]). With feature `tls`,
//! `HttpListener::with_tls` serves HTTPS. `docs/auth.md` shows all of it.

pub(crate) mod admission;
#[cfg(feature = "auth")]
pub mod auth;
pub(crate) mod body;
mod config;
pub(crate) mod grant;
pub(crate) mod headers;
pub(crate) mod legacy;
pub(crate) mod listener;
pub mod ops;
pub(crate) mod service;
#[cfg(feature = "tls")]
mod tls;

pub use crate::legacy::{BridgeConfig, EraSupport, SessionLimits};
pub use body::McpBody;
pub use config::{AllowList, HttpConfig};
pub use listener::{Endpoint, HttpListener, ShutdownHandle};
pub use service::{McpService, PrincipalHook};
#[cfg(feature = "tls")]
pub use tls::TlsConfig;
