//! Reading one incoming message.

use super::{ErrorCode, Id};
use crate::json::{
    JsonStr, Key, Limits, Object, Unseen, Value, Visitor, parse_visiting as parse_visiting_json,
};

/// A request: it has an id and must be answered.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The id to echo.
    pub id: Id<'a>,
    /// The method name.
    pub method: JsonStr<'a>,
    /// `params`, when present (always an object).
    pub params: Option<Object<'a>>,
}

/// A notification: no id, never answered.
#[derive(Clone, Copy, Debug)]
pub struct Notification<'a> {
    /// The method name.
    pub method: JsonStr<'a>,
    /// `params`, when present (always an object).
    pub params: Option<Object<'a>>,
}

/// A response from the peer: the answer to a request this side sent, with what a caller
/// needs to route and read it (the scan that found it noted them).
#[derive(Clone, Copy, Debug)]
pub struct Response<'a> {
    /// The id of the request it answers.
    pub id: Id<'a>,
    /// Its `result` (`Ok`) or its `error` (`Err`), any JSON value as it arrived; `None` when
    /// it has both (JSON-RPC allows exactly one).
    pub outcome: Option<Result<Value<'a>, Value<'a>>>,
}

/// One well-formed incoming message.
#[derive(Clone, Copy, Debug)]
pub enum Incoming<'a> {
    /// A request.
    Request(Request<'a>),
    /// A notification.
    Notification(Notification<'a>),
    /// A response from the peer, with at least one of `result` and `error` (MCP 2026-07-28
    /// servers send no requests, so a server drops it; the legacy bridge routes it by id).
    Response(Response<'a>),
}

/// A message that must be answered with an error (`id` is `None` when it could not be read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected<'a> {
    /// The id to echo, if one could be read.
    pub id: Option<Id<'a>>,
    /// -32700 or -32600.
    pub code: ErrorCode,
    /// A short, fixed explanation.
    pub message: &'static str,
}

impl<'a> Rejected<'a> {
    fn invalid(id: Option<Id<'a>>, message: &'static str) -> Self {
        Rejected {
            id,
            code: ErrorCode::INVALID_REQUEST,
            message,
        }
    }
}

/// Parses one message: -32700 (id null) for bytes that are not JSON within `limits`, -32600
/// for JSON that is not a single JSON-RPC 2.0 request, notification or response.
pub fn parse<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Incoming<'a>, Rejected<'a>> {
    parse_visiting(bytes, limits, &mut Unseen)
}

/// [`parse`], telling `params` about the members of `params` (at its depth 1) and deeper
/// objects, up to its depth, while the message is scanned. What `params` was told is only
/// meaningful when the result is a request or a notification (whose params are an object).
pub(crate) fn parse_visiting<'a, V: Visitor<'a>>(
    bytes: &'a [u8],
    limits: &Limits,
    params: &mut V,
) -> Result<Incoming<'a>, Rejected<'a>> {
    let mut envelope = Envelope {
        fields: Fields::default(),
        member: Member::Other,
        params,
    };
    let root = parse_visiting_json(bytes, limits, &mut envelope).map_err(|_| Rejected {
        id: None,
        code: ErrorCode::PARSE_ERROR,
        message: "Parse error",
    })?;
    if root.as_array().is_some() {
        return Err(Rejected::invalid(None, "Batches are not supported"));
    }
    if root.as_object().is_none() {
        return Err(Rejected::invalid(None, "A message must be an object"));
    }
    // The members of the root object, as the scanner saw them.
    let fields = envelope.fields;
    let id = match fields.id {
        None => None,
        Some(v) => match Id::from_value(v) {
            Some(id) => Some(id),
            None => {
                return Err(Rejected::invalid(
                    None,
                    "The id must be a string of at most 256 bytes or a 64-bit integer",
                ));
            }
        },
    };
    if !fields.version {
        return Err(Rejected::invalid(id, "jsonrpc must be \"2.0\""));
    }
    let Some(method) = fields.method else {
        if let (Some(id), Some(outcome)) = (id, fields.outcome) {
            let outcome = match (fields.both, fields.is_error) {
                (true, _) => None,
                (false, false) => Some(Ok(outcome)),
                (false, true) => Some(Err(outcome)),
            };
            return Ok(Incoming::Response(Response { id, outcome }));
        }
        return Err(Rejected::invalid(id, "The method is missing"));
    };
    let Some(method) = method.as_str() else {
        return Err(Rejected::invalid(id, "The method must be a string"));
    };
    let params = match fields.params {
        None => None,
        Some(p) => match p.as_object() {
            Some(obj) => Some(obj),
            None => return Err(Rejected::invalid(id, "params must be an object")),
        },
    };
    Ok(match id {
        Some(id) => Incoming::Request(Request { id, method, params }),
        None => Incoming::Notification(Notification { method, params }),
    })
}

/// The members of a message that matter, noted while it is scanned (a `get` per member
/// would walk over `params`, most of the message, several times when it comes first).
#[derive(Default)]
struct Fields<'a> {
    id: Option<Value<'a>>,
    /// Whether `jsonrpc` is "2.0" (a flag rather than the value: this frame is on the stack
    /// of every round).
    version: bool,
    method: Option<Value<'a>>,
    params: Option<Value<'a>>,
    /// `result` or `error`, whichever came last.
    outcome: Option<Value<'a>>,
    /// Whether `outcome` is `error`.
    is_error: bool,
    /// Whether the message has both.
    both: bool,
}

/// Notes the members of the root object, and passes what is inside `params` on.
struct Envelope<'a, 'v, V> {
    fields: Fields<'a>,
    /// The member of the root object being scanned (named once, when its value starts).
    member: Member,
    params: &'v mut V,
}

/// A member of the root object that [`Fields`] notes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Id,
    Jsonrpc,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl Member {
    /// The member named `key`: one match on its bytes (decoded first only if escaped).
    fn of(key: &Key<'_>) -> Member {
        let mut buf = [0u8; 8];
        match key.decoded(&mut buf) {
            Some(b"id") => Member::Id,
            Some(b"jsonrpc") => Member::Jsonrpc,
            Some(b"method") => Member::Method,
            Some(b"params") => Member::Params,
            Some(b"result") => Member::Result,
            Some(b"error") => Member::Error,
            _ => Member::Other,
        }
    }
}

impl<'a, V: Visitor<'a>> Visitor<'a> for Envelope<'a, '_, V> {
    const DEPTH: u16 = V::DEPTH + 1;

    fn enter(&mut self, depth: u16, key: &Key<'a>) {
        if depth == 1 {
            self.member = Member::of(key);
        } else if self.member == Member::Params {
            self.params.enter(depth - 1, key);
        }
    }

    fn leave(&mut self, depth: u16, key: &Key<'a>, value: Value<'a>) {
        if depth > 1 {
            if self.member == Member::Params {
                self.params.leave(depth - 1, key, value);
            }
            return;
        }
        // Keys are unique (the scanner refuses duplicates), so each is noted at most once.
        let fields = &mut self.fields;
        match core::mem::replace(&mut self.member, Member::Other) {
            Member::Id => fields.id = Some(value),
            Member::Jsonrpc => {
                fields.version = value.as_str().is_some_and(|v| v.eq_str("2.0"));
            }
            Member::Method => fields.method = Some(value),
            Member::Params => fields.params = Some(value),
            outcome @ (Member::Result | Member::Error) => {
                fields.both = fields.outcome.is_some();
                fields.is_error = outcome == Member::Error;
                fields.outcome = Some(value);
            }
            Member::Other => {}
        }
    }
}
