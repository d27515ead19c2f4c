//! The Rust client's era negotiation against our own (2026-07-28) servers, over stdio and
//! Streamable HTTP: with its default negotiation the client probes with `server/discover`,
//! finds a modern server and stays modern — the probe is the first message, and every
//! request, the probe included, carries the `_meta` envelope; a flow then runs as usual.
//! Pinned to 2026-07-28 it sends no probe at all.
//!
//! The fallback to `initialize` against a server of the `initialize` era is checked against
//! the official TypeScript SDK's server in `client_legacy_interop.rs`.

use serde_json::{Value, json};
use snodo_std::client::{Era, Negotiation};
use snodo_tests::client_harness::{
    Answers, Launch, Log, Transport, connect, connect_negotiating, fill,
};

snodo_tests::client_harness_child!();

snodo_tests::client_tests! {
    the_default_client_probes_and_stays_modern => probes_and_stays_modern();
    a_pinned_client_sends_no_probe => pinned_sends_no_probe();
}

const PREVIEW: &str = r#"{"color":"teal","style":"bold","status":"preview"}"#;

fn capabilities() -> Value {
    json!({"elicitation": {"form": {}}})
}

async fn probes_and_stays_modern(transport: Transport) {
    let log = Log::new();
    let builder = Answers::forms(fill).builder(&log);
    let s = connect_negotiating(&Launch::example(), transport, builder);
    assert_eq!(s.era().await.expect("the era"), Era::Modern);
    let sent = s.sent();
    assert_eq!(
        sent.len(),
        1,
        "only the probe before any operation: {sent:#?}"
    );
    assert_eq!(sent[0].method(), "server/discover");
    let discovered = sent[0].result();
    assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));

    let result = s
        .call_tool("preference_preview", json!({"subject": "eras"}))
        .await
        .expect("the flow completes");
    assert_eq!(result["content"][0]["text"], PREVIEW);
    let methods: Vec<String> = s.sent().iter().map(|m| m.method().to_owned()).collect();
    assert_eq!(
        methods,
        ["server/discover", "tools/call", "tools/call", "tools/call"],
        "the probe once, then the three legs; no initialize"
    );
    // Every request, the probe too, carries the envelope (and over HTTP its headers).
    s.finish(capabilities()).await;
}

async fn pinned_sends_no_probe(transport: Transport) {
    let log = Log::new();
    let builder = Answers::forms(fill)
        .builder(&log)
        .negotiation(Negotiation::Modern);
    let s = connect(&Launch::example(), transport, builder);
    assert_eq!(s.era().await.expect("the era"), Era::Modern);
    assert!(s.sent().is_empty(), "nothing is sent to learn the era");
    let result = s
        .call_tool("preference_preview", json!({"subject": "eras"}))
        .await
        .expect("the flow completes");
    assert_eq!(result["content"][0]["text"], PREVIEW);
    assert_eq!(s.sent()[0].method(), "tools/call");
    s.finish(capabilities()).await;
}
