//! Error codes and the error response.

use super::Id;
use crate::json::Writer;

/// A JSON-RPC error code, with the codes JSON-RPC and MCP 2026-07-28 define.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// Internal error.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// HTTP headers disagree with the body (MCP).
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// The result needs a client capability the request did not declare (MCP).
    pub const MISSING_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// The requested protocol version is not supported (MCP).
    pub const UNSUPPORTED_VERSION: ErrorCode = ErrorCode(-32022);

    /// The standard message for the code.
    pub fn default_message(self) -> &'static str {
        match self.0 {
            -32700 => "Parse error",
            -32600 => "Invalid Request",
            -32601 => "Method not found",
            -32602 => "Invalid params",
            -32603 => "Internal error",
            -32020 => "Header mismatch",
            -32021 => "Missing required client capability",
            -32022 => "Unsupported protocol version",
            _ => "Server error",
        }
    }
}

/// Writes a whole error response. `data` writes the value of `error.data` when given.
pub fn write_error(
    w: &mut Writer<'_>,
    id: Option<Id<'_>>,
    code: ErrorCode,
    message: &str,
    data: Option<&dyn Fn(&mut Writer<'_>)>,
) {
    super::emit::error(w, id);
    w.raw(b"{\"code\":");
    w.i64(i64::from(code.0));
    w.raw(b",\"message\":");
    w.str(message);
    if let Some(data) = data {
        w.raw(b",\"data\":");
        data(w);
    }
    w.raw(b"}}");
}
