//! Which era a server speaks, from its answer to the `server/discover` probe.

use super::super::Reply;
use crate::protocol::Era;

/// Whether `code` is one of the JSON-RPC errors only a 2026-07-28 server sends: -32020
/// (header mismatch), -32021 (missing client capability), -32022 (unsupported protocol
/// version). A server that answers the probe with one of them is modern, and the client
/// must not fall back.
pub const fn is_modern_error(code: i64) -> bool {
    matches!(code, -32022..=-32020)
}

/// The era the reply to `server/discover` shows: a result (or a version retry) or a
/// recognised modern error is [`Era::Modern`]; any other error is [`Era::Legacy`]. The
/// fallback is deliberately not keyed to one code: legacy servers answer requests before
/// `initialize` with codes of their own choosing.
pub fn probe_era(reply: &Reply<'_>) -> Era {
    match reply {
        Reply::Error(e) if !is_modern_error(e.code) => Era::Legacy,
        Reply::Complete(_)
        | Reply::Task(_)
        | Reply::InputRequired(_)
        | Reply::VersionRetry
        | Reply::Error(_) => Era::Modern,
    }
}

/// Over Streamable HTTP: whether a probe answered with `status` and no JSON-RPC response in
/// its body shows a legacy server (any `4xx`: a legacy server refuses a request without a
/// session, or a `GET`-less probe, with one). Other statuses are failures, not an era.
pub const fn legacy_status(status: u16) -> bool {
    400 <= status && status < 500
}
