//! Streamable HTTP request headers computed by the client: the standard three, `Mcp-Param-*`
//! from `x-mcp-header` annotations, the `=?base64?…?=` form, tools refused for bad
//! annotations, and agreement with the server's own header check.

use snodo_core::client::headers::{
    HeaderError, HeaderName, HeaderValue, check_tool, needs_base64, request_headers,
};
use snodo_core::client::{ClientCapabilities, ClientConfig, Exchange, Operation};
use snodo_core::json::{Limits, Value, parse};
use snodo_core::protocol::http::{RequestHeaders, check_request};
use snodo_core::rpc::{self, Incoming};

const CONFIG: ClientConfig<'static> = ClientConfig::new("test-client", "0.1.0");

fn value(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::HOST).expect("JSON")
}

/// Writes the first request of `op` and returns its bytes.
fn body(op: Operation<'_>) -> Vec<u8> {
    let mut out = vec![0u8; 8192];
    let mut exchange = Exchange::new(&CONFIG, op, ClientCapabilities::NONE);
    let n = exchange.write_request(1, &mut out).expect("fits");
    out.truncate(n);
    out
}

fn headers(body: &[u8], schema: Option<&str>) -> Result<Vec<(String, String)>, HeaderError> {
    let request = parse(body, &Limits::HOST).expect("JSON");
    let schema = schema.map(value);
    let mut found = Vec::new();
    request_headers(request, schema, |name, value| {
        found.push((name.to_string(), value.to_string()));
    })?;
    Ok(found)
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_standard_headers() {
    let list = body(Operation::list_tools(None));
    assert_eq!(
        headers(&list, None).unwrap(),
        pairs(&[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/list")
        ])
    );
    let call = body(Operation::call_tool("my-hyphenated-tool", None));
    assert_eq!(
        headers(&call, Some(r#"{"type":"object"}"#)).unwrap(),
        pairs(&[
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "my-hyphenated-tool"),
        ])
    );
    let read = body(Operation::read_resource("file:///path/to/file%20name.txt"));
    assert_eq!(
        headers(&read, None).unwrap()[2],
        (
            "Mcp-Name".to_owned(),
            "file:///path/to/file%20name.txt".to_owned()
        )
    );
    let prompt = body(Operation::get_prompt("test_prompt", None));
    assert_eq!(
        headers(&prompt, None).unwrap()[2],
        ("Mcp-Name".to_owned(), "test_prompt".to_owned())
    );
    // A name outside the safe set is encoded too.
    let odd = body(Operation::call_tool("outil-été", None));
    assert_eq!(
        headers(&odd, None).unwrap()[2],
        (
            "Mcp-Name".to_owned(),
            "=?base64?b3V0aWwtw6l0w6k=?=".to_owned()
        )
    );
    assert_eq!(
        request_headers(value(r#"{"jsonrpc":"2.0","id":1}"#), None, |_, _| {}),
        Err(HeaderError::NotARequest)
    );
}

const CUSTOM_SCHEMA: &str = r#"{"type":"object","properties":{
  "region":{"type":"string","x-mcp-header":"Region"},
  "priority":{"type":"integer","x-mcp-header":"Priority"},
  "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
  "debug":{"type":"boolean","x-mcp-header":"Debug"},
  "empty_val":{"type":"string","x-mcp-header":"EmptyVal"},
  "method_val":{"type":"string","x-mcp-header":"Method"},
  "float_val":{"type":"number"},
  "non_ascii_val":{"type":"string","x-mcp-header":"NonAscii"},
  "whitespace_val":{"type":"string","x-mcp-header":"Whitespace"},
  "leading_space_val":{"type":"string","x-mcp-header":"LeadingSpace"},
  "trailing_space_val":{"type":"string","x-mcp-header":"TrailingSpace"},
  "internal_space_val":{"type":"string","x-mcp-header":"InternalSpace"},
  "control_char_val":{"type":"string","x-mcp-header":"ControlChar"},
  "crlf_val":{"type":"string","x-mcp-header":"CrLf"},
  "tab_val":{"type":"string","x-mcp-header":"Tab"},
  "query":{"type":"string"}}}"#;

/// The arguments and the expected raw values of the conformance runner's
/// `http-custom-headers` scenario.
#[test]
fn custom_headers_mirror_annotated_arguments() {
    let args = value(
        r#"{"region":"us-west1","priority":42,"verbose":false,"debug":true,"empty_val":"","method_val":"test-method","float_val":3.14159,"non_ascii_val":"Hello, 世界","whitespace_val":" padded ","leading_space_val":" us-west1","trailing_space_val":"us-west1 ","internal_space_val":"us west 1","control_char_val":"line1\nline2","crlf_val":"line1\r\nline2","tab_val":"\tindented","query":"SELECT * FROM users"}"#,
    );
    let call = body(Operation::call_tool(
        "test_custom_headers",
        args.as_object(),
    ));
    let found = headers(&call, Some(CUSTOM_SCHEMA)).unwrap();
    assert_eq!(
        found[3..].to_vec(),
        pairs(&[
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-Priority", "42"),
            ("Mcp-Param-Verbose", "false"),
            ("Mcp-Param-Debug", "true"),
            ("Mcp-Param-EmptyVal", ""),
            ("Mcp-Param-Method", "test-method"),
            ("Mcp-Param-NonAscii", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("Mcp-Param-Whitespace", "=?base64?IHBhZGRlZCA=?="),
            ("Mcp-Param-LeadingSpace", "=?base64?IHVzLXdlc3Qx?="),
            ("Mcp-Param-TrailingSpace", "=?base64?dXMtd2VzdDEg?="),
            ("Mcp-Param-InternalSpace", "us west 1"),
            ("Mcp-Param-ControlChar", "=?base64?bGluZTEKbGluZTI=?="),
            ("Mcp-Param-CrLf", "=?base64?bGluZTENCmxpbmUy?="),
            ("Mcp-Param-Tab", "=?base64?CWluZGVudGVk?="),
        ])
    );
    // null and absent arguments send no header.
    let args = value(r#"{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}"#);
    let call = body(Operation::call_tool(
        "test_custom_headers_null",
        args.as_object(),
    ));
    let found = headers(&call, Some(CUSTOM_SCHEMA)).unwrap();
    assert_eq!(
        found[3..].to_vec(),
        pairs(&[
            ("Mcp-Param-Region", "us-east1"),
            ("Mcp-Param-Priority", "1")
        ])
    );
    // Without the tool's schema no parameter header is computed.
    assert_eq!(headers(&call, None).unwrap().len(), 3);
}

#[test]
fn nested_properties_numbers_and_the_sentinel() {
    let schema = r#"{"type":"object","properties":{
        "target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
        "count":{"type":"integer","x-mcp-header":"Count"},
        "echo":{"type":"string","x-mcp-header":"Echo"}}}"#;
    let args = value(r#"{"target":{"zone":"eu"},"count":4.2e1,"echo":"=?base64?literal?="}"#);
    let call = body(Operation::call_tool("t", args.as_object()));
    assert_eq!(
        headers(&call, Some(schema)).unwrap()[3..].to_vec(),
        pairs(&[
            ("Mcp-Param-Zone", "eu"),
            ("Mcp-Param-Count", "42"),
            ("Mcp-Param-Echo", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ])
    );
    let args = value(r#"{"count":-7,"target":"not an object","echo":"x"}"#);
    let call = body(Operation::call_tool("t", args.as_object()));
    assert_eq!(
        headers(&call, Some(schema)).unwrap()[3..].to_vec(),
        pairs(&[("Mcp-Param-Count", "-7"), ("Mcp-Param-Echo", "x")])
    );
}

#[test]
fn values_encode_only_when_they_must() {
    for (text, plain) in [
        ("us-west1", true),
        ("", true),
        ("a b", true),
        ("~!@#$%^&*()", true),
        (" a", false),
        ("a ", false),
        ("a\tb", false),
        ("é", false),
        ("\u{7f}", false),
        ("=?base64?x?=", false),
        ("=?base64?x", true),
        ("x?=", true),
    ] {
        assert_eq!(!needs_base64(text.chars()), plain, "{text:?}");
        assert_eq!(!HeaderValue::text(text).is_base64(), plain, "{text:?}");
    }
    assert_eq!(HeaderValue::text("a").to_string(), "a");
    assert_eq!(
        HeaderValue::text("héllo").to_string(),
        "=?base64?aMOpbGxv?="
    );
    assert_eq!(
        HeaderValue::scalar(value("true")).unwrap().to_string(),
        "true"
    );
    assert_eq!(
        HeaderValue::scalar(value("0.5")).unwrap().to_string(),
        "0.5"
    );
    assert_eq!(HeaderValue::scalar(value("null")), None);
    assert_eq!(HeaderValue::scalar(value("[1]")), None);
    assert_eq!(HeaderName::Param("X").to_string(), "Mcp-Param-X");
}

/// The invalid tools of the conformance runner's `http-invalid-tool-headers` scenario.
#[test]
fn tools_with_invalid_annotations_are_refused() {
    let valid = r#"{"name":"valid_tool","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}}"#;
    assert_eq!(check_tool(value(valid)), Ok(()));
    assert_eq!(
        check_tool(value(r#"{"name":"plain","inputSchema":{"type":"object"}}"#)),
        Ok(())
    );
    for invalid in [
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"A"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"null","x-mcp-header":"A"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Region"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region:Primary"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Région"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region\t1"}}}"#,
        r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}"#,
    ] {
        let tool = format!(r#"{{"name":"t","inputSchema":{invalid}}}"#);
        assert!(check_tool(value(&tool)).is_err(), "{invalid}");
        let call = body(Operation::call_tool("t", None));
        assert!(
            matches!(
                headers(&call, Some(invalid)),
                Err(HeaderError::InvalidAnnotations(_))
            ),
            "{invalid}"
        );
    }
    assert!(check_tool(value(r#"{"name":"t"}"#)).is_err());
}

/// What the client computes, the server's check accepts.
mod agrees_with_the_server {
    use super::*;
    use proptest::prelude::*;

    fn server_accepts(body: &[u8], schema: &str) -> bool {
        let found = headers(body, Some(schema)).unwrap();
        let get = |name: &str| {
            found
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_bytes())
        };
        let params: Vec<(&str, &[u8])> = found
            .iter()
            .filter_map(|(n, v)| Some((n.strip_prefix("Mcp-Param-")?, v.as_bytes())))
            .collect();
        let params = params.as_slice();
        let request_headers = RequestHeaders {
            protocol_version: get("MCP-Protocol-Version"),
            method: get("Mcp-Method"),
            name: get("Mcp-Name"),
            params: &params,
        };
        let Ok(Incoming::Request(request)) = rpc::parse(body, &Limits::HOST) else {
            panic!("not a request")
        };
        check_request(&request_headers, &request, Some(value(schema))).is_ok()
    }

    proptest! {
        #[test]
        fn for_any_text(name in "\\PC{1,12}", text in "\\PC{0,24}|[ \\t\\r\\n=?a-z]{0,12}", n in any::<i64>(), b in any::<bool>()) {
            let schema = r#"{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"S"},"n":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}}}"#;
            let args = serde_json::json!({"s": text, "n": n, "b": b}).to_string();
            let args = value(&args);
            let call = body(Operation::call_tool(&name, args.as_object()));
            prop_assert!(server_accepts(&call, schema));
            for found in headers(&call, Some(schema)).unwrap() {
                // Every value is visible ASCII or spaces, never padded with whitespace.
                prop_assert!(found.1.bytes().all(|c| (0x20..0x7f).contains(&c)));
                prop_assert_eq!(found.1.trim(), found.1.as_str());
            }
        }
    }
}
