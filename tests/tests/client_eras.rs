//! The Rust client's era negotiation against our own (2026-07-28) servers, over stdio and
//! Streamable HTTP: with its default negotiation the client probes with `server/discover`,
//! finds a modern server and stays modern — the probe is the first message, and every
//! request, the probe included, carries the `_meta` envelope; a flow then runs as usual.
//! Pinned to 2026-07-28 it sends no probe at all.
//!
//! Pinned to the `initialize` era (`Negotiation::Legacy`) against the same example, the
//! client gets the preference flow as one request per family, the server bridging each input
//! request into an `elicitation/create` that the client's form handler answers: both sides of
//! the one-handler-both-eras promise, ours on both ends. (These run without the recording
//! proxy, which buffers whole responses and so cannot carry a bridged request.)
//!
//! The fallback to `initialize` against a server of the `initialize` era is checked against
//! the official TypeScript SDK's server in `client_legacy_interop.rs`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use snodo_std::client::{Client, ClientBuilder, Era, LegacyVersion, Negotiation};
use snodo_tests::boundary::example_binary;
use snodo_tests::client_harness::{
    Answers, Asked, Launch, Log, Transport, connect, connect_negotiating, fill,
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
    assert_eq!(s.legacy_version().await.expect("the era"), None);
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

/// The example over `transport`, the client built by `builder` talking to it directly; the
/// server process (HTTP) is killed on drop.
fn direct(transport: Transport, builder: ClientBuilder) -> (Client, Option<KillOnDrop>) {
    match transport {
        Transport::Stdio => {
            let mut server = tokio::process::Command::new(example_binary());
            server.arg("--stdio").env("RUST_LOG", "warn");
            (
                builder
                    .stdio(server)
                    .expect("the client starts the example"),
                None,
            )
        }
        Transport::Http => {
            let mut child = Command::new(example_binary())
                .args(["--http", "127.0.0.1:0"])
                .env("RUST_LOG", "warn")
                .stdout(Stdio::piped())
                .spawn()
                .expect("the example starts");
            let mut url = String::new();
            BufReader::new(child.stdout.take().expect("piped stdout"))
                .read_line(&mut url)
                .expect("the example prints its URL");
            let client = builder.http(url.trim()).expect("the client");
            (client, Some(KillOnDrop(child)))
        }
    }
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A form of one required, non-empty string `field` (the example's `flow.rs`).
fn asked_form(message: &str, field: &str) -> Asked {
    Asked::Form {
        message: message.into(),
        schema: json!({
            "type": "object",
            "properties": {field: {"type": "string", "minLength": 1}},
            "required": [field]
        }),
    }
}

async fn legacy_flow_is_bridged(transport: Transport) {
    let log = Log::new();
    let builder = Answers::forms(fill)
        .builder(&log)
        .negotiation(Negotiation::Legacy);
    let (client, _server) = direct(transport, builder);
    assert_eq!(client.era().await.expect("the handshake"), Era::Legacy);
    assert_eq!(
        client.legacy_version().await.expect("negotiated"),
        Some(LegacyVersion::V2025_11_25)
    );
    let tool = client
        .call_tool("preference_preview", json!({"subject": "eras"}))
        .await
        .expect("the tool");
    assert_eq!(tool["content"][0]["text"], PREVIEW);
    assert!(tool.get("resultType").is_none(), "{tool}");
    let resource = client
        .read_resource("preview://preferences")
        .await
        .expect("the resource");
    assert_eq!(resource["contents"][0]["text"], PREVIEW);
    let prompt = client
        .get_prompt("preference_prompt", Value::Null)
        .await
        .expect("the prompt");
    assert_eq!(prompt["messages"][0]["content"]["text"], PREVIEW);
    let color = asked_form("Choose a color for a read-only preview", "color");
    let style = asked_form("Choose a style for a read-only preview", "style");
    let asked = log.take();
    assert_eq!(asked.len(), 6, "{asked:#?}");
    for pair in asked.chunks(2) {
        assert_eq!(pair, [color.clone(), style.clone()], "{asked:#?}");
    }
    client.close().await;
}

#[tokio::test]
async fn a_legacy_client_gets_the_flows_bridged_over_http() {
    legacy_flow_is_bridged(Transport::Http).await;
}

#[tokio::test]
async fn a_legacy_client_gets_the_flows_bridged_over_stdio() {
    legacy_flow_is_bridged(Transport::Stdio).await;
}
