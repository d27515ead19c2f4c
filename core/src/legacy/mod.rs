//! The 2025-11-25 dialect (the `initialize` era), as sans-IO pieces beside the 2026-07-28
//! [`protocol`](crate::protocol): era detection, the handshake, the session's own methods,
//! and the bridge that lets one MRTR handler serve both eras.
//!
//! Nothing here allocates or keeps memory of its own: a legacy session is the fixed-size
//! [`Session`] value, a bridged leg the fixed-size [`Leg`] value, and every message is bytes
//! in, bytes out, through caller-owned buffers.
//!
//! # How an adapter drives it
//!
//! 1. **Era.** A connection that carries one client (stdio, a serial link): feed each parsed
//!    message to one [`Connection`] ([`Connection::read`]), which holds the era gate and the
//!    session and says what to do ([`Action`]): the first `initialize` makes it legacy
//!    ([`Action::Initialize`]: answer it and [`Connection::open`] the session), the first
//!    `_meta`-enveloped request (or `server/discover`) modern ([`Action::Modern`]); a later
//!    message of the other era is refused in the reply it writes; every other message is the
//!    session's [`Step`] (steps 3 to 5). Underneath are [`EraGate::admit`] and
//!    [`EraMismatch::write_error`]. HTTP: [`classify_post`] each POST — modern requests take
//!    the modern path whatever their headers, `initialize` opens a session (mint a
//!    [`SessionId`]), other messages with `Mcp-Session-Id` go to their session (404 when it is
//!    unknown or ended; [`check_version_header`] before anything else, 400 when it fails;
//!    `GET` opens the session's SSE stream, `DELETE` ends the session).
//! 2. **Handshake.** [`parse_initialize`] gives the [`Session`] (version negotiated,
//!    capabilities kept for the whole session); answer with [`write_initialize_result`].
//! 3. **Each later message:** [`Session::step`] answers `ping`, `logging/setLevel`, a second
//!    `initialize` and unknown methods itself, notes `notifications/initialized`, and hands
//!    back cancellations, subscriptions, client answers ([`Step::Answer`]) and the requests
//!    the modern handler path serves ([`Step::Modern`]).
//! 4. **Modern requests:** [`drive`](fn@drive) owns the rest of the request's round, through the
//!    [`Link`] and [`Scratch`] the transport gives it (keep a [`RequestHandle`] to run it
//!    later from the bytes read once): [`lift_request`] writes the 2026-07-28 request (the
//!    session's envelope in `_meta`), the link runs it, [`settle`] lowers a final result to
//!    the 2025 shape, and `input_required` is bridged.
//! 5. **Bridge** (inside [`drive`](fn@drive)): [`Leg::open`] (capability admission, bounded rounds),
//!    send each [`Leg::write_request`] to the client (stdio: on the connection; HTTP: in the
//!    POST's SSE response), take each answer the link routes by [`BridgeId`] into
//!    [`Leg::accept`] (read once where it arrived: [`ReadAnswer`]) (the link times each wait; [`write_cancelled`] for what is left when
//!    the wait ends), then [`Leg::write_retry`] and run the retry as in step 4. Errors end
//!    the request with [`BridgeError::write_error`] or [`write_refused`].
//! 6. **Server notifications:** [`write_event`] gives list changes and resource updates their
//!    legacy shape (updates only to sessions subscribed to the URI, through a bounded table
//!    the adapter keeps). Progress and log messages the handler sends pass unchanged.
//!
//! The handshake and a ping, as a stdio adapter runs them:
//!
//! ```
//! use snodo_core::json::{Limits, Writer};
//! use snodo_core::legacy::{Era, EraGate, EraSupport, Step, parse_initialize, write_initialize_result};
//! use snodo_core::rpc::{Incoming, parse};
//! use snodo_core::server::{Config, ServerCapabilities};
//!
//! let served = ServerCapabilities { tools: true, ..ServerCapabilities::default() };
//! let mut gate = EraGate::new(EraSupport::Both);
//! let mut out = [0u8; 256];
//!
//! let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":
//!     "2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"host","version":"1"}}}"#;
//! let message = parse(init, &Limits::HOST).unwrap();
//! assert_eq!(gate.admit(&message), Ok(Era::Legacy));
//! let Incoming::Request(request) = message else { unreachable!() };
//! let mut session = parse_initialize(request.params).unwrap();
//! let mut w = Writer::new(&mut out);
//! write_initialize_result(&mut w, request.id, &session, &Config::new("device", "1.0"), served);
//! let n = w.finish().unwrap();
//! assert_eq!(
//!     &out[..n],
//!     br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"device","version":"1.0"}}}"#
//! );
//!
//! let ping = parse(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, &Limits::HOST).unwrap();
//! assert_eq!(gate.admit(&ping), Ok(Era::Legacy));
//! let mut w = Writer::new(&mut out);
//! assert!(matches!(session.step(&ping, served, &mut w), Step::Replied));
//! let n = w.finish().unwrap();
//! assert_eq!(&out[..n], br#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
//! ```
//!
//! `snodo_std::legacy` gives these pieces sessions, waits and timers on stdio and Streamable
//! HTTP (and both sides of the serial bridge), all through [`drive`](fn@drive); `docs/legacy-era.md`
//! tells how.

pub mod bridge;
mod connection;
mod dispatch;
mod drive;
mod era;
mod http;
mod initialize;
mod lift;
mod lower;
mod notify;
mod request_handle;
mod response;
mod session;
mod session_id;

pub use crate::protocol::LegacyVersion;
pub use bridge::{
    Accepted, AnswerError, BridgeError, BridgeId, BridgeLimits, Leg, write_cancelled, write_refused,
};
pub use connection::{Action, Connection};
pub use dispatch::{Step, write_empty_result};
pub use drive::{
    Bridged, Link, LinkClosed, MAX_INPUTS, Next, Part, Parts, Scratch, WaitsFull, drive,
};
pub use era::{Era, EraGate, EraMismatch, EraSupport, HttpRoute, Signal, classify_post, signal};
pub use http::{BadVersionHeader, check_version_header};
pub use initialize::{InitializeError, parse_initialize, write_initialize_result};
pub use lift::lift_request;
pub use lower::{NotAResponse, Settled, settle};
pub use notify::write_event;
pub use request_handle::RequestHandle;
pub use response::{
    ClientAnswer, ClientResponse, MalformedResponse, Outcome, ReadAnswer, parse_response,
};
pub use session::{ClientName, MAX_CLIENT_NAME, MAX_CLIENT_VERSION, Session};
pub use session_id::{InvalidNodeName, NodeName, SessionId};

#[cfg(test)]
mod tests;
