//! The core never touches the heap: a counting global allocator watches more than a thousand
//! varied rounds through `Server::handle` — every method, every class of error, parse
//! failures, schema validation of tool arguments, output-schema checks, progress into a
//! fixed-buffer notifier — and sees no allocation, reallocation or deallocation at all.
//!
//! Counting is per thread and enabled only around the measured loop. Every input, every
//! expected reply and the buffers are prepared before counting starts, and nothing inside the
//! loop formats, collects or panics.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeSet;

use serde_json::{Value, json};
use snodo_core::server::{Handled, Handler, Notifier, Server};
use snodo_tests::fixture::{self, Fixture, ToolsOnly};
use snodo_tests::harness::{NOW, bare, meta, notification, parse_output, raw_request, request};

struct Counting;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static DEALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn note(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    // `try_with`: the allocator may run while thread locals are being torn down.
    let on = ENABLED.try_with(Cell::get).unwrap_or(false);
    if on {
        let _ = counter.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; counting
// touches only const-initialised thread locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(&ALLOCATIONS);
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(&DEALLOCATIONS);
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` with counting on; returns (allocations, deallocations) made by this thread.
fn counted(f: impl FnOnce()) -> (usize, usize) {
    ALLOCATIONS.with(|c| c.set(0));
    DEALLOCATIONS.with(|c| c.set(0));
    ENABLED.with(|e| e.set(true));
    f();
    ENABLED.with(|e| e.set(false));
    (ALLOCATIONS.with(Cell::get), DEALLOCATIONS.with(Cell::get))
}

/// A notifier with a fixed buffer: keeps the last notification and counts them all.
struct FixedNotifier {
    last: [u8; 512],
    len: usize,
    count: usize,
    overflowed: bool,
}

impl FixedNotifier {
    const fn new() -> Self {
        FixedNotifier {
            last: [0; 512],
            len: 0,
            count: 0,
            overflowed: false,
        }
    }
}

impl Notifier for FixedNotifier {
    fn notify(&mut self, message: &[u8]) {
        self.count += 1;
        match self.last.get_mut(..message.len()) {
            Some(dst) => {
                dst.copy_from_slice(message);
                self.len = message.len();
            }
            None => self.overflowed = true,
        }
    }
}

/// Which server a message goes to.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// The fixture with everything on one page.
    Full,
    /// The fixture with pages of two.
    Paged,
    /// The fixture with a 512-byte message limit.
    Small,
    /// Tools only.
    ToolsOnly,
}

struct Servers {
    full: Server<'static, Fixture>,
    paged: Server<'static, Fixture>,
    small: Server<'static, Fixture>,
    tools_only: Server<'static, ToolsOnly>,
}

/// What one round produced: the reply's length (0 for none) and the number of notifications.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outcome {
    reply: Option<usize>,
    notes: usize,
}

fn run_on<A: Handler>(
    server: &Server<'_, A>,
    input: &[u8],
    out: &mut [u8],
    notifier: &mut FixedNotifier,
) -> Option<Option<usize>> {
    match server.handle(input, NOW, out, Some(notifier)) {
        Ok(Handled::Reply(n)) => Some(Some(n)),
        Ok(Handled::Silent | Handled::Cancelled(_)) => Some(None),
        Ok(Handled::Listen(subscription)) => {
            // The stream's first message, written into the same fixed buffer.
            let mut w = snodo_core::json::Writer::new(out);
            subscription.write_acknowledged(&mut w);
            w.finish().ok().map(Some)
        }
        // These servers have no task tools.
        Ok(Handled::Task { .. } | Handled::BecameTask) | Err(_) => None,
    }
}

impl Servers {
    fn run(
        &self,
        target: Target,
        input: &[u8],
        out: &mut [u8],
        notifier: &mut FixedNotifier,
    ) -> Option<Outcome> {
        notifier.count = 0;
        let reply = match target {
            Target::Full => run_on(&self.full, input, out, notifier),
            Target::Paged => run_on(&self.paged, input, out, notifier),
            Target::Small => run_on(&self.small, input, out, notifier),
            Target::ToolsOnly => run_on(&self.tools_only, input, out, notifier),
        }?;
        Some(Outcome {
            reply,
            notes: notifier.count,
        })
    }
}

fn call(id: i64, name: &str, arguments: Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn with_progress(id: i64, name: &str, arguments: Value, token: Value) -> String {
    let mut m = meta();
    m["progressToken"] = token;
    request(
        id,
        "tools/call",
        json!({"_meta": m, "name": name, "arguments": arguments}),
    )
}

/// Every kind of message, each paired with the server it goes to.
fn inputs() -> Vec<(Target, Vec<u8>)> {
    use Target::*;
    let m = meta().to_string();
    let text = |t: Target, s: String| (t, s.into_bytes());
    let mut v = vec![
        // The methods.
        text(Full, bare(1, "server/discover")),
        text(Full, bare("l1", "tools/list")),
        text(Full, bare("l2", "resources/list")),
        text(Full, bare("l3", "resources/templates/list")),
        text(Full, bare("l4", "prompts/list")),
        text(
            Full,
            request(
                "sub",
                "subscriptions/listen",
                json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["fixture://readme"]}}),
            ),
        ),
        text(Paged, bare(2, "tools/list")),
        text(Paged, request(3, "tools/list", json!({"cursor": "2"}))),
        text(Paged, request(4, "tools/list", json!({"cursor": "6"}))),
        text(Paged, request(5, "prompts/list", json!({"cursor": "2"}))),
        text(
            Paged,
            request(6, "resources/list", json!({"cursor": "bad"})),
        ),
        text(
            Full,
            call(
                7,
                "search",
                json!({"query": "rust", "mode": "deep", "limit": 5, "tags": ["a"]}),
            ),
        ),
        text(
            Full,
            call(8, "search", json!({"query": "h\u{e9}llo \u{1F600}"})),
        ),
        text(Full, call(9, "weather", json!({"city": "Lyon"}))),
        text(Full, call(10, "bad_weather", json!({}))),
        text(Full, call(11, "overdrawn", json!({}))),
        text(Full, call(12, "quota", json!({}))),
        text(Full, call(13, "crash", json!({}))),
        text(
            Full,
            with_progress(14, "count", json!({"to": 5}), json!("tok")),
        ),
        text(
            Full,
            with_progress(15, "count", json!({"to": 2}), json!(77)),
        ),
        text(Full, call(16, "count", json!({"to": 3}))),
        text(
            Full,
            request(17, "resources/read", json!({"uri": "fixture://readme"})),
        ),
        text(
            Full,
            request(18, "resources/read", json!({"uri": "fixture://logo"})),
        ),
        text(
            Full,
            request(19, "resources/read", json!({"uri": "fixture://users/42"})),
        ),
        text(
            Full,
            request(
                20,
                "resources/read",
                json!({"uri": "fixture://files/a/b/c.txt"}),
            ),
        ),
        text(
            Full,
            request(
                21,
                "resources/read",
                json!({"uri": "fixture://logs/mon/07"}),
            ),
        ),
        text(
            Full,
            request(22, "resources/read", json!({"uri": "fixture://broken"})),
        ),
        text(
            Full,
            request(23, "resources/read", json!({"uri": "fixture://nope"})),
        ),
        text(
            Full,
            request(
                24,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Zo\u{eb}", "style": "formal"}}),
            ),
        ),
        text(
            Full,
            request(25, "prompts/get", json!({"name": "summarize"})),
        ),
        text(Full, request(26, "prompts/get", json!({"name": "greet"}))),
        text(Full, request(27, "prompts/get", json!({"name": "nope"}))),
        text(
            Full,
            request(28, "prompts/get", json!({"name": "broken_prompt"})),
        ),
        text(
            Full,
            request(
                29,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "style", "value": "f"}}),
            ),
        ),
        text(
            Full,
            request(
                30,
                "completion/complete",
                json!({"ref": {"type": "ref/resource", "uri": "fixture://users/{id}"}, "argument": {"name": "id", "value": "1"}, "context": {"arguments": {}}}),
            ),
        ),
        text(
            Full,
            request(
                31,
                "completion/complete",
                json!({"ref": {"type": "ref/tool"}}),
            ),
        ),
        // Invalid tool arguments: each keyword of the validator.
        text(Full, call(32, "search", json!({}))),
        text(Full, call(33, "search", json!({"query": ""}))),
        text(Full, call(34, "search", json!({"query": "x".repeat(40)}))),
        text(
            Full,
            call(35, "search", json!({"query": "q", "mode": "slow"})),
        ),
        text(Full, call(36, "search", json!({"query": "q", "limit": 0}))),
        text(Full, call(37, "search", json!({"query": "q", "limit": 11}))),
        text(
            Full,
            call(38, "search", json!({"query": "q", "limit": 1.5})),
        ),
        text(
            Full,
            call(39, "search", json!({"query": "q", "tags": [1, 2]})),
        ),
        text(
            Full,
            call(40, "search", json!({"query": "q", "extra": true})),
        ),
        text(Full, call(41, "search", json!({"query": 5}))),
        text(Full, call(42, "nope", json!({}))),
        // Admission.
        text(Full, raw_request(43, "tools/list", json!({}))),
        text(
            Full,
            r#"{"jsonrpc":"2.0","id":44,"method":"tools/list"}"#.to_string(),
        ),
        text(
            Full,
            raw_request(
                45,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}),
            ),
        ),
        text(
            Full,
            raw_request(
                46,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            ),
        ),
        text(
            Full,
            raw_request(
                47,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"sampling": true}}}),
            ),
        ),
        text(
            Full,
            raw_request(
                48,
                "tools/list",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {}}}),
            ),
        ),
        // Removed, unknown and unadvertised methods.
        text(
            Full,
            raw_request(
                49,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
            ),
        ),
        text(Full, bare(50, "ping")),
        text(Full, bare(51, "logging/setLevel")),
        text(Full, bare(52, "resources/subscribe")),
        text(Full, bare(53, "sampling/createMessage")),
        text(Full, bare(54, "tasks/get")),
        text(Full, bare(55, "made/up")),
        text(ToolsOnly, bare(56, "prompts/list")),
        text(
            ToolsOnly,
            request(57, "resources/read", json!({"uri": "fixture://readme"})),
        ),
        text(ToolsOnly, bare(58, "server/discover")),
        text(ToolsOnly, call(59, "noop", json!({}))),
        // The retry envelope.
        text(
            Full,
            request(
                60,
                "tools/call",
                json!({"name": "search", "arguments": {"query": "q"}, "requestState": 5}),
            ),
        ),
        text(
            Full,
            request(
                61,
                "resources/read",
                json!({"uri": "fixture://readme", "inputResponses": {"a": 1}}),
            ),
        ),
        text(
            Full,
            request(
                62,
                "prompts/get",
                json!({"name": "summarize", "requestState": "s", "inputResponses": {"a": {}}}),
            ),
        ),
        // The envelope.
        text(Full, "[]".to_string()),
        text(Full, "42".to_string()),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"1.0","id":63,"method":"tools/list","params":{{"_meta":{m}}}}}"#
            ),
        ),
        text(Full, r#"{"jsonrpc":"2.0","id":64,"method":7}"#.to_string()),
        text(
            Full,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#.to_string(),
        ),
        text(
            Full,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#.to_string(),
        ),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"tools/list"}}"#,
                "a".repeat(257)
            ),
        ),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"2.0","id":"{}","method":"server/discover","params":{{"_meta":{m}}}}}"#,
                "a".repeat(256)
            ),
        ),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"2.0","id":9223372036854775807,"method":"server/discover","params":{{"_meta":{m}}}}}"#
            ),
        ),
        text(
            Full,
            r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"tools/list"}"#.to_string(),
        ),
        // Parse failures.
        text(Full, "{".to_string()),
        text(
            Full,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}"#.to_string(),
        ),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"d":{}{}}}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            ),
        ),
        text(
            Full,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"n":{}}}}}"#,
                "1".repeat(65)
            ),
        ),
        (
            Full,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"\xff\xfe\"}".to_vec(),
        ),
        text(
            Small,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{m},"pad":"{}"}}}}"#,
                "x".repeat(600)
            ),
        ),
        text(Small, bare(65, "tools/list")),
        // Notifications and responses.
        text(Full, notification("notifications/initialized", json!({}))),
        text(
            Full,
            notification("notifications/cancelled", json!({"requestId": 3})),
        ),
        text(Full, notification("made/up", json!({}))),
        text(Full, r#"{"jsonrpc":"2.0","id":5,"result":{}}"#.to_string()),
    ];
    // Escaped strings everywhere the core compares or echoes them.
    v.push(text(
        Full,
        format!(
            r#"{{"jsonrpc":"2.0","id":"\u0069d\n","method":"tools\/call","params":{{"_meta":{m},"name":"se\u0061rch","arguments":{{"query":"\ud83d\ude00\t\"q\""}}}}}}"#
        ),
    ));
    v
}

#[test]
fn a_thousand_varied_rounds_allocate_nothing() {
    const ROUNDS: usize = 2_000;
    let servers = Servers {
        full: fixture::server(),
        paged: fixture::server_with(fixture::paged_config()),
        small: fixture::server_with(fixture::small_message_config(512)),
        tools_only: fixture::tools_only_server(),
    };
    let inputs = inputs();
    let mut out = [0u8; 16 * 1024];
    let mut notifier = FixedNotifier::new();

    // Reference run, not measured: the reply and notification count of every input.
    let mut expected: Vec<(Outcome, Vec<u8>)> = Vec::with_capacity(inputs.len());
    let mut codes = BTreeSet::new();
    let (mut results, mut silent, mut notified) = (0, 0, 0);
    for (target, input) in &inputs {
        let outcome = servers
            .run(*target, input, &mut out, &mut notifier)
            .expect("16 KiB is enough for every reply");
        let bytes = outcome.reply.map_or(Vec::new(), |n| out[..n].to_vec());
        match outcome.reply {
            Some(_) => {
                let reply = parse_output(&bytes);
                match reply["error"]["code"].as_i64() {
                    Some(code) => {
                        codes.insert(code);
                    }
                    None => results += 1,
                }
            }
            None => silent += 1,
        }
        if outcome.notes > 0 {
            notified += 1;
        }
        expected.push((outcome, bytes));
    }
    assert!(!notifier.overflowed);
    let wanted: BTreeSet<i64> = [
        -32700,
        -32600,
        -32601,
        -32602,
        -32603,
        -32022,
        i64::from(fixture::QUOTA_CODE),
    ]
    .into_iter()
    .collect();
    assert_eq!(codes, wanted, "the rounds cover every class of error");
    assert!(results >= 30, "only {results} results");
    assert!(silent >= 4, "only {silent} silent rounds");
    assert!(notified >= 2, "only {notified} rounds with progress");
    let expected_notes: usize = expected.iter().map(|(o, _)| o.notes).sum();

    // The measured rounds: nothing below may allocate, format or panic.
    let mut mismatches = 0usize;
    let mut failures = 0usize;
    let mut notes = 0usize;
    let mut bytes_out = 0usize;
    let (allocations, deallocations) = counted(|| {
        for round in 0..ROUNDS {
            let i = round % inputs.len();
            let (target, input) = &inputs[i];
            let Some(outcome) = servers.run(*target, input, &mut out, &mut notifier) else {
                failures += 1;
                continue;
            };
            let (want, want_bytes) = &expected[i];
            let same = match outcome.reply {
                Some(n) => out[..n] == want_bytes[..],
                None => want_bytes.is_empty(),
            };
            if !same || outcome != *want {
                mismatches += 1;
            }
            notes += outcome.notes;
            bytes_out += outcome.reply.unwrap_or(0);
        }
    });

    assert_eq!(failures, 0, "rounds that did not fit the output buffer");
    assert_eq!(
        mismatches, 0,
        "rounds whose reply differed from the reference run"
    );
    assert!(ROUNDS >= 1000 && ROUNDS >= 10 * inputs.len());
    assert!(bytes_out > ROUNDS * 100, "the rounds wrote real replies");
    assert!(notes >= (ROUNDS / inputs.len()) * expected_notes);
    assert_eq!(
        (allocations, deallocations),
        (0, 0),
        "{ROUNDS} rounds through the core allocated {allocations} times and freed \
         {deallocations} times"
    );
}

/// The counter itself works: a deliberate allocation inside the measured region is seen.
#[test]
fn the_counting_allocator_sees_allocations() {
    let (allocations, deallocations) = counted(|| {
        let v: Vec<u8> = Vec::with_capacity(std::hint::black_box(64));
        drop(std::hint::black_box(v));
    });
    assert_eq!((allocations, deallocations), (1, 1));
}

#[path = "no_alloc/legacy.rs"]
mod legacy;
