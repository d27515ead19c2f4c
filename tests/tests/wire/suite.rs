//! The literal wire suite, one body per test, run over every boundary (direct, stdio, HTTP)
//! by [`wire_tests!`] in `wire_direct.rs`: every method and every error of the foundation
//! issue, against the wire fixture application (`snodo_tests::fixture::Fixture`, served with
//! the fixtures' identity everywhere, so the expected `serverInfo` is the same).
//!
//! Expected replies are written out from the 2026-07-28 rules; error messages (whose wording
//! the specification leaves to the server) match [`ANY_STRING`] unless the application chose
//! them. How often a handler ran is checked where the boundary can count it (in-process).

use std::cell::RefCell;

use serde_json::{Value, json};
use snodo_tests::boundary::{Boundary, HANDLER_RUNS, Target};
use snodo_tests::fixture::{
    self, BROKEN_MESSAGE, CRASH_MESSAGE, INSTRUCTIONS, LOGO_BASE64, OVERDRAWN_TEXT, QUOTA_CODE,
    QUOTA_MESSAGE, README_TEXT,
};
use snodo_tests::harness::{
    ANY_STRING, assert_reply, bare, cacheable, complete, error, error_with_data, matches, meta,
    notification, raw_request, request,
};

/// Instantiates every test of this suite as a `#[test]` running on `$target` (a [`Target`]).
macro_rules! wire_tests {
    ($target:expr) => {
        $crate::suite::wire_tests!(@each $target;
            bad_json_is_a_parse_error_with_null_id,
            duplicate_keys_are_a_parse_error,
            nesting_beyond_the_depth_limit_is_a_parse_error,
            integers_of_more_than_64_digits_are_a_parse_error,
            batches_are_invalid_requests,
            non_objects_are_invalid_requests,
            jsonrpc_other_than_2_0_is_an_invalid_request,
            a_method_that_is_not_a_string_is_an_invalid_request,
            params_that_are_not_an_object_are_an_invalid_request,
            ids_that_are_not_strings_or_64_bit_integers_are_invalid_requests,
            ids_at_the_limits_are_accepted_and_echoed,
            notifications_are_never_answered,
            responses_from_the_client_are_never_answered,
            requests_without_meta_are_invalid_params,
            a_missing_or_malformed_protocol_version_is_invalid_params,
            missing_or_malformed_client_capabilities_are_invalid_params,
            unsupported_versions_are_refused_with_the_supported_list,
            a_progress_token_must_be_a_string_or_an_integer,
            discover_reports_versions_capabilities_identity_and_cache_hints,
            lists_on_one_page_have_no_next_cursor_and_carry_cache_hints,
            a_tool_call_succeeds_with_valid_arguments,
            unknown_tools_are_invalid_params,
            invalid_arguments_are_tool_error_results_and_no_handler_runs,
            structured_output_is_returned_with_a_text_mirror,
            structured_output_that_breaks_the_output_schema_is_an_internal_error,
            a_tool_error_result_reaches_the_client_as_is_error,
            a_typed_error_is_a_json_rpc_error,
            an_untyped_failure_is_a_tool_error_result,
            progress_is_reported_when_the_request_carries_a_token,
            no_progress_without_a_token,
            fixed_resources_are_read_with_cache_hints,
            a_template_match_that_names_nothing_is_not_found_with_its_uri,
            templated_resources_are_read,
            unknown_resources_are_invalid_params_naming_the_uri,
            a_resources_read_without_a_uri_is_invalid_params,
            a_failing_resource_read_is_an_internal_error,
            escaped_uris_are_the_same_uris,
            escaped_names_keys_and_methods_are_the_same_names,
            unescaped_non_ascii_uris_are_read,
            prompts_are_rendered,
            unknown_prompts_are_invalid_params,
            missing_required_prompt_arguments_are_invalid_params,
            a_failing_prompt_is_an_internal_error,
            completions_are_offered_for_prompts_and_templates,
            malformed_completion_requests_are_invalid_params,
            removed_and_unknown_methods_are_method_not_found,
            subscriptions_listen_is_acknowledged_with_the_honoured_filter,
            every_result_is_complete_and_names_the_server,
            every_error_echoes_the_id,
            a_request_state_that_is_not_a_string_is_refused_before_the_handler,
            input_responses_that_are_not_an_object_of_objects_are_refused_before_the_handler,
            a_well_formed_retry_envelope_reaches_the_handler,
        );
    };
    (@each $target:expr; $($name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $crate::suite::$name(&$target);
            }
        )+
    };
}
pub(crate) use wire_tests;

/// One server behind a boundary, for the rounds of one test.
pub struct S(RefCell<Box<dyn Boundary>>);

impl S {
    /// A fresh server from `target`.
    pub fn start(target: &Target) -> S {
        S(RefCell::new(target.start()))
    }

    /// The boundary's name: `direct`, `stdio` or `http`.
    pub fn name(&self) -> String {
        self.0.borrow().name().to_owned()
    }

    /// The error code of a `tools/call`, `prompts/get` or `resources/read` whose name or URI
    /// is missing or not a string: -32602, except over HTTP, where the `Mcp-Name` header such
    /// a request needs is missing too and is refused first (-32020).
    pub fn missing_name_code(&self) -> i64 {
        if self.name() == "http" {
            HEADER_MISMATCH
        } else {
            INVALID_PARAMS
        }
    }

    /// How often the application's handlers ran, where the boundary can count them.
    pub fn handler_runs(&self) -> Runs {
        Runs(self.0.borrow().counter(HANDLER_RUNS))
    }
}

/// A count of handler runs, or `None` across a process boundary, where it cannot be seen:
/// it then equals any number, so a suite's count check holds on the boundaries that see one.
#[derive(Debug)]
pub struct Runs(Option<usize>);

impl PartialEq<usize> for Runs {
    fn eq(&self, runs: &usize) -> bool {
        self.0.is_none_or(|seen| seen == *runs)
    }
}

/// Sends `input` and returns the reply (`None` when the server sends nothing), failing the
/// test on notifications before it.
pub fn round(s: &S, input: &str) -> Option<Value> {
    s.0.borrow_mut().round(input)
}

/// Sends `input`: the notifications sent before the reply, and the reply.
pub fn round_notified(s: &S, input: &[u8]) -> (Vec<Value>, Option<Value>) {
    let input = std::str::from_utf8(input).expect("a test message is text");
    let exchange = s.0.borrow_mut().exchange(input);
    (exchange.notifications, exchange.reply)
}

/// Sends `input` and checks its reply against `expected`.
#[track_caller]
pub fn exchange(s: &S, input: &str, expected: Value) {
    let name = s.0.borrow().name().to_owned();
    let Some(actual) = round(s, input) else {
        panic!("{name}: expected a reply to {input}, got none; expected {expected:#}");
    };
    assert!(
        matches(&actual, &expected),
        "{name}: reply to {input} does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
}

/// Sends `input` and checks that nothing comes back.
#[track_caller]
pub fn silent(s: &S, input: &str) {
    if let Some(reply) = round(s, input) {
        panic!("expected no reply to {input}, got {reply:#}");
    }
}

pub const PARSE_ERROR: i64 = -32700;
pub const HEADER_MISMATCH: i64 = -32020;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// The fixture's default `ttlMs` and `cacheScope`.
pub const TTL: u64 = 60_000;
pub const PUBLIC: &str = "public";

pub fn parse_error() -> Value {
    error(Value::Null, PARSE_ERROR)
}

pub fn invalid_request_null_id() -> Value {
    error(Value::Null, INVALID_REQUEST)
}

/// A tool error result (`isError: true`) whose text the server words.
pub fn tool_error(id: impl Into<Value>) -> Value {
    complete(
        id,
        json!({"content": [{"type": "text", "text": ANY_STRING}], "isError": true}),
    )
}

pub fn text_result(id: impl Into<Value>, text: &str) -> Value {
    complete(id, json!({"content": [{"type": "text", "text": text}]}))
}

/// `params` (depth 2) holding `arrays` nested arrays: the document is `2 + arrays` deep.
pub fn nested(arrays: usize) -> String {
    let m = meta().to_string();
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"deep":{}{}}}}}"#,
        "[".repeat(arrays),
        "]".repeat(arrays)
    )
}

// ---------------------------------------------------------------------------------------
// The four lists
// ---------------------------------------------------------------------------------------

pub fn tool_definitions() -> Vec<Value> {
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

pub fn resource_definitions() -> Vec<Value> {
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

pub fn template_definitions() -> Vec<Value> {
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

pub fn prompt_definitions() -> Vec<Value> {
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
pub fn lists() -> [(&'static str, &'static str, Vec<Value>); 4] {
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

// ---------------------------------------------------------------------------------------
// tools/call
// ---------------------------------------------------------------------------------------

pub fn call(id: impl Into<Value>, name: &str, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

// ---------------------------------------------------------------------------------------
// resources/read
// ---------------------------------------------------------------------------------------

pub fn read(id: impl Into<Value>, uri: &str) -> String {
    request(id, "resources/read", json!({ "uri": uri }))
}

// ---------------------------------------------------------------------------------------
// prompts/get
// ---------------------------------------------------------------------------------------

pub fn get(id: impl Into<Value>, name: &str, arguments: Option<Value>) -> String {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    request(id, "prompts/get", params)
}

pub fn user_text(text: &str) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

// ---------------------------------------------------------------------------------------
// completion/complete
// ---------------------------------------------------------------------------------------

pub fn complete_request(id: impl Into<Value>, reference: Value, name: &str, value: &str) -> String {
    request(
        id,
        "completion/complete",
        json!({"ref": reference, "argument": {"name": name, "value": value}}),
    )
}

pub fn completion(id: impl Into<Value>, values: &[&str]) -> Value {
    complete(
        id,
        json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}),
    )
}

// ---------------------------------------------------------------------------------------
// Rules for every reply
// ---------------------------------------------------------------------------------------

/// Every successful request of the fixture, one per method and outcome.
pub fn successful_requests() -> Vec<String> {
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

/// Requests that fail after their id was read, as `(method, params)`.
pub fn failing_requests() -> Vec<(&'static str, Option<Value>)> {
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

// ---------------------------------------------------------------------------------------
// The retry envelope: checked before any handler runs
// ---------------------------------------------------------------------------------------

/// The three methods whose results may be `input_required`, with valid params.
pub fn retryable() -> [(&'static str, Value); 3] {
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

pub fn with(params: &Value, key: &str, value: Value) -> Value {
    let mut params = params.clone();
    params[key] = value;
    params
}

// ---------------------------------------------------------------------------------------
// -32700: unparseable input, always with id null
// ---------------------------------------------------------------------------------------

pub fn bad_json_is_a_parse_error_with_null_id(target: &Target) {
    let s = S::start(target);
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
        // stdio's framing skips blank lines (`wire_stdio.rs`): no message, nothing to parse.
        if input.trim().is_empty() && s.name() == "stdio" {
            silent(&s, input);
            continue;
        }
        exchange(&s, input, parse_error());
    }
    assert_eq!(s.handler_runs(), 0);
}

pub fn duplicate_keys_are_a_parse_error(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn nesting_beyond_the_depth_limit_is_a_parse_error(target: &Target) {
    let s = S::start(target);
    // The host limit is depth 64, the root object counting as depth 1.
    assert_eq!(
        round(&s, &nested(62)).unwrap()["result"]["resultType"],
        "complete"
    );
    exchange(&s, &nested(63), parse_error());
    exchange(&s, &nested(1000), parse_error());
}

pub fn integers_of_more_than_64_digits_are_a_parse_error(target: &Target) {
    let s = S::start(target);
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

// ---------------------------------------------------------------------------------------
// -32600: JSON that is not a single JSON-RPC 2.0 request
// ---------------------------------------------------------------------------------------

pub fn batches_are_invalid_requests(target: &Target) {
    let s = S::start(target);
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

pub fn non_objects_are_invalid_requests(target: &Target) {
    let s = S::start(target);
    for input in ["3", "\"tools/list\"", "null", "true", "-1.5"] {
        exchange(&s, input, invalid_request_null_id());
    }
}

pub fn jsonrpc_other_than_2_0_is_an_invalid_request(target: &Target) {
    let s = S::start(target);
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

pub fn a_method_that_is_not_a_string_is_an_invalid_request(target: &Target) {
    let s = S::start(target);
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

pub fn params_that_are_not_an_object_are_an_invalid_request(target: &Target) {
    let s = S::start(target);
    for params in [json!([]), json!("x"), json!(1), json!(null)] {
        let input = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": params});
        exchange(&s, &input.to_string(), error(11, INVALID_REQUEST));
    }
}

pub fn ids_that_are_not_strings_or_64_bit_integers_are_invalid_requests(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn ids_at_the_limits_are_accepted_and_echoed(target: &Target) {
    let s = S::start(target);
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

pub fn notifications_are_never_answered(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0, "a notification ran a handler");
}

pub fn responses_from_the_client_are_never_answered(target: &Target) {
    let s = S::start(target);
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

// ---------------------------------------------------------------------------------------
// `_meta` admission
// ---------------------------------------------------------------------------------------

pub fn requests_without_meta_are_invalid_params(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn a_missing_or_malformed_protocol_version_is_invalid_params(target: &Target) {
    let s = S::start(target);
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

pub fn missing_or_malformed_client_capabilities_are_invalid_params(target: &Target) {
    let s = S::start(target);
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

pub fn unsupported_versions_are_refused_with_the_supported_list(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn a_progress_token_must_be_a_string_or_an_integer(target: &Target) {
    let s = S::start(target);
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

pub fn discover_reports_versions_capabilities_identity_and_cache_hints(target: &Target) {
    let s = S::start(target);
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

pub fn lists_on_one_page_have_no_next_cursor_and_carry_cache_hints(target: &Target) {
    let s = S::start(target);
    for (method, key, items) in lists() {
        exchange(
            &s,
            &bare(method, method),
            cacheable(method, json!({ key: items }), TTL, PUBLIC),
        );
    }
}

pub fn a_tool_call_succeeds_with_valid_arguments(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 5);
}

pub fn unknown_tools_are_invalid_params(target: &Target) {
    let s = S::start(target);
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
        error(3, s.missing_name_code()),
    );
    exchange(
        &s,
        &request(4, "tools/call", json!({"name": 7})),
        error(4, s.missing_name_code()),
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn invalid_arguments_are_tool_error_results_and_no_handler_runs(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0, "a handler ran on invalid arguments");
}

pub fn structured_output_is_returned_with_a_text_mirror(target: &Target) {
    let s = S::start(target);
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

pub fn structured_output_that_breaks_the_output_schema_is_an_internal_error(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &call(1, "bad_weather", json!({})),
        error(1, INTERNAL_ERROR),
    );
}

pub fn a_tool_error_result_reaches_the_client_as_is_error(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &call(1, "overdrawn", json!({})),
        complete(
            1,
            json!({"content": [{"type": "text", "text": OVERDRAWN_TEXT}], "isError": true}),
        ),
    );
}

pub fn a_typed_error_is_a_json_rpc_error(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &call("q", "quota", json!({})),
        json!({"jsonrpc": "2.0", "id": "q", "error": {"code": QUOTA_CODE, "message": QUOTA_MESSAGE}}),
    );
}

pub fn an_untyped_failure_is_a_tool_error_result(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &call(1, "crash", json!({})),
        complete(
            1,
            json!({"content": [{"type": "text", "text": CRASH_MESSAGE}], "isError": true}),
        ),
    );
}

pub fn progress_is_reported_when_the_request_carries_a_token(target: &Target) {
    let s = S::start(target);
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

pub fn no_progress_without_a_token(target: &Target) {
    let s = S::start(target);
    let (notes, reply) = round_notified(&s, call(1, "count", json!({"to": 2})).as_bytes());
    assert_reply(reply, text_result(1, "counted to 2"));
    assert!(notes.is_empty(), "{notes:#?}");
}

pub fn fixed_resources_are_read_with_cache_hints(target: &Target) {
    let s = S::start(target);
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

pub fn a_template_match_that_names_nothing_is_not_found_with_its_uri(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &read(1, "fixture://users/nobody"),
        error_with_data(1, INVALID_PARAMS, json!({"uri": "fixture://users/nobody"})),
    );
}

pub fn templated_resources_are_read(target: &Target) {
    let s = S::start(target);
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

pub fn unknown_resources_are_invalid_params_naming_the_uri(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn a_resources_read_without_a_uri_is_invalid_params(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &request(1, "resources/read", json!({})),
        error(1, s.missing_name_code()),
    );
    exchange(
        &s,
        &request(2, "resources/read", json!({"uri": 5})),
        error(2, s.missing_name_code()),
    );
}

pub fn a_failing_resource_read_is_an_internal_error(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &read(1, "fixture://broken"),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": INTERNAL_ERROR, "message": BROKEN_MESSAGE}}),
    );
}

/// JSON escapes do not change a string: `"fixture:\/\/readme"` is the URI
/// `fixture://readme`, and `"fixture://users/jos\u00e9"` is `fixture://users/josé`.
pub fn escaped_uris_are_the_same_uris(target: &Target) {
    let s = S::start(target);
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
pub fn escaped_names_keys_and_methods_are_the_same_names(target: &Target) {
    let s = S::start(target);
    let m = r#"{"io.modelcontextprotocol\/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{{"_meta":{m},"name":"se\u0061rch","arguments":{{"qu\u0065ry":"\u0071"}}}}}}"#
    );
    exchange(&s, &input, text_result(1, "3 results for q"));
    // The members of params themselves, escaped.
    let input = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"\u005fmeta":{m},"n\u0061me":"search","\u0061rguments":{{"query":"q"}}}}}}"#
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

pub fn unescaped_non_ascii_uris_are_read(target: &Target) {
    let s = S::start(target);
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

pub fn prompts_are_rendered(target: &Target) {
    let s = S::start(target);
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

pub fn unknown_prompts_are_invalid_params(target: &Target) {
    let s = S::start(target);
    exchange(
        &s,
        &get(1, "no_such_prompt", None),
        error(1, INVALID_PARAMS),
    );
    exchange(
        &s,
        &request(2, "prompts/get", json!({})),
        error(2, s.missing_name_code()),
    );
    exchange(
        &s,
        &request(3, "prompts/get", json!({"name": ["greet"]})),
        error(3, s.missing_name_code()),
    );
    assert_eq!(s.handler_runs(), 0);
}

pub fn missing_required_prompt_arguments_are_invalid_params(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

pub fn a_failing_prompt_is_an_internal_error(target: &Target) {
    let s = S::start(target);
    exchange(&s, &get(1, "broken_prompt", None), error(1, INTERNAL_ERROR));
}

pub fn completions_are_offered_for_prompts_and_templates(target: &Target) {
    let s = S::start(target);
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

pub fn malformed_completion_requests_are_invalid_params(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
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

pub fn removed_and_unknown_methods_are_method_not_found(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0);
}

/// `subscriptions/listen` opens a stream whose first message is the acknowledgement, with the
/// filter cut down to what the server honours (this fixture announces no `listChanged`).
pub fn subscriptions_listen_is_acknowledged_with_the_honoured_filter(target: &Target) {
    let s = S::start(target);
    let input = request(
        "sub-1",
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": false}}),
    );
    // The acknowledgement is the stream's first message: the reply in-process, where the
    // caller holds the stream; a notification over stdio, which (with no events to send)
    // closes the stream at once with its closing response. Over HTTP the stream stays open
    // until the listener shuts down (`std-adapters/tests/http.rs` follows it there).
    if s.name() != "http" {
        acknowledged_and_closed(&s, &input);
    }
    let malformed = request("sub-2", "subscriptions/listen", json!({"notifications": 5}));
    exchange(&s, &malformed, error("sub-2", INVALID_PARAMS));
    let missing = request("sub-3", "subscriptions/listen", json!({}));
    exchange(&s, &missing, error("sub-3", INVALID_PARAMS));
}

/// `input` (a `subscriptions/listen` with id `sub-1`) is acknowledged with the honoured
/// filter and, on a transport, closed.
fn acknowledged_and_closed(s: &S, input: &str) {
    let (mut notes, reply) = round_notified(s, input.as_bytes());
    let (acknowledgement, closing) = if notes.is_empty() {
        (reply, None)
    } else {
        (Some(notes.remove(0)), reply)
    };
    assert_reply(
        acknowledgement,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "_meta": {"io.modelcontextprotocol/subscriptionId": "sub-1"},
                "notifications": {}
            }
        }),
    );
    if let Some(closing) = closing {
        assert_eq!(closing["id"], "sub-1", "{closing:#}");
        assert_eq!(closing["result"]["resultType"], "complete", "{closing:#}");
    }
}

pub fn every_result_is_complete_and_names_the_server(target: &Target) {
    let s = S::start(target);
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

pub fn every_error_echoes_the_id(target: &Target) {
    let s = S::start(target);
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

pub fn a_request_state_that_is_not_a_string_is_refused_before_the_handler(target: &Target) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0, "a handler ran on a malformed retry");
}

pub fn input_responses_that_are_not_an_object_of_objects_are_refused_before_the_handler(
    target: &Target,
) {
    let s = S::start(target);
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
    assert_eq!(s.handler_runs(), 0, "a handler ran on a malformed retry");
}

pub fn a_well_formed_retry_envelope_reaches_the_handler(target: &Target) {
    let s = S::start(target);
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
        assert_eq!(s.handler_runs(), runs);
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
