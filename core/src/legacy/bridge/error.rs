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
    // Every name, separators and the frame fit: the message is at most about 180 bytes.
    let mut text = [0u8; 256];
    let mut m = Writer::new(&mut text);
    m.raw(b"Client does not support ");
    for (n, name) in missing.names().enumerate() {
        if n > 0 {
            m.raw(b", ");
        }
        m.raw(name.as_bytes());
    }
    m.raw(b" (required by this request)");
    let message = m
        .written()
        .and_then(|t| core::str::from_utf8(t).ok())
        .unwrap_or("Client does not support input this request needs");
    write_error(
        w,
        id,
        ErrorCode::INTERNAL_ERROR,
        message,
        Some(&|w: &mut Writer<'_>| {
            w.raw(b"{\"requiredCapabilities\":");
            missing.write(w);
            w.raw(b"}");
        }),
    );
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
    let text = match kind {
        InputKind::Form | InputKind::Url => "The client answered elicitation/create with an error",
        InputKind::Sampling => "The client answered sampling/createMessage with an error",
        InputKind::Roots => "The client answered roots/list with an error",
    };
    write_error(
        w,
        Some(id),
        ErrorCode::INTERNAL_ERROR,
        text,
        Some(&|w: &mut Writer<'_>| {
            w.raw(b"{\"code\":");
            w.i64(code);
            w.raw(b",\"message\":");
            w.json_str(message);
            w.raw(b"}");
        }),
    );
}

/// Writes `notifications/cancelled` for the bridged request `id`: sent when the bridge stops
/// waiting for it (a timeout, or the client cancelled the request it belongs to).
pub fn write_cancelled(w: &mut Writer<'_>, id: BridgeId, reason: &str) {
    crate::rpc::emit::notification(w);
    w.raw(b"\"notifications/cancelled\",\"params\":{\"requestId\":");
    id.write(w);
    w.raw(b",\"reason\":");
    w.str(reason);
    w.raw(b"}}");
}
