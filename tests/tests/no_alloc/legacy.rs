//! The legacy pieces never touch the heap either: a whole legacy session — the era gate, the
//! handshake, the session's own methods, lifting, settling, and a bridged leg with mixed
//! input requests out and answers back into the retry — runs many times under the counting
//! allocator and sees no allocation.

use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{
    Accepted, BridgeError, BridgeLimits, EraGate, EraSupport, Leg, Session, Step, classify_post,
    lift_request, parse_initialize, parse_response, settle, write_cancelled,
    write_initialize_result,
};
use snodo_core::rpc::{Id, Incoming, parse};
use snodo_core::server::{Config, ServerCapabilities};

use super::counted;

const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"ExampleClient","version":"1.0.0"}}}"#;
const MESSAGES: [&[u8]; 6] = [
    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    br#"{"jsonrpc":"2.0","id":"123","method":"ping"}"#,
    br#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}"#,
    br#"{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"test://watched"}}"#,
    br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}"#,
    br#"{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{"name":"gh","arguments":{"x":"\u00e9"},"_meta":{"progressToken":"p"}}}"#,
];
const INPUT_REQUIRED: &[u8] = br#"{"jsonrpc":"2.0","id":"c-1","result":{"resultType":"input_required","inputRequests":{
"form":{"method":"elicitation/create","params":{"mode":"form","message":"Color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}}}}},
"consent":{"method":"elicitation/create","params":{"mode":"url","message":"Key?","url":"https://mcp.example.com/ui/set_api_key"}},
"capital":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Capital of France?"}}],"maxTokens":100}},
"roots":{"method":"roots/list"}},"requestState":"s2.def"}}"#;
const ANSWERS: [&[u8]; 4] = [
    br#"{"jsonrpc":"2.0","id":"snodo-bridge-4","result":{"roots":[{"uri":"file:///p","name":"P"}]}}"#,
    br#"{"jsonrpc":"2.0","id":"snodo-bridge-2","result":{"action":"accept"}}"#,
    br#"{"jsonrpc":"2.0","id":"snodo-bridge-3","result":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m","stopReason":"endTurn"}}"#,
    br#"{"jsonrpc":"2.0","id":"snodo-bridge-1","result":{"action":"accept","content":{"color":"teal"}}}"#,
];
const FINAL: &[u8] = br#"{"jsonrpc":"2.0","id":"c-1","result":{"content":[{"type":"text","text":"teal"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"ttlMs":0,"cacheScope":"private"}}"#;
const MISSING: &[u8] = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32021,"message":"Missing","data":{"requiredCapabilities":{"sampling":{}}}}}"#;

const SERVED: ServerCapabilities = ServerCapabilities {
    tools: true,
    resources: true,
    prompts: false,
    completions: false,
    logging: true,
    subscribe: true,
    list_changed: snodo_core::server::ListChanged::NONE,
};

/// One whole session into `out` (every message appended); the number of bytes written, or
/// `None` when anything failed.
fn session(out: &mut [u8]) -> Option<usize> {
    let limits = Limits::HOST;
    let bridge = BridgeLimits::HOST;
    let config = Config::new("no-alloc", "1");
    let mut w = Writer::new(out);
    let mut gate = EraGate::new(EraSupport::Both);
    let init = parse(INITIALIZE, &limits).ok()?;
    gate.admit(&init).ok()?;
    classify_post(&init, false, EraSupport::Both).ok()?;
    let Incoming::Request(request) = init else {
        return None;
    };
    let mut session: Session = parse_initialize(request.params).ok()?;
    write_initialize_result(&mut w, request.id, &session, &config, SERVED);

    let mut lifted_at = None;
    for text in MESSAGES {
        let message = parse(text, &limits).ok()?;
        gate.admit(&message).ok()?;
        match session.step(&message, SERVED, &mut w) {
            Step::Modern { request, .. } => {
                let start = w.position();
                lift_request(&request, &session, &mut w);
                lifted_at = Some((start, w.position()));
            }
            Step::Replied | Step::Quiet | Step::Cancel { .. } | Step::Subscription { .. } => {}
            Step::Answer(_) => return None,
        }
    }
    let (start, end) = lifted_at?;
    let mut lifted = [0u8; 1024];
    let lifted = {
        let bytes = w.written()?.get(start..end)?;
        let copy = lifted.get_mut(..bytes.len())?;
        copy.copy_from_slice(bytes);
        &*copy
    };

    // The bridged leg.
    let mut scratch = [0u8; 8];
    settle(INPUT_REQUIRED, &limits, &mut Writer::new(&mut scratch)).ok()?;
    let mut leg: Leg = Leg::open(INPUT_REQUIRED, &mut session, &bridge, 1).ok()?;
    for index in 0..leg.len() {
        leg.write_request(index, INPUT_REQUIRED, &bridge, &mut w)
            .ok()?;
    }
    for id in leg.pending() {
        write_cancelled(&mut w, id, "timed out");
    }
    let mut store = [0u8; 1024];
    for text in ANSWERS {
        let response = parse_response(text, &limits).ok()?;
        match leg.accept(&response, &mut store).ok()? {
            Accepted::Waiting { .. } | Accepted::Complete => {}
            Accepted::Refused { .. } => return None,
        }
    }
    leg.write_retry(lifted, INPUT_REQUIRED, &store, &bridge, &mut w)
        .ok()?;
    settle(FINAL, &limits, &mut w).ok()?;
    settle(MISSING, &limits, &mut w).ok()?;
    BridgeError::TimedOut.write_error(&mut w, Id::Num(9));
    w.finish().ok()
}

#[test]
fn a_legacy_session_with_a_bridged_leg_allocates_nothing() {
    const SESSIONS: usize = 300;
    let mut reference = vec![0u8; 16 * 1024];
    let reference_len = session(&mut reference).expect("the reference session runs");
    let reference = &reference[..reference_len];
    let mut out = vec![0u8; 16 * 1024];
    let mut mismatches = 0usize;
    let (allocations, deallocations) = counted(|| {
        for _ in 0..SESSIONS {
            match session(&mut out) {
                Some(n) if out[..n] == *reference => {}
                _ => mismatches += 1,
            }
        }
    });
    assert_eq!(
        mismatches, 0,
        "sessions that differed from the reference run"
    );
    assert!(reference_len > 2000, "the session wrote real messages");
    assert_eq!(
        (allocations, deallocations),
        (0, 0),
        "{SESSIONS} legacy sessions allocated {allocations} times and freed {deallocations} times"
    );
}
