//! Errors a handler returns.

use crate::mrtr::InvalidResponse;
use crate::rpc::ErrorCode;
use crate::state::InvalidState;

/// The one error for state that does not open, whatever the reason (no data, no echo).
pub const INVALID_STATE: Error = Error::invalid_params(InvalidState::MESSAGE);

/// How an [`Error`] reaches the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ErrorKind {
    /// A typed error: a JSON-RPC error response, for every kind of call.
    Rpc,
    /// An untyped failure: a tool error result (`isError: true`) for tools, an internal
    /// error (-32603) carrying the message for resources, prompts and completions.
    Failure,
}

/// A handler's error. Small and `Copy` so `?` works everywhere; messages are static so that
/// nothing untrusted is echoed by accident. For formatted messages, write the error through
/// the reply instead (e.g. `reply.rpc_error(code, format_args!(..))`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Error {
    /// The JSON-RPC code (for [`ErrorKind::Failure`] of a tool, unused).
    pub code: ErrorCode,
    /// The message.
    pub message: &'static str,
    /// How it is reported.
    pub kind: ErrorKind,
}

impl Error {
    /// A typed JSON-RPC error.
    pub const fn rpc(code: ErrorCode, message: &'static str) -> Self {
        Error {
            code,
            message,
            kind: ErrorKind::Rpc,
        }
    }

    /// -32602 with a message.
    pub const fn invalid_params(message: &'static str) -> Self {
        Self::rpc(ErrorCode::INVALID_PARAMS, message)
    }

    /// -32603 with a message.
    pub const fn internal(message: &'static str) -> Self {
        Self::rpc(ErrorCode::INTERNAL_ERROR, message)
    }

    /// An untyped failure (see [`ErrorKind::Failure`]).
    pub const fn failure(message: &'static str) -> Self {
        Error {
            code: ErrorCode::INTERNAL_ERROR,
            message,
            kind: ErrorKind::Failure,
        }
    }
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} ({})", self.message, self.code.0)
    }
}

impl core::error::Error for Error {}

/// An answer that does not fit its request is the generic -32602, echoing nothing.
impl From<InvalidResponse> for Error {
    fn from(_: InvalidResponse) -> Self {
        Error::invalid_params(InvalidResponse::MESSAGE)
    }
}
