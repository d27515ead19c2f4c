//! Raw bytes through every legacy piece that reads untrusted input: as a message of a legacy
//! connection (era gate, HTTP route, `initialize`, the session's step, the lift), as a modern
//! reply to settle or bridge, and as a client's answer to a bridged request.
//!
//! Never a panic, and:
//! - whatever is written is ASCII, and one JSON value `serde_json` parses whenever it parses
//!   the input (outputs copy values of the input, and `serde_json` refuses some valid JSON,
//!   such as numbers beyond the range of `f64`);
//! - a request's handle views the same request again in its bytes, lifted the same;
//! - a lifted request is admitted by the 2026-07-28 envelope check, with the session's
//!   capabilities (unless the client's own `progressToken` is malformed);
//! - a settled final result has none of `resultType`, `ttlMs`, `cacheScope`;
//! - bridged requests are JSON-RPC requests with a bridge id and an input-request method;
//! - an answer to a bridged request, read once and held with a copy of its bytes, is viewed
//!   again in the copy as the same response;
//! - a writer that ran out of room asked for more than it had.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{
    Accepted, BridgeLimits, ClientResponse, EraGate, EraSupport, Leg, Outcome, ReadAnswer,
    RequestHandle, Session, Settled, Step, classify_post, lift_request, parse_initialize,
    parse_response, settle, write_initialize_result,
};
use snodo_core::protocol::{MetaError, admit};
use snodo_core::rpc::{Incoming, parse};
use snodo_core::server::{Config, ListChanged, ServerCapabilities};

const LIMITS: Limits = Limits {
    max_size: 64 * 1024,
    max_depth: 32,
    max_members: 128,
};
const BRIDGE: BridgeLimits = BridgeLimits {
    max_rounds: 4,
    json: LIMITS,
};
const SESSION_OPENING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
const LIFTED: &[u8] = br#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"t"}}"#;
const INPUT_REQUIRED: &[u8] = br#"{"jsonrpc":"2.0","id":"c-1","result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"x":{"type":"string"}}}}},"b":{"method":"roots/list"}},"requestState":"s"}}"#;

/// The capabilities the server serves, one bit each from `bits`: both sides of every
/// capability gate get fuzzed.
fn served(bits: u8) -> ServerCapabilities {
    let bit = |n: u8| bits & (1 << n) != 0;
    ServerCapabilities {
        tools: bit(0),
        resources: bit(1),
        prompts: bit(2),
        completions: bit(3),
        logging: bit(4),
        subscribe: bit(5),
        list_changed: if bit(6) {
            ListChanged::ALL
        } else {
            ListChanged::NONE
        },
    }
}

fn session() -> Session {
    let Ok(Incoming::Request(request)) = parse(SESSION_OPENING, &LIMITS) else {
        panic!("the opening parses")
    };
    parse_initialize(request.params).expect("the opening is valid")
}

/// Runs `write` into a roomy and a cramped buffer; returns the roomy output when it fitted.
fn write_twice(mut write: impl FnMut(&mut Writer<'_>)) -> Option<Vec<u8>> {
    let mut small = [0u8; 24];
    let mut w = Writer::new(&mut small);
    write(&mut w);
    let needed = w.position();
    if let Err(too_small) = w.finish() {
        assert!(too_small.required > small.len());
    }
    let mut big = vec![0u8; 128 * 1024];
    let mut w = Writer::new(&mut big);
    write(&mut w);
    assert_eq!(w.position(), needed, "the same output both times");
    let n = w.finish().ok()?;
    big.truncate(n);
    Some(big)
}

/// The output as `serde_json` reads it; `judge`: whether it read the input, so must read this.
fn json(bytes: &[u8], judge: bool) -> Option<Value> {
    assert!(bytes.is_ascii(), "non-ASCII output");
    match serde_json::from_slice(bytes) {
        Ok(value) => Some(value),
        Err(e) => {
            assert!(!judge, "not JSON ({e}): {}", String::from_utf8_lossy(bytes));
            None
        }
    }
}

fn as_message(data: &[u8], judge: bool) {
    let served = served(data.first().copied().unwrap_or(0) ^ data.len() as u8);
    let Ok(message) = parse(data, &LIMITS) else {
        return;
    };
    let _ = EraGate::new(EraSupport::Both).admit(&message);
    let _ = classify_post(&message, true, EraSupport::Both);
    let _ = classify_post(&message, false, EraSupport::ModernOnly);
    if let Incoming::Request(request) = message
        && let Ok(opened) = parse_initialize(request.params)
    {
        let config = Config::new("fuzz", "1");
        if let Some(out) =
            write_twice(|w| write_initialize_result(w, request.id, &opened, &config, served))
        {
            json(&out, judge);
        }
    }
    let mut session = session();
    let mut scratch = vec![0u8; 64 * 1024];
    let step = session.step(&message, served, &mut Writer::new(&mut scratch));
    if let Step::Modern { request, .. } = step {
        // The request a transport keeps as a handle is the one it read, lifted the same.
        let handle = RequestHandle::of(data, &request).expect("a request lies in its bytes");
        let again = handle.view(data).expect("viewed in its own bytes");
        assert_eq!(again.id, request.id);
        assert_eq!(again.method.raw(), request.method.raw());
        let lift = |r| write_twice(|w| lift_request(r, &session, w));
        assert_eq!(lift(&again), lift(&request));
    }
    if let Step::Modern { request, .. } = step
        && let Some(out) = write_twice(|w| lift_request(&request, &session, w))
    {
        let Ok(Incoming::Request(lifted)) = parse(&out, &Limits::HOST) else {
            panic!("a lifted request parses: {}", String::from_utf8_lossy(&out))
        };
        match admit(lifted.params) {
            Ok(meta) => assert_eq!(meta.capabilities, session.capabilities()),
            // The client's own progress token is kept as it sent it, and checked there.
            Err(MetaError::Invalid(why)) if why.contains("progressToken") => {}
            Err(other) => panic!("the lifted envelope is refused: {other:?}"),
        }
    }
}

fn as_modern_reply(data: &[u8], judge: bool) {
    let mut settled = None;
    if let Some(out) = write_twice(|w| settled = settle(data, &LIMITS, w).ok())
        && settled == Some(Settled::Final)
        && let Some(result) = json(&out, judge).and_then(|reply| reply.get("result").cloned())
    {
        for key in ["resultType", "ttlMs", "cacheScope"] {
            assert!(result.get(key).is_none(), "{key} left in {result}");
        }
    }
    let mut session = session();
    let Ok(leg) = Leg::<8>::open(data, &mut session, &BRIDGE, 1) else {
        return;
    };
    for index in 0..leg.len() {
        let mut ok = false;
        let out = write_twice(|w| ok = leg.write_request(index, data, &BRIDGE, w).is_ok());
        if let (true, Some(out)) = (ok, out) {
            let Some(request) = json(&out, judge) else {
                continue;
            };
            assert!(
                request["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("snodo-bridge-"))
            );
            let method = request["method"].as_str().unwrap_or_default();
            assert!(
                ["elicitation/create", "sampling/createMessage", "roots/list"].contains(&method),
                "{request}"
            );
        }
    }
    let mut ok = false;
    let out = write_twice(|w| ok = leg.write_retry(LIFTED, data, &[], &BRIDGE, w).is_ok());
    if let (true, Some(out)) = (ok, out) {
        json(&out, judge);
    }
}

/// The parts of a response, as bytes of its message.
fn parts<'a>(response: &ClientResponse<'a>) -> (snodo_core::rpc::Id<'a>, i64, &'a [u8]) {
    match response.outcome {
        Outcome::Result(result) => (response.id, 0, result.as_value().raw()),
        Outcome::Error { code, message } => (response.id, code, message.raw()),
    }
}

fn as_answer(data: &[u8], judge: bool) {
    let Ok(response) = parse_response(data, &LIMITS) else {
        return;
    };
    let held = match parse(data, &LIMITS) {
        Ok(Incoming::Response(read)) => ReadAnswer::new(data, &read, <[u8]>::to_vec),
        _ => panic!("a client response is an rpc response"),
    };
    if let Some(held) = &held {
        let again = held.response().expect("a held answer is viewed again");
        assert_eq!(parts(&again), parts(&response));
    }
    // The round takes the answer as the transport holds it, when it is a bridged one.
    let response = match &held {
        Some(held) => held.response().expect("viewed again"),
        None => response,
    };
    let mut session = session();
    let mut leg: Leg = Leg::open(INPUT_REQUIRED, &mut session, &BRIDGE, 1).expect("fixed reply");
    let mut store = vec![0u8; 16 * 1024];
    match leg.accept(&response, &mut store) {
        Ok(Accepted::Refused { .. }) | Err(_) => return,
        Ok(Accepted::Waiting { .. } | Accepted::Complete) => {}
    }
    let mut ok = false;
    let out = write_twice(|w| {
        ok = leg
            .write_retry(LIFTED, INPUT_REQUIRED, &store, &BRIDGE, w)
            .is_ok()
    });
    assert!(ok, "a recorded answer makes a retry");
    if let Some(retry) = out.and_then(|out| json(&out, judge)) {
        assert!(retry["params"]["inputResponses"].is_object(), "{retry}");
    }
}

fuzz_target!(|data: &[u8]| {
    let judge = serde_json::from_slice::<Value>(data).is_ok();
    as_message(data, judge);
    as_modern_reply(data, judge);
    as_answer(data, judge);
});
