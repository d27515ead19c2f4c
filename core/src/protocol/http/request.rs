//! The header check: a request's `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` headers against its body, in the order of the module docs.

use crate::json::{JsonStr, Object, Value};
use crate::protocol::META_PROTOCOL_VERSION;
use crate::rpc::Request;

use super::MAX_PARAM_NAME_LEN;
use super::value::{Text, check_characters, is_token, scalar_eq, text_eq};
use super::{HeaderMismatch, MissingHeaders};

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

/// The methods whose requests must carry `Mcp-Name`, with the body member it must equal.
const NAMED_METHODS: [(&str, &str); 3] = [
    ("tools/call", "name"),
    ("resources/read", "uri"),
    ("prompts/get", "name"),
];

/// With the Tasks extension, its three methods carry the task's id (so that a balancer can
/// route them to the node that holds the task).
#[cfg(feature = "tasks")]
const TASK_METHODS: [(&str, &str); 3] = [
    (crate::tasks::method::GET, "taskId"),
    (crate::tasks::method::UPDATE, "taskId"),
    (crate::tasks::method::CANCEL, "taskId"),
];
#[cfg(not(feature = "tasks"))]
const TASK_METHODS: [(&str, &str); 0] = [];

/// The body member `Mcp-Name` must equal for requests of `method`, if they need one.
fn named_member(method: JsonStr<'_>) -> Option<&'static str> {
    NAMED_METHODS
        .iter()
        .chain(TASK_METHODS.iter())
        .find(|(m, _)| method.eq_str(m))
        .map(|&(_, member)| member)
}

/// Whether requests of `method` must carry `Mcp-Name`.
pub fn requires_name(method: &str) -> bool {
    NAMED_METHODS
        .iter()
        .chain(TASK_METHODS.iter())
        .any(|&(m, _)| m == method)
}

/// The name of the tool a `tools/call` request calls, so the caller can find its input
/// schema for [`check_request`]; `None` for other methods or a body without a string name.
pub fn tool_name<'a>(request: &Request<'a>) -> Option<JsonStr<'a>> {
    if !request.method.eq_str("tools/call") {
        return None;
    }
    request.params?.get("name")?.as_str()
}

/// Checks a request's headers against its body (see the [module docs](super) for the order).
/// `input_schema` is the called tool's `inputSchema` for `tools/call`, and is ignored for
/// other methods; without it no `Mcp-Param-*` header is checked.
pub fn check_request(
    headers: &RequestHeaders<'_>,
    request: &Request<'_>,
    input_schema: Option<Value<'_>>,
) -> Result<(), HeaderMismatch> {
    let named_member = named_member(request.method);
    let named = named_member.is_some();
    let missing = MissingHeaders {
        protocol_version: headers.protocol_version.is_none(),
        method: headers.method.is_none(),
        name: named && headers.name.is_none(),
    };
    let (Some(version), Some(method), false) =
        (headers.protocol_version, headers.method, missing.any())
    else {
        return Err(HeaderMismatch::Missing(missing));
    };
    let name = if named { headers.name } else { None };
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
    if let (Some(name), Some(key)) = (name, named_member) {
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

/// Strings, numbers and booleans are mirrored into headers; objects and arrays are not.
fn is_scalar(v: Value<'_>) -> bool {
    v.as_str().is_some() || v.as_number().is_some() || v.as_bool().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Limits;
    use crate::json::parse;
    use crate::protocol::http::decode_value;
    use crate::rpc::{self, Incoming};
    use base64::engine::general_purpose::STANDARD;
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

    #[cfg(feature = "tasks")]
    #[test]
    fn task_requests_carry_their_task_id_in_mcp_name() {
        let m = meta("2026-07-28");
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            assert!(requires_name(method), "{method}");
            let get = body(method, &std::format!(r#"{{"taskId":"t-1",{m}}}"#));
            let named = |name| Headers {
                name,
                ..headers(method)
            };
            assert_eq!(check(&named(Some("t-1")), &get, None), Ok(()));
            assert_eq!(
                check(&named(Some("t-2")), &get, None),
                Err(HeaderMismatch::Name)
            );
            assert!(matches!(
                check(&named(None), &get, None),
                Err(HeaderMismatch::Missing(m)) if m.name
            ));
        }
        assert!(!requires_name("tasks/list"));
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
        let missing = |protocol_version, method, name| {
            Err(HeaderMismatch::Missing(MissingHeaders {
                protocol_version,
                method,
                name,
            }))
        };
        assert_eq!(check(&no_version, &list, None), missing(true, false, false));
        let no_method = Headers {
            method: None,
            ..headers("tools/list")
        };
        assert_eq!(check(&no_method, &list, None), missing(false, true, false));
        let call = body("tools/call", &std::format!(r#"{{"name":"echo",{m}}}"#));
        assert_eq!(
            check(&headers("tools/call"), &call, None),
            missing(false, false, true)
        );
        // Every missing header at once.
        let none = Headers {
            version: None,
            method: None,
            ..headers("tools/call")
        };
        assert_eq!(check(&none, &call, None), missing(true, true, true));
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
}
