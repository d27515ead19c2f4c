//! One legacy connection fed message by message, as a stdio process or a serial link sees
//! them: the action for each, and the bytes the dialect writes itself.

use super::{SPEC_DISCOVER, SPEC_INITIALIZE, message, spec_session};
use crate::json::Writer;
use crate::legacy::{Action, Connection, EraSupport, Step};
use crate::rpc::Id;
use crate::server::ServerCapabilities;
use std::string::String;

fn served() -> ServerCapabilities {
    ServerCapabilities {
        tools: true,
        ..ServerCapabilities::default()
    }
}

/// What `connection` makes of `text`: a short name of the action, and what was written.
fn read(connection: &mut Connection, text: &str) -> (&'static str, String) {
    let parsed = message(text);
    let mut out = [0u8; 2048];
    let mut w = Writer::new(&mut out);
    let action = connection.read(&parsed, served(), &mut w);
    let written = w.finish().map_or(0, |n| n);
    let name = match action {
        Action::Modern => "modern",
        Action::Initialize(_) => "initialize",
        Action::Session(Step::Replied) => "replied",
        Action::Session(Step::Quiet) => "quiet",
        Action::Session(Step::Cancel { request_id }) => {
            assert!(matches!(request_id, Id::Str(s) if s.eq_str("call-1")));
            "cancel"
        }
        Action::Session(Step::Subscription { .. }) => "subscription",
        Action::Session(Step::Modern { .. }) => "run",
        Action::Session(Step::Answer(_)) => "answer",
    };
    (name, String::from_utf8(out[..written].to_vec()).unwrap())
}

#[test]
fn a_legacy_connection_routes_each_message_of_its_session() {
    let mut connection = Connection::new(EraSupport::Both);
    assert_eq!(read(&mut connection, SPEC_INITIALIZE).0, "initialize");
    connection.open(spec_session());
    assert!(connection.session().is_some());

    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(
        read(&mut connection, ping),
        ("replied", r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.into())
    );
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(read(&mut connection, initialized).0, "quiet");
    assert!(connection.session().is_some_and(|s| s.initialized()));

    let call = r#"{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"t","arguments":{}}}"#;
    assert_eq!(read(&mut connection, call).0, "run");
    let answer = r#"{"jsonrpc":"2.0","id":"snodo-1","result":{"action":"accept","content":{}}}"#;
    assert_eq!(read(&mut connection, answer).0, "answer");
    let cancelled =
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-1"}}"#;
    assert_eq!(read(&mut connection, cancelled).0, "cancel");

    // A 2026-07-28 request on the legacy connection is refused with its id, naming the
    // versions served; the connection stays legacy.
    let (action, refusal) = read(&mut connection, SPEC_DISCOVER);
    assert_eq!(action, "replied");
    assert!(refusal.contains(r#""id":"discover-1""#), "{refusal}");
    assert!(refusal.contains("-32600"), "{refusal}");
    assert_eq!(read(&mut connection, ping).0, "replied");
}

#[test]
fn before_initialize_a_dual_era_connection_serves_the_modern_way_and_then_stays_modern() {
    let mut connection = Connection::new(EraSupport::Both);
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(read(&mut connection, ping).0, "modern", "decides nothing");
    assert_eq!(read(&mut connection, SPEC_DISCOVER).0, "modern");
    // `initialize` now takes the modern path, which refuses it in its own words.
    assert_eq!(read(&mut connection, SPEC_INITIALIZE).0, "modern");
    assert!(connection.session().is_none());
}

#[test]
fn a_legacy_only_connection_refuses_requests_before_initialize() {
    let mut connection = Connection::new(EraSupport::LegacyOnly);
    let (action, refusal) = read(
        &mut connection,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
    );
    assert_eq!(action, "replied");
    assert_eq!(
        refusal,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"The session is not initialized: send initialize first"}}"#
    );
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(read(&mut connection, initialized).0, "quiet");
    assert_eq!(read(&mut connection, SPEC_INITIALIZE).0, "initialize");
}
