//! How a request ended, in words with a bounded set of values (metric labels, span fields).

use http::StatusCode;
use memchr::memmem;
use snodo_core::protocol::http::reply_error_code;
use snodo_core::rpc::ErrorCode;

/// The `message` member of the one error every state open failure is answered with
/// ([`InvalidState::MESSAGE`](snodo_core::state::InvalidState::MESSAGE)).
const STATE_MESSAGE: &[u8] = b"\"message\":\"Invalid request state\"";

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A final result (a tool error result with `isError` included).
    Complete,
    /// An `input_required` result: the client is to retry with answers.
    InputRequired,
    /// A JSON-RPC error; `state` when it is the refusal of a request state token.
    Error { code: ErrorCode, state: bool },
    /// A notification or a client's response: `202`.
    Accepted,
    /// Stopped by the client (disconnect or `notifications/cancelled`) before an answer.
    Cancelled,
    /// A `subscriptions/listen` stream that ended.
    Stream,
    /// Refused at the HTTP level (admission, authorization) before the round.
    Refused(StatusCode),
}

impl Outcome {
    /// The outcome of a whole JSON-RPC reply the core wrote. The core appends `resultType`
    /// after everything a handler wrote, so the last `"resultType":` is the result's own.
    pub(crate) fn of_reply(reply: &[u8]) -> Outcome {
        if let Some(code) = reply_error_code(reply) {
            let state =
                code == ErrorCode::INVALID_PARAMS && memmem::find(reply, STATE_MESSAGE).is_some();
            return Outcome::Error { code, state };
        }
        const RESULT_TYPE: &[u8] = b"\"resultType\":\"";
        match memmem::rfind(reply, RESULT_TYPE) {
            Some(at) if reply[at + RESULT_TYPE.len()..].starts_with(b"input_required\"") => {
                Outcome::InputRequired
            }
            _ => Outcome::Complete,
        }
    }

    /// The label value.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Outcome::Complete => "complete",
            Outcome::InputRequired => "input_required",
            Outcome::Error { code, .. } => match code {
                ErrorCode::PARSE_ERROR => "parse_error",
                ErrorCode::INVALID_REQUEST => "invalid_request",
                ErrorCode::METHOD_NOT_FOUND => "method_not_found",
                ErrorCode::INVALID_PARAMS => "invalid_params",
                ErrorCode::INTERNAL_ERROR => "internal_error",
                ErrorCode::HEADER_MISMATCH => "header_mismatch",
                ErrorCode::MISSING_CLIENT_CAPABILITY => "missing_capability",
                ErrorCode::UNSUPPORTED_VERSION => "unsupported_version",
                _ => "application_error",
            },
            Outcome::Accepted => "accepted",
            Outcome::Cancelled => "cancelled",
            Outcome::Stream => "stream",
            Outcome::Refused(status) => match status.as_u16() {
                400 => "http_400",
                401 => "unauthorized",
                403 => "forbidden",
                404 => "http_404",
                405 => "http_405",
                406 => "http_406",
                408 => "http_408",
                413 => "http_413",
                415 => "http_415",
                503 => "unavailable",
                _ => "http_other",
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_core::state::InvalidState;

    #[test]
    fn the_state_message_is_the_cores() {
        let expected = format!("\"message\":\"{}\"", InvalidState::MESSAGE);
        assert_eq!(STATE_MESSAGE, expected.as_bytes());
    }

    #[test]
    fn replies_are_told_apart_by_the_members_the_core_writes() {
        let complete = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"resultType":"input_required"},"resultType":"complete","_meta":{}}}"#;
        assert_eq!(Outcome::of_reply(complete), Outcome::Complete);
        let input = br#"{"jsonrpc":"2.0","id":1,"result":{"inputRequests":{},"resultType":"input_required","_meta":{}}}"#;
        assert_eq!(Outcome::of_reply(input), Outcome::InputRequired);
        let state = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid request state"}}"#;
        assert_eq!(
            Outcome::of_reply(state),
            Outcome::Error {
                code: ErrorCode::INVALID_PARAMS,
                state: true
            }
        );
        let params =
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}"#;
        assert_eq!(Outcome::of_reply(params).label(), "invalid_params");
        assert_eq!(
            Outcome::of_reply(params),
            Outcome::Error {
                code: ErrorCode::INVALID_PARAMS,
                state: false
            }
        );
        assert_eq!(
            Outcome::Refused(StatusCode::UNAUTHORIZED).label(),
            "unauthorized"
        );
    }
}
