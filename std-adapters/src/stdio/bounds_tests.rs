//! Memory under a flood: a client writes far more than the adapter may hold, and reads its
//! answers slowly. Every bound the configuration sets must hold all along, whatever the
//! timing, and every request must be answered exactly once.

use std::collections::HashMap;

use snodo_core::server::{Config, Done, Error, Registry, Tool, ToolCall, ToolReply};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::*;

/// `echo` is ready at once; `slow` waits twice before answering, so rounds pile up in the
/// slots; both answer with enough text that the output buffer fills.
struct Flood;

const TOOLS: &[Tool<'static>] = &[Tool::new("echo"), Tool::new("slow")];

impl Registry for Flood {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl AsyncHandler for Flood {
    async fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> Result<Done<'o>, Error> {
        if call.name() == "slow" {
            tokio::task::yield_now().await;
            tokio::task::yield_now().await;
        }
        Ok(reply.text(&"x".repeat(300)))
    }
}

fn call_line(id: usize) -> String {
    let tool = if id % 3 == 0 { "slow" } else { "echo" };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    ) + "\n"
}

/// The same call in a legacy session: no `_meta` envelope.
fn legacy_call_line(id: usize) -> String {
    let tool = if id % 3 == 0 { "slow" } else { "echo" };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    ) + "\n"
}

/// Opens a legacy session (its reply has id 0).
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_stays_within_the_configured_slots_and_output_buffer() {
    flood_within_bounds("", call_line).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_flood_stays_within_the_same_bounds() {
    flood_within_bounds(INITIALIZE, legacy_call_line).await;
}

/// Writes `opening`, then `call(1..=REQUESTS)` at once, reads slowly, and checks every
/// bound and that each request was answered exactly once.
async fn flood_within_bounds(opening: &'static str, call: fn(usize) -> String) {
    const REQUESTS: usize = 5_000;
    const SLOTS: usize = 4;
    const WRITE_BUFFER: usize = 2_048;
    let config = StdioConfig::default()
        .with_max_concurrency(SLOTS)
        .with_write_buffer(WRITE_BUFFER)
        .with_max_response_len(4_096);
    let server =
        Arc::new(Server::new(Config::new("flood", "0.0.1"), Flood).expect("valid definitions"));
    // Small pipes both ways: the client's writes back up as soon as the server stops
    // reading, and the server's writes back up because the client reads in small pieces.
    let (mut client_in, server_in) = tokio::io::duplex(1_024);
    let (server_out, client_out) = tokio::io::duplex(256);
    let serving = tokio::spawn(serve_inner(server, server_in, server_out, config, None));
    let flood = tokio::spawn(async move {
        let all: String = opening.to_owned() + &(1..=REQUESTS).map(call).collect::<String>();
        client_in.write_all(all.as_bytes()).await.unwrap();
    });
    let mut answers = HashMap::<u64, usize>::new();
    let mut lines = BufReader::with_capacity(64, client_out).lines();
    while let Some(line) = lines.next_line().await.unwrap() {
        let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            reply["result"]["isError"],
            serde_json::Value::Null,
            "{line}"
        );
        assert!(reply["result"].is_object(), "a result: {line}");
        *answers.entry(reply["id"].as_u64().unwrap()).or_default() += 1;
    }
    // The legacy handshake's reply.
    answers.remove(&0);
    flood.await.unwrap();
    let (served, high_water) = serving.await.unwrap();
    served.unwrap();

    assert_eq!(answers.len(), REQUESTS, "every request answered");
    assert!(answers.values().all(|&n| n == 1), "each exactly once");
    assert!(
        high_water.in_flight <= SLOTS,
        "{} requests in flight at once; the limit is {SLOTS}",
        high_water.in_flight
    );
    assert!(
        high_water.slots <= SLOTS,
        "{} slots (line and output buffers) made; the limit is {SLOTS}",
        high_water.slots
    );
    assert!(
        high_water.output_bytes <= WRITE_BUFFER,
        "{} bytes waited for the writer; the buffer holds {WRITE_BUFFER}",
        high_water.output_bytes
    );
    // The flood was one: far more was answered than the buffer and the slots could hold.
    const { assert!(REQUESTS * 300 > 100 * WRITE_BUFFER && REQUESTS > 100 * SLOTS) };
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_longer_than_the_output_buffer_goes_alone() {
    const WRITE_BUFFER: usize = 100;
    let config = StdioConfig::default()
        .with_max_concurrency(2)
        .with_write_buffer(WRITE_BUFFER);
    let server =
        Arc::new(Server::new(Config::new("flood", "0.0.1"), Flood).expect("valid definitions"));
    let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_out) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(serve_inner(server, server_in, server_out, config, None));
    let all: String = (1..=20).map(call_line).collect();
    client_in.write_all(all.as_bytes()).await.unwrap();
    drop(client_in);
    let mut lines = BufReader::new(client_out).lines();
    let mut longest = 0;
    let mut answered = 0;
    while let Some(line) = lines.next_line().await.unwrap() {
        longest = longest.max(line.len() + 1);
        answered += 1;
    }
    let (served, high_water) = serving.await.unwrap();
    served.unwrap();
    assert_eq!(answered, 20);
    assert!(longest > WRITE_BUFFER);
    assert!(
        high_water.output_bytes <= longest,
        "{} bytes buffered; one reply is {longest}",
        high_water.output_bytes
    );
}
