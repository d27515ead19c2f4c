//! Streamable HTTP rules that need no HTTP stack: the request metadata headers checked against
//! the body, the `=?base64?…?=` value encoding, and the HTTP status of a reply.
//!
//! Pure functions over byte slices, with no heap and no buffer beyond a few bytes of stack, so
//! a firmware HTTP server and the host listener share them.
//!
//! # Using the header check
//!
//! The HTTP stack looks the headers up (names are case-insensitive), trims the optional
//! whitespace around each value and hands them over in a [`RequestHeaders`]. After the body
//! parses as a request ([`crate::rpc::parse`]), [`check_request`] decides whether headers and
//! body agree; for `tools/call` it also needs the called tool's `inputSchema` (find the tool
//! by [`tool_name`]) to know which arguments are mirrored into `Mcp-Param-*` headers. A
//! [`HeaderMismatch`] is answered with HTTP 400 and a -32020 error
//! ([`HeaderMismatch::write`]); otherwise the body goes to
//! [`Server::accept`](crate::server::Server::accept).
//!
//! Notifications and responses carry no header requirements in this revision; check requests
//! only.
//!
//! # Order
//!
//! The checks run in the order of the specification's *Server Validation*, and each only
//! compares what the body actually carries: a body that lacks `_meta`, a protocol version, a
//! tool name or a URI is left to the core, which answers -32602. So:
//!
//! 1. a required header that is absent (`MCP-Protocol-Version`, `Mcp-Method`, and `Mcp-Name`
//!    for `tools/call`, `resources/read` and `prompts/get`) is -32020;
//! 2. a header value with characters outside visible ASCII, space and tab is -32020;
//! 3. `Mcp-Method` must equal the body's `method` (case-sensitive);
//! 4. `MCP-Protocol-Version` must equal `_meta["io.modelcontextprotocol/protocolVersion"]`
//!    when the body has one: a mismatch is -32020, and a version both agree on but the server
//!    does not speak is the core's -32022;
//! 5. `Mcp-Name` (decoded) must equal `params.name` (tools, prompts) or `params.uri`
//!    (resources);
//! 6. for `tools/call`, each `x-mcp-header` property of the input schema, reached through
//!    `properties` alone: a non-null body value needs its `Mcp-Param-{Name}` header, equal after
//!    decoding (integers compared numerically, booleans as `true`/`false`), and a header whose
//!    body value is absent or `null` disagrees with the body.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::json::{JsonStr, Limits, Number, Object, Value, Writer};
use crate::rpc::{ErrorCode, Id, Request, write_error};

use super::META_PROTOCOL_VERSION;

/// `MCP-Protocol-Version`
pub const HEADER_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`
pub const HEADER_METHOD: &str = "Mcp-Method";
/// `Mcp-Name`
pub const HEADER_NAME: &str = "Mcp-Name";
/// The prefix of the headers that mirror tool arguments: `Mcp-Param-{Name}`.
pub const HEADER_PARAM_PREFIX: &str = "Mcp-Param-";
/// Longest `x-mcp-header` name honoured, in bytes; a longer annotation is not recognised.
pub const MAX_PARAM_NAME_LEN: usize = 64;

/// Opening marker of a Base64-encoded header value.
const BASE64_PREFIX: &[u8] = b"=?base64?";
/// Closing marker of a Base64-encoded header value.
const BASE64_SUFFIX: &[u8] = b"?=";
/// Longest number or boolean compared, in bytes of header text.
const MAX_SCALAR_LEN: usize = 64;

/// Where `Mcp-Param-{Name}` headers are found.
pub trait ParamHeaders {
    /// The trimmed value of the header `Mcp-Param-{name}`, the header name compared
    /// case-insensitively, or `None` when the request has none.
    fn param(&self, name: &str) -> Option<&[u8]>;
}

/// No `Mcp-Param-*` headers at all.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoParams;

impl ParamHeaders for NoParams {
    fn param(&self, _name: &str) -> Option<&[u8]> {
        None
    }
}

/// A list of `(Name, value)` pairs, `Name` being what follows `Mcp-Param-`.
impl ParamHeaders for &[(&str, &[u8])] {
    fn param(&self, name: &str) -> Option<&[u8]> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, v)| v)
    }
}

/// The MCP request headers of one POST, as the HTTP stack found them: looked up
/// case-insensitively and trimmed of surrounding spaces and tabs.
#[derive(Clone, Copy)]
pub struct RequestHeaders<'h> {
    /// `MCP-Protocol-Version`
    pub protocol_version: Option<&'h [u8]>,
    /// `Mcp-Method`
    pub method: Option<&'h [u8]>,
    /// `Mcp-Name`
    pub name: Option<&'h [u8]>,
    /// The `Mcp-Param-*` headers.
    pub params: &'h dyn ParamHeaders,
}

impl core::fmt::Debug for RequestHeaders<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RequestHeaders")
            .field("protocol_version", &self.protocol_version)
            .field("method", &self.method)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Why the headers of a request disagree with its body. Every variant is JSON-RPC -32020
/// (`HeaderMismatch`) with HTTP 400, and has a fixed message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum HeaderMismatch {
    /// No `MCP-Protocol-Version` header.
    MissingProtocolVersion,
    /// No `Mcp-Method` header.
    MissingMethod,
    /// No `Mcp-Name` header on `tools/call`, `resources/read` or `prompts/get`.
    MissingName,
    /// A header occurs more than once (reported by the HTTP stack).
    Repeated,
    /// A header value holds characters other than visible ASCII, space and tab.
    InvalidCharacters,
    /// A `=?base64?…?=` value that is not canonical padded Base64.
    InvalidBase64,
    /// `MCP-Protocol-Version` differs from the body's protocol version.
    ProtocolVersion,
    /// `Mcp-Method` differs from the body's method.
    Method,
    /// `Mcp-Name` differs from the body's name or URI.
    Name,
    /// An `x-mcp-header` argument has a value but no `Mcp-Param-*` header.
    MissingParam,
    /// An `Mcp-Param-*` header differs from its argument (or the argument is absent).
    Param,
}

impl HeaderMismatch {
    /// The JSON-RPC error code of every variant.
    pub const CODE: ErrorCode = ErrorCode::HEADER_MISMATCH;
    /// The HTTP status of every variant.
    pub const STATUS: u16 = 400;

    /// The fixed error message.
    pub fn message(self) -> &'static str {
        match self {
            HeaderMismatch::MissingProtocolVersion => {
                "Header mismatch: the MCP-Protocol-Version header is required"
            }
            HeaderMismatch::MissingMethod => "Header mismatch: the Mcp-Method header is required",
            HeaderMismatch::MissingName => {
                "Header mismatch: the Mcp-Name header is required for this method"
            }
            HeaderMismatch::Repeated => "Header mismatch: an MCP header occurs more than once",
            HeaderMismatch::InvalidCharacters => {
                "Header mismatch: a header value contains invalid characters"
            }
            HeaderMismatch::InvalidBase64 => {
                "Header mismatch: a =?base64?...?= header value is not valid Base64"
            }
            HeaderMismatch::ProtocolVersion => {
                "Header mismatch: MCP-Protocol-Version does not match the body's protocol version"
            }
            HeaderMismatch::Method => {
                "Header mismatch: Mcp-Method does not match the body's method"
            }
            HeaderMismatch::Name => {
                "Header mismatch: Mcp-Name does not match the body's name or uri"
            }
            HeaderMismatch::MissingParam => {
                "Header mismatch: an argument marked x-mcp-header has no Mcp-Param header"
            }
            HeaderMismatch::Param => {
                "Header mismatch: an Mcp-Param header does not match its argument"
            }
        }
    }

    /// Writes the whole error response, echoing `id`.
    pub fn write(self, w: &mut Writer<'_>, id: Option<Id<'_>>) {
        write_error(w, id, Self::CODE, self.message(), None);
    }
}

/// The methods whose requests must carry `Mcp-Name`.
const NAMED_METHODS: [&str; 3] = ["tools/call", "resources/read", "prompts/get"];

/// Whether requests of `method` must carry `Mcp-Name`.
pub fn requires_name(method: &str) -> bool {
    NAMED_METHODS.contains(&method)
}

/// The name of the tool a `tools/call` request calls, so the caller can find its input
/// schema for [`check_request`]; `None` for other methods or a body without a string name.
pub fn tool_name<'a>(request: &Request<'a>) -> Option<JsonStr<'a>> {
    if !request.method.eq_str("tools/call") {
        return None;
    }
    request.params?.get("name")?.as_str()
}

/// Checks a request's headers against its body (see the [module docs](self) for the order).
/// `input_schema` is the called tool's `inputSchema` for `tools/call`, and is ignored for
/// other methods; without it no `Mcp-Param-*` header is checked.
pub fn check_request(
    headers: &RequestHeaders<'_>,
    request: &Request<'_>,
    input_schema: Option<Value<'_>>,
) -> Result<(), HeaderMismatch> {
    let version = headers
        .protocol_version
        .ok_or(HeaderMismatch::MissingProtocolVersion)?;
    let method = headers.method.ok_or(HeaderMismatch::MissingMethod)?;
    let name = if NAMED_METHODS.iter().any(|m| request.method.eq_str(m)) {
        Some(headers.name.ok_or(HeaderMismatch::MissingName)?)
    } else {
        None
    };
    for value in [Some(version), Some(method), name].into_iter().flatten() {
        check_characters(value)?;
    }
    if !text_eq(Text::Plain(method), request.method) {
        return Err(HeaderMismatch::Method);
    }
    let params = request.params;
    let body_version = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.as_object())
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(|v| v.as_str());
    if let Some(body_version) = body_version {
        if !text_eq(Text::Plain(version), body_version) {
            return Err(HeaderMismatch::ProtocolVersion);
        }
    }
    if let Some(name) = name {
        let key = if request.method.eq_str("resources/read") {
            "uri"
        } else {
            "name"
        };
        if let Some(body_name) = params.and_then(|p| p.get(key)).and_then(|v| v.as_str()) {
            if !text_eq(Text::parse(name)?, body_name) {
                return Err(HeaderMismatch::Name);
            }
        }
    }
    if request.method.eq_str("tools/call") {
        if let Some(schema) = input_schema.and_then(|s| s.as_object()) {
            let arguments = params
                .and_then(|p| p.get("arguments"))
                .and_then(|a| a.as_object());
            check_params(schema, arguments, headers.params)?;
        }
    }
    Ok(())
}

/// Decodes a header value into `buf`: the bytes of a `=?base64?…?=` value, or the value itself.
/// Fails with [`HeaderMismatch::InvalidCharacters`] or [`HeaderMismatch::InvalidBase64`] for
/// a malformed value, and with [`HeaderMismatch::Param`] when `buf` is too small.
pub fn decode_value<'b>(value: &[u8], buf: &'b mut [u8]) -> Result<&'b [u8], HeaderMismatch> {
    let text = Text::parse(value)?;
    let mut n = 0;
    for byte in text.bytes() {
        *buf.get_mut(n).ok_or(HeaderMismatch::Param)? = byte;
        n += 1;
    }
    Ok(buf.get(..n).unwrap_or_default())
}

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
    let rest = reply.strip_prefix(b"{\"jsonrpc\":\"2.0\",\"id\":")?;
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

/// Whether every byte is visible ASCII, a space or a tab.
fn check_characters(value: &[u8]) -> Result<(), HeaderMismatch> {
    if value
        .iter()
        .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
    {
        Ok(())
    } else {
        Err(HeaderMismatch::InvalidCharacters)
    }
}

/// A header value: plain text, or the payload of `=?base64?…?=` (checked to be canonical,
/// padded standard Base64).
#[derive(Clone, Copy)]
enum Text<'h> {
    Plain(&'h [u8]),
    Base64(&'h [u8]),
}

impl<'h> Text<'h> {
    fn parse(value: &'h [u8]) -> Result<Self, HeaderMismatch> {
        check_characters(value)?;
        let encoded = value
            .strip_prefix(BASE64_PREFIX)
            .and_then(|v| v.strip_suffix(BASE64_SUFFIX));
        let Some(payload) = encoded else {
            return Ok(Text::Plain(value));
        };
        if payload.len() % 4 != 0 {
            return Err(HeaderMismatch::InvalidBase64);
        }
        let mut chunks = payload.chunks_exact(4).peekable();
        while let Some(chunk) = chunks.next() {
            let last = chunks.peek().is_none();
            if !last && chunk.contains(&b'=') {
                return Err(HeaderMismatch::InvalidBase64);
            }
            if STANDARD.decode_slice(chunk, &mut [0u8; 3]).is_err() {
                return Err(HeaderMismatch::InvalidBase64);
            }
        }
        Ok(Text::Base64(payload))
    }

    fn bytes(self) -> TextBytes<'h> {
        match self {
            Text::Plain(bytes) => TextBytes {
                rest: &[],
                chunk: [0; 3],
                len: 0,
                pos: 0,
                plain: bytes.iter(),
            },
            Text::Base64(payload) => TextBytes {
                rest: payload,
                chunk: [0; 3],
                len: 0,
                pos: 0,
                plain: [].iter(),
            },
        }
    }

    /// The decoded text in `buf`, when it is UTF-8 and fits.
    fn as_str(self, buf: &mut [u8; MAX_SCALAR_LEN]) -> Option<&str> {
        let mut n = 0;
        for byte in self.bytes() {
            *buf.get_mut(n)? = byte;
            n += 1;
        }
        core::str::from_utf8(buf.get(..n)?).ok()
    }
}

/// The decoded bytes of a [`Text`], four Base64 characters at a time.
struct TextBytes<'h> {
    plain: core::slice::Iter<'h, u8>,
    rest: &'h [u8],
    chunk: [u8; 3],
    len: usize,
    pos: usize,
}

impl Iterator for TextBytes<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if let Some(&b) = self.plain.next() {
            return Some(b);
        }
        if self.pos == self.len {
            let (group, rest) = self.rest.split_at_checked(4)?;
            self.rest = rest;
            self.len = STANDARD.decode_slice(group, &mut self.chunk).ok()?;
            self.pos = 0;
        }
        let b = *self.chunk.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
}

/// Whether the header text equals the decoded JSON string, byte for byte in UTF-8.
fn text_eq(text: Text<'_>, s: JsonStr<'_>) -> bool {
    if let (Text::Plain(plain), false) = (text, s.has_escapes()) {
        return plain == s.raw();
    }
    let mut bytes = text.bytes();
    let mut utf8 = [0u8; 4];
    for c in s.chars() {
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            if bytes.next() != Some(b) {
                return false;
            }
        }
    }
    bytes.next().is_none()
}

/// Checks the `Mcp-Param-*` headers of every `x-mcp-header` property under `schema`, reached
/// through `properties` alone, against `arguments` at the same path.
fn check_params(
    schema: Object<'_>,
    arguments: Option<Object<'_>>,
    headers: &dyn ParamHeaders,
) -> Result<(), HeaderMismatch> {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return Ok(());
    };
    for (key, property) in properties {
        let Some(property) = property.as_object() else {
            continue;
        };
        let value = arguments.and_then(|a| member(a, key));
        if let Some(name) = property.get("x-mcp-header").and_then(|n| n.as_str()) {
            check_param(name, value, headers)?;
        }
        check_params(property, value.and_then(|v| v.as_object()), headers)?;
    }
    Ok(())
}

/// The member of `object` whose key equals `key` once both are unescaped.
fn member<'a>(object: Object<'a>, key: JsonStr<'_>) -> Option<Value<'a>> {
    object.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// Checks one `x-mcp-header` argument against its header.
fn check_param(
    name: JsonStr<'_>,
    value: Option<Value<'_>>,
    headers: &dyn ParamHeaders,
) -> Result<(), HeaderMismatch> {
    let mut buf = [0u8; MAX_PARAM_NAME_LEN];
    let Some(name) = name.decode_into(&mut buf) else {
        return Ok(());
    };
    if !is_token(name) {
        return Ok(());
    }
    let value = value.filter(|v| !v.is_null());
    match (headers.param(name), value) {
        (None, None) => Ok(()),
        (None, Some(v)) if is_scalar(v) => Err(HeaderMismatch::MissingParam),
        (None, Some(_)) => Ok(()),
        (Some(header), None) => {
            Text::parse(header)?;
            Err(HeaderMismatch::Param)
        }
        (Some(header), Some(v)) => {
            if scalar_eq(Text::parse(header)?, v) {
                Ok(())
            } else {
                Err(HeaderMismatch::Param)
            }
        }
    }
}

/// Whether `name` is a non-empty HTTP field-name token (`1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Strings, numbers and booleans are mirrored into headers; objects and arrays are not.
fn is_scalar(v: Value<'_>) -> bool {
    v.as_str().is_some() || v.as_number().is_some() || v.as_bool().is_some()
}

/// Whether a header's text stands for the body value `v`.
fn scalar_eq(text: Text<'_>, v: Value<'_>) -> bool {
    if let Some(s) = v.as_str() {
        return text_eq(text, s);
    }
    let mut buf = [0u8; MAX_SCALAR_LEN];
    let Some(header) = text.as_str(&mut buf) else {
        return false;
    };
    if let Some(b) = v.as_bool() {
        return header == if b { "true" } else { "false" };
    }
    v.as_number().is_some_and(|n| numbers_eq(header, n))
}

/// Whether the header text is a number equal to `n`: exactly for two integer literals,
/// otherwise as `f64` (exact across the safe integer range `x-mcp-header` allows).
fn numbers_eq(header: &str, n: Number<'_>) -> bool {
    if !is_json_number(header) {
        return false;
    }
    let integer_literal = !header.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    if integer_literal && n.is_integer_literal() {
        if let (Ok(h), Some(b)) = (header.parse::<i64>(), n.as_i64()) {
            return h == b;
        }
    }
    match (header.parse::<f64>(), n.as_f64()) {
        (Ok(h), Some(b)) => h.is_finite() && h == b,
        _ => false,
    }
}

/// Whether `s` is a JSON number literal.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Checks the `x-mcp-header` annotations of a tool's input schema as the specification
/// constrains them: each a non-empty token of at most [`MAX_PARAM_NAME_LEN`] bytes, unique
/// case-insensitively, on a property of type `string`, `integer` or `boolean` reached through
/// `properties` alone, and nowhere else. Returns how many there are.
pub fn check_annotations(schema: Value<'_>) -> Result<usize, &'static str> {
    let schema = schema
        .as_object()
        .ok_or("the input schema is not an object")?;
    if schema.contains("x-mcp-header") {
        return Err("x-mcp-header is allowed only on properties, not on the schema root");
    }
    let mut count = 0;
    annotations_under(schema, schema, true, &mut count)?;
    Ok(count)
}

/// Keywords whose values are instances, not schemas, and hold no annotations.
const INSTANCE_KEYWORDS: [&str; 5] = ["x-mcp-header", "default", "const", "enum", "examples"];

fn annotations_under(
    root: Object<'_>,
    schema: Object<'_>,
    reachable: bool,
    count: &mut usize,
) -> Result<(), &'static str> {
    for (key, value) in schema {
        if key.eq_str("x-mcp-header") && !reachable {
            return Err("x-mcp-header is allowed only on properties reached through properties");
        }
        let through_properties = key.eq_str("properties");
        let walk = |v: Value<'_>, reachable: bool, count: &mut usize| match v.as_object() {
            Some(o) => annotations_under(root, o, reachable, count),
            None => Ok(()),
        };
        if through_properties {
            if let Some(properties) = value.as_object() {
                for (_, property) in properties {
                    if let Some(p) = property.as_object() {
                        if let Some(name) = p.get("x-mcp-header") {
                            check_annotation(root, p, name)?;
                            *count += 1;
                        }
                    }
                    walk(property, reachable, count)?;
                }
            }
        } else if let Some(items) = value.as_array() {
            for item in items {
                walk(item, false, count)?;
            }
        } else if !INSTANCE_KEYWORDS.iter().any(|k| key.eq_str(k)) {
            walk(value, false, count)?;
        }
    }
    Ok(())
}

fn check_annotation(
    root: Object<'_>,
    property: Object<'_>,
    name: Value<'_>,
) -> Result<(), &'static str> {
    let mut buf = [0u8; MAX_PARAM_NAME_LEN];
    let name = name
        .as_str()
        .and_then(|n| n.decode_into(&mut buf))
        .filter(|n| is_token(n))
        .ok_or("x-mcp-header must be a non-empty HTTP token of at most 64 bytes")?;
    let primitive = property
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("string") || t.eq_str("integer") || t.eq_str("boolean"));
    if !primitive {
        return Err("x-mcp-header is allowed only on string, integer and boolean properties");
    }
    let mut same = 0;
    count_named(root, name, &mut same);
    if same > 1 {
        return Err("x-mcp-header names must be unique, ignoring case");
    }
    Ok(())
}

/// Counts the annotations reached through `properties` whose name equals `name` ignoring case.
fn count_named(schema: Object<'_>, name: &str, same: &mut usize) {
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return;
    };
    for (_, property) in properties {
        let Some(p) = property.as_object() else {
            continue;
        };
        let mut buf = [0u8; MAX_PARAM_NAME_LEN];
        let other = p
            .get("x-mcp-header")
            .and_then(|n| n.as_str())
            .and_then(|n| n.decode_into(&mut buf));
        if other.is_some_and(|o| o.eq_ignore_ascii_case(name)) {
            *same += 1;
        }
        count_named(p, name, same);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;
    use crate::rpc::{self, Incoming};
    use std::string::String;

    const LIMITS: Limits = Limits::HOST;

    fn request(text: &str) -> Request<'_> {
        match rpc::parse(text.as_bytes(), &LIMITS) {
            Ok(Incoming::Request(r)) => r,
            other => panic!("not a request: {other:?}"),
        }
    }

    fn body(method: &str, params: &str) -> String {
        std::format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#)
    }

    fn meta(version: &str) -> String {
        std::format!(
            r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#
        )
    }

    struct Headers<'h> {
        version: Option<&'h str>,
        method: Option<&'h str>,
        name: Option<&'h str>,
        params: &'h [(&'h str, &'h [u8])],
    }

    fn headers<'h>(method: &'h str) -> Headers<'h> {
        Headers {
            version: Some("2026-07-28"),
            method: Some(method),
            name: None,
            params: &[],
        }
    }

    fn check(h: &Headers<'_>, text: &str, schema: Option<&str>) -> Result<(), HeaderMismatch> {
        let r = request(text);
        let schema = schema.map(|s| parse(s.as_bytes(), &LIMITS).unwrap());
        let rh = RequestHeaders {
            protocol_version: h.version.map(str::as_bytes),
            method: h.method.map(str::as_bytes),
            name: h.name.map(str::as_bytes),
            params: &h.params,
        };
        check_request(&rh, &r, schema)
    }

    fn b64(text: &str) -> String {
        use base64::Engine as _;
        std::format!("=?base64?{}?=", STANDARD.encode(text))
    }

    #[test]
    fn agreeing_headers_pass() {
        let m = meta("2026-07-28");
        let list = body("tools/list", &std::format!("{{{m}}}"));
        assert_eq!(check(&headers("tools/list"), &list, None), Ok(()));
        let call = body("tools/call", &std::format!(r#"{{"name":"echo",{m}}}"#));
        let h = Headers {
            name: Some("echo"),
            ..headers("tools/call")
        };
        assert_eq!(check(&h, &call, None), Ok(()));
        let read = body(
            "resources/read",
            &std::format!(r#"{{"uri":"file:///a b.txt",{m}}}"#),
        );
        let h = Headers {
            name: Some("file:///a b.txt"),
            ..headers("resources/read")
        };
        assert_eq!(check(&h, &read, None), Ok(()));
        let get = body("prompts/get", &std::format!(r#"{{"name":"greet",{m}}}"#));
        let h = Headers {
            name: Some("greet"),
            ..headers("prompts/get")
        };
        assert_eq!(check(&h, &get, None), Ok(()));
    }

    #[test]
    fn required_headers_must_be_present() {
        let m = meta("2026-07-28");
        let list = body("tools/list", &std::format!("{{{m}}}"));
        let no_version = Headers {
            version: None,
            ..headers("tools/list")
        };
        assert_eq!(
            check(&no_version, &list, None),
            Err(HeaderMismatch::MissingProtocolVersion)
        );
        let no_method = Headers {
            method: None,
            ..headers("tools/list")
        };
        assert_eq!(
            check(&no_method, &list, None),
            Err(HeaderMismatch::MissingMethod)
        );
        let call = body("tools/call", &std::format!(r#"{{"name":"echo",{m}}}"#));
        assert_eq!(
            check(&headers("tools/call"), &call, None),
            Err(HeaderMismatch::MissingName)
        );
    }

    #[test]
    fn values_are_compared_case_sensitively() {
        let m = meta("2026-07-28");
        let list = body("tools/list", &std::format!("{{{m}}}"));
        assert_eq!(
            check(&headers("TOOLS/LIST"), &list, None),
            Err(HeaderMismatch::Method)
        );
        assert_eq!(
            check(&headers("prompts/list"), &list, None),
            Err(HeaderMismatch::Method)
        );
        let call = body("tools/call", &std::format!(r#"{{"name":"echo",{m}}}"#));
        let h = Headers {
            name: Some("Echo"),
            ..headers("tools/call")
        };
        assert_eq!(check(&h, &call, None), Err(HeaderMismatch::Name));
    }

    #[test]
    fn a_version_mismatch_is_32020_but_a_missing_meta_is_left_to_the_core() {
        let other = body("server/discover", &std::format!("{{{}}}", meta("v999.0.0")));
        assert_eq!(
            check(&headers("server/discover"), &other, None),
            Err(HeaderMismatch::ProtocolVersion)
        );
        let both = Headers {
            version: Some("v999.0.0"),
            ..headers("server/discover")
        };
        assert_eq!(check(&both, &other, None), Ok(()));
        let bare = body("server/discover", "{}");
        assert_eq!(check(&headers("server/discover"), &bare, None), Ok(()));
        let no_params = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(check(&headers("tools/list"), no_params, None), Ok(()));
        let call_without_name = body("tools/call", &std::format!("{{{}}}", meta("2026-07-28")));
        let h = Headers {
            name: Some("echo"),
            ..headers("tools/call")
        };
        assert_eq!(check(&h, &call_without_name, None), Ok(()));
    }

    #[test]
    fn invalid_characters_are_refused() {
        let m = meta("2026-07-28");
        let call = body("tools/call", &std::format!(r#"{{"name":"echo",{m}}}"#));
        let rh = |name: &'static [u8]| RequestHeaders {
            protocol_version: Some(b"2026-07-28"),
            method: Some(b"tools/call"),
            name: Some(name),
            params: &NoParams,
        };
        for bad in [&b"ec\x80ho"[..], b"ec\nho", b"ec\x7fho"] {
            assert_eq!(
                check_request(&rh(bad), &request(&call), None),
                Err(HeaderMismatch::InvalidCharacters)
            );
        }
    }

    #[test]
    fn base64_names_are_decoded() {
        let m = meta("2026-07-28");
        let call = body(
            "tools/call",
            &std::format!(r#"{{"name":"Hello, \u4e16\u754c",{m}}}"#),
        );
        let encoded = b64("Hello, 世界");
        assert_eq!(encoded, "=?base64?SGVsbG8sIOS4lueVjA==?=");
        let h = Headers {
            name: Some(&encoded),
            ..headers("tools/call")
        };
        assert_eq!(check(&h, &call, None), Ok(()));
        let wrong = b64("Hello, world");
        let h = Headers {
            name: Some(&wrong),
            ..headers("tools/call")
        };
        assert_eq!(check(&h, &call, None), Err(HeaderMismatch::Name));
        // The sentinel itself travels encoded; unencoded, it is a literal.
        let sentinel = body(
            "prompts/get",
            &std::format!(r#"{{"name":"=?base64?literal?=",{m}}}"#),
        );
        let encoded = b64("=?base64?literal?=");
        assert_eq!(encoded, "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        let h = Headers {
            name: Some(&encoded),
            ..headers("prompts/get")
        };
        assert_eq!(check(&h, &sentinel, None), Ok(()));
    }

    #[test]
    fn base64_must_be_canonical_and_padded() {
        for bad in [
            "=?base64?SGVsbG8?=",
            "=?base64?SGVs!!!bG8=?=",
            "=?base64?SG=sbG8=?=",
            "=?base64?SGVsbG9=?=",
        ] {
            let mut buf = [0u8; 32];
            assert_eq!(
                decode_value(bad.as_bytes(), &mut buf),
                Err(HeaderMismatch::InvalidBase64),
                "{bad}"
            );
        }
        let mut buf = [0u8; 32];
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8=?=", &mut buf),
            Ok(&b"Hello"[..])
        );
        assert_eq!(decode_value(b"=?base64??=", &mut buf), Ok(&b""[..]));
        // Without both markers the value is literal.
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8=", &mut buf),
            Ok(&b"=?base64?SGVsbG8="[..])
        );
        assert_eq!(
            decode_value(b"SGVsbG8=?=", &mut buf),
            Ok(&b"SGVsbG8=?="[..])
        );
        assert_eq!(
            decode_value(b"=?BASE64?SGVsbG8=?=", &mut buf),
            Ok(&b"=?BASE64?SGVsbG8=?="[..])
        );
        let mut small = [0u8; 2];
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8=?=", &mut small),
            Err(HeaderMismatch::Param)
        );
    }

    const SCHEMA: &str = r#"{"type":"object","properties":{
        "region":{"type":"string","x-mcp-header":"Region"},
        "count":{"type":"integer","x-mcp-header":"Count"},
        "dry":{"type":"boolean","x-mcp-header":"Dry-Run"},
        "query":{"type":"string"},
        "target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
        "list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"Hidden"}}}}
    },"required":["query"]}"#;

    fn call_with(args: &str) -> String {
        body(
            "tools/call",
            &std::format!(
                r#"{{"name":"sql","arguments":{args},{}}}"#,
                meta("2026-07-28")
            ),
        )
    }

    fn param_check(args: &str, params: &[(&str, &[u8])]) -> Result<(), HeaderMismatch> {
        let h = Headers {
            name: Some("sql"),
            params,
            ..headers("tools/call")
        };
        check(&h, &call_with(args), Some(SCHEMA))
    }

    #[test]
    fn param_headers_match_their_arguments() {
        assert_eq!(param_check(r#"{"query":"q"}"#, &[]), Ok(()));
        assert_eq!(
            param_check(
                r#"{"query":"q","region":"us-west1","count":42,"dry":false,"target":{"zone":"b"}}"#,
                &[
                    ("region", b"us-west1"),
                    ("COUNT", b"42"),
                    ("dry-run", b"false"),
                    ("Zone", b"b"),
                ],
            ),
            Ok(())
        );
        assert_eq!(
            param_check(r#"{"query":"q","count":42.0}"#, &[("Count", b"42")]),
            Ok(())
        );
        assert_eq!(
            param_check(r#"{"query":"q","count":42}"#, &[("Count", b"42.0")]),
            Ok(())
        );
        assert_eq!(
            param_check(
                r#"{"query":"q","count":-7}"#,
                &[("Count", b"=?base64?LTc=?=")]
            ),
            Ok(())
        );
        assert_eq!(
            param_check(
                r#"{"query":"q","region":" padded "}"#,
                &[("Region", b"=?base64?IHBhZGRlZCA=?=")]
            ),
            Ok(())
        );
        assert_eq!(param_check(r#"{"query":"q","region":null}"#, &[]), Ok(()));
        // Not reached through properties alone: not a mirrored argument.
        assert_eq!(
            param_check(r#"{"query":"q","list":[{"x":"y"}]}"#, &[]),
            Ok(())
        );
    }

    #[test]
    fn param_headers_that_disagree_are_refused() {
        assert_eq!(
            param_check(r#"{"query":"q","region":"us-west1"}"#, &[]),
            Err(HeaderMismatch::MissingParam)
        );
        assert_eq!(
            param_check(r#"{"query":"q","target":{"zone":"b"}}"#, &[]),
            Err(HeaderMismatch::MissingParam)
        );
        assert_eq!(
            param_check(
                r#"{"query":"q","region":"us-west1"}"#,
                &[("Region", b"us-east1")]
            ),
            Err(HeaderMismatch::Param)
        );
        assert_eq!(
            param_check(r#"{"query":"q"}"#, &[("Region", b"us-west1")]),
            Err(HeaderMismatch::Param)
        );
        assert_eq!(
            param_check(r#"{"query":"q","count":42}"#, &[("Count", b"43")]),
            Err(HeaderMismatch::Param)
        );
        assert_eq!(
            param_check(r#"{"query":"q","count":42}"#, &[("Count", b"42abc")]),
            Err(HeaderMismatch::Param)
        );
        assert_eq!(
            param_check(r#"{"query":"q","dry":true}"#, &[("Dry-Run", b"True")]),
            Err(HeaderMismatch::Param)
        );
        assert_eq!(
            param_check(
                r#"{"query":"q","region":"Hello"}"#,
                &[("Region", b"=?base64?SGVsbG8?=")]
            ),
            Err(HeaderMismatch::InvalidBase64)
        );
        assert_eq!(
            param_check(
                r#"{"query":"q","region":"Hello"}"#,
                &[("Region", b"Hel\x01lo")]
            ),
            Err(HeaderMismatch::InvalidCharacters)
        );
    }

    #[test]
    fn the_tool_name_is_read_for_tools_call_only() {
        let m = meta("2026-07-28");
        let call = body("tools/call", &std::format!(r#"{{"name":"sql",{m}}}"#));
        assert!(tool_name(&request(&call)).is_some_and(|n| n.eq_str("sql")));
        let get = body("prompts/get", &std::format!(r#"{{"name":"sql",{m}}}"#));
        assert_eq!(tool_name(&request(&get)), None);
    }

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

    #[test]
    fn a_mismatch_is_written_with_the_request_id() {
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        HeaderMismatch::Name.write(&mut w, Some(Id::Num(7)));
        let n = w.finish().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf[..n]).unwrap();
        assert_eq!(v["id"], 7);
        assert_eq!(v["error"]["code"], -32020);
        assert_eq!(v["error"]["message"], HeaderMismatch::Name.message());
    }

    #[test]
    fn annotations_are_checked_against_the_constraints() {
        let ok = parse(
            br#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"n":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"B"}}}},"default":{"x-mcp-header":1}}"#,
            &LIMITS,
        )
        .unwrap();
        assert_eq!(check_annotations(ok), Ok(2));
        for bad in [
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}"#,
            r#"{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
            r#"{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}"#,
            r#"{"properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}"#,
            r#"{"anyOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}"#,
            r#"{"x-mcp-header":"Root"}"#,
        ] {
            let v = parse(bad.as_bytes(), &LIMITS).unwrap();
            assert!(check_annotations(v).is_err(), "{bad}");
        }
    }
}
