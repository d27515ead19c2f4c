//! The legacy era (2025-11-25, opened by `initialize`) on the host transports: the sans-IO
//! dialect of [`snodo_core::legacy`] given sessions, streams and the bridge's waits.

pub(crate) mod http;
mod replay;
pub(crate) mod sessions;
