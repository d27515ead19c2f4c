//! The MRTR bridge as byte transforms: a handler written once in the 2026-07-28 style
//! (return `input_required`, finish on the retry) serves a legacy client, whose session turns
//! each input request into a server-to-client request and each answer back into
//! `inputResponses`.
//!
//! Per leg: [`Leg::open`] reads the `input_required` reply and admits it against the
//! session's capabilities; [`Leg::write_request`] writes each legacy request (ids from
//! [`BridgeId`]); [`Leg::accept`] takes each answer into a caller-owned store;
//! [`Leg::write_retry`] writes the retry for the modern handler path, whose reply opens the
//! next leg or settles the request ([`super::settle`]). Sealed state travels byte for byte
//! and is checked by the handler path on every leg.

mod error;
mod id;
mod leg;

pub(crate) use error::write_missing_capabilities;
pub use error::{BridgeError, write_cancelled, write_refused};
pub use id::BridgeId;
pub use leg::{Accepted, AnswerError, BridgeLimits, Leg};
