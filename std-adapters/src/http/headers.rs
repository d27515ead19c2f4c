//! The MCP request headers of a request, handed to the core's pure check
//! ([`snodo_core::protocol::http::check_request`]).

use http::HeaderMap;
use snodo_core::json::{Limits, Value};
use snodo_core::protocol::http::{
    HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION, HeaderMismatch, MAX_PARAM_NAME_LEN,
    ParamHeaders, RequestHeaders, check_request, tool_name,
};
use snodo_core::rpc::Request;
use snodo_core::server::{Registry, Server};

const PARAM_PREFIX: &[u8] = b"mcp-param-";

/// `Mcp-Param-*` lookups in a header map.
struct Params<'h>(&'h HeaderMap);

impl ParamHeaders for Params<'_> {
    fn param(&self, name: &str) -> Option<&[u8]> {
        let mut buf = [0u8; PARAM_PREFIX.len() + MAX_PARAM_NAME_LEN];
        let full = buf.get_mut(..PARAM_PREFIX.len() + name.len())?;
        let (prefix, rest) = full.split_at_mut(PARAM_PREFIX.len());
        prefix.copy_from_slice(PARAM_PREFIX);
        rest.copy_from_slice(name.as_bytes());
        rest.make_ascii_lowercase();
        let full = std::str::from_utf8(full).ok()?;
        self.0.get(full).map(|v| trim(v.as_bytes()))
    }
}

/// The one value of header `name`, trimmed; a header that occurs twice is refused.
fn single<'h>(map: &'h HeaderMap, name: &str) -> Result<Option<&'h [u8]>, HeaderMismatch> {
    let mut values = map.get_all(name).iter();
    let first = values.next();
    if values.next().is_some() {
        return Err(HeaderMismatch::Repeated);
    }
    Ok(first.map(|v| trim(v.as_bytes())))
}

/// Checks a request's MCP headers against its body (HTTP 400, -32020 when they disagree).
pub(crate) fn check<A: Registry>(
    server: &Server<'_, A>,
    map: &HeaderMap,
    request: &Request<'_>,
) -> Result<(), HeaderMismatch> {
    // A server without task tools does not have the extension's methods: they are answered
    // -32601 as unknown, not held to the headers the extension asks of them.
    if snodo_core::tasks::TaskMethod::of(request.method).is_some() && !server.serves_tasks() {
        return Ok(());
    }
    let schema_text = tool_name(request).and_then(|name| {
        server
            .app()
            .tools()
            .iter()
            .find(|t| name.eq_str(t.name))
            .map(|t| t.input_schema)
    });
    let limits = Limits {
        max_size: usize::MAX,
        ..server.config().limits
    };
    let schema = schema_text.and_then(|s| snodo_core::json::parse(s.as_bytes(), &limits).ok());
    check_against(map, request, schema)
}

/// Checks a request's MCP headers against its body, with the called tool's input schema
/// when it is known (for its `Mcp-Param-*` headers).
pub(crate) fn check_against(
    map: &HeaderMap,
    request: &Request<'_>,
    schema: Option<Value<'_>>,
) -> Result<(), HeaderMismatch> {
    let repeated_param = map.keys().any(|k| {
        k.as_str().as_bytes().starts_with(PARAM_PREFIX) && map.get_all(k).iter().nth(1).is_some()
    });
    if repeated_param {
        return Err(HeaderMismatch::Repeated);
    }
    let params = Params(map);
    let headers = RequestHeaders {
        protocol_version: single(map, HEADER_PROTOCOL_VERSION)?,
        method: single(map, HEADER_METHOD)?,
        name: single(map, HEADER_NAME)?,
        params: &params,
    };
    check_request(&headers, request, schema)
}

/// The request header that names a legacy (2025-11-25) session.
pub(crate) const HEADER_SESSION_ID: &str = "mcp-session-id";

/// Spaces and tabs removed from both ends.
pub(crate) fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(start, |i| i + 1);
    bytes.get(start..end).unwrap_or_default()
}
