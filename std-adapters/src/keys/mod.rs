//! Sealed-state key rings from configuration, and reloading them without a restart.
//!
//! A cluster behind a load balancer needs every node to hold the same keys, from
//! configuration rather than code. The ring is text, one entry per line, the first sealing:
//!
//! ```text
//! # <key id> <base64 secret of at least 32 random bytes>
//! 2026-10 q0mM2cIbJm8J9yq9m0QpN5y0a3cG4C0XoY1cJv7m3nE=
//! 2026-09 Zq1pC8r6Wb0cXx3tQ5m2JvN4kP8aS7dF1gH6jL9wE2U=
//! ```
//!
//! Blank lines and `#` comments are ignored; entries may also be separated by `;` (for an
//! environment variable). Ids are 1 to 32 characters of `A-Z a-z 0-9 _ -`, at most 8
//! entries. A missing, malformed or weak ring is refused with the line it is on, never
//! echoing a secret.
//!
//! [`KeyRingReloader`] reads the ring from a [`KeyRingSource`], builds the server with the
//! application's factory and keeps it in a [`ServerSlot`](crate::ServerSlot) that the HTTP
//! service reads once per request; [`KeyRingReloader::reload`] (on `SIGHUP` with
//! [`KeyRingReloader::reload_on_sighup`]) swaps in a server with the new ring while requests
//! in flight finish on the one they started with. Rotate with the three steps of
//! `docs/state.md`, each step on every node before the next.
//!
//! ```no_run
//! use std::sync::Arc;
//! use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
//! use snodo_core::state::Ttl;
//! use snodo_std::AsyncHandler;
//! use snodo_std::http::{HttpConfig, HttpListener, McpService};
//! use snodo_std::keys::{KeyRingReloader, KeyRingSource};
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
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let source = KeyRingSource::File("/etc/snodo/keys".into());
//! let reloader = Arc::new(KeyRingReloader::start(source, Ttl::DEFAULT, |state| {
//!     Server::new(Config::new("ping", "1.0.0").with_state(state), App)
//! })?);
//! reloader.reload_on_sighup()?;
//! let service = McpService::with_slot(reloader.slot().clone(), HttpConfig::new());
//! HttpListener::bind_service(service).await?.serve().await?;
//! # Ok(())
//! # }
//! ```

mod reload;
mod ring_text;
mod source;

pub use reload::{KeyRingReloader, MAX_RINGS_PER_PROCESS, ReloadError, ServerFactory};
pub use ring_text::{Place, RingText, RingTextError};
pub use source::{KeyRingError, KeyRingProblem, KeyRingSource};
