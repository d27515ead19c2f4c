//! # snodo-core
//!
//! A `no_std`, allocation-free, sans-IO core for Model Context Protocol servers speaking
//! revision 2026-07-28, with multi round-trip requests (MRTR) as a first-class result.
//!
//! The same code answers requests in a microcontroller's firmware and in a host server. It
//! never reads a clock, a socket or a random number generator, and never allocates: the
//! caller owns the input and output buffers, and brings the time and the caller's identity
//! with every round ([`server::Round`]).
//!
//! # A round
//!
//! One request round is one JSON-RPC message in and one out (plus request-scoped
//! notifications such as progress before it):
//!
//! 1. [`server::Server::accept`] parses and admits the message: JSON within
//!    [`json::Limits`], the JSON-RPC envelope ([`rpc`]), the 2026-07-28 `_meta`
//!    ([`protocol::admit`]), the method and the capability it belongs to, the retry
//!    envelope. Errors, `server/discover` and lists are answered here.
//! 2. Tool calls, resource reads, prompt gets and completions come back as a typed
//!    [`server::Call`]. The adapter starts a reply (`call.reply(out, notifier)`) and runs
//!    the application's handler — synchronously in firmware, as a future on a host. The
//!    handler reads its arguments and any answers from the client ([`mrtr`]), opens and
//!    seals request state ([`state`]), and writes its result straight into the output buffer,
//!    returning [`server::Done`] (which holds that buffer) or an [`server::Error`].
//! 3. `call.finish(outcome)` admits the outcome — an `input_required` result only for
//!    tools, resources and prompts, only with input requests this request's client declared
//!    capabilities for, a final result that matches the tool's output schema — and closes
//!    the response with `resultType` and the server's identity, in the buffer the `Done`
//!    carries; `.len(out)` gives its length (writing the response to a handler's error).
//!
//! [`server::Server::drive`] is the one driver of the whole round, bytes in to bytes out: the
//! caller gives it a [`server::Runner`] that runs the handler its way (at once, as a future,
//! cancellable); a 2025-11-25 request is lifted into such rounds by the legacy dialect.
//! [`server::Server::handle`] is its synchronous twin for a [`server::Handler`] (the same steps,
//! no future); the host adapters and the serial loop are thin callers of the two. A call that must outlive the
//! reader's borrow of its bytes keeps a `Copy` [`server::CallHandle`] instead of being
//! accepted again.
//!
//! # Invariants
//!
//! - Nothing of a round outlives it: a server holds no per-request memory, and partial
//!   progress travels in the request itself as a signed `requestState` token.
//! - No input panics: every path from untrusted bytes returns an error, and fuzz targets
//!   keep it so.
//! - A buffer that is too small is an explicit error with the size that was needed, never a
//!   truncation.
//! - Every capacity is a constant or a configuration value: see [`json::Limits`],
//!   [`state::MAX_TOKEN_LEN`], [`state::KeyRing::CAPACITY`].
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(test)]
extern crate std;

mod log;

pub mod client;
#[cfg(feature = "embedded-io")]
pub mod io;
pub mod json;
#[cfg(feature = "legacy")]
pub mod legacy;
pub mod mrtr;
pub mod protocol;
pub mod rpc;
pub mod schema;
pub mod server;
pub mod state;
#[cfg(feature = "tasks")]
pub mod tasks;

// The workspace README's examples (the typed layer's and the core's) are compiled and run as
// doctests of `snodo-std`, which has both crates.

/// The crate README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
