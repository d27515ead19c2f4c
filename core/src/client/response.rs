//! Reading the server's response to one leg.

use super::input::read_input_request;
use super::{ClientCapabilities, ClientError, InputRequest};
use crate::json::{JsonStr, Object, Value};

/// What the server answered to one leg of an operation.
#[derive(Clone, Copy, Debug)]
pub enum Reply<'r> {
    /// The final result: one without `resultType`, or with `resultType: "complete"`.
    Complete(Object<'r>),
    /// The call became a task of the Tasks extension (`resultType: "task"`, the flat
    /// `CreateTaskResult`): poll `tasks/get` with its `taskId`. Only when the operation
    /// declared [`ClientCapabilities::TASKS`]; a server that answers a task to any other
    /// request is [`ClientError::UnknownResultType`].
    Task(Object<'r>),
    /// The server needs input before it can finish: answer the input requests (if any) and
    /// send the retry ([`Exchange::write_retry`](super::Exchange::write_retry)).
    InputRequired(InputRequired<'r>),
    /// A JSON-RPC error.
    Error(ServerError<'r>),
    /// The server refused the protocol version (-32022) yet lists this client's version as
    /// supported: send the first request again, with a fresh id
    /// ([`Exchange::write_request`](super::Exchange::write_request)). Offered once per
    /// operation.
    VersionRetry,
}

/// A JSON-RPC error from the server.
#[derive(Clone, Copy, Debug)]
pub struct ServerError<'r> {
    /// `error.code`.
    pub code: i64,
    /// `error.message`.
    pub message: JsonStr<'r>,
    /// `error.data`, when present.
    pub data: Option<Value<'r>>,
}

impl ServerError<'_> {
    /// The versions a -32022 error lists in `data.supported`.
    pub fn supported_versions(&self) -> impl Iterator<Item = JsonStr<'_>> + '_ {
        self.data
            .and_then(|d| d.get("supported"))
            .and_then(|s| s.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
    }
}

/// An `input_required` result whose input requests were all checked and can all be
/// answered by the installed handlers.
#[derive(Clone, Copy, Debug)]
pub struct InputRequired<'r> {
    requests: Option<Object<'r>>,
    state: Option<Value<'r>>,
    result: Object<'r>,
}

impl<'r> InputRequired<'r> {
    /// The input requests, in the server's order.
    pub fn requests(&self) -> impl Iterator<Item = InputRequest<'r>> + 'r {
        self.requests
            .into_iter()
            .flatten()
            .filter_map(|(key, value)| read_input_request(key, value).ok())
    }

    /// How many input requests there are.
    pub fn len(&self) -> usize {
        self.requests.map_or(0, |r| r.len())
    }

    /// Whether there are no input requests: a state-only result, retried at once.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `requestState`, when present: opaque, echoed on the retry exactly as received.
    pub fn request_state(&self) -> Option<JsonStr<'r>> {
        self.state.and_then(|s| s.as_str())
    }

    /// `requestState` as the exact JSON text received, quotes included.
    pub fn request_state_raw(&self) -> Option<&'r [u8]> {
        self.state.map(|s| s.raw())
    }

    /// The whole result object.
    pub fn result(&self) -> Object<'r> {
        self.result
    }
}

/// Reads an `input_required` result: the members' shapes, every request, and whether the
/// installed handlers (`installed`) can answer each.
pub(crate) fn read_input_required(
    result: Object<'_>,
    installed: ClientCapabilities,
) -> Result<InputRequired<'_>, ClientError> {
    let malformed = |reason| ClientError::MalformedResponse { reason };
    let requests = match result.get("inputRequests") {
        None => None,
        Some(r) => Some(
            r.as_object()
                .ok_or(malformed("inputRequests must be an object"))?,
        ),
    };
    let state = match result.get("requestState") {
        None => None,
        Some(s) if s.as_str().is_some() => Some(s),
        Some(_) => return Err(malformed("requestState must be a string")),
    };
    if requests.is_none() && state.is_none() {
        return Err(malformed(
            "an input_required result needs inputRequests or requestState",
        ));
    }
    // Every request is checked for shape before any for a handler, so a malformed one is
    // reported as such wherever it sits.
    for (key, value) in requests.into_iter().flatten() {
        read_input_request(key, value)
            .map_err(|reason| ClientError::MalformedInputRequest { reason })?;
    }
    for (key, value) in requests.into_iter().flatten() {
        let Ok(request) = read_input_request(key, value) else {
            continue;
        };
        // `needs` adds sampling.tools or sampling.context when the request uses them.
        if !installed.contains(request.needs()) {
            return Err(ClientError::MissingHandler(request.kind()));
        }
    }
    Ok(InputRequired {
        requests,
        state,
        result,
    })
}

/// Reads `error`: an object with an integer code and a string message.
pub(crate) fn read_error(error: Value<'_>) -> Result<ServerError<'_>, ClientError> {
    let malformed = ClientError::MalformedResponse {
        reason: "error must be an object with an integer code and a string message",
    };
    let error = error.as_object().ok_or(malformed)?;
    let code = error
        .get("code")
        .and_then(|c| c.as_i64())
        .ok_or(malformed)?;
    let message = error
        .get("message")
        .and_then(|m| m.as_str())
        .ok_or(malformed)?;
    Ok(ServerError {
        code,
        message,
        data: error.get("data"),
    })
}
