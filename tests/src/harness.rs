//! A small harness for literal wire tests: run one message through a server, read the reply as
//! JSON, build requests with the standard `_meta` envelope, and compare JSON structurally.
//!
//! Expected values are written out in the tests from the specification's rules; the helpers
//! here only add the parts every result carries by rule (`resultType`, the `serverInfo`
//! `_meta`, the cache hints), never anything computed by the code under test.

use std::future::Future;

use serde_json::{Map, Value, json};
use snodo_core::json::BufferTooSmall;
use snodo_core::server::{Handled, Handler, Notifier, Round, Server};
use snodo_std::AsyncHandler;

use crate::fixture::{SERVER_NAME, SERVER_TITLE, SERVER_VERSION};

/// The protocol revision under test.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// In an expected value, a string that matches any string (for error messages and opaque
/// cursors, whose wording the specification leaves to the server).
pub const ANY_STRING: &str = "<any string>";

/// The output buffer size used by [`round`].
pub const OUT_SIZE: usize = 64 * 1024;

/// The `Round` every test uses: anonymous, at a fixed time.
pub const NOW: Round<'static> = Round::anonymous(1_780_000_000);

/// The standard request `_meta`: protocol version, empty client capabilities, client info.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "snodo-tests", "version": "0.0.0"}
    })
}

/// A request `{"jsonrpc":"2.0","id":id,"method":method,"params":params}` whose params get the
/// standard `_meta` (unless they already carry one). `params` must be an object.
pub fn request(id: impl Into<Value>, method: &str, params: Value) -> String {
    let mut params = match params {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => panic!("params must be an object, not {other}"),
    };
    params.entry("_meta").or_insert_with(meta);
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

/// A request with the standard `_meta` and no other params.
pub fn bare(id: impl Into<Value>, method: &str) -> String {
    request(id, method, json!({}))
}

/// A request whose params are exactly `params` (no `_meta` added).
pub fn raw_request(id: impl Into<Value>, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}).to_string()
}

/// A notification (no id) with the standard `_meta` added to `params`.
pub fn notification(method: &str, params: Value) -> String {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    params.entry("_meta").or_insert_with(meta);
    json!({"jsonrpc": "2.0", "method": method, "params": params}).to_string()
}

/// Collects notifications the core emits during a round.
#[derive(Debug, Default)]
pub struct Collect(pub Vec<Vec<u8>>);

impl Notifier for Collect {
    fn notify(&mut self, message: &[u8]) {
        self.0.push(message.to_vec());
    }
}

impl Collect {
    /// The collected notifications, each parsed.
    fn parsed(&self) -> Vec<Value> {
        self.0.iter().map(|n| parse_output(n)).collect()
    }
}

/// Parses bytes the core wrote, failing the test if they are not one JSON value.
pub fn parse_output(bytes: &[u8]) -> Value {
    match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => panic!(
            "the core wrote invalid JSON ({e}): {}",
            String::from_utf8_lossy(bytes)
        ),
    }
}

/// Runs one message given as text; `None` when the server sends nothing.
pub fn round<A: Handler>(server: &Server<'_, A>, json_in: &str) -> Option<Value> {
    round_bytes(server, json_in.as_bytes())
}

/// Runs one message given as bytes; `None` when the server sends nothing.
pub fn round_bytes<A: Handler>(server: &Server<'_, A>, input: &[u8]) -> Option<Value> {
    round_notified(server, input).1
}

/// Runs one message with a collecting notifier: the notifications sent before the reply, and
/// the reply (`None` when the server sends nothing).
pub fn round_notified<A: Handler>(
    server: &Server<'_, A>,
    input: &[u8],
) -> (Vec<Value>, Option<Value>) {
    round_sync(server, input, NOW)
}

/// Runs one message through the core's synchronous round ([`Server::handle`], the firmware
/// path) at `round` (its time and principal): the notifications sent before the reply, and
/// the reply (`None` when the server sends nothing).
pub fn round_sync<A: Handler>(
    server: &Server<'_, A>,
    input: &[u8],
    round: Round<'_>,
) -> (Vec<Value>, Option<Value>) {
    collected(|out, sink| server.handle(input, round, out, Some(sink)))
}

/// Runs one message through the asynchronous round ([`snodo_std::handle`]) at `round` (its
/// time and principal), on this thread's runtime: the notifications sent before the reply,
/// and the reply (`None` when the server sends nothing). Synchronous applications run here
/// too, through `snodo_std`'s blanket [`AsyncHandler`] impl.
pub fn round_async<A: AsyncHandler>(
    server: &Server<'_, A>,
    input: &[u8],
    round: Round<'_>,
) -> (Vec<Value>, Option<Value>) {
    collected(|out, sink| block_on(snodo_std::handle(server, input, round, out, Some(sink))))
}

/// Runs one round with an [`OUT_SIZE`] output buffer and a collecting notifier: the
/// notifications, parsed, and the reply it wrote, parsed.
fn collected<'i>(
    round: impl FnOnce(&mut [u8], &mut Collect) -> Result<Handled<'i>, BufferTooSmall>,
) -> (Vec<Value>, Option<Value>) {
    let mut out = vec![0u8; OUT_SIZE];
    let mut sink = Collect::default();
    let handled =
        round(&mut out, &mut sink).expect("a 64 KiB output buffer is enough for every reply");
    (sink.parsed(), reply_of(handled, &mut out))
}

/// Runs `future` to completion on this thread's current-thread tokio runtime (one per test
/// thread, made on first use).
pub fn block_on<F: Future>(future: F) -> F::Output {
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime starts");
    }
    RUNTIME.with(|runtime| runtime.block_on(future))
}

/// The reply a round wrote into `out`, parsed.
fn reply_of(handled: Handled<'_>, out: &mut [u8]) -> Option<Value> {
    match handled {
        Handled::Reply(n) => {
            let reply = parse_output(&out[..n]);
            assert_no_raw_non_ascii(&out[..n]);
            Some(reply)
        }
        Handled::Silent | Handled::Cancelled(_) => None,
        // A subscription's first message is its acknowledgement.
        Handled::Listen(subscription) => {
            let mut w = snodo_core::json::Writer::new(out);
            subscription.write_acknowledged(&mut w);
            let n = w.finish().expect("an acknowledgement fits");
            Some(parse_output(&out[..n]))
        }
        // This harness keeps no tasks (the transports' tests cover them).
        Handled::Task { .. } | Handled::BecameTask => None,
    }
}

fn assert_no_raw_non_ascii(bytes: &[u8]) {
    assert!(
        bytes.is_ascii(),
        "the core's output should be ASCII with non-ASCII escaped: {}",
        String::from_utf8_lossy(bytes)
    );
}

/// `_meta["io.modelcontextprotocol/serverInfo"]` as the fixtures configure it.
pub fn server_info() -> Value {
    json!({"name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION})
}

/// The result `_meta` every result carries, for the fixtures' identity.
pub fn result_meta() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": server_info()})
}

/// A complete result response: `members` plus `resultType: "complete"` and the `_meta`
/// naming the fixtures.
pub fn complete(id: impl Into<Value>, members: Value) -> Value {
    complete_from(&server_info(), id, members)
}

/// A complete, cacheable result response: [`complete`] plus `ttlMs` and `cacheScope`.
pub fn cacheable(id: impl Into<Value>, members: Value, ttl_ms: u64, scope: &str) -> Value {
    cacheable_from(&server_info(), id, members, ttl_ms, scope)
}

/// [`complete`] for a server whose `serverInfo` is `info`.
pub fn complete_from(info: &Value, id: impl Into<Value>, members: Value) -> Value {
    let mut result = members
        .as_object()
        .cloned()
        .expect("result members are an object");
    result.insert("resultType".into(), json!("complete"));
    result.insert(
        "_meta".into(),
        json!({"io.modelcontextprotocol/serverInfo": info}),
    );
    json!({"jsonrpc": "2.0", "id": id.into(), "result": result})
}

/// [`cacheable`] for a server whose `serverInfo` is `info`.
pub fn cacheable_from(
    info: &Value,
    id: impl Into<Value>,
    members: Value,
    ttl_ms: u64,
    scope: &str,
) -> Value {
    let mut members = members
        .as_object()
        .cloned()
        .expect("result members are an object");
    members.insert("ttlMs".into(), json!(ttl_ms));
    members.insert("cacheScope".into(), json!(scope));
    complete_from(info, id, Value::Object(members))
}

/// An error response with any message and no `data`.
pub fn error(id: impl Into<Value>, code: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "error": {"code": code, "message": ANY_STRING}})
}

/// An error response with any message and the given `data`.
pub fn error_with_data(id: impl Into<Value>, code: i64, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.into(),
        "error": {"code": code, "message": ANY_STRING, "data": data}
    })
}

/// Whether `actual` matches `expected`: JSON equality (numbers by value, so `1` and `1.0`
/// are the same number, as in JSON), except that the string [`ANY_STRING`] in `expected`
/// matches any non-empty string.
pub fn matches(actual: &Value, expected: &Value) -> bool {
    match (expected, actual) {
        (Value::String(e), Value::String(a)) if e == ANY_STRING => !a.is_empty(),
        (Value::Number(e), Value::Number(a)) => same_number(e, a),
        (Value::Object(e), Value::Object(a)) => {
            e.len() == a.len()
                && e.iter()
                    .all(|(k, ev)| a.get(k).is_some_and(|av| matches(av, ev)))
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(ev, av)| matches(av, ev))
        }
        (e, a) => e == a,
    }
}

fn same_number(e: &serde_json::Number, a: &serde_json::Number) -> bool {
    if let (Some(e), Some(a)) = (e.as_i64(), a.as_i64()) {
        return e == a;
    }
    if let (Some(e), Some(a)) = (e.as_u64(), a.as_u64()) {
        return e == a;
    }
    e.as_f64() == a.as_f64()
}

/// Asserts that the reply matches `expected` (see [`matches()`]).
#[track_caller]
pub fn assert_reply(actual: Option<Value>, expected: Value) {
    let Some(actual) = actual else {
        panic!("expected a reply, got none; expected {expected:#}");
    };
    assert!(
        matches(&actual, &expected),
        "reply does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
}

/// Runs `json_in` and asserts that the reply matches `expected`.
#[track_caller]
pub fn exchange<A: Handler>(server: &Server<'_, A>, json_in: &str, expected: Value) {
    let actual = round(server, json_in);
    let Some(actual) = actual else {
        panic!("expected a reply to {json_in}, got none; expected {expected:#}");
    };
    assert!(
        matches(&actual, &expected),
        "reply to {json_in} does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
}

/// Runs `input` and asserts that the server sends nothing.
#[track_caller]
pub fn silent<A: Handler>(server: &Server<'_, A>, input: &str) {
    if let Some(reply) = round(server, input) {
        panic!("expected no reply to {input}, got {reply:#}");
    }
}
