//! The HTTP status of a reply, from its JSON-RPC `error.code`.

use crate::json::Limits;
use crate::rpc::ErrorCode;

/// The HTTP status for a JSON-RPC error code: 400 for -32700, -32600, -32602, -32020,
/// -32021 and -32022; 404 for -32601; 500 for -32603; 200 for any other code (an
/// application's own error travels as an ordinary JSON-RPC response).
pub fn status_for(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::INVALID_PARAMS
        | ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_VERSION => 400,
        ErrorCode::METHOD_NOT_FOUND => 404,
        ErrorCode::INTERNAL_ERROR => 500,
        _ => 200,
    }
}

/// The HTTP status of a whole reply: [`status_for`] its `error.code`, or 200 for a result.
pub fn reply_status(reply: &[u8]) -> u16 {
    reply_error_code(reply).map_or(200, status_for)
}

/// The `error.code` of a whole JSON-RPC response, or `None` for a result (or bytes that are
/// not a response). Reads the few bytes the core's writer puts first and parses the whole
/// reply only when they are laid out otherwise.
pub fn reply_error_code(reply: &[u8]) -> Option<ErrorCode> {
    match error_code_by_layout(reply) {
        Some(found) => found,
        None => {
            let limits = Limits {
                max_size: reply.len(),
                max_depth: u16::MAX,
                max_members: u16::MAX,
            };
            let code = crate::json::parse(reply, &limits)
                .ok()?
                .get("error")?
                .get("code")?
                .as_i64()?;
            i32::try_from(code).ok().map(ErrorCode)
        }
    }
}

/// `Some(code)` when `reply` is laid out as the core writes responses, `None` otherwise.
fn error_code_by_layout(reply: &[u8]) -> Option<Option<ErrorCode>> {
    let rest = reply.strip_prefix(crate::rpc::emit::RESPONSE_PREFIX)?;
    let id_len = match rest.first()? {
        b'"' => {
            let mut i = 1;
            loop {
                match rest.get(i)? {
                    b'\\' => i += 2,
                    b'"' => break i + 1,
                    _ => i += 1,
                }
            }
        }
        _ => rest.iter().position(|&b| b == b',')?,
    };
    let rest = rest.get(id_len..)?;
    if rest.starts_with(b",\"result\":") {
        return Some(None);
    }
    let digits = rest.strip_prefix(b",\"error\":{\"code\":")?;
    let end = digits
        .iter()
        .position(|&b| !(b == b'-' || b.is_ascii_digit()))?;
    let code = core::str::from_utf8(digits.get(..end)?)
        .ok()?
        .parse()
        .ok()?;
    Some(Some(ErrorCode(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_map_to_statuses() {
        let cases: [(&[u8], u16); 9] = [
            (br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, 200),
            (
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#,
                400,
            ),
            (
                br#"{"jsonrpc":"2.0","id":"a\",\"error\":{\"code\":-32601","result":{}}"#,
                200,
            ),
            (
                br#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"x"}}"#,
                404,
            ),
            (
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"x"}}"#,
                500,
            ),
            (
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"x"}}"#,
                400,
            ),
            (
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"x"}}"#,
                400,
            ),
            (
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}"#,
                200,
            ),
            (
                br#" {"error":{"message":"x","code":-32020},"id":2,"jsonrpc":"2.0"}"#,
                400,
            ),
        ];
        for (reply, status) in cases {
            assert_eq!(
                reply_status(reply),
                status,
                "{}",
                core::str::from_utf8(reply).unwrap()
            );
        }
        assert_eq!(reply_error_code(b"not json"), None);
        for code in [-32700, -32600, -32602, -32020, -32021, -32022] {
            assert_eq!(status_for(ErrorCode(code)), 400);
        }
    }
}
