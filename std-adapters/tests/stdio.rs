//! The stdio adapter, driven in-process through in-memory pipes: framing, limits,
//! concurrency, cancellation, progress, end of input and batching.

mod common;

use std::collections::BTreeSet;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use common::{call, call_with_progress, cancel, first_text, request, start, start_with};
use serde_json::{Value, json};
use snodo_core::server::{
    Config, Done, Error, Handler, Registry, Server, Tool, ToolCall, ToolReply,
};
use snodo_std::AsyncHandler;
use snodo_std::stdio::{StdioConfig, serve};
use tokio::io::{AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::{Barrier, Notify};

/// What the tests observe of and control in the fixture's tools.
#[derive(Clone)]
struct Probes {
    /// `wait` signals here once it runs.
    started: Arc<Notify>,
    /// `wait` finishes when this is notified.
    gate: Arc<Notify>,
    /// Set when a `wait` call is dropped before finishing.
    abandoned: Arc<AtomicBool>,
    /// `pair` calls meet here: two must run at once to finish.
    pair: Arc<Barrier>,
}

impl Probes {
    fn new() -> Self {
        Probes {
            started: Arc::new(Notify::new()),
            gate: Arc::new(Notify::new()),
            abandoned: Arc::new(AtomicBool::new(false)),
            pair: Arc::new(Barrier::new(2)),
        }
    }
}

struct Fixture {
    probes: Probes,
}

fn fixture() -> (Fixture, Probes) {
    let probes = Probes::new();
    (
        Fixture {
            probes: probes.clone(),
        },
        probes,
    )
}

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo").input_schema(
        r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    ),
    Tool::new("wait"),
    Tool::new("pair"),
    Tool::new("progress"),
    Tool::new("panic"),
    Tool::new("big"),
];

impl Registry for Fixture {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

/// Sets a flag when dropped before `finished` is called.
struct DropFlag(Option<Arc<AtomicBool>>);

impl DropFlag {
    fn finished(mut self) {
        self.0 = None;
    }
}

impl Drop for DropFlag {
    fn drop(&mut self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

impl AsyncHandler for Fixture {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        mut reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        match call.name() {
            "echo" => {
                let text: String = call
                    .argument("text")
                    .and_then(|v| v.as_str())
                    .map(|s| s.chars().collect())
                    .unwrap_or_default();
                Ok(reply.text(&text))
            }
            "wait" => {
                let flag = DropFlag(Some(Arc::clone(&self.probes.abandoned)));
                self.probes.started.notify_one();
                self.probes.gate.notified().await;
                flag.finished();
                Ok(reply.text("released"))
            }
            "pair" => {
                self.probes.pair.wait().await;
                Ok(reply.text("met"))
            }
            "progress" => {
                for step in 1..=3 {
                    reply
                        .progress(f64::from(step), Some(3.0), None)
                        .map_err(|_| Error::internal("progress"))?;
                    tokio::task::yield_now().await;
                }
                Ok(reply.text("done"))
            }
            "panic" => panic!("the fixture panics on purpose"),
            "big" => Ok(reply.text(&"x".repeat(10_000))),
            _ => Err(Error::invalid_params("Unknown tool")),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_a_request_and_exits_at_end_of_input() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&request(1, "server/discover", json!({}))).await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["resultType"], "complete");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn tolerates_a_byte_order_mark() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    let line = format!("\u{FEFF}{}\n", call(1, "echo", json!({"text": "bom"})));
    client.send_bytes(line.as_bytes()).await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(first_text(&reply), "bom");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn tolerates_crlf_line_endings() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    let lines = format!(
        "\u{FEFF}{}\r\n{}\r\n",
        call(1, "echo", json!({"text": "one"})),
        call(2, "echo", json!({"text": "two"}))
    );
    client.send_bytes(lines.as_bytes()).await;
    let mut texts = BTreeSet::new();
    for _ in 0..2 {
        texts.insert(first_text(&client.recv().await).to_owned());
    }
    assert_eq!(texts, BTreeSet::from(["one".to_owned(), "two".to_owned()]));
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn skips_blank_lines() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send_bytes(b"\n   \n\t\r\n\r\n").await;
    client.send(&request(1, "tools/list", json!({}))).await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["tools"][0]["name"], "echo");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn answers_unparseable_input_and_goes_on() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send("{not json").await;
    client
        .send(&call(2, "echo", json!({"text": "after"})))
        .await;
    let error = client.recv().await;
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32700);
    assert_eq!(first_text(&client.recv().await), "after");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn an_oversized_line_is_refused_and_the_server_goes_on() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_line_len(512));
    // Far longer than the limit and than every buffer on the way: it is skipped as it comes.
    let huge = format!("{{\"pad\":\"{}\"}}\n", "x".repeat(300_000));
    client.send_bytes(huge.as_bytes()).await;
    client
        .send(&call(2, "echo", json!({"text": "still here"})))
        .await;
    let error = client.recv().await;
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32600);
    let reply = client.recv().await;
    assert_eq!(reply["id"], 2);
    assert_eq!(first_text(&reply), "still here");
    assert!(client.finish().await.is_empty());
}

/// A request padded with spaces to exactly `len` bytes.
fn padded(id: i64, len: usize) -> String {
    let line = call(id, "echo", json!({"text": "edge"}));
    assert!(line.len() <= len);
    format!("{line}{}", " ".repeat(len - line.len()))
}

#[tokio::test]
async fn the_line_limit_excludes_the_line_ending_and_bom() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_line_len(300));
    let exact = format!("\u{FEFF}{}\r\n", padded(1, 300));
    client.send_bytes(exact.as_bytes()).await;
    assert_eq!(client.recv().await["id"], 1);
    client.send(&padded(2, 301)).await;
    let error = client.recv().await;
    assert_eq!(error["id"], Value::Null);
    assert_eq!(error["error"]["code"], -32600);
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn an_oversized_last_line_without_newline_is_refused() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_line_len(100));
    client.send_bytes("y".repeat(5_000).as_bytes()).await;
    let rest = client.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["error"]["code"], -32600);
}

#[tokio::test]
async fn a_last_line_without_newline_is_answered() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client
        .send_bytes(call(9, "echo", json!({"text": "tail"})).as_bytes())
        .await;
    let rest = client.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["id"], 9);
}

#[tokio::test]
async fn lines_split_across_many_small_reads() {
    let (app, _) = fixture();
    // Pipes of 7 bytes: every line arrives in pieces.
    let mut client = start_with(app, StdioConfig::default(), 7, |w| w);
    let writer = async {
        for i in 0..5 {
            client
                .send(&call(i, "echo", json!({"text": format!("piece {i}")})))
                .await;
        }
        let mut ids = BTreeSet::new();
        for _ in 0..5 {
            ids.insert(client.recv().await["id"].as_i64().unwrap());
        }
        ids
    };
    assert_eq!(writer.await, (0..5).collect());
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn non_ascii_output_is_escaped() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    let text = "h\u{e9}llo \u{2713} \u{1F600} \u{2028} \"q\" \\ \t";
    client.send(&call(1, "echo", json!({"text": text}))).await;
    let line = client.recv_line().await;
    assert!(line.is_ascii(), "ASCII output: {line}");
    assert!(line.contains(r"\u00e9"), "{line}");
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(first_text(&reply), text);
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn notifications_and_responses_get_no_reply() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#)
        .await;
    client
        .send(r#"{"jsonrpc":"2.0","id":"from-server","result":{}}"#)
        .await;
    client.send(&cancel(12345)).await;
    client.send(&call(1, "echo", json!({"text": "only"}))).await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 1);
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_run_concurrently() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    // Each `pair` waits for the other: both finish only if both run at once.
    client.send(&call(1, "pair", json!({}))).await;
    client.send(&call(2, "pair", json!({}))).await;
    let mut ids = BTreeSet::new();
    for _ in 0..2 {
        let reply = client.recv().await;
        assert_eq!(first_text(&reply), "met");
        ids.insert(reply["id"].as_i64().unwrap());
    }
    assert_eq!(ids, BTreeSet::from([1, 2]));
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_request_overtakes_a_slow_one() {
    let (app, probes) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(1, "wait", json!({}))).await;
    probes.started.notified().await;
    client
        .send(&call(2, "echo", json!({"text": "quick"})))
        .await;
    assert_eq!(client.recv().await["id"], 2);
    probes.gate.notify_one();
    assert_eq!(client.recv().await["id"], 1);
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_is_bounded() {
    let (app, probes) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_concurrency(1));
    client.send(&call(1, "wait", json!({}))).await;
    probes.started.notified().await;
    client
        .send(&call(2, "echo", json!({"text": "queued"})))
        .await;
    // The only slot is taken: the echo waits, and so does everything read after it.
    client.send(&request(3, "tools/list", json!({}))).await;
    let early = tokio::time::timeout(Duration::from_millis(200), client.recv_line()).await;
    assert!(
        early.is_err(),
        "nothing may be answered while the slot is taken"
    );
    probes.gate.notify_one();
    assert_eq!(client.recv().await["id"], 1);
    let mut later = BTreeSet::new();
    for _ in 0..2 {
        later.insert(client.recv().await["id"].as_i64().unwrap());
    }
    assert_eq!(later, BTreeSet::from([2, 3]));
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_request_gets_no_response() {
    let (app, probes) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(7, "wait", json!({}))).await;
    probes.started.notified().await;
    client.send(&cancel(7)).await;
    client
        .send(&call(8, "echo", json!({"text": "after cancel"})))
        .await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 8, "the cancelled request must not answer");
    // The gate is never opened: the server can only finish if the handler was stopped.
    let rest = client.finish().await;
    assert!(rest.is_empty(), "no late response: {rest:?}");
    assert!(probes.abandoned.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_matches_string_ids_by_their_text() {
    let (app, probes) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call("req-1", "wait", json!({}))).await;
    probes.started.notified().await;
    // The same id spelled with an escape; a number "1" names another request.
    client.send(&cancel(1)).await;
    client
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"req\u002d1"}}"#)
        .await;
    let rest = client.finish().await;
    assert!(
        rest.is_empty(),
        "no response for a cancelled request: {rest:?}"
    );
    assert!(probes.abandoned.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_finished_request_changes_nothing() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(1, "echo", json!({"text": "done"}))).await;
    assert_eq!(client.recv().await["id"], 1);
    client.send(&cancel(1)).await;
    client
        .send(&call(1, "echo", json!({"text": "again"})))
        .await;
    assert_eq!(first_text(&client.recv().await), "again");
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_precedes_the_response() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client
        .send(&call_with_progress(5, "progress", json!({}), "tok"))
        .await;
    for step in 1..=3 {
        let note = client.recv().await;
        assert_eq!(note["method"], "notifications/progress");
        assert!(note.get("id").is_none());
        assert_eq!(note["params"]["progressToken"], "tok");
        assert_eq!(note["params"]["progress"], f64::from(step));
        assert_eq!(note["params"]["total"], 3.0);
    }
    let reply = client.recv().await;
    assert_eq!(reply["id"], 5);
    assert_eq!(first_text(&reply), "done");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn no_progress_without_a_token() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(5, "progress", json!({}))).await;
    let reply = client.recv().await;
    assert_eq!(reply["id"], 5);
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn end_of_input_waits_for_requests_in_flight() {
    let (app, probes) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(1, "wait", json!({}))).await;
    probes.started.notified().await;
    client.close_input();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !client.server.is_finished(),
        "the server must not exit with a request in flight"
    );
    probes.gate.notify_one();
    let rest = client.finish().await;
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["id"], 1);
    assert_eq!(first_text(&rest[0]), "released");
}

#[tokio::test]
async fn a_panicking_handler_is_answered_with_an_internal_error() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default());
    client.send(&call(1, "panic", json!({}))).await;
    let error = client.recv().await;
    assert_eq!(error["id"], 1);
    assert_eq!(error["error"]["code"], -32603);
    client
        .send(&call(2, "echo", json!({"text": "alive"})))
        .await;
    assert_eq!(first_text(&client.recv().await), "alive");
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn a_result_larger_than_the_output_buffer_is_an_internal_error() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_response_len(4096));
    client.send(&call(1, "big", json!({}))).await;
    let error = client.recv().await;
    assert_eq!(error["id"], 1);
    assert_eq!(error["error"]["code"], -32603);
    assert!(client.finish().await.is_empty());
}

#[tokio::test]
async fn an_output_buffer_too_small_even_for_an_error_still_answers() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_response_len(16));
    client.send(&request(1, "server/discover", json!({}))).await;
    client
        .send(&call("two", "echo", json!({"text": "x"})))
        .await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let error = client.recv().await;
        assert_eq!(error["error"]["code"], -32603);
        seen.push(error["id"].clone());
    }
    seen.sort_by_key(Value::to_string);
    assert_eq!(seen, [json!("two"), json!(1)]);
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_pipelined_requests_are_all_answered() {
    let (app, _) = fixture();
    let mut client = start(app, StdioConfig::default().with_max_concurrency(8));
    let mut batch = String::new();
    for i in 0..300 {
        let line = if i % 3 == 0 {
            request(i, "tools/list", json!({}))
        } else {
            call(i, "echo", json!({"text": format!("n{i}")}))
        };
        batch.push_str(&line);
        batch.push('\n');
    }
    // Fewer replies than the writer queue holds, so the input never waits for the output.
    client.send_bytes(batch.as_bytes()).await;
    let rest = client.finish().await;
    let ids: BTreeSet<i64> = rest.iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, (0..300).collect());
}

/// An output that stays shut until opened and counts the writes that reach it.
struct GatedOutput {
    inner: DuplexStream,
    gate: Arc<Gate>,
}

#[derive(Default)]
struct Gate {
    open: AtomicBool,
    waiting: Mutex<Option<Waker>>,
    writes: AtomicUsize,
}

impl Gate {
    fn open(&self) {
        self.open.store(true, Ordering::SeqCst);
        if let Some(waker) = self.waiting.lock().unwrap().take() {
            waker.wake();
        }
    }
}

impl AsyncWrite for GatedOutput {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if !self.gate.open.load(Ordering::SeqCst) {
            *self.gate.waiting.lock().unwrap() = Some(cx.waker().clone());
            if !self.gate.open.load(Ordering::SeqCst) {
                return Poll::Pending;
            }
        }
        self.gate.writes.fetch_add(1, Ordering::SeqCst);
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_are_batched() {
    let (app, probes) = fixture();
    let gate = Arc::new(Gate::default());
    let output_gate = Arc::clone(&gate);
    let mut client = start_with(app, StdioConfig::default(), 1 << 20, move |inner| {
        GatedOutput {
            inner,
            gate: output_gate,
        }
    });
    let mut batch = String::new();
    for i in 0..100 {
        batch.push_str(&request(i, "tools/list", json!({})));
        batch.push('\n');
    }
    batch.push_str(&call(100, "wait", json!({})));
    batch.push('\n');
    client.send_bytes(batch.as_bytes()).await;
    // Lines are admitted in order: once `wait` runs, the 100 replies before it are queued.
    probes.started.notified().await;
    gate.open();
    for i in 0..100 {
        assert_eq!(client.recv().await["id"], i);
    }
    probes.gate.notify_one();
    assert_eq!(client.recv().await["id"], 100);
    assert!(client.finish().await.is_empty());
    let writes = gate.writes.load(Ordering::SeqCst);
    assert!(writes <= 10, "101 messages took {writes} writes");
}

/// A synchronous core handler, served through the blanket `AsyncHandler` impl.
struct SyncApp;

impl Registry for SyncApp {
    fn tools(&self) -> &[Tool<'_>] {
        const SYNC_TOOLS: &[Tool<'static>] = &[Tool::new("hello")];
        SYNC_TOOLS
    }
}

impl Handler for SyncApp {
    fn call_tool<'o>(&self, _: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text("hello from a sync handler"))
    }
}

#[tokio::test]
async fn a_synchronous_handler_serves_too() {
    let mut client = start(SyncApp, StdioConfig::default());
    client.send(&call(1, "hello", json!({}))).await;
    assert_eq!(
        first_text(&client.recv().await),
        "hello from a sync handler"
    );
    assert!(client.finish().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_output_ends_serving_with_an_error() {
    let (app, _) = fixture();
    let server = Server::new(Config::new("stdio-test", "0.0.1"), app).expect("valid definitions");
    let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_out) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(serve(
        Arc::new(server),
        server_in,
        server_out,
        StdioConfig::default(),
    ));
    drop(client_out);
    let line = format!("{}\n", call(1, "echo", json!({"text": "nobody reads"})));
    client_in.write_all(line.as_bytes()).await.unwrap();
    // The input stays open: only the failed output can end the server.
    let ended = tokio::time::timeout(common::PATIENCE, serving)
        .await
        .expect("the server stops")
        .expect("server task");
    assert!(ended.is_err(), "writing to a closed output is an error");
    drop(client_in);
}
