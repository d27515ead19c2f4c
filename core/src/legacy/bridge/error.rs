//! Why a bridged request ends without its handler's result, and the legacy JSON-RPC errors
//! that say so.
//!
//! The 2026 codes (-32021 for a missing capability) mean nothing to a legacy client, so every
//! bridge failure is -32603 with a message naming the cause and, where it helps, `data`.

use super::BridgeId;
use crate::client::InputKind;
use crate::json::{JsonStr, Writer};
use crate::protocol::ClientCapabilities;
use crate::rpc::{ErrorCode, Id, write_error};

/// Why a request could not be bridged (or stopped being).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BridgeError {
    /// The handler asked for input the session's client did not declare in `initialize`:
    /// nothing is sent to the client.
    MissingCapabilities(ClientCapabilities),
    /// The handler asked for input more times than the bridge allows for one request.
    TooManyRounds(u8),
    /// One `input_required` result held more input requests than a leg can track.
    TooManyInputs(usize),
    /// The client left a bridged request unanswered past the adapter's timeout.
    TimedOut,
    /// The reply or a buffer handed back is not what the leg was opened with (a bug in the
    /// caller), or the modern reply is not an `input_required` result.
    Misuse(&'static str),
}

impl BridgeError {
    /// The error message.
    pub const fn message(self) -> &'static str {
        match self {
            BridgeError::MissingCapabilities(_) => {
                "The client does not support input this request needs"
            }
            BridgeError::TooManyRounds(_) => {
                "The request asked the client for input more times than the server allows"
            }
            BridgeError::TooManyInputs(_) => {
                "The request asked the client for more inputs at once than the server allows"
            }
            BridgeError::TimedOut => "The client did not answer the server's request in time",
            BridgeError::Misuse(reason) => reason,
        }
    }

    /// Writes the -32603 error that ends the client's request `id`.
    pub fn write_error(self, w: &mut Writer<'_>, id: Id<'_>) {
        match self {
            BridgeError::MissingCapabilities(missing) => {
                write_missing_capabilities(w, Some(id), missing);
            }
            other => write_error(
                w,
                Some(id),
                ErrorCode::INTERNAL_ERROR,
                other.message(),
                None,
            ),
        }
    }
}

/// Writes the legacy error for input a client did not declare it can give: -32603, a
/// message naming each missing capability, and `data.requiredCapabilities` in the shape of
/// `ClientCapabilities`.
pub(crate) fn write_missing_capabilities(
    w: &mut Writer<'_>,
    id: Option<Id<'_>>,
    missing: ClientCapabilities,
) {
    w.raw(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => id.write(w),
        None => {
            w.null();
        }
    }
    w.raw(b",\"error\":{\"code\":");
    w.i64(i64::from(ErrorCode::INTERNAL_ERROR.0));
    w.raw(b",\"message\":");
    w.str_fmt(format_args!(
        "Client does not support {} (required by this request)",
        Names(missing)
    ));
    w.raw(b",\"data\":{\"requiredCapabilities\":");
    missing.write(w);
    w.raw(b"}}}");
}

/// Writes the -32603 error that ends the client's request `id` because the client answered
/// the bridged request of `kind` with an error (`code`, `message`, relayed in `data`).
pub fn write_refused(
    w: &mut Writer<'_>,
    id: Id<'_>,
    kind: InputKind,
    code: i64,
    message: JsonStr<'_>,
) {
    w.raw(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write(w);
    w.raw(b",\"error\":{\"code\":");
    w.i64(i64::from(ErrorCode::INTERNAL_ERROR.0));
    w.raw(b",\"message\":");
    w.str_fmt(format_args!(
        "The client answered {} with an error",
        kind.method()
    ));
    w.raw(b",\"data\":{\"code\":");
    w.i64(code);
    w.raw(b",\"message\":");
    w.json_str(message);
    w.raw(b"}}}");
}

/// Writes `notifications/cancelled` for the bridged request `id`: sent when the bridge stops
/// waiting for it (a timeout, or the client cancelled the request it belongs to).
pub fn write_cancelled(w: &mut Writer<'_>, id: BridgeId, reason: &str) {
    w.raw(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":",
    );
    id.write(w);
    w.raw(b",\"reason\":");
    w.str(reason);
    w.raw(b"}}");
}

/// The names of the capabilities in a set, comma-separated.
struct Names(ClientCapabilities);

impl core::fmt::Display for Names {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        const NAMES: [(ClientCapabilities, &str); 6] = [
            (ClientCapabilities::ELICITATION_FORM, "elicitation.form"),
            (ClientCapabilities::ELICITATION_URL, "elicitation.url"),
            (ClientCapabilities::SAMPLING, "sampling"),
            (ClientCapabilities::SAMPLING_TOOLS, "sampling.tools"),
            (ClientCapabilities::SAMPLING_CONTEXT, "sampling.context"),
            (ClientCapabilities::ROOTS, "roots"),
        ];
        let mut first = true;
        for (cap, name) in NAMES {
            if self.0.contains(cap) {
                if !first {
                    f.write_str(", ")?;
                }
                first = false;
                f.write_str(name)?;
            }
        }
        Ok(())
    }
}
