//! A `tools/call` through the core, next to `serde_json` reading the same bytes.
//!
//! For a 300-byte and a 4096-byte request (same tool, same schema, bigger arguments):
//!
//! - `accept`: `Server::accept` up to the typed `Call` (parse, envelope, `_meta` admission,
//!   routing, argument validation against the tool's input schema);
//! - `round`: `Server::handle`, the whole round with a trivial handler that writes one text
//!   block (the reply with `resultType` and `_meta` included);
//! - `serde_value`: `serde_json::from_slice::<serde_json::Value>` of the same bytes;
//! - `serde_ignored`: `serde_json::from_slice::<serde::de::IgnoredAny>`, a validating pass
//!   that builds nothing.
//!
//! The goal (issue 2) is a whole round at or below `serde_ignored`. Figures are compared
//! within one run; nothing here asserts a time.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use snodo_core::server::{
    Accepted, Config, Done, Error, Handled, Handler, Registry, Round, Server, Tool, ToolCall,
    ToolReply,
};
use std::hint::black_box;

const SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100},"mode":{"type":"string","enum":["fast","deep"]},"records":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","minimum":0},"name":{"type":"string","maxLength":64},"tags":{"type":"array","items":{"type":"string"}},"score":{"type":"number"}},"required":["id","name"]}}},"required":["query"]}"#;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo").input_schema(r#"{"type":"object"}"#),
    Tool::new("ingest")
        .description("Ingests records")
        .input_schema(SCHEMA),
];

/// An application whose one tool does next to nothing.
struct Trivial;

impl Registry for Trivial {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl Handler for Trivial {
    fn call_tool<'o>(&self, _call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        Ok(reply.text("ok"))
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A `tools/call` of `ingest` with `arguments`, whose last member is a `note` padded so the
/// whole request is `len` bytes.
fn request(id: u32, arguments: &str, len: usize) -> Vec<u8> {
    let text = |note: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"ingest","arguments":{{{arguments},"note":"{note}"}}}}}}"#
        )
    };
    let pad = len
        .checked_sub(text("").len())
        .expect("the arguments fit the size");
    let request = text(&"n".repeat(pad)).into_bytes();
    assert_eq!(request.len(), len);
    request
}

/// A 300-byte call: a query and a limit.
fn small() -> Vec<u8> {
    request(7, r#""query":"sensors in lab 3","limit":25"#, 300)
}

/// A 4 KiB call: the same plus records with strings, escapes, numbers and nested arrays.
fn large() -> Vec<u8> {
    let records: Vec<String> = (0..44)
        .map(|i| {
            format!(
                r#"{{"id":{i},"name":"sensor \"{i}\" \u00b0C","tags":["lab","bench-{}"],"score":{}.{:03}}}"#,
                i % 4,
                i * 3,
                i * 37 % 1000
            )
        })
        .collect();
    let arguments = format!(
        r#""query":"sensors in lab 3","limit":25,"mode":"deep","records":[{}]"#,
        records.join(",")
    );
    request(8, &arguments, 4096)
}

fn bench_round(c: &mut Criterion) {
    let server = Server::new(Config::new("bench", "1"), Trivial).expect("valid definitions");
    let round = Round::anonymous(1_800_000_000);
    for (name, input) in [("tools_call_300B", small()), ("tools_call_4KiB", large())] {
        let mut out = vec![0u8; 8192];
        // The inputs are what they claim to be, and the core takes them whole.
        assert!(matches!(
            server.accept(&input, round, &mut out),
            Ok(Accepted::Call(_))
        ));
        let n = match server.handle(&input, round, &mut out, None) {
            Ok(Handled::Reply(n)) => n,
            other => panic!("{other:?}"),
        };
        let reply: serde_json::Value = serde_json::from_slice(&out[..n]).expect("JSON reply");
        assert_eq!(reply["result"]["content"][0]["text"], "ok", "{reply}");
        eprintln!("{name}: {} bytes in, {n} bytes out", input.len());

        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(input.len() as u64));
        group.bench_function("accept", |b| {
            b.iter(|| match server.accept(black_box(&input), round, &mut out) {
                Ok(Accepted::Call(call)) => {
                    black_box(&call);
                }
                _ => unreachable!(),
            })
        });
        group.bench_function("round", |b| {
            b.iter(|| {
                let handled = server.handle(black_box(&input), round, &mut out, None);
                black_box(handled).ok()
            })
        });
        group.bench_function("serde_value", |b| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(&input)).unwrap())
        });
        group.bench_function("serde_ignored", |b| {
            b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&input)).unwrap())
        });
        group.finish();
    }
}

criterion_group!(benches, bench_round);
criterion_main!(benches);
