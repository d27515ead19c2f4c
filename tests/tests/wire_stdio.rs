//! Literal wire tests over stdio against the example server
//! (`cargo run -p snodo-std --example preferences -- --stdio`): the example's catalogue, and
//! what only the stdio transport does (bytes that are not text, a BOM and `\r\n`, overlong
//! lines, concurrency, cancellation of a running request). The wire rules themselves (invalid
//! requests, `_meta` admission, removed methods, the retry envelope, notifications) are the
//! wire suite's, run over stdio among the other boundaries by `wire_direct.rs`.
//!
//! Each test starts the example binary, writes newline-delimited requests to its standard
//! input, closes it, and reads every line the server writes until it exits. Replies are
//! matched by id (requests run concurrently, so their order is not fixed) and compared
//! structurally with values written out from the 2026-07-28 rules and the example's catalogue
//! (`std-adapters/examples/preferences/app.rs`).
//!
//! The binary is built once per run with `cargo build -p snodo-std --example preferences`;
//! its path comes from cargo's build messages.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use snodo_tests::boundary::example_binary;
use snodo_tests::harness::{
    ANY_STRING, bare, cacheable_from, complete_from, error, error_with_data, matches, meta,
    notification, request,
};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The example's default cache hints.
const TTL: u64 = 60_000;
const PUBLIC: &str = "public";

const INSTRUCTIONS: &str = "A demonstration server: echo and add numbers, count slowly with \
progress, read the about page or a greeting, render a greeting prompt, and preview display \
preferences chosen interactively (preference_preview, preview://preferences, \
preference_prompt, reset_preview, url_preview), or from the client's model and roots \
(sampling_preview, roots_preview, combined_preview). report writes a short report as a \
task for clients that take tasks.";

const ABOUT: &str = "snodo-preferences: an MCP 2026-07-28 server built on snodo-core and \
snodo-std. Tools: echo, add, slow_count, fail, report, preference_preview, reset_preview, \
url_preview, sampling_preview, roots_preview, combined_preview. Resources: preview://about, \
preview://preferences and greeting://{name}. Prompts: greeting_prompt, preference_prompt.";

/// How long a session may take before the test gives up on the server.
const SESSION_TIMEOUT: Duration = Duration::from_secs(60);

/// The example's `serverInfo`; its version is the workspace version, as is this crate's.
fn info() -> Value {
    json!({
        "name": "snodo-preferences",
        "title": "Snodo preferences example",
        "version": env!("CARGO_PKG_VERSION")
    })
}

fn complete(id: impl Into<Value>, members: Value) -> Value {
    complete_from(&info(), id, members)
}

fn cacheable(id: impl Into<Value>, members: Value) -> Value {
    cacheable_from(&info(), id, members, TTL, PUBLIC)
}

fn text_result(id: impl Into<Value>, text: &str) -> Value {
    complete(id, json!({"content": [{"type": "text", "text": text}]}))
}

fn tool_error(id: impl Into<Value>, text: &str) -> Value {
    complete(
        id,
        json!({"content": [{"type": "text", "text": text}], "isError": true}),
    )
}

// ---------------------------------------------------------------------------------------
// Running the example
// ---------------------------------------------------------------------------------------

/// Everything the server wrote to standard output, one parsed message per line, and what it
/// wrote to standard error.
#[derive(Debug)]
struct Transcript {
    messages: Vec<Value>,
    stderr: String,
}

impl Transcript {
    /// The one reply with this id.
    #[track_caller]
    fn reply(&self, id: &Value) -> &Value {
        let found: Vec<&Value> = self
            .messages
            .iter()
            .filter(|m| m.get("id") == Some(id) && m.get("method").is_none())
            .collect();
        assert_eq!(
            found.len(),
            1,
            "expected one reply with id {id}, got {found:#?}\nstderr:\n{}",
            self.stderr
        );
        found[0]
    }

    /// Position of the reply with this id among the messages.
    fn position(&self, id: &Value) -> Option<usize> {
        self.messages
            .iter()
            .position(|m| m.get("id") == Some(id) && m.get("method").is_none())
    }

    /// Replies with `id: null`.
    fn null_id_replies(&self) -> Vec<&Value> {
        self.messages
            .iter()
            .filter(|m| m.get("id") == Some(&Value::Null))
            .collect()
    }

    /// Asserts that the reply with `expected["id"]` matches `expected`.
    #[track_caller]
    fn expect(&self, expected: Value) {
        let actual = self.reply(&expected["id"]);
        assert!(
            matches(actual, &expected),
            "reply does not match\n  actual: {actual:#}\nexpected: {expected:#}"
        );
    }
}

/// Starts the example, writes `input` to its standard input, closes it, and collects what it
/// writes until it exits. The server must exit successfully, and every line it writes to
/// standard output must be one ASCII JSON-RPC message.
fn session_bytes(input: Vec<u8>) -> Transcript {
    let mut child = Command::new(example_binary())
        .arg("--stdio")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the example starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let writer = thread::spawn(move || {
        // A server that stops reading early makes this fail; the transcript tells why.
        let _ = stdin.write_all(&input);
    });
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        let _ = tx.send(out);
    });
    let errors = thread::spawn(move || {
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        err
    });
    let out = match rx.recv_timeout(SESSION_TIMEOUT) {
        Ok(out) => out,
        Err(_) => {
            let _ = child.kill();
            panic!("the server did not finish within {SESSION_TIMEOUT:?}");
        }
    };
    let status = child.wait().expect("the server exits");
    writer.join().unwrap();
    let stderr = errors.join().unwrap();
    assert!(
        status.success(),
        "the server exited with {status}\nstderr:\n{stderr}"
    );
    assert!(
        out.is_empty() || out.ends_with(b"\n"),
        "the last line is not terminated"
    );
    let messages = out
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            assert!(
                line.is_ascii(),
                "stdout carries ASCII only: {}",
                String::from_utf8_lossy(line)
            );
            let message: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
                panic!(
                    "stdout carries only JSON-RPC messages ({e}): {}",
                    String::from_utf8_lossy(line)
                )
            });
            assert_eq!(message["jsonrpc"], "2.0", "{message}");
            message
        })
        .collect();
    Transcript { messages, stderr }
}

/// A session of text lines, each followed by `\n`.
fn session(lines: &[String]) -> Transcript {
    let mut input = Vec::new();
    for line in lines {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    session_bytes(input)
}

fn call(id: impl Into<Value>, name: &str, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

// ---------------------------------------------------------------------------------------
// server/discover and the lists
// ---------------------------------------------------------------------------------------

#[test]
fn discover_over_stdio() {
    let t = session(&[bare("discover-1", "server/discover")]);
    t.expect(cacheable(
        "discover-1",
        json!({
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "tools": {}, "resources": {}, "prompts": {}, "completions": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "instructions": INSTRUCTIONS
        }),
    ));
    assert_eq!(t.messages.len(), 1);
}

fn tools() -> Vec<Value> {
    let hints = json!({"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false});
    vec![
        json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns the text it is given.",
            "inputSchema": {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to return"}},
                "required": ["text"],
                "additionalProperties": false
            },
            "annotations": hints
        }),
        json!({
            "name": "add",
            "title": "Add",
            "description": "Adds two numbers and returns the sum as structured content.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "number"}},
                "required": ["sum"],
                "additionalProperties": false
            },
            "annotations": hints
        }),
        json!({
            "name": "slow_count",
            "title": "Slow count",
            "description": "Counts to `count`, pausing `delayMs` between steps, and reports each step as progress when the request carries a progress token.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "minimum": 1, "maximum": 100},
                    "delayMs": {"type": "integer", "minimum": 0, "maximum": 10000}
                },
                "required": ["count"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": "fail",
            "title": "Fail",
            "description": "Always fails, with a tool error result the model can read.",
            "inputSchema": {
                "type": "object",
                "properties": {"reason": {"type": "string"}},
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
    ]
}

fn resources() -> Vec<Value> {
    vec![json!({
        "uri": "preview://about",
        "name": "about",
        "description": "What this server is and what it offers.",
        "mimeType": "text/plain"
    })]
}

fn templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": "greeting://{name}",
        "name": "greeting",
        "description": "A greeting for the person named in the URI.",
        "mimeType": "text/plain"
    })]
}

fn prompts() -> Vec<Value> {
    vec![json!({
        "name": "greeting_prompt",
        "description": "Asks the model to write a greeting.",
        "arguments": [
            {"name": "name", "description": "Who to greet", "required": true},
            {"name": "style", "description": "casual, formal or pirate", "required": false}
        ]
    })]
}

/// Checks a one-page list reply: the cache hints, `resultType` and `_meta` exactly, and each
/// of `items` present, in order, exactly as written (the example's catalogue grows as later
/// work adds its flows, so entries beyond these are allowed).
#[track_caller]
fn expect_list(t: &Transcript, id: &str, key: &str, items: &[Value]) {
    let reply = t.reply(&json!(id)).clone();
    let listed = reply["result"][key]
        .as_array()
        .unwrap_or_else(|| panic!("{id}: no {key} array in {reply:#}"))
        .clone();
    let mut rest = reply.clone();
    rest["result"][key] = json!([]);
    assert!(
        matches(&rest, &cacheable(id, json!({ key: [] }))),
        "{id}: {reply:#}"
    );
    let mut from = 0;
    for item in items {
        let at = listed[from..]
            .iter()
            .position(|l| l["name"] == item["name"])
            .unwrap_or_else(|| panic!("{id}: {} is not listed in order: {reply:#}", item["name"]));
        let listed_item = &listed[from + at];
        assert!(
            matches(listed_item, item),
            "{id}: listed {listed_item:#}\nexpected {item:#}"
        );
        from += at + 1;
    }
}

#[test]
fn the_four_lists_over_stdio() {
    let t = session(&[
        bare("tools", "tools/list"),
        bare("resources", "resources/list"),
        bare("templates", "resources/templates/list"),
        bare("prompts", "prompts/list"),
        request(
            "bad-cursor",
            "tools/list",
            json!({"cursor": "not-a-cursor"}),
        ),
        request("bad-cursor-2", "prompts/list", json!({"cursor": 3})),
    ]);
    expect_list(&t, "tools", "tools", &tools());
    expect_list(&t, "resources", "resources", &resources());
    expect_list(&t, "templates", "resourceTemplates", &templates());
    expect_list(&t, "prompts", "prompts", &prompts());
    t.expect(error("bad-cursor", INVALID_PARAMS));
    t.expect(error("bad-cursor-2", INVALID_PARAMS));
    assert_eq!(t.messages.len(), 6);
}

// ---------------------------------------------------------------------------------------
// tools/call
// ---------------------------------------------------------------------------------------

#[test]
fn tool_calls_over_stdio() {
    let t = session(&[
        call(1, "echo", json!({"text": "héllo, wörld \u{1F600}"})),
        call(2, "add", json!({"a": 2, "b": 3.5})),
        call(3, "fail", json!({})),
        call(4, "fail", json!({"reason": "on purpose"})),
        call(5, "add", json!({"a": 1e308, "b": 1e308})),
        call(6, "no_such_tool", json!({})),
        request(7, "tools/call", json!({})),
        request(8, "tools/call", json!({"name": "echo", "arguments": ["x"]})),
    ]);
    t.expect(text_result(1, "héllo, wörld \u{1F600}"));
    t.expect(complete(
        2,
        json!({
            "structuredContent": {"sum": 5.5},
            "content": [{"type": "text", "text": ANY_STRING}]
        }),
    ));
    let mirror = t.reply(&json!(2))["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    let mirror: Value = serde_json::from_str(mirror).expect("the text block is serialized JSON");
    assert!(matches(&mirror, &json!({"sum": 5.5})), "{mirror}");
    t.expect(tool_error(3, "Failed as asked."));
    t.expect(tool_error(4, "Failed as asked: on purpose"));
    t.expect(tool_error(5, "The sum is too large to represent."));
    t.expect(error(6, INVALID_PARAMS));
    t.expect(error(7, INVALID_PARAMS));
    t.expect(error(8, INVALID_PARAMS));
    assert_eq!(t.messages.len(), 8);
}

#[test]
fn invalid_tool_arguments_over_stdio_are_tool_error_results() {
    let cases = [
        ("echo", json!({})),
        ("echo", json!({"text": 5})),
        ("echo", json!({"text": "a", "extra": 1})),
        ("add", json!({"a": 1})),
        ("add", json!({"a": "1", "b": 2})),
        ("slow_count", json!({"count": 0})),
        ("slow_count", json!({"count": 101})),
        ("slow_count", json!({"count": 1.5})),
        ("slow_count", json!({"count": 1, "delayMs": -1})),
        ("fail", json!({"reason": ["x"]})),
    ];
    let lines: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, (name, arguments))| call(i, name, arguments.clone()))
        .collect();
    let t = session(&lines);
    for i in 0..cases.len() {
        t.expect(complete(
            i,
            json!({"content": [{"type": "text", "text": ANY_STRING}], "isError": true}),
        ));
    }
    assert_eq!(t.messages.len(), cases.len());
}

#[test]
fn progress_over_stdio_precedes_the_reply() {
    let mut m = meta();
    m["progressToken"] = json!("count-1");
    let with_token = request(
        "counted",
        "tools/call",
        json!({"_meta": m, "name": "slow_count", "arguments": {"count": 3, "delayMs": 0}}),
    );
    let without_token = call("quiet", "slow_count", json!({"count": 2, "delayMs": 0}));
    let t = session(&[with_token, without_token]);
    t.expect(text_result("counted", "Counted to 3."));
    t.expect(text_result("quiet", "Counted to 2."));
    let notes: Vec<&Value> = t
        .messages
        .iter()
        .filter(|m| m.get("method").is_some())
        .collect();
    let expected: Vec<Value> = (1..=3)
        .map(|step| {
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "count-1", "progress": step, "total": 3, "message": "counting"}
            })
        })
        .collect();
    assert_eq!(notes.len(), 3, "{:#?}", t.messages);
    for (note, want) in notes.iter().zip(&expected) {
        assert!(matches(note, want), "{note:#} != {want:#}");
    }
    let reply_at = t.position(&json!("counted")).unwrap();
    let last_note_at = t
        .messages
        .iter()
        .rposition(|m| m.get("method").is_some())
        .unwrap();
    assert!(last_note_at < reply_at, "{:#?}", t.messages);
}

// ---------------------------------------------------------------------------------------
// resources/read, prompts/get, completion/complete
// ---------------------------------------------------------------------------------------

#[test]
fn resource_reads_over_stdio() {
    let read = |id: i64, uri: &str| request(id, "resources/read", json!({ "uri": uri }));
    let t = session(&[
        read(1, "preview://about"),
        read(2, "greeting://Ada"),
        read(3, "greeting://Zoë"),
        read(4, "preview://nothing"),
        read(5, "greeting://"),
        request(6, "resources/read", json!({})),
    ]);
    t.expect(cacheable(
        1,
        json!({"contents": [{"uri": "preview://about", "mimeType": "text/plain", "text": ABOUT}]}),
    ));
    t.expect(cacheable(
        2,
        json!({"contents": [{"uri": "greeting://Ada", "mimeType": "text/plain", "text": "Hello, Ada!"}]}),
    ));
    t.expect(cacheable(
        3,
        json!({"contents": [{"uri": "greeting://Zoë", "mimeType": "text/plain", "text": "Hello, Zoë!"}]}),
    ));
    t.expect(error_with_data(
        4,
        INVALID_PARAMS,
        json!({"uri": "preview://nothing"}),
    ));
    t.expect(error_with_data(
        5,
        INVALID_PARAMS,
        json!({"uri": "greeting://"}),
    ));
    t.expect(error(6, INVALID_PARAMS));
}

#[test]
fn prompts_over_stdio() {
    let get = |id: i64, arguments: Value| {
        request(
            id,
            "prompts/get",
            json!({"name": "greeting_prompt", "arguments": arguments}),
        )
    };
    let user = |text: &str| json!({"role": "user", "content": {"type": "text", "text": text}});
    let t = session(&[
        get(1, json!({"name": "Ada"})),
        get(2, json!({"name": "Ada", "style": "pirate"})),
        get(3, json!({})),
        get(4, json!({"style": "formal"})),
        request(5, "prompts/get", json!({"name": "greeting_prompt"})),
        request(6, "prompts/get", json!({"name": "no_such_prompt"})),
        get(7, json!({"name": 7})),
    ]);
    t.expect(complete(
        1,
        json!({"description": "A greeting to write", "messages": [user("Write a short casual greeting for Ada.")]}),
    ));
    t.expect(complete(
        2,
        json!({"description": "A greeting to write", "messages": [user("Write a short pirate greeting for Ada.")]}),
    ));
    for id in [3, 4, 5] {
        t.expect(error_with_data(
            id,
            INVALID_PARAMS,
            json!({"argument": "name"}),
        ));
    }
    t.expect(error(6, INVALID_PARAMS));
    t.expect(error(7, INVALID_PARAMS));
}

#[test]
fn completions_over_stdio() {
    let prompt = json!({"type": "ref/prompt", "name": "greeting_prompt"});
    let template = json!({"type": "ref/resource", "uri": "greeting://{name}"});
    let complete_request = |id: i64, reference: &Value, name: &str, value: &str| {
        request(
            id,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": value}}),
        )
    };
    let completion = |id: i64, values: &[&str]| {
        complete(
            id,
            json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}),
        )
    };
    let t = session(&[
        complete_request(1, &prompt, "name", "a"),
        complete_request(2, &prompt, "style", ""),
        complete_request(3, &template, "name", "G"),
        complete_request(4, &prompt, "name", "zz"),
        request(5, "completion/complete", json!({"ref": prompt})),
        request(
            6,
            "completion/complete",
            json!({"ref": {"type": "ref/nothing"}, "argument": {"name": "a", "value": ""}}),
        ),
    ]);
    t.expect(completion(1, &["Ada", "Alan"]));
    t.expect(completion(2, &["casual", "formal", "pirate"]));
    t.expect(completion(3, &["Grace"]));
    t.expect(completion(4, &[]));
    t.expect(error(5, INVALID_PARAMS));
    t.expect(error(6, INVALID_PARAMS));
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

#[test]
fn parse_errors_over_stdio_have_null_ids_and_the_server_goes_on() {
    let m = meta().to_string();
    let mut input = Vec::new();
    for line in [
        "{".to_string(),
        "not json".to_string(),
        r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#.to_string(),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{m},"d":{}{}}}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{m},"n":{}}}}}"#,
            "7".repeat(65)
        ),
    ] {
        input.extend_from_slice(line.as_bytes());
        input.push(b'\n');
    }
    input.extend_from_slice(
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"x\":\"\xff\"}\n",
    );
    input.extend_from_slice(bare("after", "server/discover").as_bytes());
    input.push(b'\n');
    let t = session_bytes(input);
    let nulls = t.null_id_replies();
    assert_eq!(nulls.len(), 6, "{:#?}", t.messages);
    for reply in nulls {
        assert!(
            matches(reply, &error(Value::Null, PARSE_ERROR)),
            "{reply:#}"
        );
    }
    assert_eq!(t.reply(&json!("after"))["result"]["resultType"], "complete");
    assert_eq!(t.messages.len(), 7);
}

// ---------------------------------------------------------------------------------------
// Notifications, framing, concurrency, cancellation
// ---------------------------------------------------------------------------------------

#[test]
fn a_bom_crlf_and_blank_lines_are_tolerated() {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend_from_slice(bare(1, "server/discover").as_bytes());
    input.extend_from_slice(b"\r\n\r\n\n");
    input.extend_from_slice(call(2, "echo", json!({"text": "crlf"})).as_bytes());
    input.extend_from_slice(b"\r\n");
    // The last line needs no line ending.
    input.extend_from_slice(call(3, "echo", json!({"text": "last"})).as_bytes());
    let t = session_bytes(input);
    assert_eq!(t.reply(&json!(1))["result"]["resultType"], "complete");
    t.expect(text_result(2, "crlf"));
    t.expect(text_result(3, "last"));
    assert_eq!(t.messages.len(), 3);
}

#[test]
fn an_oversized_line_is_an_invalid_request_and_the_server_goes_on() {
    // The example's maximum line length is the default, 1 MiB.
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{},"name":"echo","arguments":{{"text":""#,
        meta()
    );
    let mut line = head.into_bytes();
    line.resize((1 << 20) + 16, b'x');
    line.extend_from_slice(b"\"}}}\n");
    line.extend_from_slice(call(2, "echo", json!({"text": "still here"})).as_bytes());
    line.push(b'\n');
    let t = session_bytes(line);
    let nulls = t.null_id_replies();
    assert_eq!(nulls.len(), 1, "{:#?}", t.messages);
    assert!(
        matches(nulls[0], &error(Value::Null, INVALID_REQUEST)),
        "{:#}",
        nulls[0]
    );
    t.expect(text_result(2, "still here"));
    assert_eq!(t.messages.len(), 2);
}

#[test]
fn requests_over_stdio_run_concurrently() {
    let t = session(&[
        call("slow", "slow_count", json!({"count": 2, "delayMs": 400})),
        call("fast", "echo", json!({"text": "fast"})),
    ]);
    t.expect(text_result("slow", "Counted to 2."));
    t.expect(text_result("fast", "fast"));
    assert!(
        t.position(&json!("fast")) < t.position(&json!("slow")),
        "a quick request waited for a slow one: {:#?}",
        t.messages
    );
}

#[test]
fn a_cancelled_request_gets_no_response() {
    example_binary();
    let started = Instant::now();
    let t = session(&[
        call("long", "slow_count", json!({"count": 100, "delayMs": 100})),
        notification(
            "notifications/cancelled",
            json!({"requestId": "long", "reason": "no longer needed"}),
        ),
        call("other", "echo", json!({"text": "other"})),
    ]);
    t.expect(text_result("other", "other"));
    assert_eq!(t.position(&json!("long")), None, "{:#?}", t.messages);
    assert_eq!(t.messages.len(), 1, "{:#?}", t.messages);
    // The request would have run ten seconds; the server exits at the end of input as soon as
    // nothing is left to answer.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "the server waited for a cancelled request"
    );
}
