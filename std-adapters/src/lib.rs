//! # snodo-std
//!
//! Host adapters for [`snodo_core`]: asynchronous handlers ([`AsyncHandler`]), the tokio
//! stdio transport ([`stdio`]) and the Streamable HTTP transport on hyper ([`http`]), with
//! what a deployment needs around them: state key rings from configuration, reloaded without
//! a restart ([`keys`]), and draining on `SIGTERM` ([`signals`]).
//!
//! A host server is best written on the typed layer (`typed`, feature `typed`): tools,
//! resources, prompts, forms and sealed state as Rust types, served with [`serve_stdio`] or
//! [`serve_http`]. Below it, the byte-level API:
//!
//! The core does the protocol: it admits each message and hands back a typed call; these
//! adapters run the application's `async` handler for it and move the bytes. A server is
//! shared across requests as an `Arc<Server<'static, App>>`:
//!
//! ```no_run
//! use std::sync::Arc;
//! use snodo_core::server::{Config, Done, Error, Registry, Server, Tool, ToolCall, ToolReply};
//! use snodo_std::AsyncHandler;
//! use snodo_std::stdio::{StdioConfig, serve_stdio};
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
//! // `Server::new` checks every definition: a server that was never checked cannot be served.
//! let server = Server::new(Config::new("ping", "1.0.0"), App).map_err(std::io::Error::other)?;
//! serve_stdio(Arc::new(server), StdioConfig::default()).await
//! # }
//! ```
//!
//! # Features
//!
//! - `auth`: `http::auth`, the Streamable HTTP endpoint as an OAuth 2.1 resource server
//!   (bearer JWTs checked against a JWKS, protected resource metadata, scopes).
//! - `tls`: HTTPS for the listener with rustls (`http::TlsConfig`).
//! - `postgres`: `tasks::PostgresTaskStore`, tasks in a PostgreSQL database a cluster shares.
//! - `bridge-bin` (default): the `snodo-bridge` binary.
//! - `log` (default): [`serve_from_args`] sends log output to standard error, by `RUST_LOG`.
//!
//! Metrics, health and the per-request `tracing` span ([`http::ops`]) need no feature.
#![cfg_attr(docsrs, feature(doc_cfg))]
// One call needs `unsafe`: glibc's `malloc_trim` (module `memory`), allowed there alone.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(all(unix, feature = "bridge"))]
pub mod bridge;
mod buffers;
pub mod client;
mod clock;
pub mod events;
pub mod handler;
pub mod http;
mod in_flight;
pub mod keys;
pub mod legacy;
mod memory;
mod message;
pub mod secret;
mod serve;
mod server_slot;
pub mod signals;
pub mod stdio;
pub mod tasks;
#[cfg(feature = "typed")]
pub mod typed;

/// The Rust examples of `docs/auth.md`, compiled as doctests.
#[cfg(all(doctest, feature = "auth"))]
#[doc = include_str!("../../docs/auth.md")]
pub struct AuthGuide;

pub use clock::unix_seconds;
pub use handler::{AsyncHandler, handle, run_call};
pub use secret::{process_state_options, random_secret};
pub use serve::{CheckError, serve_from_args, serve_http, serve_stdio};
pub use server_slot::ServerSlot;

/// The README's examples, compiled and run as doctests (here rather than in `snodo-core`,
/// because they use both crates).
#[cfg(all(doctest, feature = "typed"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The crate README's examples, compiled and run as doctests.
#[cfg(all(doctest, feature = "typed"))]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
