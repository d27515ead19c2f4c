//! The Rust client (`snodo_std::client`) against spawned servers, with every message it sends
//! observed on the wire, for the `client_*` acceptance suites.
//!
//! - [`Launch`]: a server to start — the `preferences` example, `mrtr-fixture-server`, or an
//!   application of this crate served by a child copy of the test binary itself ([`InProcess`]:
//!   the fixture with small pages, the MRTR fixture behind middleware that always asks again,
//!   and a scripted peer that breaks the protocol on purpose).
//! - [`connect`]: a [`Session`], the client connected over [`Transport::Stdio`] (the client
//!   spawns the server) or [`Transport::Http`] (the server is spawned here and the client
//!   talks to its URL), with a recorder between them. Over stdio the recorder is a relay
//!   process (a child copy of the test binary) that writes each line to a log *before*
//!   passing it on; over HTTP it is a proxy thread that records each request before
//!   forwarding it and each response before returning it. So when a client call returns,
//!   everything it sent and received is in the record.
//! - [`Sent`]: one message the client sent, with the reply it got (and, over HTTP, the
//!   request headers); [`assert_retries`] checks the retry discipline of one operation's
//!   legs; [`Session::finish`] checks the `_meta` envelope, the HTTP headers and the fresh
//!   ids of every request of the session.
//! - [`Answers`] and [`Log`]: the handlers a client installs (only those are declared) and
//!   the input requests they were asked, in order.
//! - [`client_tests!`](crate::client_tests): one `#[tokio::test]` per transport for each test
//!   body, and [`client_harness_child!`](crate::client_harness_child): the entry point of the
//!   child copies (a test of its own that does nothing unless the harness started it).
//!
//! Expected values are written in the tests; nothing here computes an expected value from
//! the code under test.

use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Value, json};
use snodo_core::server::{Layered, Server};
use snodo_std::AsyncHandler;
use snodo_std::client::{
    Client, ClientBuilder, CreateMessageResult, ElicitResult, FormRequest, Negotiation, Root,
};

pub use crate::boundary::{PATIENCE, Transport};
use crate::harness::{PROTOCOL_VERSION, matches};

/// The name the client introduces itself with.
pub const CLIENT_NAME: &str = "snodo-client-acceptance";
/// Its version.
pub const CLIENT_VERSION: &str = "0.1.0";

/// The name of the test every client test binary declares with
/// [`client_harness_child!`](crate::client_harness_child).
pub const CHILD_TEST: &str = "client_harness_child";

const ROLE: &str = "SNODO_CLIENT_HARNESS";
const RELAY_SENT: &str = "SNODO_CLIENT_HARNESS_SENT";
const RELAY_RECEIVED: &str = "SNODO_CLIENT_HARNESS_RECEIVED";
const RELAY_PROGRAM: &str = "SNODO_CLIENT_HARNESS_PROGRAM";
const RELAY_ARGS: &str = "SNODO_CLIENT_HARNESS_ARGS";
const RELAY_ENV: &str = "SNODO_CLIENT_HARNESS_ENV";
const SERVE_APP: &str = "SNODO_CLIENT_HARNESS_APP";
const SERVE_TRANSPORT: &str = "SNODO_CLIENT_HARNESS_TRANSPORT";
/// Separates the items of a list passed in one environment variable.
const SEPARATOR: char = '\u{1f}';

// ---------------------------------------------------------------------------------------
// Servers
// ---------------------------------------------------------------------------------------

/// An application of this crate that a child copy of the test binary serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InProcess {
    /// [`crate::fixture::Fixture`] with [`crate::fixture::paged_config`]: pages of two items.
    Paged,
    /// [`crate::mrtr_fixture::MrtrFixture`] behind
    /// [`crate::mrtr_fixture::AsksForSampling`]: every tool call asks for a sampled summary
    /// again, however often it was answered.
    AlwaysAsks,
    /// A scripted peer that breaks the protocol on purpose (see [`rogue_result`]).
    Rogue,
}

impl InProcess {
    fn name(self) -> &'static str {
        match self {
            InProcess::Paged => "paged",
            InProcess::AlwaysAsks => "always-asks",
            InProcess::Rogue => "rogue",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [InProcess::Paged, InProcess::AlwaysAsks, InProcess::Rogue]
            .into_iter()
            .find(|app| app.name() == name)
    }
}

/// How to start one server, for either transport.
#[derive(Clone, Debug)]
pub struct Launch {
    label: String,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// Whether the program takes `--stdio` / `--http 127.0.0.1:0` (otherwise the transport
    /// goes in the environment of a child copy of the test binary).
    flags: bool,
}

impl Launch {
    /// The `preferences` example of `snodo-std` (built once per test binary).
    pub fn example() -> Launch {
        Launch {
            label: "the preferences example".into(),
            program: crate::boundary::example_binary().to_path_buf(),
            args: Vec::new(),
            env: Vec::new(),
            flags: true,
        }
    }

    /// `mrtr-fixture-server` at `program` (an integration test's
    /// `env!("CARGO_BIN_EXE_mrtr-fixture-server")`) serving `app` (`fixture` or
    /// `preferences`) with a random secret.
    pub fn fixture_server(program: &str, app: &str) -> Launch {
        Launch {
            label: format!("mrtr-fixture-server --app {app}"),
            program: PathBuf::from(program),
            args: vec!["--app".into(), app.into()],
            env: Vec::new(),
            flags: true,
        }
    }

    /// `app`, served by a child copy of the running test binary.
    pub fn in_process(app: InProcess) -> Launch {
        Launch {
            label: format!("the {} application (in a child test process)", app.name()),
            program: std::env::current_exe().expect("the test binary's path"),
            args: child_args(),
            env: vec![
                (ROLE.into(), "serve".into()),
                (SERVE_APP.into(), app.name().into()),
            ],
            flags: false,
        }
    }

    /// What the failure messages call it.
    pub fn label(&self) -> &str {
        &self.label
    }

    fn transport_args(&self, transport: Transport) -> Vec<String> {
        match (self.flags, transport) {
            (false, _) => Vec::new(),
            (true, Transport::Stdio) => vec!["--stdio".into()],
            (true, Transport::Http) => vec!["--http".into(), "127.0.0.1:0".into()],
        }
    }

    fn transport_env(&self, transport: Transport) -> Vec<(String, String)> {
        let mut env = self.env.clone();
        env.push(("RUST_LOG".into(), "warn".into()));
        if !self.flags {
            let name = match transport {
                Transport::Stdio => "stdio",
                Transport::Http => "http",
            };
            env.push((SERVE_TRANSPORT.into(), name.into()));
        }
        env
    }
}

/// The arguments that make a child copy of the test binary run [`CHILD_TEST`] alone.
fn child_args() -> Vec<String> {
    [
        CHILD_TEST,
        "--exact",
        "--nocapture",
        "--test-threads=1",
        "-q",
    ]
    .map(String::from)
    .to_vec()
}

// ---------------------------------------------------------------------------------------
// Scratch space
// ---------------------------------------------------------------------------------------

/// A directory of its own for one session's logs, removed when dropped.
#[derive(Debug)]
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("snodo-client-harness-{}-{n}", std::process::id()));
        fs::create_dir_all(&dir).expect("a scratch directory");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if thread::panicking() {
            if let Ok(stderr) = fs::read_to_string(self.path("server.stderr")) {
                if !stderr.is_empty() {
                    eprintln!("--- the server's standard error ---\n{stderr}");
                }
            }
        }
        let _ = fs::remove_dir_all(&self.0);
    }
}

// ---------------------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------------------

/// A server process started for an HTTP session, killed when dropped.
#[derive(Debug)]
struct Spawned {
    child: Child,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the record of a session is.
#[derive(Debug)]
enum Wire {
    Stdio { sent: PathBuf, received: PathBuf },
    Http(Arc<Mutex<Vec<HttpLeg>>>),
}

/// The client connected to one server, with the record of what it sent. Dereferences to
/// the [`Client`].
#[derive(Debug)]
pub struct Session {
    client: Option<Client>,
    transport: Transport,
    label: String,
    wire: Wire,
    _server: Option<Spawned>,
    _scratch: Scratch,
}

impl std::ops::Deref for Session {
    type Target = Client;

    fn deref(&self) -> &Client {
        self.client.as_ref().expect("the session is open")
    }
}

/// Connects a client built by `builder`, pinned to 2026-07-28 ([`Negotiation::Modern`]: the
/// suites check the modern era message by message, so no `server/discover` probe comes
/// first), to a fresh server started by `launch`, over `transport`, recording everything
/// between them. Needs a tokio runtime.
#[track_caller]
pub fn connect(launch: &Launch, transport: Transport, builder: ClientBuilder) -> Session {
    connect_negotiating(launch, transport, builder.negotiation(Negotiation::Modern))
}

/// [`connect`] with the negotiation `builder` has (by default the probe and fallback).
#[track_caller]
pub fn connect_negotiating(
    launch: &Launch,
    transport: Transport,
    builder: ClientBuilder,
) -> Session {
    let scratch = Scratch::new();
    let stderr = || File::create(scratch.path("server.stderr")).expect("a stderr file");
    match transport {
        Transport::Stdio => {
            let sent = scratch.path("sent.jsonl");
            let received = scratch.path("received.jsonl");
            let mut args = launch.args.clone();
            args.extend(launch.transport_args(transport));
            let env: Vec<String> = launch
                .transport_env(transport)
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let mut relay = Command::new(std::env::current_exe().expect("the test binary"));
            relay
                .args(child_args())
                .env(ROLE, "relay")
                .env(RELAY_SENT, &sent)
                .env(RELAY_RECEIVED, &received)
                .env(RELAY_PROGRAM, &launch.program)
                .env(RELAY_ARGS, join(&args))
                .env(RELAY_ENV, join(&env))
                .stderr(stderr());
            let client = builder
                .stdio(tokio::process::Command::from(relay))
                .unwrap_or_else(|e| panic!("{}: the client cannot start: {e}", launch.label));
            Session {
                client: Some(client),
                transport,
                label: launch.label.clone(),
                wire: Wire::Stdio { sent, received },
                _server: None,
                _scratch: scratch,
            }
        }
        Transport::Http => {
            let mut command = Command::new(&launch.program);
            command
                .args(&launch.args)
                .args(launch.transport_args(transport))
                .envs(launch.transport_env(transport))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(stderr());
            let mut child = command
                .spawn()
                .unwrap_or_else(|e| panic!("cannot start {}: {e}", launch.label));
            let stdout = child.stdout.take().expect("piped stdout");
            let server = Spawned { child };
            let url = first_url(stdout, &launch.label, &scratch);
            let (proxy_url, legs) = start_proxy(&url);
            let client = builder
                .http(&proxy_url)
                .unwrap_or_else(|e| panic!("{}: the client cannot start: {e}", launch.label));
            Session {
                client: Some(client),
                transport,
                label: launch.label.clone(),
                wire: Wire::Http(legs),
                _server: Some(server),
                _scratch: scratch,
            }
        }
    }
}

fn join(items: &[String]) -> String {
    let mut joined = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            joined.push(SEPARATOR);
        }
        joined.push_str(item);
    }
    joined
}

fn split(joined: &str) -> Vec<String> {
    if joined.is_empty() {
        return Vec::new();
    }
    joined.split(SEPARATOR).map(str::to_owned).collect()
}

/// Reads the server's standard output until the line that is its URL (a child copy of the
/// test binary prints the test harness's own lines first); keeps draining it afterwards.
#[track_caller]
fn first_url(stdout: impl Read + Send + 'static, label: &str, scratch: &Scratch) -> String {
    let (tx, rx) = channel();
    thread::spawn(move || {
        let mut lines = BufReader::new(stdout);
        let mut sent = false;
        loop {
            let mut line = String::new();
            match lines.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim();
            if !sent && line.starts_with("http://") {
                let _ = tx.send(line.to_owned());
                sent = true;
            }
        }
    });
    rx.recv_timeout(PATIENCE).unwrap_or_else(|_| {
        let stderr = fs::read_to_string(scratch.path("server.stderr")).unwrap_or_default();
        panic!("{label} printed no URL within {PATIENCE:?}\nstderr:\n{stderr}")
    })
}

impl Session {
    /// The transport of the session.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// How many messages the client has sent so far: a mark for [`Session::sent_since`].
    pub fn mark(&self) -> usize {
        self.sent().len()
    }

    /// Every message the client sent since `mark`, in order.
    pub fn sent_since(&self, mark: usize) -> Vec<Sent> {
        self.sent().into_iter().skip(mark).collect()
    }

    /// Every message the client sent, in order, each with the reply it got.
    pub fn sent(&self) -> Vec<Sent> {
        match &self.wire {
            Wire::Stdio { sent, received } => stdio_record(sent, received),
            Wire::Http(legs) => lock(legs).iter().map(HttpLeg::sent).collect(),
        }
    }

    /// Checks every request of the session: each carries the `_meta` envelope (protocol
    /// version, this client's info and exactly `capabilities`; other `_meta` members a
    /// caller added are not looked at) and a fresh integer id, and over HTTP the headers
    /// that mirror it.
    #[track_caller]
    pub fn check_requests(&self, capabilities: &Value) {
        let sent = self.sent();
        let mut ids = HashSet::new();
        for s in sent.iter().filter(|s| s.message.get("id").is_some()) {
            let id = s
                .message
                .get("id")
                .and_then(Value::as_i64)
                .unwrap_or_else(|| panic!("{}: the id is not an integer: {}", self.label, s.raw));
            assert!(ids.insert(id), "{}: id {id} used twice", self.label);
            assert_eq!(s.message["jsonrpc"], "2.0", "{}", s.raw);
            let meta = &s.params()["_meta"];
            let expected = json!({
                "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
                "io.modelcontextprotocol/clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            });
            let own: serde_json::Map<String, Value> = meta
                .as_object()
                .unwrap_or_else(|| panic!("{}: no _meta: {}", self.label, s.raw))
                .iter()
                .filter(|(k, _)| k.starts_with("io.modelcontextprotocol/"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            assert_eq!(
                Value::Object(own),
                expected,
                "{}: the envelope of {}",
                self.label,
                s.raw
            );
            if self.transport == Transport::Http {
                check_headers(s);
            }
        }
    }

    /// [`Session::check_requests`], then closes the client.
    #[track_caller]
    pub fn finish(mut self, capabilities: Value) -> impl Future<Output = ()> {
        self.check_requests(&capabilities);
        let client = self.client.take();
        async move {
            if let Some(client) = client {
                client.close().await;
            }
            drop(self);
        }
    }
}

/// Over HTTP, every request carries the headers that mirror its body.
#[track_caller]
fn check_headers(s: &Sent) {
    let header = |name: &str| s.headers.get(name).map(String::as_str);
    assert_eq!(
        header("mcp-protocol-version"),
        Some(PROTOCOL_VERSION),
        "{s:#?}"
    );
    assert_eq!(header("mcp-method"), Some(s.method()), "{s:#?}");
    assert_eq!(header("content-type"), Some("application/json"), "{s:#?}");
    let accept = header("accept").unwrap_or_default();
    assert!(
        accept.contains("application/json") && accept.contains("text/event-stream"),
        "{s:#?}"
    );
    let name = match s.method() {
        "tools/call" | "prompts/get" => s.params()["name"].as_str(),
        "resources/read" => s.params()["uri"].as_str(),
        _ => None,
    };
    assert_eq!(
        header("mcp-name").map(header_text).as_deref(),
        name,
        "{s:#?}"
    );
}

/// The text of a header value: plain, or `=?base64?…?=` decoded. A plain value is visible
/// ASCII without leading or trailing spaces; anything else must be encoded.
#[track_caller]
pub fn header_text(value: &str) -> String {
    if let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        let bytes =
            base64_decode(encoded).unwrap_or_else(|| panic!("{value:?} is not standard Base64"));
        return String::from_utf8(bytes).unwrap_or_else(|_| panic!("{value:?} is not UTF-8"));
    }
    let plain = value.bytes().all(|b| (b' '..=b'~').contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ');
    assert!(plain, "{value:?} should have been sent as Base64");
    value.to_owned()
}

/// Standard Base64 (with padding) decoded; `None` if it is not.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if text.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return None;
        }
        let mut n = 0u32;
        for &c in &quad[..4 - pad] {
            let v = ALPHABET.iter().position(|&a| a == c)?;
            n = n << 6 | v as u32;
        }
        n <<= 6 * pad as u32;
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// One message the client sent.
#[derive(Clone, Debug)]
pub struct Sent {
    /// As sent.
    pub raw: String,
    /// Parsed.
    pub message: Value,
    /// Over HTTP, the request headers (names in lowercase); empty over stdio.
    pub headers: BTreeMap<String, String>,
    /// The response with the message's id, when there was one.
    pub reply: Option<Value>,
    /// That response as received.
    pub reply_raw: Option<String>,
}

impl Sent {
    /// `method`.
    pub fn method(&self) -> &str {
        self.message["method"].as_str().unwrap_or_default()
    }

    /// `params` (`null` when absent).
    pub fn params(&self) -> &Value {
        &self.message["params"]
    }

    /// `params.requestState`.
    pub fn state(&self) -> Option<&str> {
        self.params().get("requestState").and_then(Value::as_str)
    }

    /// `params.inputResponses`.
    pub fn responses(&self) -> Option<&Value> {
        self.params().get("inputResponses")
    }

    /// The reply's `result` (`null` when the reply is an error or missing).
    pub fn result(&self) -> &Value {
        self.reply
            .as_ref()
            .and_then(|r| r.get("result"))
            .unwrap_or(&Value::Null)
    }
}

fn stdio_record(sent: &Path, received: &Path) -> Vec<Sent> {
    let read = |path: &Path| fs::read_to_string(path).unwrap_or_default();
    let mut replies: BTreeMap<String, (Value, String)> = BTreeMap::new();
    for line in read(received).lines() {
        // The relay and the child copies print the test harness's lines too: not JSON.
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if message.get("method").is_none() {
            if let Some(id) = message.get("id") {
                replies.insert(id.to_string(), (message.clone(), line.to_owned()));
            }
        }
    }
    read(sent)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let message: Value = serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("the client sent a line that is not JSON ({e}): {line}")
            });
            let reply = message
                .get("id")
                .filter(|_| message.get("method").is_some())
                .and_then(|id| replies.get(&id.to_string()))
                .cloned();
            Sent {
                raw: line.to_owned(),
                message,
                headers: BTreeMap::new(),
                reply_raw: reply.as_ref().map(|(_, raw)| raw.clone()),
                reply: reply.map(|(value, _)| value),
            }
        })
        .collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

/// Asserts the retry discipline over `legs`, the requests of one operation in order, each
/// given `answers[i - 1]` (the expected `inputResponses` object, `null` for none):
///
/// - every leg has the same method and the same params apart from the retry fields (and so
///   the same `_meta`), and a fresh id;
/// - the first leg has neither `inputResponses` nor `requestState`;
/// - every later leg answers exactly the input requests of the reply before it (with
///   `answers`) and echoes that reply's `requestState` byte for byte — or sends none when
///   the reply had none;
/// - every reply but the last is `input_required`, and the last one is not.
#[track_caller]
pub fn assert_retries(legs: &[Sent], answers: &[Value]) {
    assert_eq!(
        legs.len(),
        answers.len() + 1,
        "legs: {:#?}",
        legs.iter().map(|l| &l.raw).collect::<Vec<_>>()
    );
    let strip = |sent: &Sent| {
        let mut params = sent.params().clone();
        if let Some(map) = params.as_object_mut() {
            map.remove("inputResponses");
            map.remove("requestState");
        }
        params
    };
    let first = &legs[0];
    assert!(first.responses().is_none(), "{}", first.raw);
    assert!(first.state().is_none(), "{}", first.raw);
    let mut ids = HashSet::new();
    for (i, leg) in legs.iter().enumerate() {
        assert_eq!(leg.method(), first.method(), "{}", leg.raw);
        assert_eq!(strip(leg), strip(first), "leg {} changed its params", i + 1);
        let id = leg.message["id"].as_i64().expect("an integer id");
        assert!(ids.insert(id), "leg {} reuses id {id}", i + 1);
        let reply = leg
            .reply
            .as_ref()
            .unwrap_or_else(|| panic!("leg {} got no reply: {}", i + 1, leg.raw));
        let input_required = reply["result"]["resultType"] == "input_required";
        assert_eq!(
            input_required,
            i + 1 < legs.len(),
            "leg {}: {reply:#}",
            i + 1
        );
        if i == 0 {
            continue;
        }
        let before = legs[i - 1].result();
        match before.get("requestState") {
            Some(Value::String(state)) => {
                assert_eq!(leg.state(), Some(state.as_str()), "leg {}", i + 1);
                let echoed = format!("\"requestState\":{}", json!(state));
                assert!(leg.raw.contains(&echoed), "leg {}: {}", i + 1, leg.raw);
                let given = legs[i - 1].reply_raw.as_deref().unwrap_or_default();
                assert!(given.contains(&echoed), "leg {}: {given}", i);
            }
            Some(other) => panic!("leg {}: requestState is not a string: {other}", i),
            None => assert!(
                leg.state().is_none(),
                "leg {} kept a state the reply before it dropped: {}",
                i + 1,
                leg.raw
            ),
        }
        let asked: Vec<&String> = before
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        let expected = &answers[i - 1];
        match leg.responses() {
            None => {
                assert!(
                    asked.is_empty(),
                    "leg {} answered nothing: {}",
                    i + 1,
                    leg.raw
                );
                assert_eq!(expected, &Value::Null, "leg {}: {}", i + 1, leg.raw);
            }
            Some(responses) => {
                let answered: Vec<&String> = responses
                    .as_object()
                    .map(|m| m.keys().collect())
                    .unwrap_or_default();
                let mut asked_sorted = asked.clone();
                asked_sorted.sort();
                let mut answered_sorted = answered.clone();
                answered_sorted.sort();
                assert_eq!(answered_sorted, asked_sorted, "leg {}", i + 1);
                assert!(
                    matches(responses, expected),
                    "leg {}: inputResponses\n  actual: {responses:#}\nexpected: {expected:#}",
                    i + 1
                );
            }
        }
    }
}

/// Asserts that `actual` matches `expected` (see [`matches()`]).
#[track_caller]
pub fn assert_matches(actual: &Value, expected: &Value) {
    assert!(
        matches(actual, expected),
        "does not match\n  actual: {actual:#}\nexpected: {expected:#}"
    );
}

/// The JSON in the text of `result`'s first content block.
#[track_caller]
pub fn first_text(result: &Value) -> Value {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result:#}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The JSON in `text`.
#[track_caller]
pub fn json_in(text: &Value) -> Value {
    let text = text
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {text}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

// ---------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------

/// One input request a handler was asked to answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// A form: its message and schema.
    Form { message: String, schema: Value },
    /// A URL: its message and URL.
    Url { message: String, url: String },
    /// Sampling: the params.
    Sampling(Value),
    /// Roots: the params.
    Roots(Value),
}

/// What the handlers of a client were asked, in order.
#[derive(Clone, Debug, Default)]
pub struct Log(Arc<Mutex<Vec<Asked>>>);

impl Log {
    /// A fresh log.
    pub fn new() -> Log {
        Log::default()
    }

    /// Everything asked so far, emptying the log.
    pub fn take(&self) -> Vec<Asked> {
        std::mem::take(&mut *lock(&self.0))
    }

    fn push(&self, asked: Asked) {
        lock(&self.0).push(asked);
    }
}

/// A form answer.
pub type FormAnswer = fn(&FormRequest) -> ElicitResult;

/// Which handlers a client installs and how they answer.
#[derive(Clone, Debug, Default)]
pub struct Answers {
    /// The form handler.
    pub form: Option<FormAnswer>,
    /// The URL handler's answer.
    pub url: Option<ElicitResult>,
    /// The sampling handler's answer.
    pub sampling: Option<CreateMessageResult>,
    /// The roots handler's answer.
    pub roots: Option<Vec<Root>>,
    /// A form handler that fails with this message instead (overrides `form`).
    pub failing_form: Option<&'static str>,
    /// `max_rounds`, when not the default.
    pub max_rounds: Option<u8>,
    /// How long to wait for each response, when not [`PATIENCE`].
    pub timeout: Option<std::time::Duration>,
}

impl Answers {
    /// No handler at all.
    pub fn none() -> Answers {
        Answers::default()
    }

    /// Every kind: forms filled in by [`fill`], URL consent, [`sampled`] and [`roots`].
    pub fn all() -> Answers {
        Answers {
            form: Some(fill),
            url: Some(ElicitResult::consent()),
            sampling: Some(sampled()),
            roots: Some(roots()),
            ..Answers::default()
        }
    }

    /// Forms only, answered by `form`.
    pub fn forms(form: FormAnswer) -> Answers {
        Answers {
            form: Some(form),
            ..Answers::default()
        }
    }

    /// With `form` as the form handler.
    #[must_use]
    pub fn with_form(mut self, form: FormAnswer) -> Answers {
        self.form = Some(form);
        self
    }

    /// With this URL answer.
    #[must_use]
    pub fn with_url(mut self, answer: ElicitResult) -> Answers {
        self.url = Some(answer);
        self
    }

    /// Without a URL handler.
    #[must_use]
    pub fn without_url(mut self) -> Answers {
        self.url = None;
        self
    }

    /// Without a sampling handler.
    #[must_use]
    pub fn without_sampling(mut self) -> Answers {
        self.sampling = None;
        self
    }

    /// Without a roots handler.
    #[must_use]
    pub fn without_roots(mut self) -> Answers {
        self.roots = None;
        self
    }

    /// At most `rounds` requests per operation.
    #[must_use]
    pub fn max_rounds(mut self, rounds: u8) -> Answers {
        self.max_rounds = Some(rounds);
        self
    }

    /// A client with these handlers, each recording what it is asked in `log`.
    pub fn builder(&self, log: &Log) -> ClientBuilder {
        let timeout = self.timeout.unwrap_or(PATIENCE);
        let mut builder = Client::builder(CLIENT_NAME, CLIENT_VERSION).timeout(Some(timeout));
        if let Some(rounds) = self.max_rounds {
            builder = builder.max_rounds(rounds);
        }
        if let Some(message) = self.failing_form {
            let log = log.clone();
            builder = builder.on_form(move |form: FormRequest| {
                log.push(Asked::Form {
                    message: form.message.clone(),
                    schema: form.requested_schema.clone(),
                });
                async move { Err(snodo_std::client::HandlerError::new(message)) }
            });
        } else if let Some(answer) = self.form {
            let log = log.clone();
            builder = builder.on_form(move |form: FormRequest| {
                log.push(Asked::Form {
                    message: form.message.clone(),
                    schema: form.requested_schema.clone(),
                });
                let result = answer(&form);
                async move { Ok(result) }
            });
        }
        if let Some(answer) = self.url.clone() {
            let log = log.clone();
            builder = builder.on_url(move |request| {
                log.push(Asked::Url {
                    message: request.message.clone(),
                    url: request.url.clone(),
                });
                let answer = answer.clone();
                async move { Ok(answer) }
            });
        }
        if let Some(answer) = self.sampling.clone() {
            let log = log.clone();
            builder = builder.on_sampling(move |request| {
                log.push(Asked::Sampling(request.params.clone()));
                let answer = answer.clone();
                async move { Ok(answer) }
            });
        }
        if let Some(answer) = self.roots.clone() {
            let log = log.clone();
            builder = builder.on_roots(move |request| {
                log.push(Asked::Roots(request.params.clone()));
                let answer = answer.clone();
                async move { Ok(answer) }
            });
        }
        builder
    }
}

/// The value [`fill`] gives a form property, by the form's message and the property's name.
fn filled(message: &str, property: &str) -> Value {
    match (message, property) {
        (_, "color") => json!("teal"),
        (_, "style") => json!("bold"),
        (_, "label") => json!("mine"),
        ("Where do you leave from?", "city") => json!("Oslo"),
        ("Where are you going?", "city") => json!("Lisbon"),
        (_, "city") => json!("Oslo"),
        (_, "day") => json!("2026-08-01"),
        (_, "approve") => json!(true),
        (_, "name") => json!("Ada"),
        (_, "note") => json!("fine"),
        _ => json!("?"),
    }
}

/// Accepts every form, each property filled in: color `teal`, style `bold`, label `mine`,
/// the city `Oslo` (`Lisbon` when asked where one is going), day `2026-08-01`, approve
/// `true`, name `Ada`, note `fine`.
pub fn fill(form: &FormRequest) -> ElicitResult {
    let mut content = serde_json::Map::new();
    if let Some(properties) = form.requested_schema["properties"].as_object() {
        for name in properties.keys() {
            content.insert(name.clone(), filled(&form.message, name));
        }
    }
    ElicitResult::accept(Value::Object(content))
}

/// Declines every form.
pub fn decline(_: &FormRequest) -> ElicitResult {
    ElicitResult::decline()
}

/// Cancels every form.
pub fn cancel(_: &FormRequest) -> ElicitResult {
    ElicitResult::cancel()
}

/// What the sampling handler answers: `teal`, from `model-x`.
pub fn sampled() -> CreateMessageResult {
    CreateMessageResult::text("model-x", "teal")
}

/// What the roots handler answers: a named project root and `/tmp`.
pub fn roots() -> Vec<Root> {
    vec![
        Root::new("file:///home/ada/project").named("Project"),
        Root::new("file:///tmp"),
    ]
}

// ---------------------------------------------------------------------------------------
// The per-transport test macro and the child entry point
// ---------------------------------------------------------------------------------------

/// For each `test => body(args…);`, a `#[tokio::test]` named `test` in a module `stdio` and
/// one in a module `http`, each running `body(transport, args…).await`.
#[macro_export]
macro_rules! client_tests {
    ($($test:ident => $body:ident($($arg:expr),* $(,)?);)+) => {
        /// Every test of this file over stdio (the client spawns the server).
        mod stdio {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $test() {
                    super::$body($crate::client_harness::Transport::Stdio $(, $arg)*).await;
                }
            )+
        }
        /// Every test of this file over Streamable HTTP.
        mod http {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $test() {
                    super::$body($crate::client_harness::Transport::Http $(, $arg)*).await;
                }
            )+
        }
    };
}

/// Declares [`CHILD_TEST`]: the entry point of the harness's child copies of the test binary
/// (the stdio relay and the in-process servers). Run by the test harness itself, it does
/// nothing.
#[macro_export]
macro_rules! client_harness_child {
    () => {
        /// Not a test of its own: the entry point of the client harness's child processes
        /// (it returns at once when the harness did not start it).
        #[test]
        fn client_harness_child() {
            $crate::client_harness::child_main();
        }
    };
}

/// What a child copy of the test binary does, as its environment says: relay a stdio
/// session, serve an [`InProcess`] application, or nothing.
pub fn child_main() {
    match std::env::var(ROLE).as_deref() {
        Ok("relay") => relay(),
        Ok("serve") => {
            let app = std::env::var(SERVE_APP).unwrap_or_default();
            let app = InProcess::from_name(&app).expect("a known application");
            let http = std::env::var(SERVE_TRANSPORT).as_deref() == Ok("http");
            serve(app, http);
        }
        _ => {}
    }
}

fn var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"))
}

/// Relays standard input to the server and its output back, writing each line to its log
/// before passing it on.
fn relay() {
    let mut command = Command::new(var(RELAY_PROGRAM));
    command.args(split(&var(RELAY_ARGS)));
    for name in [
        ROLE,
        RELAY_SENT,
        RELAY_RECEIVED,
        RELAY_PROGRAM,
        RELAY_ARGS,
        RELAY_ENV,
    ] {
        command.env_remove(name);
    }
    for pair in split(&var(RELAY_ENV)) {
        let (k, v) = pair.split_once('=').expect("NAME=VALUE");
        command.env(k, v);
    }
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the relay starts the server");
    let open = |name: &str| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(var(name))
            .expect("a log file")
    };
    let mut to_server = child.stdin.take().expect("piped stdin");
    let mut sent_log = open(RELAY_SENT);
    thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().split(b'\n') {
            let Ok(mut line) = line else { break };
            line.push(b'\n');
            let logged = sent_log.write_all(&line).and_then(|()| sent_log.flush());
            let passed = to_server.write_all(&line).and_then(|()| to_server.flush());
            if logged.is_err() || passed.is_err() {
                break;
            }
        }
        // Dropping the pipe ends the server's input.
    });
    let from_server = child.stdout.take().expect("piped stdout");
    let mut received_log = open(RELAY_RECEIVED);
    let mut stdout = std::io::stdout();
    for line in BufReader::new(from_server).split(b'\n') {
        let Ok(mut line) = line else { break };
        line.push(b'\n');
        let logged = received_log
            .write_all(&line)
            .and_then(|()| received_log.flush());
        let passed = stdout.write_all(&line).and_then(|()| stdout.flush());
        if logged.is_err() || passed.is_err() {
            break;
        }
    }
    let _ = child.wait();
}

/// Serves `app` over stdio or HTTP (printing the URL first) until the end of input or until
/// killed.
fn serve(app: InProcess, http: bool) {
    if app == InProcess::Rogue {
        if http {
            rogue_http();
        } else {
            rogue_stdio();
        }
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    match app {
        InProcess::Paged => runtime.block_on(serve_server(
            Server::new(
                crate::fixture::paged_config(),
                crate::fixture::Fixture::new(),
            )
            .expect("valid definitions"),
            http,
        )),
        InProcess::AlwaysAsks => {
            let state = crate::boundary::leak(crate::mrtr_fixture::state_options());
            runtime.block_on(serve_server(
                Server::new(
                    crate::mrtr_fixture::config(state),
                    Layered::new(
                        crate::mrtr_fixture::AsksForSampling,
                        crate::mrtr_fixture::MrtrFixture::new(),
                    ),
                )
                .expect("valid definitions"),
                http,
            ));
        }
        InProcess::Rogue => unreachable!("served above"),
    }
}

async fn serve_server<A: AsyncHandler + 'static>(server: Server<'static, A>, http: bool) {
    let server = Arc::new(server);
    if !http {
        snodo_std::stdio::serve_stdio(server, snodo_std::stdio::StdioConfig::default())
            .await
            .expect("serving stdio");
        return;
    }
    let addr = "127.0.0.1:0".parse().expect("an address");
    let config = snodo_std::http::HttpConfig::new().with_addr(addr);
    let listener = snodo_std::http::HttpListener::bind(server, config)
        .await
        .expect("binds");
    print_url(&listener.url().expect("a URL"));
    listener.serve().await.expect("serving HTTP");
}

fn print_url(url: &str) {
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{url}");
    let _ = stdout.flush();
}

// ---------------------------------------------------------------------------------------
// The scripted peer
// ---------------------------------------------------------------------------------------

/// What the scripted peer answers to a request (`None` to a notification). For `tools/call`,
/// by the tool's name, whatever the client declared:
///
/// - `always_sampling`: `input_required` asking for a sampled summary, every time;
/// - `malformed_form`: `input_required` whose request `bad` is a form without a message;
/// - `unknown_method`: `input_required` whose request `odd` has the method `ping`;
/// - `future_result`: a result whose `resultType` is `deferred`;
/// - `legacy`: a result without `resultType`;
/// - `version_once`: the first call in the peer's life is refused with -32022 although the
///   error lists `2026-07-28` as supported; later calls complete;
/// - `version_never`: always that -32022;
/// - `version_other`: -32022 listing only `2099-01-01`;
/// - anything else: the error 4040 `Gone` with data `{"why":"scripted"}`.
///
/// Every other method: `{}` (no `resultType`).
pub fn rogue_result(request: &Value) -> Option<Value> {
    let id = request.get("id")?.clone();
    let sampling = json!({
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Again?"}}], "maxTokens": 8}
    });
    let result = match (
        request["method"].as_str(),
        request["params"]["name"].as_str(),
    ) {
        (Some("tools/call"), Some("always_sampling")) => json!({
            "resultType": "input_required",
            "inputRequests": {"summary": sampling}
        }),
        (Some("tools/call"), Some("malformed_form")) => json!({
            "resultType": "input_required",
            "inputRequests": {"bad": {"method": "elicitation/create", "params": {"mode": "form", "requestedSchema": {"type": "object", "properties": {}}}}}
        }),
        (Some("tools/call"), Some("unknown_method")) => json!({
            "resultType": "input_required",
            "inputRequests": {"odd": {"method": "ping", "params": {}}}
        }),
        (Some("tools/call"), Some("future_result")) => json!({"resultType": "deferred"}),
        (Some("tools/call"), Some("legacy")) => {
            json!({"content": [{"type": "text", "text": "no resultType"}]})
        }
        (Some("tools/call"), Some(name @ ("version_once" | "version_never" | "version_other"))) => {
            static REFUSED_ONCE: std::sync::atomic::AtomicBool =
                std::sync::atomic::AtomicBool::new(false);
            let refuse = match name {
                "version_once" => !REFUSED_ONCE.swap(true, Ordering::SeqCst),
                _ => true,
            };
            if !refuse {
                json!({"content": [{"type": "text", "text": "negotiated"}], "resultType": "complete"})
            } else {
                let supported = if name == "version_other" {
                    "2099-01-01"
                } else {
                    PROTOCOL_VERSION
                };
                return Some(json!({
                    "jsonrpc": "2.0",
                    "id": id,
                    "error": {
                        "code": -32022,
                        "message": "Unsupported protocol version",
                        "data": {"supported": [supported], "requested": PROTOCOL_VERSION}
                    }
                }));
            }
        }
        (Some("tools/call"), _) => {
            return Some(json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": 4040, "message": "Gone", "data": {"why": "scripted"}}
            }));
        }
        _ => json!({}),
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

fn rogue_stdio() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if let Some(reply) = rogue_result(&request) {
            let _ = writeln!(stdout, "{reply}");
            let _ = stdout.flush();
        }
    }
}

fn rogue_http() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binds");
    let addr = listener.local_addr().expect("an address");
    print_url(&format!("http://{addr}/mcp"));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else { continue };
        thread::spawn(move || {
            let Some(request) = read_request(&mut stream) else {
                return;
            };
            let reply = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|r| rogue_result(&r));
            let response = match reply {
                Some(reply) => {
                    let body = reply.to_string();
                    format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    )
                }
                None => "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                    .to_owned(),
            };
            let _ = stream.write_all(response.as_bytes());
        });
    }
}

// ---------------------------------------------------------------------------------------
// The recording HTTP proxy
// ---------------------------------------------------------------------------------------

/// One HTTP request the client made, and what came back.
#[derive(Clone, Debug)]
struct HttpLeg {
    headers: BTreeMap<String, String>,
    body: Vec<u8>,
    /// The response's JSON-RPC messages (one for a JSON body, each event's data for an
    /// event stream), as received.
    replies: Vec<String>,
}

impl HttpLeg {
    fn sent(&self) -> Sent {
        let raw = String::from_utf8_lossy(&self.body).into_owned();
        let message: Value = serde_json::from_str(&raw)
            .unwrap_or_else(|e| panic!("the client posted a body that is not JSON ({e}): {raw}"));
        let reply = self.replies.iter().find_map(|text| {
            let value: Value = serde_json::from_str(text).ok()?;
            let response = value.get("method").is_none();
            (response && value.get("id") == message.get("id")).then(|| (value, text.clone()))
        });
        Sent {
            raw,
            message,
            headers: self.headers.clone(),
            reply_raw: reply.as_ref().map(|(_, raw)| raw.clone()),
            reply: reply.map(|(value, _)| value),
        }
    }
}

/// A request read off a connection.
struct Request {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// Reads one request (head and a `content-length` body); `None` at the end of input.
fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let _ = stream.set_read_timeout(Some(PATIENCE));
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            return None;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        line: line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// Starts a proxy in front of `url`; its URL (same path) and the record it keeps.
fn start_proxy(url: &str) -> (String, Arc<Mutex<Vec<HttpLeg>>>) {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let upstream = authority.to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").expect("the proxy binds");
    let proxy_url = format!(
        "http://{}{path}",
        listener.local_addr().expect("an address")
    );
    let legs: Arc<Mutex<Vec<HttpLeg>>> = Arc::default();
    let record = Arc::clone(&legs);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let upstream = upstream.clone();
            let record = Arc::clone(&record);
            thread::spawn(move || proxy_one(stream, &upstream, &record));
        }
    });
    (proxy_url, legs)
}

/// Relays one request on `client` to `upstream` and its response back, recording both, and
/// closes the connection.
fn proxy_one(mut client: TcpStream, upstream: &str, record: &Mutex<Vec<HttpLeg>>) {
    let Some(request) = read_request(&mut client) else {
        return;
    };
    let index = {
        let mut legs = lock(record);
        legs.push(HttpLeg {
            headers: request.headers.iter().cloned().collect(),
            body: request.body.clone(),
            replies: Vec::new(),
        });
        legs.len() - 1
    };
    let Ok(mut server) = TcpStream::connect(upstream) else {
        return;
    };
    let _ = server.set_read_timeout(Some(PATIENCE));
    let mut head = format!(
        "{}\r\nhost: {upstream}\r\nconnection: close\r\n",
        request.line
    );
    for (name, value) in &request.headers {
        if !matches!(name.as_str(), "host" | "connection" | "keep-alive") {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    head.push_str("\r\n");
    if server.write_all(head.as_bytes()).is_err() || server.write_all(&request.body).is_err() {
        return;
    }
    // The client sends nothing more on this connection, so a read ends only when it hangs
    // up (or the response is written and the connection shut): then hang up on the server
    // too, as the client would have without a proxy in between.
    if let (Ok(mut watch), Ok(up)) = (client.try_clone(), server.try_clone()) {
        thread::spawn(move || {
            let mut byte = [0u8; 1];
            if matches!(watch.read(&mut byte), Ok(0) | Err(_)) {
                let _ = up.shutdown(std::net::Shutdown::Both);
            }
        });
    }
    let mut raw = Vec::new();
    let _ = server.read_to_end(&mut raw);
    let Some(response) = parse_response(&raw) else {
        return;
    };
    lock(record)[index].replies = response.messages();
    let mut back = format!("{}\r\n", response.status_line);
    for (name, value) in &response.headers {
        if !matches!(
            name.as_str(),
            "content-length" | "transfer-encoding" | "connection" | "keep-alive"
        ) {
            back.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    back.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        response.body.len()
    ));
    let _ = client.write_all(back.as_bytes());
    let _ = client.write_all(&response.body);
    let _ = client.flush();
    let _ = client.shutdown(std::net::Shutdown::Both);
}

/// A whole HTTP response, its body decoded from chunks.
struct Response {
    status_line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself, or each event's data.
    fn messages(&self) -> Vec<String> {
        let body = String::from_utf8_lossy(&self.body).into_owned();
        if !self.header("content-type").starts_with("text/event-stream") {
            return if body.trim().is_empty() {
                Vec::new()
            } else {
                vec![body]
            };
        }
        let mut messages = Vec::new();
        let mut data: Vec<&str> = Vec::new();
        for line in body.split('\n').map(|l| l.trim_end_matches('\r')) {
            if line.is_empty() {
                if !data.is_empty() {
                    messages.push(data.join("\n"));
                    data.clear();
                }
            } else if let Some(value) = line.strip_prefix("data:") {
                data.push(value.strip_prefix(' ').unwrap_or(value));
            }
        }
        if !data.is_empty() {
            messages.push(data.join("\n"));
        }
        messages
            .into_iter()
            .filter(|m| !m.trim().is_empty())
            .collect()
    }
}

fn parse_response(raw: &[u8]) -> Option<Response> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse::<usize>().ok());
        match length {
            Some(n) => rest.get(..n).unwrap_or(rest).to_vec(),
            None => rest.to_vec(),
        }
    };
    Some(Response {
        status_line,
        headers,
        body,
    })
}

/// The data of a chunked body (as much as arrived).
fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next().unwrap_or("").trim(), 16).ok());
        let Some(size) = size else { break };
        if size == 0 {
            break;
        }
        let start = eol + 2;
        let Some(chunk) = rest.get(start..start + size) else {
            body.extend_from_slice(rest.get(start..).unwrap_or_default());
            break;
        };
        body.extend_from_slice(chunk);
        rest = rest.get(start + size + 2..).unwrap_or_default();
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_and_event_stream_bodies() {
        assert_eq!(
            dechunk(b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n"),
            b"hello world"
        );
        let raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n1e\r\nevent: message\ndata: {\"a\":1}\n\n\r\n0\r\n\r\n";
        let response = parse_response(raw).expect("parses");
        assert_eq!(response.messages(), ["{\"a\":1}"]);
        let raw = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 7\r\n\r\n{\"b\":2}";
        assert_eq!(
            parse_response(raw).expect("parses").messages(),
            ["{\"b\":2}"]
        );
    }

    #[test]
    fn header_values() {
        assert_eq!(header_text("tools/call"), "tools/call");
        assert_eq!(header_text("=?base64?Y2Fmw6k=?="), "caf\u{e9}");
        assert_eq!(header_text("=?base64?YQli?="), "a\tb");
        assert_eq!(base64_decode("aGk="), Some(b"hi".to_vec()));
        assert_eq!(base64_decode("aGk"), None);
    }

    #[test]
    fn lists_in_one_variable() {
        let items = vec!["--app".to_owned(), "a b".to_owned()];
        assert_eq!(split(&join(&items)), items);
        assert!(split("").is_empty());
    }

    #[test]
    fn the_scripted_peer_answers_by_tool() {
        let call = |name: &str| json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name}});
        assert_eq!(
            rogue_result(&call("future_result")),
            Some(json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "deferred"}}))
        );
        assert_eq!(rogue_result(&call("other")).unwrap()["error"]["code"], 4040);
        assert_eq!(
            rogue_result(&json!({"jsonrpc": "2.0", "method": "notifications/x"})),
            None
        );
    }
}
