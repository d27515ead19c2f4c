//! A whole MRTR retry round of the example's `preference_preview`, next to its floor.
//!
//! - `retry_round`: leg 2 of the preference flow through `Server::handle` — parse the request,
//!   admit it, open the sealed state of leg 1, read and validate the one form answer
//!   (`color`, a required string with `minLength: 1`), seal the new state and write the
//!   `input_required` result asking for `style`;
//! - `floor`: two bare HMAC-SHA256 over the token bytes (the state the request carries and
//!   the state the reply carries, keyed from scratch) plus `serde_json`'s `IgnoredAny` pass
//!   over the request bytes, in one iteration;
//! - `floor_hmac_x2` and `floor_ignored`: the two parts of the floor on their own;
//! - `first_round` and `final_round`: leg 1 (seals only) and leg 3 (opens only, writes the
//!   final text), for context.
//!
//! The goal (issue 4) is `retry_round` at most 2x `floor`. Figures are compared within one
//! run; nothing here asserts a time. The application is the example's own flow code
//! (`flow.rs` and `mrtr_app.rs`, included as the tests include them).

#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use serde_json::Value;
use snodo_core::server::{
    Config, Done, Error, Handled, Handler, Prompt, PromptGet, PromptReply, Registry, Resource,
    ResourceRead, ResourceReply, Round, Server, Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions, bare_hmac_sha256};

const SECRET: [u8; 32] = [0x5a; 32];
const NOW: u64 = 1_800_000_000;

/// The example's MRTR application: the preference flow as a tool, a resource and a prompt.
struct Preferences;

impl Registry for Preferences {
    fn tools(&self) -> &[Tool<'_>] {
        &mrtr_app::TOOLS
    }

    fn resources(&self) -> &[Resource<'_>] {
        core::slice::from_ref(&mrtr_app::RESOURCE)
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        core::slice::from_ref(&mrtr_app::PROMPT)
    }
}

impl Handler for Preferences {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        mrtr_app::call_tool(call, reply).unwrap_or(Err(Error::internal("unknown tool")))
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> Result<Done<'o>, Error> {
        mrtr_app::read_resource(call, reply)
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> Result<Done<'o>, Error> {
        mrtr_app::get_prompt(call, reply)
    }
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}"#;

/// A `tools/call` of `preference_preview`, with `retry` (the retry fields, each led by a
/// comma) after the arguments.
fn call(id: u32, retry: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"preference_preview","arguments":{{"subject":"desk lamp"}}{retry}}}}}"#
    )
    .into_bytes()
}

/// Runs one round and returns the reply as JSON.
fn reply_of(server: &Server<'_, Preferences>, input: &[u8], round: Round<'_>) -> Value {
    let mut out = vec![0u8; 8192];
    match server.handle(input, round, &mut out, None) {
        Ok(Handled::Reply(n)) => serde_json::from_slice(&out[..n]).expect("a JSON reply"),
        other => panic!("no reply: {other:?}"),
    }
}

/// The `requestState` of an `input_required` reply asking for `key`.
fn state_asking(reply: &Value, key: &str) -> String {
    assert_eq!(reply["result"]["resultType"], "input_required", "{reply}");
    assert!(
        reply["result"]["inputRequests"][key].is_object(),
        "asks {key}: {reply}"
    );
    reply["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_owned()
}

fn bench_mrtr(c: &mut Criterion) {
    let options = StateOptions::new(Keys::secret(&SECRET).expect("a 32-byte secret"));
    let server = Server::new(Config::new("bench", "1").with_state(&options), Preferences)
        .expect("valid definitions");
    let round = Round::anonymous(NOW);

    // The three legs, checked once before they are timed.
    let leg1 = call(1, "");
    let s1 = state_asking(&reply_of(&server, &leg1, round), "color");
    let leg2 = call(
        2,
        &format!(
            r#","requestState":"{s1}","inputResponses":{{"color":{{"action":"accept","content":{{"color":"teal"}}}}}}"#
        ),
    );
    let s2 = state_asking(&reply_of(&server, &leg2, round), "style");
    let leg3 = call(
        3,
        &format!(
            r#","requestState":"{s2}","inputResponses":{{"style":{{"action":"accept","content":{{"style":"matte"}}}}}}"#
        ),
    );
    let done = reply_of(&server, &leg3, round);
    assert_eq!(
        done["result"]["content"][0]["text"],
        r#"{"color":"teal","style":"matte","status":"preview"}"#,
        "{done}"
    );
    eprintln!(
        "retry round: {} bytes in, tokens of {} and {} bytes",
        leg2.len(),
        s1.len(),
        s2.len()
    );

    let mut out = vec![0u8; 8192];
    let mut group = c.benchmark_group("mrtr_preference_preview");
    group.throughput(Throughput::Bytes(leg2.len() as u64));
    group.bench_function("retry_round", |b| {
        b.iter(|| {
            let handled = server.handle(black_box(&leg2), round, &mut out, None);
            black_box(handled).ok()
        })
    });
    group.bench_function("floor", |b| {
        b.iter(|| {
            let opened = bare_hmac_sha256(black_box(&SECRET), black_box(s1.as_bytes()));
            let sealed = bare_hmac_sha256(black_box(&SECRET), black_box(s2.as_bytes()));
            let parsed = serde_json::from_slice::<IgnoredAny>(black_box(&leg2)).unwrap();
            black_box((opened, sealed, parsed))
        })
    });
    group.bench_function("floor_hmac_x2", |b| {
        b.iter(|| {
            let opened = bare_hmac_sha256(black_box(&SECRET), black_box(s1.as_bytes()));
            let sealed = bare_hmac_sha256(black_box(&SECRET), black_box(s2.as_bytes()));
            black_box((opened, sealed))
        })
    });
    group.bench_function("floor_ignored", |b| {
        b.iter(|| serde_json::from_slice::<IgnoredAny>(black_box(&leg2)).unwrap())
    });
    group.bench_function("first_round", |b| {
        b.iter(|| {
            let handled = server.handle(black_box(&leg1), round, &mut out, None);
            black_box(handled).ok()
        })
    });
    group.bench_function("final_round", |b| {
        b.iter(|| {
            let handled = server.handle(black_box(&leg3), round, &mut out, None);
            black_box(handled).ok()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_mrtr);
criterion_main!(benches);
