//! Requests a server of the `initialize` era sends the client (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`, `ping`), answered by the same handlers that
//! answer the input requests of a 2026-07-28 `input_required` result.

use snodo_core::client::legacy::{
    REFUSED, ServerRequest, UNKNOWN_METHOD, read_server_request, write_refusal, write_reply,
};
use snodo_core::client::{Abort, InputKind};
use snodo_core::json::{Limits, parse};

use super::ClientError;
use super::handlers::Handlers;

/// Most server requests one client answers at the same time; more wait for a place.
pub const MAX_CONCURRENT_SERVER_REQUESTS: usize = 16;

/// JSON-RPC code for params the client cannot read.
const INVALID_PARAMS: i64 = -32602;

/// The response to the server's request `message` (one JSON-RPC request): the handler's
/// answer, or a JSON-RPC error when no handler is installed for its kind (-32601, the
/// capability was never declared), the handler refused or failed (-1), its answer has the
/// wrong shape (-32603) or the request is malformed (-32602). `None` when the message is not
/// JSON within `limits`, so nothing can be answered.
pub(crate) async fn answer(
    handlers: &Handlers,
    message: &[u8],
    limits: &Limits,
) -> Option<Vec<u8>> {
    let value = parse(message, limits).ok()?;
    let (id, request) = match read_server_request(value) {
        Ok(read) => read,
        Err((id, reason)) => return refusal(id, INVALID_PARAMS, reason),
    };
    let input = match request {
        ServerRequest::Ping => return reply(id, &request, b"{}"),
        ServerRequest::Unknown(_) => return refusal(Some(id), UNKNOWN_METHOD, "Method not found"),
        ServerRequest::Input(input) => input,
    };
    match handlers.answer(&input).await {
        Ok(json) => reply(id, &request, &json).or_else(|| {
            refusal(
                Some(id),
                -32603,
                "the client's answer does not have the shape the protocol requires",
            )
        }),
        Err(ClientError::MissingHandler(kind)) => {
            tracing::warn!(
                kind = kind.name(),
                "the server asked for input no handler answers"
            );
            refusal(Some(id), UNKNOWN_METHOD, not_installed(kind))
        }
        Err(e) => refusal(Some(id), REFUSED, &e.to_string()),
    }
}

fn not_installed(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Form => "this client answers no form elicitation",
        InputKind::Url => "this client answers no URL elicitation",
        InputKind::Sampling => "this client answers no sampling request",
        InputKind::Roots => "this client lists no roots",
    }
}

/// The result response with `json` as the answer (checked for shape by the core).
fn reply(
    id: snodo_core::json::Value<'_>,
    request: &ServerRequest<'_>,
    json: &[u8],
) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let n = super::grow(&mut out, |buf| {
        write_reply(id, request, buf, |_, answer| {
            answer
                .json(json)
                .map_err(|_| Abort::new("the answer is not JSON"))
        })
    })
    .ok()?;
    out.truncate(n);
    Some(out)
}

fn refusal(id: Option<snodo_core::json::Value<'_>>, code: i64, message: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let n = super::grow(&mut out, |buf| write_refusal(id, code, message, buf)).ok()?;
    out.truncate(n);
    Some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::handlers::{HandlerError, slot};
    use super::super::{DEFAULT_LIMITS, ElicitResult};
    use super::*;

    fn reply(handlers: &Handlers, message: &str) -> Value {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        let bytes = rt
            .block_on(answer(handlers, message.as_bytes(), &DEFAULT_LIMITS))
            .expect("an answer");
        serde_json::from_slice(&bytes).expect("JSON")
    }

    const ELICIT: &str = r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}}"#;

    #[test]
    fn the_installed_handler_answers_and_a_missing_one_is_refused() {
        let mut handlers = Handlers::default();
        assert_eq!(
            reply(&handlers, ELICIT),
            json!({"jsonrpc":"2.0","id":"e1","error":{"code":-32601,"message":"this client answers no form elicitation"}})
        );
        handlers.form = slot(|_| async { Ok(ElicitResult::accept(json!({"color": "teal"}))) });
        assert_eq!(
            reply(&handlers, ELICIT),
            json!({"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{"color":"teal"}}})
        );
        handlers.form = slot(|_| async { Err(HandlerError::new("the user closed the window")) });
        let refused = reply(&handlers, ELICIT);
        assert_eq!(refused["error"]["code"], -1, "{refused}");
        // A wrong answer is refused too, never sent as a result.
        handlers.form = slot(|_| async { Ok(ElicitResult::accept(json!({"color": 7}))) });
        assert_eq!(reply(&handlers, ELICIT)["error"]["code"], -32603);
    }

    #[test]
    fn ping_unknown_and_malformed_requests() {
        let handlers = Handlers::default();
        assert_eq!(
            reply(&handlers, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
            json!({"jsonrpc":"2.0","id":3,"result":{}})
        );
        assert_eq!(
            reply(
                &handlers,
                r#"{"jsonrpc":"2.0","id":4,"method":"tasks/list"}"#
            )["error"]["code"],
            -32601
        );
        let malformed = r#"{"jsonrpc":"2.0","id":5,"method":"roots/list","params":7}"#;
        assert_eq!(
            reply(&handlers, malformed),
            json!({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"input request params must be an object"}})
        );
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime");
        assert!(
            rt.block_on(answer(&handlers, b"{", &DEFAULT_LIMITS))
                .is_none()
        );
    }
}
