//! A driver for instruction counts: `valgrind --tool=callgrind` runs it twice, with 1 and with
//! N+1 iterations, and the difference divided by N is the cost of one round, free of start-up.
//!
//! ```text
//! cargo build --release -p snodo-benches --example profile_round
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/profile_round round 300 1
//! ```
//!
//! `WHAT` is `accept`, `round`, `ignored` (serde_json `IgnoredAny`), `value` (serde_json
//! `Value`), `seal`, `open`, `hmac`, `retry` (the MRTR retry round of `benches/mrtr.rs`) or
//! `retry_floor` (its floor: two bare HMACs over the tokens and `IgnoredAny` over the
//! request), `retry_first` or `retry_final` (legs 1 and 3 of that flow); `SIZE` is 300 or 4096 (ignored by the state and retry cases).
//! For looking at parts: `parse` (the scanner over the request), `parse_schema` (over the
//! tool's input schema) and `walk_schema` (every member of the parsed schema skipped over:
//! mostly its 528-byte `properties`).
//! The requests, the tool and the state inputs are those of `benches/round.rs` and
//! `benches/state.rs`.

#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;
#[path = "../src/mrtr_legs.rs"]
mod mrtr_legs;

use serde::de::IgnoredAny;
use snodo_core::json::{Limits, parse};
use snodo_core::server::{
    Accepted, Config, Done, Error, Handled, Handler, Registry, Round, Server, Tool, ToolCall,
    ToolReply,
};
use snodo_core::state::{
    Binding, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, bare_hmac_sha256,
    open, seal,
};
use std::hint::black_box;

const SCHEMA: &str = r#"{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200},"limit":{"type":"integer","minimum":1,"maximum":100},"mode":{"type":"string","enum":["fast","deep"]},"records":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","minimum":0},"name":{"type":"string","maxLength":64},"tags":{"type":"array","items":{"type":"string"}},"score":{"type":"number"}},"required":["id","name"]}}},"required":["query"]}"#;

const TOOLS: &[Tool<'static>] = &[
    Tool::new("echo").input_schema(r#"{"type":"object"}"#),
    Tool::new("ingest")
        .description("Ingests records")
        .input_schema(SCHEMA),
];

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

fn request(id: u32, arguments: &str, len: usize) -> Vec<u8> {
    let text = |note: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"ingest","arguments":{{{arguments},"note":"{note}"}}}}}}"#
        )
    };
    let pad = len - text("").len();
    text(&"n".repeat(pad)).into_bytes()
}

fn small() -> Vec<u8> {
    request(7, r#""query":"sensors in lab 3","limit":25"#, 300)
}

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

fn sized(prefix: &str, suffix: &str, len: usize) -> String {
    let pad = len - prefix.len() - suffix.len();
    format!("{prefix}{}{suffix}", "x".repeat(pad))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map_or("round", String::as_str);
    let size: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let input = if size == 300 { small() } else { large() };
    let server = Server::new(Config::new("bench", "1"), Trivial).expect("valid definitions");
    let round = Round::anonymous(1_800_000_000);
    let mut out = vec![0u8; 8192];

    const KEY_NEW: [u8; 32] = [0x6b; 32];
    const KEY_OLD: [u8; 32] = [0x3c; 32];
    const NOW: u64 = 1_800_000_000;
    let params = sized(
        r#"{"name":"book_trip","arguments":{"destination":"Lisbon","dates":{"from":"2026-10-01","to":"2026-10-07"},"travellers":[{"name":"Ana","age":34},{"name":"Rui","age":36}],"budget":2500.0,"preferences":{"window":true,"meal":"vegetarian","notes":""#,
        r#""}}}"#,
        300,
    );
    let data = sized(
        r#"{"step":2,"answers":{"seat":"14A","meal":"vegetarian"},"quote":{"total":2412.5,"currency":"EUR"},"note":""#,
        r#""}"#,
        200,
    );
    let options = StateOptions::new(
        Keys::ring(&[("2026-10", KEY_NEW), ("2026-09", KEY_OLD)]).expect("valid ring"),
    );
    let params_view = parse(params.as_bytes(), &Limits::default()).expect("params");
    let binding = Binding::new("tools/call", Some(params_view), Principal::Id("user-42"));
    let mut token_buf = [0u8; MAX_TOKEN_LEN];
    let t = seal(data.as_bytes(), &binding, &options, NOW, &mut token_buf).expect("seal");
    let token = token_buf[..t].to_vec();
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];

    let schema = parse(SCHEMA.as_bytes(), &Limits::default()).expect("schema");
    let legs = mrtr_legs::Legs::new();
    for _ in 0..n {
        match what {
            "accept" => match server.accept(black_box(&input), round, &mut out) {
                Ok(Accepted::Call(call)) => {
                    black_box(&call);
                }
                _ => unreachable!(),
            },
            "round" => {
                let handled = server.handle(black_box(&input), round, &mut out, None);
                assert!(matches!(handled, Ok(Handled::Reply(_))));
            }
            "ignored" => {
                black_box(serde_json::from_slice::<IgnoredAny>(black_box(&input)).unwrap());
            }
            "value" => {
                black_box(serde_json::from_slice::<serde_json::Value>(black_box(&input)).unwrap());
            }
            "seal" => {
                black_box(
                    seal(
                        black_box(data.as_bytes()),
                        black_box(&binding),
                        &options,
                        black_box(NOW),
                        &mut token_buf,
                    )
                    .is_ok(),
                );
            }
            "open" => {
                black_box(
                    open(
                        black_box(&token),
                        black_box(&binding),
                        &options,
                        black_box(NOW + 1),
                        &mut scratch,
                    )
                    .is_ok(),
                );
            }
            "hmac" => {
                black_box(bare_hmac_sha256(black_box(&KEY_NEW), black_box(&token)));
            }
            "retry" => {
                black_box(legs.retry(&mut out));
            }
            "retry_floor" => {
                black_box(legs.floor());
            }
            "retry_first" => {
                black_box(legs.run(&legs.leg1, &mut out));
            }
            "retry_final" => {
                black_box(legs.run(&legs.leg3, &mut out));
            }
            "parse" => {
                black_box(parse(black_box(&input), &Limits::default()).is_ok());
            }
            "parse_schema" => {
                black_box(parse(black_box(SCHEMA.as_bytes()), &Limits::default()).is_ok());
            }
            "walk_schema" => {
                // Every member of the schema, skipped over (its properties are most of it).
                black_box(black_box(schema).get("zzz"));
            }
            other => panic!("unknown case {other}"),
        }
    }
}
