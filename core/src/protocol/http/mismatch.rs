//! Why the headers of a request disagree with its body.

use crate::json::Writer;
use crate::rpc::{ErrorCode, Id, write_error};

/// Why the headers of a request disagree with its body. Every variant is JSON-RPC -32020
/// (`HeaderMismatch`) with HTTP 400, and has a fixed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HeaderMismatch {
    /// Required headers are absent: every one of them is named, so a client learns all it
    /// lacks from one answer.
    Missing(MissingHeaders),
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
    /// `Mcp-Name` differs from the body's name, URI or task id.
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
            HeaderMismatch::Missing(missing) => missing.message(),
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
                "Header mismatch: Mcp-Name does not match the body's name, uri or taskId"
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

/// Which of the required MCP headers a request lacks: `MCP-Protocol-Version` and
/// `Mcp-Method` always, `Mcp-Name` for `tools/call`, `resources/read` and `prompts/get`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MissingHeaders {
    /// `MCP-Protocol-Version` is absent.
    pub protocol_version: bool,
    /// `Mcp-Method` is absent.
    pub method: bool,
    /// `Mcp-Name` is absent (and the method needs it).
    pub name: bool,
}

impl MissingHeaders {
    /// Whether any header is missing.
    pub const fn any(self) -> bool {
        self.protocol_version || self.method || self.name
    }

    /// The fixed message naming every missing header.
    pub const fn message(self) -> &'static str {
        match (self.protocol_version, self.method, self.name) {
            (true, false, false) => "Header mismatch: the MCP-Protocol-Version header is required",
            (false, true, false) => "Header mismatch: the Mcp-Method header is required",
            (false, false, true) => {
                "Header mismatch: the Mcp-Name header is required for this method"
            }
            (true, true, false) => {
                "Header mismatch: the MCP-Protocol-Version and Mcp-Method headers are required"
            }
            (true, false, true) => {
                "Header mismatch: the MCP-Protocol-Version and Mcp-Name headers are required"
            }
            (false, true, true) => {
                "Header mismatch: the Mcp-Method and Mcp-Name headers are required"
            }
            (true, true, true) => {
                "Header mismatch: the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers \
                 are required"
            }
            (false, false, false) => "Header mismatch: a required header is missing",
        }
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

    #[test]
    fn every_missing_header_is_named() {
        let named = |protocol_version, method, name| {
            MissingHeaders {
                protocol_version,
                method,
                name,
            }
            .message()
        };
        for v in [false, true] {
            for m in [false, true] {
                for n in [false, true] {
                    if !(v || m || n) {
                        continue;
                    }
                    let message = named(v, m, n);
                    assert_eq!(message.contains("MCP-Protocol-Version"), v, "{message}");
                    assert_eq!(message.contains("Mcp-Method"), m, "{message}");
                    assert_eq!(message.contains("Mcp-Name"), n, "{message}");
                }
            }
        }
    }
}
