//! Requests a legacy server sends the client, and the client's responses to them.

use super::super::answer::check_answer;
use super::super::input::read_input_request;
use super::super::{Abort, Answer, Answered, ClientError, InputRequest};
use crate::json::{JsonStr, Value, Writer};
use crate::rpc::emit;

/// JSON-RPC code for a request the client does not serve (an unknown method, or an input
/// kind without a handler, whose capability was never declared).
pub const UNKNOWN_METHOD: i64 = -32601;

/// JSON-RPC code for a request the client's handler refused (the user rejected a sampling
/// request, say), as the 2025-11-25 examples write it.
pub const REFUSED: i64 = -1;

/// A request from the server, checked.
#[derive(Clone, Copy, Debug)]
pub enum ServerRequest<'r> {
    /// `ping`: answered with `{}`.
    Ping,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`, checked as the same
    /// input request in an `input_required` result would be. Its key is the method.
    Input(InputRequest<'r>),
    /// Any other method.
    Unknown(JsonStr<'r>),
}

/// Reads `message`, a JSON-RPC request from the server (it has a `method` and an `id`),
/// into its id and what it asks. An input request whose params are malformed is an error
/// with the reason, for the client to refuse with -32602.
pub fn read_server_request<'r>(
    message: Value<'r>,
) -> Result<(Value<'r>, ServerRequest<'r>), (Option<Value<'r>>, &'static str)> {
    let id = message.get("id").filter(|id| !id.is_null());
    let method = message
        .get("method")
        .and_then(|m| m.as_str())
        .ok_or((id, "a request needs a string method"))?;
    let id = id.ok_or((None, "a request needs an id"))?;
    if id.as_i64().is_none() && id.as_str().is_none() {
        return Err((None, "a request id is a string or an integer"));
    }
    if method.eq_str("ping") {
        return Ok((id, ServerRequest::Ping));
    }
    let is_input = ["elicitation/create", "sampling/createMessage", "roots/list"]
        .iter()
        .any(|m| method.eq_str(m));
    if !is_input {
        return Ok((id, ServerRequest::Unknown(method)));
    }
    let request = read_input_request(method, message).map_err(|reason| (Some(id), reason))?;
    Ok((id, ServerRequest::Input(request)))
}

/// Writes the response to the server's request `id`: `{"jsonrpc":"2.0","id":…,"result":…}`
/// with the result `answer` writes — `{}` for a ping, the handler's answer for an input
/// request, checked for the shape its kind requires. Returns the length.
pub fn write_reply(
    id: Value<'_>,
    request: &ServerRequest<'_>,
    out: &mut [u8],
    answer: impl FnOnce(&InputRequest<'_>, Answer<'_, '_>) -> Result<Answered, Abort>,
) -> Result<usize, ClientError> {
    let mut w = Writer::new(out);
    emit::result(&mut w, id);
    match request {
        ServerRequest::Ping => {
            w.raw(b"{}");
        }
        ServerRequest::Unknown(_) => {
            return Err(ClientError::Misuse(
                "an unknown method is refused with write_refusal",
            ));
        }
        ServerRequest::Input(input) => {
            let start = w.position();
            let _answered =
                answer(input, Answer::new(&mut w)).map_err(|abort| ClientError::Aborted {
                    kind: input.kind(),
                    reason: abort.reason,
                })?;
            let shaped = w
                .written_since(start)
                .is_some_and(|written| check_answer(input, written));
            if w.fits() && !shaped {
                return Err(ClientError::InvalidAnswer(input.kind()));
            }
        }
    }
    w.raw(b"}");
    Ok(w.finish()?)
}

/// Writes a JSON-RPC error response to the server's request `id` (`null` when the request
/// had none that could be read): `code` ([`UNKNOWN_METHOD`], [`REFUSED`], -32602 for
/// malformed params) and `message`. Returns the length.
pub fn write_refusal(
    id: Option<Value<'_>>,
    code: i64,
    message: &str,
    out: &mut [u8],
) -> Result<usize, ClientError> {
    let mut w = Writer::new(out);
    emit::error(&mut w, id);
    w.object(|o| {
        o.i64("code", code).str("message", message);
    });
    w.raw(b"}");
    Ok(w.finish()?)
}
