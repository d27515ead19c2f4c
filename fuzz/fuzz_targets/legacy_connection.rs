//! The core's sans-IO legacy connection (`legacy::Connection`) fed arbitrary lines, as a
//! stdio process or a serial link feeds it, opening the session whenever it is asked to.
//!
//! Never a panic, and:
//! - the era, once decided, never changes;
//! - a modern-only connection never becomes legacy, and never asks to open a session;
//! - only an `initialize` request asks to open a session, and only while none is open;
//! - every reply the dialect writes itself is one JSON-RPC response to the request's id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use snodo_core::json::Writer;
use snodo_core::legacy::{Action, Connection, Era, EraSupport, Step, parse_initialize};
use snodo_core::rpc::{Id, Incoming, parse};

#[path = "shared/legacy_server.rs"]
mod legacy_server;
use legacy_server::{LIMITS, SERVED};

fuzz_target!(|data: &[u8]| {
    let support = match data.first() {
        Some(b) if b % 3 == 0 => EraSupport::ModernOnly,
        Some(b) if b % 3 == 1 => EraSupport::LegacyOnly,
        _ => EraSupport::Both,
    };
    let mut connection = Connection::new(support);
    let mut out = vec![0u8; 32 * 1024];
    for line in data.split(|&b| b == b'\n') {
        let Ok(message) = parse(line, &LIMITS) else {
            continue;
        };
        let before = connection.era();
        let had_session = connection.session().is_some();
        let mut w = Writer::new(&mut out);
        let action = connection.read(&message, SERVED, &mut w);
        if let Some(decided) = before {
            assert_eq!(connection.era(), Some(decided), "the era changed");
        }
        if support == EraSupport::ModernOnly {
            assert_ne!(
                connection.era(),
                Some(Era::Legacy),
                "legacy on a modern-only server"
            );
        }
        match action {
            Action::Initialize(request) => {
                assert!(!had_session, "a second session was asked for");
                assert!(request.method.eq_str("initialize"), "not initialize");
                if let Ok(session) = parse_initialize(request.params) {
                    connection.open(session);
                }
            }
            Action::Session(Step::Replied) => {
                let Incoming::Request(request) = &message else {
                    panic!("a reply to a message that is not a request");
                };
                let Ok(len) = w.finish() else { continue };
                let reply: Value = serde_json::from_slice(&out[..len]).expect("a JSON reply");
                assert_eq!(reply["jsonrpc"], "2.0");
                let id = match request.id {
                    Id::Num(n) => Value::from(n),
                    Id::Str(s) => Value::from(s.chars().collect::<String>()),
                };
                assert_eq!(reply["id"], id, "the reply answers the request's id");
                assert!(reply.get("result").is_some() != reply.get("error").is_some());
            }
            Action::Modern | Action::Session(_) => {}
        }
    }
});
