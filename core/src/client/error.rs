//! What can go wrong while driving one operation.

use super::InputKind;
use crate::json::BufferTooSmall;

/// Why an operation could not go on. Small and `Copy`; each variant is a different failure
/// with its own remedy, so callers can tell them apart without reading messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ClientError {
    /// The server asked for input of a kind no handler is installed for. The request did not
    /// declare that capability, so a conforming server never asks for it.
    MissingHandler(InputKind),
    /// An input request the server sent is malformed: an unknown method, or params that are
    /// not of the shape the method requires. `reason` says what is wrong.
    MalformedInputRequest {
        /// What is wrong with the request, in a short sentence.
        reason: &'static str,
    },
    /// The server kept asking for input: `rounds` requests were sent for this operation, the
    /// configured maximum ([`ClientConfig::max_rounds`](super::ClientConfig::max_rounds)).
    ExhaustedRounds {
        /// Requests sent for the operation before giving up.
        rounds: u8,
    },
    /// The server answered with a JSON-RPC error (its message and data are in the response;
    /// [`Reply::Error`](super::Reply::Error) carries them).
    Server {
        /// The error's code.
        code: i64,
    },
    /// The response is not a JSON-RPC response to the request that was sent; `reason` says
    /// how.
    MalformedResponse {
        /// What is wrong with the response, in a short sentence.
        reason: &'static str,
    },
    /// The result names a `resultType` this client does not know (only `complete` and
    /// `input_required` exist in 2026-07-28 without extensions).
    UnknownResultType,
    /// A handler gave up instead of answering (the operation cannot go on without an
    /// answer, because input responses carry results, not errors).
    Aborted {
        /// The kind of input the handler was asked for.
        kind: InputKind,
        /// The handler's reason.
        reason: &'static str,
    },
    /// A handler's answer does not have the shape its kind requires (an `ElicitResult` with
    /// content that fits the form, a `CreateMessageResult`, a `ListRootsResult`).
    InvalidAnswer(InputKind),
    /// The output buffer is too small for the request; `required` bytes would do.
    BufferTooSmall {
        /// Bytes needed for the whole request.
        required: usize,
    },
    /// A legacy server chose a protocol version in its `InitializeResult` that this client
    /// does not speak (it speaks 2025-11-25, 2025-06-18 and 2025-03-26 besides 2026-07-28).
    UnsupportedVersion,
    /// The driver was used out of order (for example a retry before any response), or a
    /// request id was reused; the message says which.
    Misuse(&'static str),
}

impl From<BufferTooSmall> for ClientError {
    fn from(e: BufferTooSmall) -> Self {
        ClientError::BufferTooSmall {
            required: e.required,
        }
    }
}

impl core::fmt::Display for ClientError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ClientError::MissingHandler(kind) => write!(
                f,
                "the server asked for {} input, but no handler for it is installed",
                kind.name()
            ),
            ClientError::MalformedInputRequest { reason } => {
                write!(f, "the server sent a malformed input request: {reason}")
            }
            ClientError::ExhaustedRounds { rounds } => write!(
                f,
                "the server still asked for input after {rounds} requests; giving up"
            ),
            ClientError::Server { code } => write!(f, "the server answered with error {code}"),
            ClientError::MalformedResponse { reason } => {
                write!(f, "malformed response: {reason}")
            }
            ClientError::UnknownResultType => f.write_str("the result has an unknown resultType"),
            ClientError::Aborted { kind, reason } => {
                write!(f, "the {} handler gave up: {reason}", kind.name())
            }
            ClientError::InvalidAnswer(kind) => write!(
                f,
                "the {} handler's answer does not have the shape the protocol requires",
                kind.name()
            ),
            ClientError::BufferTooSmall { required } => {
                write!(f, "the output buffer is too small: {required} bytes needed")
            }
            ClientError::UnsupportedVersion => {
                f.write_str("the server chose a protocol version this client does not speak")
            }
            ClientError::Misuse(what) => write!(f, "client driver misuse: {what}"),
        }
    }
}
