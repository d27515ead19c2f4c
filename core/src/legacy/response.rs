//! A JSON-RPC response from the client: the answer to a request the server sent it.

use core::ops::Range;

use super::BridgeId;
use crate::json::{JsonStr, Limits, Object, Value, range_in};
use crate::rpc::{self, Id, Incoming, Response};

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

impl<'a> ClientResponse<'a> {
    /// The client response in a message [`rpc::parse`] read, from what that scan noted (no
    /// other scan): exactly one of an object `result` or an `error` with an integer `code`
    /// and a string `message`.
    pub fn from_rpc(response: &Response<'a>) -> Result<Self, MalformedResponse> {
        let outcome = match response.outcome {
            Some(Ok(result)) => Outcome::Result(
                result
                    .as_object()
                    .ok_or(MalformedResponse("result must be an object"))?,
            ),
            Some(Err(error)) => {
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
            None => return Err(MalformedResponse("exactly one of result and error")),
        };
        Ok(ClientResponse {
            id: response.id,
            outcome,
        })
    }
}

/// Reads one response: a JSON-RPC 2.0 message with a string or integer `id`, no `method`,
/// and exactly one of an object `result` or an `error` with an integer `code` and a string
/// `message` ([`ClientResponse::from_rpc`] of what [`rpc::parse`] reads).
pub fn parse_response<'a>(
    bytes: &'a [u8],
    limits: &Limits,
) -> Result<ClientResponse<'a>, MalformedResponse> {
    match rpc::parse(bytes, limits) {
        Ok(Incoming::Response(response)) => ClientResponse::from_rpc(&response),
        Ok(Incoming::Request(_) | Incoming::Notification(_)) => {
            Err(MalformedResponse("a response has no method"))
        }
        Err(rejected) => Err(MalformedResponse(rejected.message)),
    }
}

/// A client's answer to a bridged request, read once where it arrived and held with a copy
/// of its bytes: it travels to the request waiting for it (by [`ReadAnswer::id`]), which
/// reads it there ([`ReadAnswer::response`]) from where its parts lie, without scanning it
/// again.
#[derive(Clone, Debug)]
pub struct ReadAnswer<B> {
    bytes: B,
    id: BridgeId,
    /// The id's text (a bridge id is a string).
    id_at: Range<usize>,
    outcome: OutcomeAt,
}

/// Where an [`Outcome`] lies in its message, or why the answer has none.
#[derive(Clone, Debug)]
enum OutcomeAt {
    Result(Range<usize>),
    Error {
        code: i64,
        message: Range<usize>,
    },
    /// A response to a bridged request that is not usable (a `result` that is not an
    /// object): still delivered, so the request it answers ends at once instead of waiting.
    Malformed(MalformedResponse),
}

impl<B: AsRef<[u8]>> ReadAnswer<B> {
    /// `response`, which [`rpc::parse`] read from `message`, held with `copy(message)` (the
    /// bytes the transport keeps, e.g. `Bytes::copy_from_slice`); `None` when no bridged
    /// request can wait for it (its id is not a [`BridgeId`]) or when the copy is not as long
    /// as `message`. A response that is not usable ([`ClientResponse::from_rpc`]) is kept
    /// with why, for the request it answers to end with an error.
    pub fn new(
        message: &[u8],
        response: &Response<'_>,
        copy: impl FnOnce(&[u8]) -> B,
    ) -> Option<Self> {
        let id = BridgeId::from_id(&response.id)?;
        let Id::Str(id_text) = response.id else {
            return None;
        };
        let outcome = match ClientResponse::from_rpc(response).map(|read| read.outcome) {
            Ok(Outcome::Result(result)) => {
                OutcomeAt::Result(range_in(message, result.as_value().raw())?)
            }
            Ok(Outcome::Error {
                code,
                message: text,
            }) => OutcomeAt::Error {
                code,
                message: range_in(message, text.raw())?,
            },
            Err(malformed) => OutcomeAt::Malformed(malformed),
        };
        let id_at = range_in(message, id_text.raw())?;
        let bytes = copy(message);
        (bytes.as_ref().len() == message.len()).then_some(ReadAnswer {
            bytes,
            id,
            id_at,
            outcome,
        })
    }

    /// The bridged request it answers.
    pub fn id(&self) -> BridgeId {
        self.id
    }

    /// The bytes it was read from.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// The response, viewed again where [`ReadAnswer::new`] found its parts (`None` for one
    /// that is not usable).
    pub fn response(&self) -> Option<ClientResponse<'_>> {
        let bytes = self.bytes.as_ref();
        let id = Id::Str(JsonStr::from_validated(bytes.get(self.id_at.clone())?));
        let outcome = match &self.outcome {
            OutcomeAt::Result(at) => {
                Outcome::Result(Value::from_validated(bytes.get(at.clone())?).as_object()?)
            }
            OutcomeAt::Error { code, message } => Outcome::Error {
                code: *code,
                message: JsonStr::from_validated(bytes.get(message.clone())?),
            },
            OutcomeAt::Malformed(_) => return None,
        };
        Some(ClientResponse { id, outcome })
    }
}

/// A client's answer as a transport hands it to [`drive`](fn@super::drive).
pub trait ClientAnswer {
    /// The response, or why it cannot be used.
    fn response(&self, limits: &Limits) -> Result<ClientResponse<'_>, MalformedResponse>;

    /// The bridged request it answers, when known without reading it (an unusable answer
    /// then needs no cancellation).
    fn bridge_id(&self) -> Option<BridgeId> {
        None
    }
}

/// Bytes [`drive`](fn@super::drive) reads itself ([`parse_response`]).
impl ClientAnswer for &[u8] {
    fn response(&self, limits: &Limits) -> Result<ClientResponse<'_>, MalformedResponse> {
        parse_response(self, limits)
    }
}

/// An answer read where it arrived: viewed again, not scanned.
impl<B: AsRef<[u8]>> ClientAnswer for ReadAnswer<B> {
    fn response(&self, _: &Limits) -> Result<ClientResponse<'_>, MalformedResponse> {
        if let OutcomeAt::Malformed(malformed) = self.outcome {
            return Err(malformed);
        }
        ReadAnswer::response(self).ok_or(MalformedResponse("the answer's bytes changed"))
    }

    fn bridge_id(&self) -> Option<BridgeId> {
        Some(self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn read(text: &str) -> Option<ReadAnswer<Vec<u8>>> {
        let message = text.as_bytes();
        let Ok(Incoming::Response(response)) = rpc::parse(message, &Limits::default()) else {
            return None;
        };
        ReadAnswer::new(message, &response, <[u8]>::to_vec)
    }

    #[test]
    fn an_answer_read_once_is_viewed_again_in_its_copy() {
        let held = read(r#"{"result":{"action":"accept","content":{"c":"teal"}},"jsonrpc":"2.0","id":"snodo-bridge-4"}"#)
            .expect("a bridged answer");
        assert_eq!(held.id(), BridgeId(4));
        let response = held.response().expect("the copy holds it");
        assert_eq!(BridgeId::from_id(&response.id), Some(BridgeId(4)));
        let Outcome::Result(result) = response.outcome else {
            panic!("a result");
        };
        assert_eq!(
            result.as_value().raw(),
            br#"{"action":"accept","content":{"c":"teal"}}"#
        );
        // The same, read again from the bytes, as the round reads bytes it is handed.
        let again = parse_response(held.bytes(), &Limits::default()).unwrap();
        assert_eq!(again.id, response.id);

        let refused = read(
            r#"{"jsonrpc":"2.0","id":"snodo-bridge-9","error":{"code":-1,"message":"no \"way\""}}"#,
        )
        .expect("a bridged refusal");
        let Some(ClientResponse {
            outcome: Outcome::Error { code, message },
            ..
        }) = refused.response()
        else {
            panic!("an error");
        };
        assert_eq!((code, message.raw()), (-1, &br#"no \"way\""#[..]));
    }

    #[test]
    fn only_answers_to_bridged_requests_are_held_and_unusable_ones_say_why() {
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"client-1","result":{}}"#,
        ] {
            assert!(read(text).is_none(), "{text}");
        }
        for text in [
            r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":[]}"#,
            r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":"yes"}"#,
            r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{},"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":"snodo-bridge-1","error":{"code":"1","message":"x"}}"#,
        ] {
            let held = read(text).unwrap_or_else(|| panic!("held for its request: {text}"));
            assert_eq!(held.bridge_id(), Some(BridgeId(1)), "{text}");
            assert!(held.response().is_none(), "{text}");
            assert!(
                ClientAnswer::response(&held, &Limits::default()).is_err(),
                "{text}"
            );
        }
        let message = br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{}}"#;
        let Ok(Incoming::Response(response)) = rpc::parse(message, &Limits::default()) else {
            panic!("a response");
        };
        assert!(ReadAnswer::new(message, &response, |_| Vec::new()).is_none());
        let other = br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{}}"#.to_vec();
        assert!(ReadAnswer::new(&other, &response, <[u8]>::to_vec).is_none());
    }
}
