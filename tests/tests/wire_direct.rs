//! Literal wire tests with the core in-process: JSON in, JSON out, compared structurally.
//!
//! Every method and every error of the foundation issue, against the fixture application.
//! Expected replies are written out from the 2026-07-28 rules; error messages (whose wording
//! the specification leaves to the server) match [`ANY_STRING`] unless the application chose
//! them.

use serde_json::{Value, json};
use snodo_core::rpc::Id;
use snodo_core::server::{Handled, Server};
use snodo_tests::fixture::{
    self, BROKEN_MESSAGE, CRASH_MESSAGE, Fixture, INSTRUCTIONS, LOGO_BASE64, OVERDRAWN_TEXT,
    PAGED_TTL_MS, QUOTA_CODE, QUOTA_MESSAGE, README_TEXT, server, server_with,
};
use snodo_tests::harness::{
    ANY_STRING, NOW, OUT_SIZE, assert_reply, bare, cacheable, complete, error, error_with_data,
    exchange, matches, meta, notification, raw_request, request, round, round_bytes,
    round_notified, silent,
};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const UNSUPPORTED_VERSION: i64 = -32022;

/// The fixture's default `ttlMs` and `cacheScope`.
const TTL: u64 = 60_000;
const PUBLIC: &str = "public";

fn parse_error() -> Value {
    error(Value::Null, PARSE_ERROR)
}

fn invalid_request_null_id() -> Value {
    error(Value::Null, INVALID_REQUEST)
}

/// A tool error result (`isError: true`) whose text the server words.
fn tool_error(id: impl Into<Value>) -> Value {
    complete(
        id,
        json!({"content": [{"type": "text", "text": ANY_STRING}], "isError": true}),
    )
}

fn text_result(id: impl Into<Value>, text: &str) -> Value {
    complete(id, json!({"content": [{"type": "text", "text": text}]}))
}

// ---------------------------------------------------------------------------------------
// -32700: unparseable input, always with id null
// ---------------------------------------------------------------------------------------

#[test]
fn bad_json_is_a_parse_error_with_null_id() {
    let s = server();
    for input in [
        "{",
        "",
        "   ",
        "nul",
        "hello",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list",}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#,
        r#"{"jsonrpc":"2.0","id":1,"method":'tools/list'}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"} {}"#,
        r#"{"jsonrpc":"2.0","id":01,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools\x/list"}"#,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\u{1}list\"}",
    ] {
        exchange(&s, input, parse_error());
    }
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let s = server();
    let inputs: [&[u8]; 4] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\"}}",
        // An overlong encoding of '/'.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools\xc0\xaflist\"}",
        // A UTF-16 surrogate encoded as UTF-8.
        b"{\"jsonrpc\":\"2.0\",\"id\":\"\xed\xa0\x80\",\"method\":\"tools/list\"}",
        // A truncated sequence.
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xe2\x82\"}}",
    ];
    for input in inputs {
        assert_reply(round_bytes(&s, input), parse_error());
    }
}

#[test]
fn duplicate_keys_are_a_parse_error() {
    let s = server();
    let m = meta().to_string();
    for input in [
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/list"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"_meta":{m}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{m},"name":"search","arguments":{{"query":"a","query":"b"}}}}}}"#
        ),
        // The same key once escaped and once not.
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"a":1,"\u0061":2}}}}"#
        ),
        // Duplicates nested in an array.
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"x":[{{"k":1,"k":1}}]}}}}"#
        ),
    ] {
        exchange(&s, &input, parse_error());
    }
    assert_eq!(s.app().handler_runs(), 0);
}

/// `params` (depth 2) holding `arrays` nested arrays: the document is `2 + arrays` deep.
fn nested(arrays: usize) -> String {
    let m = meta().to_string();
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"deep":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

#[test]
fn nesting_beyond_the_depth_limit_is_a_parse_error() {
    let s = server();
    // The host limit is depth 64, the root object counting as depth 1.
    assert_eq!(
        round(&s, &nested(62)).unwrap()["result"]["resultType"],
        "complete"
    );
    exchange(&s, &nested(63), parse_error());
    exchange(&s, &nested(1000), parse_error());
}

#[test]
fn integers_of_more_than_64_digits_are_a_parse_error() {
    let s = server();
    let m = meta().to_string();
    let with = |n: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"n":{n}}}}}"#
        )
    };
    let digits64 = "9".repeat(64);
    let digits65 = "9".repeat(65);
    assert_eq!(
        round(&s, &with(&digits64)).unwrap()["result"]["resultType"],
        "complete"
    );
    exchange(&s, &with(&digits65), parse_error());
    exchange(&s, &with(&format!("-{digits65}")), parse_error());
    // As the id itself: unreadable, so the id is null.
    exchange(
        &s,
        &format!(r#"{{"jsonrpc":"2.0","id":{digits65},"method":"tools/list"}}"#),
        parse_error(),
    );
}

#[test]
fn oversized_messages_are_a_parse_error() {
    let max = 512;
    let s = server_with(fixture::small_message_config(max));
    let m = meta().to_string();
    let padded = |len: usize| {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"pad":""#
        );
        let tail = r#""}}"#;
        let pad = "x".repeat(len - head.len() - tail.len());
        let text = format!("{head}{pad}{tail}");
        assert_eq!(text.len(), len);
        text
    };
    assert_eq!(
        round(&s, &padded(max)).unwrap()["result"]["resultType"],
        "complete"
    );
    exchange(&s, &padded(max + 1), parse_error());
    exchange(&s, &padded(4 * max), parse_error());
}

// ---------------------------------------------------------------------------------------
// -32600: JSON that is not a single JSON-RPC 2.0 request
// ---------------------------------------------------------------------------------------

#[test]
fn batches_are_invalid_requests() {
    let s = server();
    exchange(&s, "[]", invalid_request_null_id());
    exchange(
        &s,
        &format!("[{}]", bare(1, "server/discover")),
        invalid_request_null_id(),
    );
    exchange(
        &s,
        &format!("[{},{}]", bare(1, "tools/list"), bare(2, "prompts/list")),
        invalid_request_null_id(),
    );
}

#[test]
fn non_objects_are_invalid_requests() {
    let s = server();
    for input in ["3", "\"tools/list\"", "null", "true", "-1.5"] {
        exchange(&s, input, invalid_request_null_id());
    }
}

#[test]
fn jsonrpc_other_than_2_0_is_an_invalid_request() {
    let s = server();
    let m = meta();
    for (id, input) in [
        (
            json!(1),
            json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list", "params": {"_meta": m}}),
        ),
        (
            json!("a"),
            json!({"jsonrpc": 2.0, "id": "a", "method": "tools/list", "params": {"_meta": m}}),
        ),
        (
            json!(2),
            json!({"jsonrpc": "2", "id": 2, "method": "tools/list", "params": {"_meta": m}}),
        ),
        (
            json!(3),
            json!({"id": 3, "method": "tools/list", "params": {"_meta": m}}),
        ),
        (
            json!(4),
            json!({"jsonrpc": null, "id": 4, "method": "tools/list", "params": {"_meta": m}}),
        ),
    ] {
        exchange(&s, &input.to_string(), error(id, INVALID_REQUEST));
    }
}

#[test]
fn a_method_that_is_not_a_string_is_an_invalid_request() {
    let s = server();
    let m = meta();
    for method in [
        json!(5),
        json!(null),
        json!({"name": "tools/list"}),
        json!(["tools/list"]),
        json!(true),
    ] {
        let input = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": {"_meta": m}});
        exchange(&s, &input.to_string(), error(9, INVALID_REQUEST));
    }
    // A request with an id and no method (nor a result or an error).
    exchange(
        &s,
        r#"{"jsonrpc":"2.0","id":10}"#,
        error(10, INVALID_REQUEST),
    );
}

#[test]
fn params_that_are_not_an_object_are_an_invalid_request() {
    let s = server();
    for params in [json!([]), json!("x"), json!(1), json!(null)] {
        let input = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": params});
        exchange(&s, &input.to_string(), error(11, INVALID_REQUEST));
    }
}

#[test]
fn ids_that_are_not_strings_or_64_bit_integers_are_invalid_requests() {
    let s = server();
    let m = meta().to_string();
    let with_id = |id: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{"_meta":{m}}}}}"#)
    };
    for id in [
        "1.5".to_string(),
        "1.0".to_string(),
        "1e3".to_string(),
        "-0.0".to_string(),
        "null".to_string(),
        "true".to_string(),
        "false".to_string(),
        r#"{"n":1}"#.to_string(),
        "[1]".to_string(),
        format!("\"{}\"", "a".repeat(257)),
        // 129 two-byte characters: 258 bytes.
        format!("\"{}\"", "é".repeat(129)),
        // 257 bytes once unescaped.
        format!("\"{}\"", "\\u0041".repeat(257)),
        "9223372036854775808".to_string(),
        "-9223372036854775809".to_string(),
        "18446744073709551616".to_string(),
    ] {
        exchange(&s, &with_id(&id), invalid_request_null_id());
    }
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn ids_at_the_limits_are_accepted_and_echoed() {
    let s = server();
    let a256 = "a".repeat(256);
    let e128 = "é".repeat(128);
    for id in [
        json!(a256),
        json!(e128),
        json!(""),
        json!(0),
        json!(-1),
        json!(i64::MAX),
        json!(i64::MIN),
        json!("with \"quotes\", a \\ and a \u{1F600}"),
    ] {
        let reply = round(&s, &bare(id.clone(), "server/discover")).unwrap();
        assert_eq!(reply["id"], id);
        assert_eq!(reply["result"]["resultType"], "complete");
    }
    // 256 bytes once unescaped, though the literal is longer.
    let escaped = format!(
        r#"{{"jsonrpc":"2.0","id":"{}","method":"server/discover","params":{{"_meta":{}}}}}"#,
        "\\u0041".repeat(256),
        meta()
    );
    let reply = round(&s, &escaped).unwrap();
    assert_eq!(reply["id"], json!("A".repeat(256)));
    assert_eq!(reply["result"]["resultType"], "complete");
}

// ---------------------------------------------------------------------------------------
// Notifications and responses are never answered
// ---------------------------------------------------------------------------------------

#[test]
fn notifications_are_never_answered() {
    let s = server();
    for input in [
        notification("notifications/initialized", json!({})),
        notification(
            "notifications/cancelled",
            json!({"requestId": 1, "reason": "user"}),
        ),
        notification("notifications/cancelled", json!({"requestId": "x"})),
        notification("notifications/cancelled", json!({})),
        notification(
            "notifications/progress",
            json!({"progressToken": "t", "progress": 1}),
        ),
        notification("notifications/roots/list_changed", json!({})),
        notification("made/up", json!({})),
        // Request methods sent as notifications are not answered either.
        notification("tools/list", json!({})),
        notification("tools/call", json!({"name": "crash"})),
        notification("initialize", json!({})),
        // Even when their params would be refused.
        r#"{"jsonrpc":"2.0","method":"tools/list"}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","method":"unknown/thing","params":{"x":[1,2,3]}}"#.to_string(),
    ] {
        silent(&s, &input);
    }
    assert_eq!(s.app().handler_runs(), 0, "a notification ran a handler");
}

#[test]
fn responses_from_the_client_are_never_answered() {
    let s = server();
    silent(&s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    silent(
        &s,
        r#"{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete"}}"#,
    );
    silent(
        &s,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#,
    );
}

#[test]
fn cancellation_names_the_request_and_sends_nothing() {
    let s = server();
    let mut out = vec![0u8; OUT_SIZE];
    let input = notification(
        "notifications/cancelled",
        json!({"requestId": 42, "reason": "user"}),
    );
    let handled = s.handle(input.as_bytes(), NOW, &mut out, None).unwrap();
    assert_eq!(handled, Handled::Cancelled(Id::Num(42)));

    let input = notification("notifications/cancelled", json!({"requestId": "r-7"}));
    match s.handle(input.as_bytes(), NOW, &mut out, None).unwrap() {
        Handled::Cancelled(Id::Str(id)) => assert!(id.eq_str("r-7")),
        other => panic!("expected a cancellation of \"r-7\", got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// `_meta` admission
// ---------------------------------------------------------------------------------------

#[test]
fn requests_without_meta_are_invalid_params() {
    let s = server();
    exchange(
        &s,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        error(1, INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(2, "tools/list", json!({})),
        error(2, INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(3, "server/discover", json!({"cursor": "0"})),
        error(3, INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(4, "tools/list", json!({"_meta": "2026-07-28"})),
        error(4, INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(5, "tools/list", json!({"_meta": null})),
        error(5, INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(6, "tools/call", json!({"name": "crash", "arguments": {}})),
        error(6, INVALID_PARAMS),
    );
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn a_missing_or_malformed_protocol_version_is_invalid_params() {
    let s = server();
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let version = "io.modelcontextprotocol/protocolVersion";
    exchange(
        &s,
        &raw_request("v1", "tools/list", json!({"_meta": {caps: {}}})),
        error("v1", INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(
            "v2",
            "tools/list",
            json!({"_meta": {caps: {}, version: 20260728}}),
        ),
        error("v2", INVALID_PARAMS),
    );
    exchange(
        &s,
        &raw_request(
            "v3",
            "tools/list",
            json!({"_meta": {caps: {}, version: null}}),
        ),
        error("v3", INVALID_PARAMS),
    );
    // The fields belong in `_meta`, not at the top of `params`.
    exchange(
        &s,
        &raw_request(
            "v4",
            "tools/list",
            json!({"_meta": {}, caps: {}, version: "2026-07-28"}),
        ),
        error("v4", INVALID_PARAMS),
    );
}

#[test]
fn missing_or_malformed_client_capabilities_are_invalid_params() {
    let s = server();
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let version = "io.modelcontextprotocol/protocolVersion";
    exchange(
        &s,
        &raw_request(1, "tools/list", json!({"_meta": {version: "2026-07-28"}})),
        error(1, INVALID_PARAMS),
    );
    for (i, malformed) in [
        json!([]),
        json!(null),
        json!("all"),
        json!({"sampling": true}),
        json!({"elicitation": {"form": 1}}),
        json!({"elicitation": []}),
        json!({"roots": "yes"}),
        json!({"sampling": {"tools": false}}),
        json!({"experimental": {"x": 1}}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = 100 + i as i64;
        exchange(
            &s,
            &raw_request(
                id,
                "tools/list",
                json!({"_meta": {version: "2026-07-28", caps: malformed}}),
            ),
            error(id, INVALID_PARAMS),
        );
    }
    // Well-formed capabilities, known and unknown, are admitted.
    for declared in [
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}}, "roots": {}}),
        json!({"somethingNew": {"x": 1}}),
        json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html"]}}}),
    ] {
        let reply = round(
            &s,
            &raw_request(
                7,
                "tools/list",
                json!({"_meta": {version: "2026-07-28", caps: declared}}),
            ),
        )
        .unwrap();
        assert_eq!(reply["result"]["resultType"], "complete", "{declared}");
    }
}

#[test]
fn unsupported_versions_are_refused_with_the_supported_list() {
    let s = server();
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let version = "io.modelcontextprotocol/protocolVersion";
    for (id, requested) in [
        (json!(1), "2025-11-25"),
        (json!("x"), "1900-01-01"),
        (json!(3), ""),
    ] {
        let input = raw_request(
            id.clone(),
            "tools/list",
            json!({"_meta": {version: requested, caps: {}}}),
        );
        exchange(
            &s,
            &input,
            error_with_data(
                id,
                UNSUPPORTED_VERSION,
                json!({"supported": ["2026-07-28"], "requested": requested}),
            ),
        );
    }
    // For every method, server/discover included.
    let input = raw_request(
        4,
        "server/discover",
        json!({"_meta": {version: "2099-01-01", caps: {}}}),
    );
    exchange(
        &s,
        &input,
        error_with_data(
            4,
            UNSUPPORTED_VERSION,
            json!({"supported": ["2026-07-28"], "requested": "2099-01-01"}),
        ),
    );
    let input = raw_request(
        5,
        "tools/call",
        json!({"_meta": {version: "2025-06-18", caps: {}}, "name": "crash"}),
    );
    exchange(
        &s,
        &input,
        error_with_data(
            5,
            UNSUPPORTED_VERSION,
            json!({"supported": ["2026-07-28"], "requested": "2025-06-18"}),
        ),
    );
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn a_progress_token_must_be_a_string_or_an_integer() {
    let s = server();
    for token in [
        json!(1.5),
        json!(null),
        json!({"t": 1}),
        json!([1]),
        json!(true),
    ] {
        let mut m = meta();
        m["progressToken"] = token.clone();
        let input = request(1, "tools/list", json!({"_meta": m}));
        exchange(&s, &input, error(1, INVALID_PARAMS));
    }
}

// ---------------------------------------------------------------------------------------
// server/discover
// ---------------------------------------------------------------------------------------

#[test]
fn discover_reports_versions_capabilities_identity_and_cache_hints() {
    let s = server();
    exchange(
        &s,
        &bare("discover-1", "server/discover"),
        cacheable(
            "discover-1",
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
                "instructions": INSTRUCTIONS
            }),
            TTL,
            PUBLIC,
        ),
    );
}

#[test]
fn discover_uses_the_configured_cache_hints() {
    let s = server_with(fixture::paged_config());
    exchange(
        &s,
        &bare(2, "server/discover"),
        cacheable(
            2,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "resources": {}, "prompts": {}, "completions": {}},
                "instructions": INSTRUCTIONS
            }),
            PAGED_TTL_MS,
            "private",
        ),
    );
}

#[test]
fn discover_of_a_tools_only_server_advertises_tools_only() {
    let s = fixture::tools_only_server();
    exchange(
        &s,
        &bare(1, "server/discover"),
        cacheable(
            1,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS
            }),
            TTL,
            PUBLIC,
        ),
    );
}

// ---------------------------------------------------------------------------------------
// The four lists
// ---------------------------------------------------------------------------------------

fn tool_definitions() -> Vec<Value> {
    let no_arguments = json!({"type": "object", "additionalProperties": false});
    let weather_output = json!({
        "type": "object",
        "properties": {"temperature": {"type": "integer"}, "conditions": {"type": "string"}},
        "required": ["temperature", "conditions"]
    });
    vec![
        json!({
            "name": "search",
            "title": "Search",
            "description": "Searches the fixture's index",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 1, "maxLength": 32},
                    "mode": {"type": "string", "enum": ["fast", "deep"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 10},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["query"],
                "additionalProperties": false
            },
            "icons": [{"src": "https://example.com/search.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}],
            "_meta": {"example.com/category": "lookup"}
        }),
        json!({
            "name": "weather",
            "description": "Current weather as structured data",
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"]
            },
            "outputSchema": weather_output
        }),
        json!({
            "name": "bad_weather",
            "description": "Structured data that breaks its own output schema",
            "inputSchema": no_arguments,
            "outputSchema": weather_output
        }),
        json!({
            "name": "overdrawn",
            "description": "Reports a tool execution error",
            "inputSchema": no_arguments
        }),
        json!({
            "name": "quota",
            "description": "Fails with a typed JSON-RPC error",
            "inputSchema": no_arguments
        }),
        json!({
            "name": "crash",
            "description": "Fails with an untyped failure",
            "inputSchema": no_arguments
        }),
        json!({
            "name": "count",
            "description": "Counts, reporting progress",
            "inputSchema": {
                "type": "object",
                "properties": {"to": {"type": "integer", "minimum": 1, "maximum": 5}},
                "required": ["to"]
            },
            "annotations": {"readOnlyHint": true}
        }),
    ]
}

fn resource_definitions() -> Vec<Value> {
    vec![
        json!({
            "uri": "fixture://readme",
            "name": "readme",
            "title": "Read me",
            "description": "The fixture's read-me",
            "mimeType": "text/plain",
            "size": fixture::README_TEXT.len(),
            "annotations": {"audience": ["user"], "priority": 0.5}
        }),
        json!({"uri": "fixture://logo", "name": "logo", "mimeType": "image/png"}),
        json!({"uri": "fixture://broken", "name": "broken", "description": "Fails to read"}),
    ]
}

fn template_definitions() -> Vec<Value> {
    vec![
        json!({
            "uriTemplate": "fixture://users/{id}",
            "name": "user",
            "title": "User",
            "description": "A user by id",
            "mimeType": "application/json",
            "annotations": {"audience": ["assistant"]}
        }),
        json!({"uriTemplate": "fixture://files/{+path}", "name": "file", "mimeType": "text/plain"}),
        json!({"uriTemplate": "fixture://logs/{day}/{hour}", "name": "log"}),
    ]
}

fn prompt_definitions() -> Vec<Value> {
    vec![
        json!({
            "name": "greet",
            "title": "Greeting",
            "description": "Greets someone",
            "_meta": {"example.com/tone": "warm"},
            "arguments": [
                {"name": "name", "title": "Name", "description": "Who to greet", "required": true},
                {"name": "style", "required": false}
            ]
        }),
        json!({"name": "summarize"}),
        json!({"name": "broken_prompt", "description": "Fails to render"}),
    ]
}

/// The four list methods, the key of their items, and the items in order.
fn lists() -> [(&'static str, &'static str, Vec<Value>); 4] {
    [
        ("tools/list", "tools", tool_definitions()),
        ("resources/list", "resources", resource_definitions()),
        (
            "resources/templates/list",
            "resourceTemplates",
            template_definitions(),
        ),
        ("prompts/list", "prompts", prompt_definitions()),
    ]
}

#[test]
fn lists_on_one_page_have_no_next_cursor_and_carry_cache_hints() {
    let s = server();
    for (method, key, items) in lists() {
        exchange(
            &s,
            &bare(method, method),
            cacheable(method, json!({ key: items }), TTL, PUBLIC),
        );
    }
}

#[test]
fn lists_paginate_with_opaque_cursors_and_cache_hints_on_every_page() {
    let s = server_with(fixture::paged_config());
    for (method, key, items) in lists() {
        let pages: Vec<&[Value]> = items.chunks(fixture::SMALL_PAGE).collect();
        let mut cursor: Option<Value> = None;
        for (n, page) in pages.iter().enumerate() {
            let id = json!(format!("{method}#{n}"));
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let last = n + 1 == pages.len();
            let mut members = json!({ key: page });
            if !last {
                members["nextCursor"] = json!(ANY_STRING);
            }
            let reply = round(&s, &request(id.clone(), method, params)).unwrap();
            assert_reply(
                Some(reply.clone()),
                cacheable(id, members, PAGED_TTL_MS, "private"),
            );
            cursor = reply["result"].get("nextCursor").cloned();
        }
        assert_eq!(cursor, None, "{method}: the last page has no nextCursor");
    }
}

#[test]
fn invalid_cursors_are_invalid_params() {
    let s = server_with(fixture::paged_config());
    for (method, _, _) in lists() {
        for cursor in [
            json!("not-a-cursor"),
            json!(""),
            json!("-1"),
            json!(2),
            json!(null),
            json!({}),
        ] {
            exchange(
                &s,
                &request(7, method, json!({"cursor": cursor})),
                error(7, INVALID_PARAMS),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// tools/call
// ---------------------------------------------------------------------------------------

fn call(id: impl Into<Value>, name: &str, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

#[test]
fn a_tool_call_succeeds_with_valid_arguments() {
    let s = server();
    exchange(
        &s,
        &call(
            1,
            "search",
            json!({"query": "rust", "mode": "deep", "limit": 5, "tags": ["a", "b"]}),
        ),
        text_result(1, "5 results for rust"),
    );
    exchange(
        &s,
        &call(2, "search", json!({"query": "héllo"})),
        text_result(2, "3 results for héllo"),
    );
    // Bounds are inclusive.
    exchange(
        &s,
        &call(3, "search", json!({"query": "q", "limit": 1})),
        text_result(3, "1 results for q"),
    );
    exchange(
        &s,
        &call(4, "search", json!({"query": "q", "limit": 10})),
        text_result(4, "10 results for q"),
    );
    exchange(
        &s,
        &call(5, "search", json!({"query": "x".repeat(32), "tags": []})),
        text_result(5, &format!("3 results for {}", "x".repeat(32))),
    );
    assert_eq!(s.app().handler_runs(), 5);
}

#[test]
fn unknown_tools_are_invalid_params() {
    let s = server();
    exchange(
        &s,
        &call(1, "no_such_tool", json!({})),
        error(1, INVALID_PARAMS),
    );
    exchange(
        &s,
        &call(2, "Search", json!({"query": "q"})),
        error(2, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(3, "tools/call", json!({})),
        error(3, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(4, "tools/call", json!({"name": 7})),
        error(4, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(
            5,
            "tools/call",
            json!({"name": "search", "arguments": ["q"]}),
        ),
        error(5, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(6, "tools/call", json!({"name": "search", "arguments": "q"})),
        error(6, INVALID_PARAMS),
    );
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn invalid_arguments_are_tool_error_results_and_no_handler_runs() {
    let s = server();
    for (i, (arguments, culprit)) in [
        (json!({}), "query"),
        (json!({"query": 5}), "query"),
        (json!({"query": ""}), "query"),
        (json!({"query": "x".repeat(33)}), "query"),
        (json!({"query": "q", "mode": "slow"}), "mode"),
        (json!({"query": "q", "limit": 0}), "limit"),
        (json!({"query": "q", "limit": 11}), "limit"),
        (json!({"query": "q", "limit": 2.5}), "limit"),
        (json!({"query": "q", "limit": "3"}), "limit"),
        (json!({"query": "q", "tags": [1]}), "tags"),
        (json!({"query": "q", "tags": "a"}), "tags"),
        (json!({"query": "q", "page": 2}), "page"),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = round(&s, &call(i, "search", arguments.clone())).unwrap();
        assert_reply(Some(reply.clone()), tool_error(i));
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains(culprit),
            "{arguments}: {text:?} should name {culprit:?}"
        );
    }
    // No arguments at all against a schema with a required property.
    exchange(
        &s,
        &request(50, "tools/call", json!({"name": "search"})),
        tool_error(50),
    );
    exchange(
        &s,
        &call(51, "weather", json!({"city": null})),
        tool_error(51),
    );
    exchange(&s, &call(52, "count", json!({"to": 6})), tool_error(52));
    exchange(
        &s,
        &call(53, "crash", json!({"unexpected": true})),
        tool_error(53),
    );
    assert_eq!(
        s.app().handler_runs(),
        0,
        "a handler ran on invalid arguments"
    );
}

#[test]
fn structured_output_is_returned_with_a_text_mirror() {
    let s = server();
    let reply = round(&s, &call("w", "weather", json!({"city": "Lyon"}))).unwrap();
    assert_reply(
        Some(reply.clone()),
        complete(
            "w",
            json!({
                "structuredContent": {"temperature": 22, "conditions": "sunny"},
                "content": [{"type": "text", "text": ANY_STRING}]
            }),
        ),
    );
    let mirror = reply["result"]["content"][0]["text"].as_str().unwrap();
    let mirror: Value = serde_json::from_str(mirror).expect("the text block is serialized JSON");
    assert_eq!(mirror, json!({"temperature": 22, "conditions": "sunny"}));
}

#[test]
fn structured_output_that_breaks_the_output_schema_is_an_internal_error() {
    let s = server();
    exchange(
        &s,
        &call(1, "bad_weather", json!({})),
        error(1, INTERNAL_ERROR),
    );
}

#[test]
fn a_tool_error_result_reaches_the_client_as_is_error() {
    let s = server();
    exchange(
        &s,
        &call(1, "overdrawn", json!({})),
        complete(
            1,
            json!({"content": [{"type": "text", "text": OVERDRAWN_TEXT}], "isError": true}),
        ),
    );
}

#[test]
fn a_typed_error_is_a_json_rpc_error() {
    let s = server();
    exchange(
        &s,
        &call("q", "quota", json!({})),
        json!({"jsonrpc": "2.0", "id": "q", "error": {"code": QUOTA_CODE, "message": QUOTA_MESSAGE}}),
    );
}

#[test]
fn an_untyped_failure_is_a_tool_error_result() {
    let s = server();
    exchange(
        &s,
        &call(1, "crash", json!({})),
        complete(
            1,
            json!({"content": [{"type": "text", "text": CRASH_MESSAGE}], "isError": true}),
        ),
    );
}

#[test]
fn progress_is_reported_when_the_request_carries_a_token() {
    let s = server();
    for token in [json!("tok-1"), json!(42)] {
        let mut m = meta();
        m["progressToken"] = token.clone();
        let input = request(
            1,
            "tools/call",
            json!({"_meta": m, "name": "count", "arguments": {"to": 3}}),
        );
        let (notes, reply) = round_notified(&s, input.as_bytes());
        assert_reply(reply, text_result(1, "counted to 3"));
        let expected: Vec<Value> = [(1, "one"), (2, "two"), (3, "three")]
            .into_iter()
            .map(|(progress, message)| {
                json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {
                        "progressToken": token,
                        "progress": progress,
                        "total": 3,
                        "message": message
                    }
                })
            })
            .collect();
        assert_eq!(notes.len(), expected.len(), "{notes:#?}");
        for (note, want) in notes.iter().zip(&expected) {
            assert!(matches(note, want), "{note:#} != {want:#}");
        }
    }
}

#[test]
fn no_progress_without_a_token() {
    let s = server();
    let (notes, reply) = round_notified(&s, call(1, "count", json!({"to": 2})).as_bytes());
    assert_reply(reply, text_result(1, "counted to 2"));
    assert!(notes.is_empty(), "{notes:#?}");
}

// ---------------------------------------------------------------------------------------
// resources/read
// ---------------------------------------------------------------------------------------

fn read(id: impl Into<Value>, uri: &str) -> String {
    request(id, "resources/read", json!({ "uri": uri }))
}

#[test]
fn fixed_resources_are_read_with_cache_hints() {
    let s = server();
    exchange(
        &s,
        &read(1, "fixture://readme"),
        cacheable(
            1,
            json!({"contents": [{"uri": "fixture://readme", "mimeType": "text/plain", "text": README_TEXT}]}),
            TTL,
            PUBLIC,
        ),
    );
    exchange(
        &s,
        &read(2, "fixture://logo"),
        cacheable(
            2,
            json!({"contents": [{"uri": "fixture://logo", "mimeType": "image/png", "blob": LOGO_BASE64}]}),
            TTL,
            PUBLIC,
        ),
    );
}

#[test]
fn a_template_match_that_names_nothing_is_not_found_with_its_uri() {
    let s = server();
    exchange(
        &s,
        &read(1, "fixture://users/nobody"),
        error_with_data(1, INVALID_PARAMS, json!({"uri": "fixture://users/nobody"})),
    );
}

#[test]
fn templated_resources_are_read() {
    let s = server();
    exchange(
        &s,
        &read(1, "fixture://users/42"),
        cacheable(
            1,
            json!({"contents": [{"uri": "fixture://users/42", "mimeType": "application/json", "text": "{\"id\":\"42\"}"}]}),
            TTL,
            PUBLIC,
        ),
    );
    exchange(
        &s,
        &read(2, "fixture://files/docs/guide.txt"),
        cacheable(
            2,
            json!({"contents": [{"uri": "fixture://files/docs/guide.txt", "mimeType": "text/plain", "text": "contents of docs/guide.txt"}]}),
            TTL,
            PUBLIC,
        ),
    );
    exchange(
        &s,
        &read(3, "fixture://logs/monday/07"),
        cacheable(
            3,
            json!({"contents": [{"uri": "fixture://logs/monday/07", "text": "log of monday at 07"}]}),
            TTL,
            PUBLIC,
        ),
    );
}

#[test]
fn unknown_resources_are_invalid_params_naming_the_uri() {
    let s = server();
    for uri in [
        "fixture://nope",
        "fixture://readme/",
        "FIXTURE://readme",
        "fixture://users/",
        "fixture://users/1/2",
        "fixture://logs/monday",
        "",
    ] {
        exchange(
            &s,
            &read(1, uri),
            error_with_data(1, INVALID_PARAMS, json!({ "uri": uri })),
        );
    }
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn a_resources_read_without_a_uri_is_invalid_params() {
    let s = server();
    exchange(
        &s,
        &request(1, "resources/read", json!({})),
        error(1, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(2, "resources/read", json!({"uri": 5})),
        error(2, INVALID_PARAMS),
    );
}

#[test]
fn a_failing_resource_read_is_an_internal_error() {
    let s = server();
    exchange(
        &s,
        &read(1, "fixture://broken"),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": INTERNAL_ERROR, "message": BROKEN_MESSAGE}}),
    );
}

/// JSON escapes do not change a string: `"fixture:\/\/readme"` is the URI
/// `fixture://readme`, and `"fixture://users/jos\u00e9"` is `fixture://users/josé`.
#[test]
fn escaped_uris_are_the_same_uris() {
    let s = server();
    let escaped = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"_meta":{},"uri":"fixture:\/\/readme"}}}}"#,
        meta()
    );
    exchange(
        &s,
        &escaped,
        cacheable(
            1,
            json!({"contents": [{"uri": "fixture://readme", "mimeType": "text/plain", "text": README_TEXT}]}),
            TTL,
            PUBLIC,
        ),
    );
    let escaped = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"_meta":{},"uri":"fixture://users/jos\u00e9"}}}}"#,
        meta()
    );
    exchange(
        &s,
        &escaped,
        cacheable(
            2,
            json!({"contents": [{"uri": "fixture://users/josé", "mimeType": "application/json", "text": "{\"id\":\"josé\"}"}]}),
            TTL,
            PUBLIC,
        ),
    );
}

/// Names, keys and methods compare by their decoded text, whatever escapes the client used.
#[test]
fn escaped_names_keys_and_methods_are_the_same_names() {
    let s = server();
    let m = r#"{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{{"_meta":{m},"name":"se\u0061rch","arguments":{{"qu\u0065ry":"\u0071"}}}}}}"#
    );
    exchange(&s, &input, text_result(1, "3 results for q"));
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"_meta":{m},"name":"gr\u0065et","arguments":{{"n\u0061me":"Ad\u0061"}}}}}}"#
    );
    let reply = round(&s, &input).unwrap();
    assert_eq!(
        reply["result"]["messages"][0],
        user_text("Hello, Ada!"),
        "{reply}"
    );
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"server\/discover","params":{{"_meta":{m}}}}}"#
    );
    assert_eq!(
        round(&s, &input).unwrap()["result"]["resultType"],
        "complete"
    );
}

/// A cursor is an opaque string: the client may send it back with JSON escapes.
#[test]
fn escaped_cursors_are_the_same_cursors() {
    let s = server_with(fixture::paged_config());
    let first = round(&s, &bare(1, "tools/list")).unwrap();
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
    let plain = round(&s, &request(2, "tools/list", json!({ "cursor": cursor }))).unwrap();
    let escaped_cursor: String = cursor
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{},"cursor":"{escaped_cursor}"}}}}"#,
        meta()
    );
    assert_reply(round(&s, &input), plain);
}

#[test]
fn unescaped_non_ascii_uris_are_read() {
    let s = server();
    exchange(
        &s,
        &read(2, "fixture://users/josé"),
        cacheable(
            2,
            json!({"contents": [{"uri": "fixture://users/josé", "mimeType": "application/json", "text": "{\"id\":\"josé\"}"}]}),
            TTL,
            PUBLIC,
        ),
    );
}

// ---------------------------------------------------------------------------------------
// prompts/get
// ---------------------------------------------------------------------------------------

fn get(id: impl Into<Value>, name: &str, arguments: Option<Value>) -> String {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    request(id, "prompts/get", params)
}

fn user_text(text: &str) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

#[test]
fn prompts_are_rendered() {
    let s = server();
    let help =
        json!({"role": "assistant", "content": {"type": "text", "text": "Hello! How can I help?"}});
    exchange(
        &s,
        &get(1, "greet", Some(json!({"name": "Ada"}))),
        complete(
            1,
            json!({"description": "A greeting", "messages": [user_text("Hello, Ada!"), help]}),
        ),
    );
    exchange(
        &s,
        &get(2, "greet", Some(json!({"name": "Zoë", "style": "formal"}))),
        complete(
            2,
            json!({"description": "A greeting", "messages": [user_text("Good day, Zoë."), help]}),
        ),
    );
    exchange(
        &s,
        &get(3, "summarize", None),
        complete(
            3,
            json!({"messages": [user_text("Summarize the conversation so far.")]}),
        ),
    );
    exchange(
        &s,
        &get(4, "summarize", Some(json!({}))),
        complete(
            4,
            json!({"messages": [user_text("Summarize the conversation so far.")]}),
        ),
    );
}

#[test]
fn unknown_prompts_are_invalid_params() {
    let s = server();
    exchange(
        &s,
        &get(1, "no_such_prompt", None),
        error(1, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(2, "prompts/get", json!({})),
        error(2, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(3, "prompts/get", json!({"name": ["greet"]})),
        error(3, INVALID_PARAMS),
    );
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn missing_required_prompt_arguments_are_invalid_params() {
    let s = server();
    let missing_name = || error_with_data(1, INVALID_PARAMS, json!({"argument": "name"}));
    exchange(&s, &get(1, "greet", None), missing_name());
    exchange(&s, &get(1, "greet", Some(json!({}))), missing_name());
    exchange(
        &s,
        &get(1, "greet", Some(json!({"style": "formal"}))),
        missing_name(),
    );
    exchange(
        &s,
        &get(1, "greet", Some(json!({"Name": "Ada"}))),
        missing_name(),
    );
    // Prompt arguments are strings.
    exchange(
        &s,
        &get(2, "greet", Some(json!({"name": 5}))),
        error(2, INVALID_PARAMS),
    );
    exchange(
        &s,
        &get(3, "greet", Some(json!(["Ada"]))),
        error(3, INVALID_PARAMS),
    );
    assert_eq!(s.app().handler_runs(), 0);
}

#[test]
fn a_failing_prompt_is_an_internal_error() {
    let s = server();
    exchange(&s, &get(1, "broken_prompt", None), error(1, INTERNAL_ERROR));
}

// ---------------------------------------------------------------------------------------
// completion/complete
// ---------------------------------------------------------------------------------------

fn complete_request(id: impl Into<Value>, reference: Value, name: &str, value: &str) -> String {
    request(
        id,
        "completion/complete",
        json!({"ref": reference, "argument": {"name": name, "value": value}}),
    )
}

fn completion(id: impl Into<Value>, values: &[&str]) -> Value {
    complete(
        id,
        json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}),
    )
}

#[test]
fn completions_are_offered_for_prompts_and_templates() {
    let s = server();
    let greet = json!({"type": "ref/prompt", "name": "greet"});
    let users = json!({"type": "ref/resource", "uri": "fixture://users/{id}"});
    exchange(
        &s,
        &complete_request(1, greet.clone(), "style", "f"),
        completion(1, &["formal", "friendly", "funny"]),
    );
    exchange(
        &s,
        &complete_request(2, greet.clone(), "style", "fr"),
        completion(2, &["friendly"]),
    );
    exchange(
        &s,
        &complete_request(3, greet.clone(), "style", "x"),
        completion(3, &[]),
    );
    exchange(
        &s,
        &complete_request(4, users.clone(), "id", "1"),
        completion(4, &["1", "12"]),
    );
    exchange(
        &s,
        &complete_request(5, users, "id", ""),
        completion(5, &["1", "12", "2"]),
    );
    // With previously resolved arguments as context.
    let input = request(
        6,
        "completion/complete",
        json!({
            "ref": greet,
            "argument": {"name": "style", "value": "t"},
            "context": {"arguments": {"name": "Ada"}}
        }),
    );
    exchange(&s, &input, completion(6, &["terse"]));
}

#[test]
fn malformed_completion_requests_are_invalid_params() {
    let s = server();
    let greet = json!({"type": "ref/prompt", "name": "greet"});
    for (i, params) in [
        json!({"argument": {"name": "style", "value": ""}}),
        json!({"ref": {"type": "ref/tool", "name": "search"}, "argument": {"name": "a", "value": ""}}),
        json!({"ref": {"type": "ref/prompt"}, "argument": {"name": "a", "value": ""}}),
        json!({"ref": {"type": "ref/resource"}, "argument": {"name": "a", "value": ""}}),
        json!({"ref": greet}),
        json!({"ref": greet, "argument": {"name": "style"}}),
        json!({"ref": greet, "argument": {"value": "f"}}),
        json!({"ref": greet, "argument": {"name": "style", "value": 1}}),
        json!({"ref": greet, "argument": {"name": "style", "value": "f"}, "context": []}),
        json!({"ref": greet, "argument": {"name": "style", "value": "f"}, "context": {"arguments": 1}}),
    ]
    .into_iter()
    .enumerate()
    {
        exchange(&s, &request(i, "completion/complete", params), error(i, INVALID_PARAMS));
    }
    assert_eq!(s.app().handler_runs(), 0);
    // A reference to a prompt the server does not have (refused by the application).
    exchange(
        &s,
        &complete_request(99, json!({"type": "ref/prompt", "name": "nope"}), "x", ""),
        error(99, INVALID_PARAMS),
    );
}

// ---------------------------------------------------------------------------------------
// -32601: removed, unknown and unadvertised methods
// ---------------------------------------------------------------------------------------

#[test]
fn removed_and_unknown_methods_are_method_not_found() {
    let s = server();
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
        "tasks/get",
        "tasks/list",
        "notifications/initialized",
        "tools/List",
        "tools/list/",
        "made/up",
        "",
    ] {
        exchange(&s, &bare(method, method), error(method, METHOD_NOT_FOUND));
    }
    assert_eq!(s.app().handler_runs(), 0);
}

/// `subscriptions/listen` opens a stream whose first message is the acknowledgement, with the
/// filter cut down to what the server honours (this fixture announces no `listChanged`).
#[test]
fn subscriptions_listen_is_acknowledged_with_the_honoured_filter() {
    let s = server();
    let input = request(
        "sub-1",
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false}}),
    );
    exchange(
        &s,
        &input,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"},
                "notifications": {}
            }
        }),
    );
    let malformed = request("sub-2", "subscriptions/listen", json!({"notifications": 5}));
    exchange(&s, &malformed, error("sub-2", INVALID_PARAMS));
    let missing = request("sub-3", "subscriptions/listen", json!({}));
    exchange(&s, &missing, error("sub-3", INVALID_PARAMS));
}

#[test]
fn initialize_is_method_not_found_naming_the_supported_versions() {
    let s = server();
    let legacy = raw_request(
        0,
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "legacy-client", "version": "1.0.0"}
        }),
    );
    let reply = round(&s, &legacy).unwrap();
    assert_reply(
        Some(reply.clone()),
        error_with_data(0, METHOD_NOT_FOUND, json!({"supported": ["2026-07-28"]})),
    );
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("2026-07-28"), "{message:?}");
    // With the modern envelope too.
    let modern = bare(1, "initialize");
    assert_reply(
        round(&s, &modern),
        error_with_data(1, METHOD_NOT_FOUND, json!({"supported": ["2026-07-28"]})),
    );
}

#[test]
fn methods_of_unadvertised_capabilities_are_method_not_found() {
    let s = fixture::tools_only_server();
    for input in [
        bare(1, "prompts/list"),
        request(
            2,
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        bare(3, "resources/list"),
        bare(4, "resources/templates/list"),
        request(5, "resources/read", json!({"uri": "fixture://readme"})),
        request(
            6,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": ""}}),
        ),
    ] {
        let id = serde_json::from_str::<Value>(&input).unwrap()["id"].clone();
        exchange(&s, &input, error(id, METHOD_NOT_FOUND));
    }
    exchange(
        &s,
        &bare(7, "tools/list"),
        cacheable(
            7,
            json!({"tools": [{"name": "noop", "inputSchema": {"type": "object", "additionalProperties": false}}]}),
            TTL,
            PUBLIC,
        ),
    );
    exchange(&s, &call(8, "noop", json!({})), text_result(8, "done"));
}

// ---------------------------------------------------------------------------------------
// Rules for every reply
// ---------------------------------------------------------------------------------------

/// Every successful request of the fixture, one per method and outcome.
fn successful_requests() -> Vec<String> {
    vec![
        bare(1, "server/discover"),
        bare(2, "tools/list"),
        bare(3, "resources/list"),
        bare(4, "resources/templates/list"),
        bare(5, "prompts/list"),
        call(6, "search", json!({"query": "q"})),
        call(7, "search", json!({"query": ""})),
        call(8, "weather", json!({"city": "Lyon"})),
        call(9, "overdrawn", json!({})),
        call(10, "crash", json!({})),
        call(11, "count", json!({"to": 1})),
        read(12, "fixture://readme"),
        read(13, "fixture://users/1"),
        get(14, "greet", Some(json!({"name": "Ada"}))),
        complete_request(
            15,
            json!({"type": "ref/prompt", "name": "greet"}),
            "style",
            "",
        ),
    ]
}

#[test]
fn every_result_is_complete_and_names_the_server() {
    let s = server();
    for input in successful_requests() {
        let reply = round(&s, &input).unwrap();
        let result = reply
            .get("result")
            .unwrap_or_else(|| panic!("{input} gave no result: {reply}"));
        assert_eq!(result["resultType"], "complete", "{input}");
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"],
            json!({"name": "snodo-fixture", "title": "Snodo fixture", "version": "1.2.3"}),
            "{input}"
        );
        assert_eq!(reply["jsonrpc"], "2.0");
    }
}

/// Requests that fail after their id was read, as `(method, params)`.
fn failing_requests() -> Vec<(&'static str, Option<Value>)> {
    vec![
        ("tools/list", None),
        ("tools/list", Some(json!({"_meta": {}}))),
        (
            "tools/list",
            Some(json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2025-11-25",
                "io.modelcontextprotocol/clientCapabilities": {}
            }})),
        ),
        (
            "tools/list",
            Some(json!({"_meta": meta(), "cursor": "bogus"})),
        ),
        ("ping", Some(json!({"_meta": meta()}))),
        ("initialize", Some(json!({}))),
        ("tools/call", Some(json!({"_meta": meta(), "name": "nope"}))),
        (
            "tools/call",
            Some(json!({"_meta": meta(), "name": "quota"})),
        ),
        (
            "tools/call",
            Some(json!({"_meta": meta(), "name": "bad_weather"})),
        ),
        (
            "resources/read",
            Some(json!({"_meta": meta(), "uri": "fixture://nope"})),
        ),
        (
            "resources/read",
            Some(json!({"_meta": meta(), "uri": "fixture://broken"})),
        ),
        (
            "prompts/get",
            Some(json!({"_meta": meta(), "name": "greet"})),
        ),
        (
            "prompts/get",
            Some(json!({"_meta": meta(), "name": "broken_prompt"})),
        ),
        ("completion/complete", Some(json!({"_meta": meta()}))),
        (
            "tools/call",
            Some(json!({"_meta": meta(), "name": "search", "requestState": 1})),
        ),
    ]
}

#[test]
fn every_error_echoes_the_id() {
    let s = server();
    let ids = [
        json!(0),
        json!(-17),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(""),
        json!("req-1"),
        json!("ünïcödé \"quoted\" \\ \u{7}"),
        json!("x".repeat(256)),
    ];
    for (method, params) in failing_requests() {
        for id in &ids {
            let mut input = json!({"jsonrpc": "2.0", "id": id, "method": method});
            if let Some(params) = &params {
                input["params"] = params.clone();
            }
            let reply = round(&s, &input.to_string()).unwrap();
            assert!(reply.get("error").is_some(), "{input} gave {reply}");
            assert!(reply.get("result").is_none(), "{input} gave {reply}");
            assert_eq!(&reply["id"], id, "{input} gave {reply}");
            assert_eq!(reply["jsonrpc"], "2.0");
            assert!(reply["error"]["code"].is_i64(), "{reply}");
            assert!(
                !reply["error"]["message"].as_str().unwrap().is_empty(),
                "{reply}"
            );
        }
    }
    // Invalid requests whose id could be read echo it too.
    for id in &ids {
        let input = json!({"jsonrpc": "1.0", "id": id, "method": "tools/list"});
        exchange(&s, &input.to_string(), error(id.clone(), INVALID_REQUEST));
        let input = json!({"jsonrpc": "2.0", "id": id, "method": 1});
        exchange(&s, &input.to_string(), error(id.clone(), INVALID_REQUEST));
    }
}

// ---------------------------------------------------------------------------------------
// The retry envelope: checked before any handler runs
// ---------------------------------------------------------------------------------------

/// The three methods whose results may be `input_required`, with valid params.
fn retryable() -> [(&'static str, Value); 3] {
    [
        (
            "tools/call",
            json!({"name": "search", "arguments": {"query": "q"}}),
        ),
        ("resources/read", json!({"uri": "fixture://readme"})),
        (
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
    ]
}

fn with(params: &Value, key: &str, value: Value) -> Value {
    let mut params = params.clone();
    params[key] = value;
    params
}

#[test]
fn a_request_state_that_is_not_a_string_is_refused_before_the_handler() {
    let s = server();
    for (method, params) in retryable() {
        for state in [
            json!(5),
            json!(true),
            json!(null),
            json!({"s": "x"}),
            json!(["x"]),
        ] {
            let input = request(1, method, with(&params, "requestState", state));
            exchange(&s, &input, error(1, INVALID_PARAMS));
        }
    }
    assert_eq!(
        s.app().handler_runs(),
        0,
        "a handler ran on a malformed retry"
    );
}

#[test]
fn input_responses_that_are_not_an_object_of_objects_are_refused_before_the_handler() {
    let s = server();
    for (method, params) in retryable() {
        for responses in [
            json!([]),
            json!("x"),
            json!(null),
            json!(1),
            json!({"color": 1}),
            json!({"color": "red"}),
            json!({"color": []}),
            json!({"color": null}),
            json!({"ok": {"action": "accept"}, "bad": true}),
        ] {
            let input = request(1, method, with(&params, "inputResponses", responses));
            exchange(&s, &input, error(1, INVALID_PARAMS));
        }
    }
    assert_eq!(
        s.app().handler_runs(),
        0,
        "a handler ran on a malformed retry"
    );
}

#[test]
fn a_well_formed_retry_envelope_reaches_the_handler() {
    let s = server();
    let mut runs = 0;
    for (method, params) in retryable() {
        let params = with(&params, "requestState", json!("opaque-state"));
        let params = with(
            &params,
            "inputResponses",
            json!({"color": {"action": "accept", "content": {"color": "red"}}, "empty": {}}),
        );
        let reply = round(&s, &request(1, method, params)).unwrap();
        assert_eq!(
            reply["result"]["resultType"], "complete",
            "{method}: {reply}"
        );
        runs += 1;
        assert_eq!(s.app().handler_runs(), runs);
    }
    // The retry fields are not arguments: `search` forbids additional properties and still
    // accepted the call above; here is its reply in full.
    let params = json!({
        "name": "search",
        "arguments": {"query": "q"},
        "requestState": "s",
        "inputResponses": {}
    });
    exchange(
        &s,
        &request(2, "tools/call", params),
        text_result(2, "3 results for q"),
    );
}

#[test]
fn a_server_holds_nothing_between_rounds() {
    // The same request gives the same reply, whatever came before it.
    let s: Server<'_, Fixture> = server();
    let input = call(1, "search", json!({"query": "q"}));
    let first = round(&s, &input);
    for noise in successful_requests() {
        round(&s, &noise);
        assert_eq!(round(&s, &input), first);
    }
}

// ---------------------------------------------------------------------------------------
// Output buffers that are too small
// ---------------------------------------------------------------------------------------

/// A buffer too small for the reply never panics and never truncates: the core either reports
/// the size it needed or (for results a handler wrote) answers -32603 in what room there is.
#[test]
fn small_output_buffers_never_panic_or_truncate() {
    let s = server();
    let mut inputs = successful_requests();
    inputs.extend([
        "{".to_string(),
        "[]".to_string(),
        bare("a-string-id", "ping"),
        call(20, "nope", json!({})),
        call(21, "quota", json!({})),
        read(22, "fixture://nope"),
    ]);
    for input in &inputs {
        let mut big = vec![0u8; OUT_SIZE];
        let Handled::Reply(full) = s.handle(input.as_bytes(), NOW, &mut big, None).unwrap() else {
            panic!("{input} was not answered");
        };
        let full_reply = &big[..full];
        let id = snodo_tests::harness::parse_output(full_reply)["id"].clone();
        let handler_writes = successful_requests()[5..].contains(input);
        for size in 0..=full + 2 {
            let mut out = vec![0u8; size];
            match s.handle(input.as_bytes(), NOW, &mut out, None) {
                Ok(Handled::Reply(n)) if size >= full => {
                    assert_eq!(&out[..n], full_reply, "{input} in {size} bytes");
                }
                Ok(Handled::Reply(n)) => {
                    assert!(handler_writes, "{input}: a partial reply in {size} bytes");
                    assert_reply(
                        Some(snodo_tests::harness::parse_output(&out[..n])),
                        error(id.clone(), INTERNAL_ERROR),
                    );
                }
                Ok(other) => panic!("{input} in {size} bytes: {other:?}"),
                Err(e) => {
                    assert!(
                        size < full,
                        "{input}: refused {size} bytes though {full} suffice"
                    );
                    assert!(
                        e.required > size,
                        "{input}: required {} of {size}",
                        e.required
                    );
                    if !handler_writes {
                        assert_eq!(e.required, full, "{input} in {size} bytes");
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The two phases give the same bytes as the one-call path
// ---------------------------------------------------------------------------------------

#[test]
fn the_two_phase_round_writes_what_the_one_call_round_writes() {
    use snodo_core::server::{Accepted, Call, Handler};
    let s = server();
    let mut inputs = successful_requests();
    inputs.extend(failing_requests().into_iter().map(|(method, params)| {
        let mut input = json!({"jsonrpc": "2.0", "id": 1, "method": method});
        if let Some(params) = params {
            input["params"] = params;
        }
        input.to_string()
    }));
    for input in &inputs {
        let mut one = vec![0u8; OUT_SIZE];
        let Handled::Reply(n) = s.handle(input.as_bytes(), NOW, &mut one, None).unwrap() else {
            panic!("{input} was not answered");
        };
        let mut two = vec![0u8; OUT_SIZE];
        let m = match s.accept(input.as_bytes(), NOW, &mut two).unwrap() {
            Accepted::Replied(m) => m,
            Accepted::Call(call) => {
                let app = s.app();
                let outcome = match &call {
                    Call::Tool(c) => app.call_tool(c, c.reply(&mut two, None)),
                    Call::Resource(c) => app.read_resource(c, c.reply(&mut two, None)),
                    Call::Prompt(c) => app.get_prompt(c, c.reply(&mut two, None)),
                    Call::Complete(c) => app.complete(c, c.reply(&mut two, None)),
                };
                call.finish(outcome).len(&mut two).unwrap()
            }
            other => panic!("{input}: {other:?}"),
        };
        assert_eq!(
            String::from_utf8_lossy(&two[..m]),
            String::from_utf8_lossy(&one[..n]),
            "{input}"
        );
    }
}
