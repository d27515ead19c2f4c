//! What the typed authoring layer (`snodo_std::typed`) costs over byte-level handlers, in
//! one run, each through the same asynchronous round (`snodo_std::handle`):
//!
//! - `echo/bytes` and `echo/typed`: one `tools/call` of an echo tool — the byte-level handler
//!   reads `text` as a JSON string view; the typed one decodes an argument struct with
//!   `serde_json`, runs an `async fn` behind one boxed future and writes the `String` back;
//! - `flow/bytes` and `flow/typed`: the three legs of the preference flow (color → style →
//!   finish) per iteration — the byte-level flow of the `preferences_bytes` example against
//!   the typed flow of the `preferences` example (both included from the examples), each
//!   sealing and opening its state with the same key.
//!
//! The goal (issue 13) is typed at most 1.3x bytes. Ratios are read within one run; nothing
//! here asserts a time.

#[path = "../../std-adapters/examples/preferences_bytes/app.rs"]
mod app;
#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences/flows.rs"]
mod flows;
#[path = "../../std-adapters/examples/preferences_bytes/more_flows.rs"]
mod more_flows;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use snodo_core::server::{
    Config, Done, Error, Handled, Handler, Registry, Round, Server, Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions, Ttl};
use snodo_std::AsyncHandler;
use snodo_std::typed::{Cx, Stop, TypedApp, server, tool};

const SECRET: [u8; 32] = [0x5a; 32];
const NOW: u64 = 1_800_000_000;

const ECHO_SCHEMA: &str = r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}"#;

/// A byte-level echo: the argument read as a string view, written back.
struct EchoBytes;

impl Registry for EchoBytes {
    fn tools(&self) -> &[Tool<'_>] {
        const TOOLS: &[Tool<'static>] = &[Tool::new("echo").input_schema(ECHO_SCHEMA)];
        TOOLS
    }
}

impl Handler for EchoBytes {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        let text = call
            .argument("text")
            .and_then(|v| v.as_str())
            .ok_or(Error::invalid_params("text must be a string"))?;
        Ok(match text.as_plain() {
            Some(plain) => reply.text(plain),
            None => reply.text(&text.chars().collect::<String>()),
        })
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Echo {
    text: String,
}

async fn echo(args: Echo, _cx: Cx<'_>) -> Result<String, Stop> {
    Ok(args.text)
}

fn typed_server() -> Server<'static, TypedApp> {
    let keys = Keys::secret(&SECRET).expect("a 32-byte secret");
    flows::definitions(
        server("bench", "1")
            .state(keys, Ttl::DEFAULT)
            .tool(tool("echo").run(echo)),
    )
    .resource(flows::preference_resource())
    .prompt(flows::preference_prompt())
    .build()
    .expect("valid definitions")
}

/// Runs a future that never waits (both applications' handlers finish when first polled).
fn now<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a bench round waited"),
    }
}

fn round<A: AsyncHandler>(server: &Server<'_, A>, input: &[u8], out: &mut [u8]) -> usize {
    match now(snodo_std::handle(
        server,
        input,
        Round::anonymous(NOW),
        out,
        None,
    )) {
        Ok(Handled::Reply(n)) => n,
        other => panic!("no reply: {other:?}"),
    }
}

fn reply_of<A: AsyncHandler>(server: &Server<'_, A>, input: &[u8]) -> Value {
    let mut out = vec![0u8; 8192];
    let n = round(server, input, &mut out);
    serde_json::from_slice(&out[..n]).expect("a JSON reply")
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}"#;

fn tools_call(id: u32, name: &str, arguments: &str, retry: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"{name}","arguments":{arguments}{retry}}}}}"#
    )
    .into_bytes()
}

fn state_asking(reply: &Value, key: &str) -> String {
    assert!(
        reply["result"]["inputRequests"][key].is_object(),
        "asks {key}: {reply}"
    );
    reply["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

/// The three legs of `preference_preview` on `server`, checked once.
fn legs<A: AsyncHandler>(server: &Server<'_, A>) -> [Vec<u8>; 3] {
    let args = r#"{"subject":"desk lamp"}"#;
    let leg1 = tools_call(1, "preference_preview", args, "");
    let s1 = state_asking(&reply_of(server, &leg1), "color");
    let leg2 = tools_call(
        2,
        "preference_preview",
        args,
        &format!(
            r#","requestState":"{s1}","inputResponses":{{"color":{{"action":"accept","content":{{"color":"teal"}}}}}}"#
        ),
    );
    let s2 = state_asking(&reply_of(server, &leg2), "style");
    let leg3 = tools_call(
        3,
        "preference_preview",
        args,
        &format!(
            r#","requestState":"{s2}","inputResponses":{{"style":{{"action":"accept","content":{{"style":"matte"}}}}}}"#
        ),
    );
    let done = reply_of(server, &leg3);
    assert_eq!(
        done["result"]["content"][0]["text"],
        r#"{"color":"teal","style":"matte","status":"preview"}"#,
        "{done}"
    );
    [leg1, leg2, leg3]
}

fn bench_typed(c: &mut Criterion) {
    let options = StateOptions::new(Keys::secret(&SECRET).expect("a 32-byte secret"));
    let config = || Config::new("bench", "1").with_state(&options);
    let echo_bytes = Server::new(config(), EchoBytes).expect("valid definitions");
    let bytes = Server::new(config(), app::Flows).expect("valid definitions");
    let typed = typed_server();

    let echo = tools_call(9, "echo", r#"{"text":"hello, typed world"}"#, "");
    for reply in [reply_of(&echo_bytes, &echo), reply_of(&typed, &echo)] {
        assert_eq!(reply["result"]["content"][0]["text"], "hello, typed world");
    }
    let byte_legs = legs(&bytes);
    let typed_legs = legs(&typed);

    let mut out = vec![0u8; 8192];
    let mut group = c.benchmark_group("echo");
    group.bench_function("bytes", |b| {
        b.iter(|| round(&echo_bytes, black_box(&echo), &mut out))
    });
    group.bench_function("typed", |b| {
        b.iter(|| round(&typed, black_box(&echo), &mut out))
    });
    group.finish();

    let mut group = c.benchmark_group("flow");
    group.bench_function("bytes", |b| {
        b.iter(|| {
            for leg in &byte_legs {
                black_box(round(&bytes, black_box(leg), &mut out));
            }
        })
    });
    group.bench_function("typed", |b| {
        b.iter(|| {
            for leg in &typed_legs {
                black_box(round(&typed, black_box(leg), &mut out));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_typed);
criterion_main!(benches);
