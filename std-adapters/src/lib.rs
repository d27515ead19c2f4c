//! # snodo-std
//!
//! Host adapters for [`snodo_core`]: asynchronous handlers ([`AsyncHandler`]), the tokio
//! stdio transport ([`stdio`]) and the Streamable HTTP transport on hyper ([`http`]), with
//! what a deployment needs around them: state key rings from configuration, reloaded without
//! a restart ([`keys`]), and draining on `SIGTERM` ([`signals`]).
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
//!     async fn call_tool(&self, _: &ToolCall<'_>, reply: ToolReply<'_>) -> Result<Done, Error> {
//!         Ok(reply.text("pong"))
//!     }
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let server = Arc::new(Server::new(Config::new("ping", "1.0.0"), App));
//! serve_stdio(server, StdioConfig::default()).await
//! # }
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(unix)]
pub mod bridge;
pub mod client;
mod clock;
pub mod events;
pub mod handler;
pub mod http;
pub mod keys;
pub mod secret;
mod server_slot;
pub mod signals;
pub mod stdio;

pub use clock::unix_seconds;
pub use handler::{AsyncHandler, handle, run_call};
pub use secret::{process_state_options, random_secret};
pub use server_slot::ServerSlot;
