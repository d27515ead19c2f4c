//! The Streamable HTTP request headers of a request, as pure functions: the HTTP stack asks
//! for them once the body is written and sets each one as given.
//!
//! - `MCP-Protocol-Version`: the body's `_meta` protocol version;
//! - `Mcp-Method`: the body's `method`;
//! - `Mcp-Name`: `params.name` for `tools/call` and `prompts/get`, `params.uri` for
//!   `resources/read`, `params.taskId` for the Tasks extension's `tasks/*`;
//! - `Mcp-Param-{Name}`: for `tools/call`, every argument whose property in the tool's
//!   `inputSchema` carries `x-mcp-header: "{Name}"`, reached from the root through
//!   `properties` alone; an absent or `null` argument sends no header. Strings go as they
//!   are, integers in decimal, booleans as `true`/`false`.
//!
//! A value that is not safe as a plain header value — any character outside visible ASCII
//! and space (so tabs, line breaks and non-ASCII text), a leading or trailing space, or text
//! that itself looks like the sentinel — is sent as `=?base64?{standard Base64 of the UTF-8
//! text}?=`. [`HeaderValue`] does the encoding as it is displayed, without a buffer.
//!
//! A tool whose `x-mcp-header` annotations break the specification's rules is unusable over
//! HTTP: [`check_tool`] says why, and a client leaves it out of the tools it lists.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::json::{JsonStr, Object, Value};
use crate::protocol::http::{self, MAX_PARAM_NAME_LEN};
use crate::protocol::{META_PROTOCOL_VERSION, PROTOCOL_VERSION};

/// The name of a request header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderName<'a> {
    /// `MCP-Protocol-Version`
    ProtocolVersion,
    /// `Mcp-Method`
    Method,
    /// `Mcp-Name`
    Name,
    /// `Mcp-Param-{name}`, `name` being the `x-mcp-header` annotation.
    Param(&'a str),
}

impl core::fmt::Display for HeaderName<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            HeaderName::ProtocolVersion => f.write_str(http::HEADER_PROTOCOL_VERSION),
            HeaderName::Method => f.write_str(http::HEADER_METHOD),
            HeaderName::Name => f.write_str(http::HEADER_NAME),
            HeaderName::Param(name) => {
                f.write_str(http::HEADER_PARAM_PREFIX)?;
                f.write_str(name)
            }
        }
    }
}

/// A header value, encoded as it is displayed: plain text, or `=?base64?…?=` when the text
/// is not safe as a plain value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderValue<'a> {
    repr: Repr<'a>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr<'a> {
    Json(JsonStr<'a>),
    Str(&'a str),
    Int(i64),
    Bool(bool),
}

impl<'a> HeaderValue<'a> {
    /// The value for the text `s`.
    pub const fn text(s: &'a str) -> Self {
        HeaderValue { repr: Repr::Str(s) }
    }

    /// The value for a JSON string's text.
    pub const fn json_str(s: JsonStr<'a>) -> Self {
        HeaderValue {
            repr: Repr::Json(s),
        }
    }

    /// The value for a scalar argument: a string, an integer or a boolean (a number with a
    /// fraction is written as its literal). `None` for `null`, objects and arrays, which are
    /// never mirrored.
    pub fn scalar(v: Value<'a>) -> Option<Self> {
        if let Some(s) = v.as_str() {
            return Some(Self::json_str(s));
        }
        if let Some(b) = v.as_bool() {
            return Some(HeaderValue {
                repr: Repr::Bool(b),
            });
        }
        let n = v.as_number()?;
        if let Some(i) = n.as_i64() {
            return Some(HeaderValue { repr: Repr::Int(i) });
        }
        // An integral value written as a float (`42.0`, `4.2e1`) within JavaScript's safe
        // range is still the integer it stands for.
        const SAFE: f64 = 9_007_199_254_740_991.0;
        match n.as_f64() {
            Some(f) if n.is_integral() && (-SAFE..=SAFE).contains(&f) => Some(HeaderValue {
                repr: Repr::Int(f as i64),
            }),
            _ => Some(HeaderValue {
                repr: Repr::Str(n.literal()),
            }),
        }
    }

    /// Whether the value goes out in the `=?base64?…?=` form.
    pub fn is_base64(&self) -> bool {
        match self.repr {
            Repr::Json(s) => needs_base64(s.chars()),
            Repr::Str(s) => needs_base64(s.chars()),
            Repr::Int(_) | Repr::Bool(_) => false,
        }
    }
}

impl core::fmt::Display for HeaderValue<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.repr {
            Repr::Int(i) => write!(f, "{i}"),
            Repr::Bool(b) => f.write_str(if b { "true" } else { "false" }),
            Repr::Str(s) if !needs_base64(s.chars()) => f.write_str(s),
            Repr::Str(s) => base64_form(f, s.chars()),
            Repr::Json(s) if !needs_base64(s.chars()) => {
                let mut utf8 = [0u8; 4];
                for c in s.chars() {
                    f.write_str(c.encode_utf8(&mut utf8))?;
                }
                Ok(())
            }
            Repr::Json(s) => base64_form(f, s.chars()),
        }
    }
}

const SENTINEL_OPEN: &str = "=?base64?";
const SENTINEL_CLOSE: &str = "?=";

/// Whether text must be sent in the Base64 form: a character outside visible ASCII and
/// space, a leading or trailing space, or text that starts with `=?base64?` and ends with
/// `?=` (which would otherwise read as encoded).
pub fn needs_base64(chars: impl Iterator<Item = char> + Clone) -> bool {
    let mut opening = SENTINEL_OPEN.chars();
    let mut opens = true;
    let (mut first, mut before_last, mut last) = (None, None, None);
    for c in chars {
        if !(' '..='~').contains(&c) {
            return true;
        }
        if opening.next().is_some_and(|o| o != c) {
            opens = false;
        }
        first.get_or_insert(c);
        before_last = last;
        last = Some(c);
    }
    let opens = opens && opening.next().is_none();
    let closes = before_last == Some('?') && last == Some('=');
    first == Some(' ') || last == Some(' ') || (opens && closes && SENTINEL_CLOSE.len() == 2)
}

/// Writes `=?base64?…?=` for the UTF-8 text of `chars`, three bytes at a time.
fn base64_form(
    f: &mut core::fmt::Formatter<'_>,
    chars: impl Iterator<Item = char>,
) -> core::fmt::Result {
    f.write_str(SENTINEL_OPEN)?;
    let mut group = [0u8; 3];
    let mut filled = 0;
    let mut utf8 = [0u8; 4];
    let flush = |f: &mut core::fmt::Formatter<'_>, bytes: &[u8]| {
        let mut out = [0u8; 4];
        match STANDARD.encode_slice(bytes, &mut out) {
            Ok(n) => {
                f.write_str(core::str::from_utf8(out.get(..n).unwrap_or_default()).unwrap_or(""))
            }
            Err(_) => Err(core::fmt::Error),
        }
    };
    for c in chars {
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            if let Some(slot) = group.get_mut(filled) {
                *slot = b;
            }
            filled += 1;
            if filled == 3 {
                flush(f, &group)?;
                filled = 0;
            }
        }
    }
    if filled > 0 {
        flush(f, group.get(..filled).unwrap_or_default())?;
    }
    f.write_str(SENTINEL_CLOSE)
}

/// Why the headers of a request could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HeaderError {
    /// The body is not a JSON-RPC request with a string method.
    NotARequest,
    /// The tool's `x-mcp-header` annotations break the specification's rules (the reason
    /// says which); such a tool must not be called over HTTP.
    InvalidAnnotations(&'static str),
}

/// Computes the request headers of `request` (a whole JSON-RPC request) and hands each to
/// `emit`, in the order `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`.
/// `input_schema` is the called tool's `inputSchema` for `tools/call`; without it no
/// `Mcp-Param-*` header is computed.
pub fn request_headers<'a>(
    request: Value<'a>,
    input_schema: Option<Value<'_>>,
    mut emit: impl FnMut(HeaderName<'_>, HeaderValue<'a>),
) -> Result<(), HeaderError> {
    let method = request
        .get("method")
        .and_then(|m| m.as_str())
        .ok_or(HeaderError::NotARequest)?;
    let params = request.get("params").and_then(|p| p.as_object());
    let is_tool_call = method.eq_str("tools/call");
    if is_tool_call {
        if let Some(schema) = input_schema {
            http::check_annotations(schema).map_err(HeaderError::InvalidAnnotations)?;
        }
    }
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(|v| v.as_str());
    emit(
        HeaderName::ProtocolVersion,
        match version {
            Some(v) => HeaderValue::json_str(v),
            None => HeaderValue::text(PROTOCOL_VERSION),
        },
    );
    emit(HeaderName::Method, HeaderValue::json_str(method));
    let name_field = if is_tool_call || method.eq_str("prompts/get") {
        Some("name")
    } else if method.eq_str("resources/read") {
        Some("uri")
    } else if method.raw().starts_with(b"tasks/") {
        Some("taskId")
    } else {
        None
    };
    if let Some(name) = name_field
        .and_then(|field| params.and_then(|p| p.get(field)))
        .and_then(|v| v.as_str())
    {
        emit(HeaderName::Name, HeaderValue::json_str(name));
    }
    if let (true, Some(schema)) = (is_tool_call, input_schema.and_then(|s| s.as_object())) {
        let arguments = params
            .and_then(|p| p.get("arguments"))
            .and_then(|a| a.as_object());
        params_under(schema, arguments, &mut emit);
    }
    Ok(())
}

/// Emits `Mcp-Param-*` for every annotated property under `schema`, reached through
/// `properties` alone, with the argument at the same path.
fn params_under<'a>(
    schema: Object<'_>,
    arguments: Option<Object<'a>>,
    emit: &mut impl FnMut(HeaderName<'_>, HeaderValue<'a>),
) {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return;
    };
    for (key, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        let value = arguments.and_then(|a| a.iter().find(|(k, _)| *k == key).map(|(_, v)| v));
        if let Some(name) = property.get("x-mcp-header").and_then(|n| n.as_str()) {
            let mut buf = [0u8; MAX_PARAM_NAME_LEN];
            if let (Some(name), Some(value)) = (
                name.decode_into(&mut buf),
                value.and_then(HeaderValue::scalar),
            ) {
                emit(HeaderName::Param(name), value);
            }
        }
        params_under(property, value.and_then(|v| v.as_object()), emit);
    }
}

/// Whether `tool` (one entry of `tools/list`) may be used over Streamable HTTP: its
/// `inputSchema` is an object and its `x-mcp-header` annotations keep the specification's
/// rules (non-empty tokens, unique ignoring case, on `string`, `integer` or `boolean`
/// properties reached through `properties` alone). The error says what is wrong.
pub fn check_tool(tool: Value<'_>) -> Result<(), &'static str> {
    let schema = tool
        .get("inputSchema")
        .ok_or("the tool has no inputSchema")?;
    http::check_annotations(schema).map(|_| ())
}
