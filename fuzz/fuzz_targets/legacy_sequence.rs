//! A legacy (2025-11-25) stdio connection fed a sequence of arbitrary messages, one per line:
//! the era gate, `initialize`, then every later message through the session's step.
//!
//! Never a panic, and:
//! - the era, once decided, never changes, and a refused message never decides it;
//! - before a session is open only `initialize` opens one, and it opens once;
//! - the session is initialized exactly when a `notifications/initialized` has arrived, and
//!   its log level is the last level a `logging/setLevel` the session answered set;
//! - every reply the session writes is one JSON-RPC response to the request's own id;
//! - a request handed to the modern path lifts into a request the 2026-07-28 envelope check
//!   admits with the session's capabilities (unless the client's progress token is bad).
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{Era, EraGate, EraSupport, Session, Step, lift_request, parse_initialize};
use snodo_core::protocol::{LogLevel, MetaError, admit};
use snodo_core::rpc::{Incoming, parse};

#[path = "shared/legacy_server.rs"]
mod legacy_server;
use legacy_server::{LIMITS, SERVED};

/// The level a `logging/setLevel` request names, if it names one.
fn requested_level(message: &Value) -> Option<LogLevel> {
    let name = message["params"]["level"].as_str()?;
    [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ]
    .into_iter()
    .find(|level| level.name() == name)
}

fuzz_target!(|data: &[u8]| {
    let support = match data.first() {
        Some(b) if b % 3 == 0 => EraSupport::ModernOnly,
        _ => EraSupport::Both,
    };
    let mut gate = EraGate::new(support);
    let mut session: Option<Session> = None;
    let mut initialized = false;
    let mut level = None;
    let mut out = vec![0u8; 32 * 1024];
    for line in data.split(|&b| b == b'\n') {
        let Ok(message) = parse(line, &LIMITS) else {
            continue;
        };
        let before = gate.era();
        let admitted = gate.admit(&message);
        match (before, admitted) {
            (Some(decided), _) => assert_eq!(gate.era(), Some(decided), "the era changed"),
            (None, Err(_)) => assert_eq!(gate.era(), None, "a refused message decided"),
            (None, Ok(_)) => {}
        }
        if support == EraSupport::ModernOnly {
            assert_ne!(
                gate.era(),
                Some(Era::Legacy),
                "legacy on a modern-only server"
            );
        }
        if admitted != Ok(Era::Legacy) {
            continue;
        }
        let Some(open) = session.as_mut() else {
            if let Incoming::Request(request) = message
                && request.method.eq_str("initialize")
                && let Ok(opened) = parse_initialize(request.params)
            {
                assert!(!opened.initialized());
                session = Some(opened);
            }
            continue;
        };
        let value: Option<Value> = serde_json::from_slice(line).ok();
        let mut w = Writer::new(&mut out);
        let step = open.step(&message, SERVED, &mut w);
        match (&message, step) {
            (Incoming::Request(request), Step::Replied) => {
                let n = w.finish().expect("a reply fits 32 KiB");
                let reply: Value = serde_json::from_slice(&out[..n]).expect("the reply is JSON");
                assert_eq!(reply["jsonrpc"], "2.0");
                assert!(reply.get("result").is_some() != reply.get("error").is_some());
                if let Some(value) = &value {
                    assert_eq!(reply["id"], value["id"], "the reply answers its request");
                }
                if request.method.eq_str("logging/setLevel") && reply.get("result").is_some() {
                    level = value.as_ref().and_then(requested_level);
                    assert!(
                        level.is_some(),
                        "a level set from a request that names none"
                    );
                }
            }
            (Incoming::Notification(n), _) if n.method.eq_str("notifications/initialized") => {
                initialized = true;
            }
            (_, Step::Modern { request, .. }) => {
                let mut lifted = vec![0u8; 64 * 1024];
                let mut w = Writer::new(&mut lifted);
                lift_request(&request, open, &mut w);
                let Ok(n) = w.finish() else { continue };
                let Ok(Incoming::Request(lifted)) = parse(&lifted[..n], &Limits::HOST) else {
                    panic!("a lifted request parses")
                };
                match admit(lifted.params) {
                    Ok(meta) => assert_eq!(meta.capabilities, open.capabilities()),
                    Err(MetaError::Invalid(why)) if why.contains("progressToken") => {}
                    Err(other) => panic!("the lifted envelope is refused: {other:?}"),
                }
            }
            _ => {}
        }
        assert_eq!(open.initialized(), initialized);
        assert_eq!(open.log_level(), level);
    }
});
