//! Why the headers of a request disagree with its body.

use crate::json::Writer;
use crate::rpc::{ErrorCode, Id, write_error};

/// Why the headers of a request disagree with its body. Every variant is JSON-RPC -32020
/// (`HeaderMismatch`) with HTTP 400, and has a fixed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HeaderMismatch {
    /// No `MCP-Protocol-Version` header.
    MissingProtocolVersion,
    /// No `Mcp-Method` header.
    MissingMethod,
    /// No `Mcp-Name` header on `tools/call`, `resources/read` or `prompts/get`.
    MissingName,
    /// A header occurs more than once (reported by the HTTP stack).
    Repeated,
    /// A header value holds characters other than visible ASCII, space and tab.
    InvalidCharacters,
    /// A `=?base64?…?=` value that is not canonical padded Base64.
    InvalidBase64,
    /// `MCP-Protocol-Version` differs from the body's protocol version.
    ProtocolVersion,
    /// `Mcp-Method` differs from the body's method.
    Method,
    /// `Mcp-Name` differs from the body's name or URI.
    Name,
    /// An `x-mcp-header` argument has a value but no `Mcp-Param-*` header.
    MissingParam,
    /// An `Mcp-Param-*` header differs from its argument (or the argument is absent).
    Param,
}

impl HeaderMismatch {
    /// The JSON-RPC error code of every variant.
    pub const CODE: ErrorCode = ErrorCode::HEADER_MISMATCH;
    /// The HTTP status of every variant.
    pub const STATUS: u16 = 400;

    /// The fixed error message.
    pub fn message(self) -> &'static str {
        match self {
            HeaderMismatch::MissingProtocolVersion => {
                "Header mismatch: the MCP-Protocol-Version header is required"
            }
            HeaderMismatch::MissingMethod => "Header mismatch: the Mcp-Method header is required",
            HeaderMismatch::MissingName => {
                "Header mismatch: the Mcp-Name header is required for this method"
            }
            HeaderMismatch::Repeated => "Header mismatch: an MCP header occurs more than once",
            HeaderMismatch::InvalidCharacters => {
                "Header mismatch: a header value contains invalid characters"
            }
            HeaderMismatch::InvalidBase64 => {
                "Header mismatch: a =?base64?...?= header value is not valid Base64"
            }
            HeaderMismatch::ProtocolVersion => {
                "Header mismatch: MCP-Protocol-Version does not match the body's protocol version"
            }
            HeaderMismatch::Method => {
                "Header mismatch: Mcp-Method does not match the body's method"
            }
            HeaderMismatch::Name => {
                "Header mismatch: Mcp-Name does not match the body's name or uri"
            }
            HeaderMismatch::MissingParam => {
                "Header mismatch: an argument marked x-mcp-header has no Mcp-Param header"
            }
            HeaderMismatch::Param => {
                "Header mismatch: an Mcp-Param header does not match its argument"
            }
        }
    }

    /// Writes the whole error response, echoing `id`.
    pub fn write(self, w: &mut Writer<'_>, id: Option<Id<'_>>) {
        write_error(w, id, Self::CODE, self.message(), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_is_written_with_the_request_id() {
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        HeaderMismatch::Name.write(&mut w, Some(Id::Num(7)));
        let n = w.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf[..n]).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["error"]["code"], -32020);
        assert_eq!(v["error"]["message"], HeaderMismatch::Name.message());
    }
}
