//! The legacy era (2025-11-25 and earlier, opened by `initialize`) on the host transports:
//! the sans-IO dialect of [`snodo_core::legacy`] given sessions, waits and the bridge loop.
//!
//! A handler written once in the 2026-07-28 style (return `input_required`, finish on the
//! retry) serves legacy clients too: the bridge loop ([`BridgeConfig`] bounds it) sends each
//! input request as the legacy server-to-client request (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`), waits for the answers, and runs the handler again
//! with them. Which eras the transports serve is the server's
//! [`Config::eras`](snodo_core::server::Config::eras) ([`EraSupport`], default both).

pub(crate) mod backend;
pub(crate) mod replay;
pub(crate) mod round;
pub(crate) mod sessions;
pub(crate) mod subscriptions;

pub use round::BridgeConfig;
pub use sessions::SessionLimits;
pub use snodo_core::legacy::{EraSupport, NodeName};
