//! Reading one incoming message.

use super::{ErrorCode, Id};
use crate::json::{JsonStr, Limits, Object, Value, parse as parse_json};

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

/// One well-formed incoming message.
#[derive(Clone, Copy, Debug)]
pub enum Incoming<'a> {
    /// A request.
    Request(Request<'a>),
    /// A notification.
    Notification(Notification<'a>),
    /// A response from the peer (MCP 2026-07-28 servers send no requests, so it is dropped).
    Response,
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
    let root = parse_json(bytes, limits).map_err(|_| Rejected {
        id: None,
        code: ErrorCode::PARSE_ERROR,
        message: "Parse error",
    })?;
    if root.as_array().is_some() {
        return Err(Rejected::invalid(None, "Batches are not supported"));
    }
    let Some(msg) = root.as_object() else {
        return Err(Rejected::invalid(None, "A message must be an object"));
    };
    let fields = Fields::read(msg);
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
    if !fields
        .jsonrpc
        .and_then(|v| v.as_str())
        .is_some_and(|v| v.eq_str("2.0"))
    {
        return Err(Rejected::invalid(id, "jsonrpc must be \"2.0\""));
    }
    let Some(method) = fields.method else {
        if id.is_some() && (fields.result || fields.error) {
            return Ok(Incoming::Response);
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

/// The members of a message that matter, found in one pass over it (a `get` per member would
/// walk over `params`, most of the message, several times when it comes first).
#[derive(Default)]
struct Fields<'a> {
    id: Option<Value<'a>>,
    jsonrpc: Option<Value<'a>>,
    method: Option<Value<'a>>,
    params: Option<Value<'a>>,
    result: bool,
    error: bool,
}

impl<'a> Fields<'a> {
    fn read(msg: Object<'a>) -> Self {
        let mut fields = Fields::default();
        for (key, value) in msg {
            // Keys are unique (the scanner refuses duplicates), so this finds what `get` would.
            if key.eq_str("id") {
                fields.id = Some(value);
            } else if key.eq_str("jsonrpc") {
                fields.jsonrpc = Some(value);
            } else if key.eq_str("method") {
                fields.method = Some(value);
            } else if key.eq_str("params") {
                fields.params = Some(value);
            } else if key.eq_str("result") {
                fields.result = true;
            } else if key.eq_str("error") {
                fields.error = true;
            }
        }
        fields
    }
}
