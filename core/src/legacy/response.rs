//! A JSON-RPC response from the client: the answer to a request the server sent it.

use crate::json::{JsonStr, Limits, Object, parse};
use crate::rpc::Id;

/// A well-formed response from the client.
#[derive(Clone, Copy, Debug)]
pub struct ClientResponse<'a> {
    /// The id of the server's request it answers.
    pub id: Id<'a>,
    /// Its result or its error.
    pub outcome: Outcome<'a>,
}

/// The result or the error of a [`ClientResponse`].
#[derive(Clone, Copy, Debug)]
pub enum Outcome<'a> {
    /// `result` (an object).
    Result(Object<'a>),
    /// `error`.
    Error {
        /// `error.code`.
        code: i64,
        /// `error.message`.
        message: JsonStr<'a>,
    },
}

/// Why bytes are not a response the server can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MalformedResponse(pub &'static str);

/// Reads one response: a JSON object with `jsonrpc` "2.0", a string or integer `id`, no
/// `method`, and exactly one of an object `result` or an `error` with an integer `code` and a
/// string `message`.
pub fn parse_response<'a>(
    bytes: &'a [u8],
    limits: &Limits,
) -> Result<ClientResponse<'a>, MalformedResponse> {
    let root = parse(bytes, limits).map_err(|_| MalformedResponse("not JSON within the limits"))?;
    let root = root
        .as_object()
        .ok_or(MalformedResponse("a response must be an object"))?;
    let version = root.get("jsonrpc").and_then(|v| v.as_str());
    if !version.is_some_and(|v| v.eq_str("2.0")) {
        return Err(MalformedResponse("jsonrpc must be \"2.0\""));
    }
    if root.contains("method") {
        return Err(MalformedResponse("a response has no method"));
    }
    let id = root
        .get("id")
        .and_then(Id::from_value)
        .ok_or(MalformedResponse("a response needs a string or integer id"))?;
    let outcome = match (root.get("result"), root.get("error")) {
        (Some(result), None) => Outcome::Result(
            result
                .as_object()
                .ok_or(MalformedResponse("result must be an object"))?,
        ),
        (None, Some(error)) => {
            let code = error.get("code").and_then(|c| c.as_i64());
            let message = error.get("message").and_then(|m| m.as_str());
            match (code, message) {
                (Some(code), Some(message)) => Outcome::Error { code, message },
                _ => {
                    return Err(MalformedResponse(
                        "error needs an integer code and a string message",
                    ));
                }
            }
        }
        _ => return Err(MalformedResponse("exactly one of result and error")),
    };
    Ok(ClientResponse { id, outcome })
}
