//! One suite body, several boundaries: the same literal rounds run against the core in-process
//! ([`Direct`]), against a spawned server speaking newline-delimited JSON over pipes
//! ([`Stdio`]), and against a spawned server listening for Streamable HTTP ([`Http`]).
//!
//! A [`Boundary`] takes one message as text (so that tests can write exact bytes: key order,
//! escapes, number literals) and returns the reply as JSON, with the notifications the server
//! sent before it. A [`Target`] starts boundaries of one kind with chosen state keys
//! ([`StateKeys`]), so a test can ask for a fresh server with the same secret (a restart, a
//! second replica), a server with another secret, a key ring, or none.
//!
//! Spawned servers are reused across the rounds of a test and waited for with a timeout
//! ([`PATIENCE`]), so a hang fails the test instead of blocking it. A spawned server must exit
//! cleanly and must not write anything nobody asked for; both are checked when the boundary
//! is dropped.
//!
//! Adding a transport is one more `impl Boundary`: a way to send one message and read what
//! comes back before its reply.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio as Piped};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use snodo_core::server::{
    Completion, CompletionReply, Done, Error, Handler, Prompt, PromptGet, PromptReply, Registry,
    Resource, ResourceRead, ResourceReply, ResourceTemplate, Round, Server, ServerCapabilities,
    Tool, ToolCall, ToolReply,
};
use snodo_core::state::{Keys, StateOptions};
use snodo_std::AsyncHandler;

use crate::harness::{NOW, PROTOCOL_VERSION, bare, round_async, round_sync};

/// How long a boundary waits for a server (to start, to answer, to exit) before the test
/// fails.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// The name under which [`Direct`] reports how often the application's handlers ran.
pub const HANDLER_RUNS: &str = "handler runs";

/// What a server sent for one message.
#[derive(Debug, Default)]
pub struct Exchange {
    /// Notifications sent before the reply (progress, log messages), in order.
    pub notifications: Vec<Value>,
    /// The reply, or `None` when the server sends nothing.
    pub reply: Option<Value>,
}

/// A way into a server: one message in, what the server sends for it out.
pub trait Boundary {
    /// `direct`, `stdio`, `http`: for failure messages.
    fn name(&self) -> &str;

    /// The server's `serverInfo`, as every result's `_meta` must carry it (written out by
    /// whoever started the boundary, not read from the server).
    fn server_info(&self) -> &Value;

    /// Sends one message (a JSON text, sent as written) and returns what came back.
    fn exchange(&mut self, message: &str) -> Exchange;

    /// Sends one message and returns its reply, failing the test if notifications came first.
    fn round(&mut self, message: &str) -> Option<Value> {
        let exchange = self.exchange(message);
        assert!(
            exchange.notifications.is_empty(),
            "{}: unexpected notifications before the reply to {message}: {:#?}",
            self.name(),
            exchange.notifications
        );
        exchange.reply
    }

    /// The time the server's rounds run at, when the boundary fixes it; `None` when the
    /// server reads its own clock.
    fn fixed_time(&self) -> Option<u64> {
        None
    }

    /// An in-process counter of the application (such as [`HANDLER_RUNS`]), where the
    /// boundary can see one; `None` across a process boundary.
    fn counter(&self, name: &str) -> Option<usize> {
        let _ = name;
        None
    }
}

// ---------------------------------------------------------------------------------------
// State keys and targets
// ---------------------------------------------------------------------------------------

/// Which keys a server seals request state with.
#[derive(Clone, Debug)]
pub enum StateKeys {
    /// The server's own: what it is configured with when nobody says otherwise (a spawned
    /// binary draws a random secret per process; the in-process fixtures use the suite's
    /// fixed secret).
    Own,
    /// One 32-byte secret.
    Secret([u8; 32]),
    /// A key ring of `(key id, secret)`; the first key seals, every key opens.
    Ring(Vec<(&'static str, [u8; 32])>),
    /// No keys at all: the server cannot seal.
    None,
}

impl StateKeys {
    /// The state options for these keys; `None` for [`StateKeys::None`]. [`StateKeys::Own`]
    /// has no options of its own: the caller decides what it means.
    #[track_caller]
    pub fn options(&self) -> Option<StateOptions> {
        self.keys().map(StateOptions::new)
    }

    /// The keys themselves; `None` for [`StateKeys::Own`] and [`StateKeys::None`].
    #[track_caller]
    pub fn keys(&self) -> Option<Keys> {
        let keys = match self {
            StateKeys::Own | StateKeys::None => return None,
            StateKeys::Secret(secret) => Keys::secret(secret),
            StateKeys::Ring(ring) => Keys::ring(ring),
        };
        Some(keys.expect("valid test keys"))
    }

    /// The command-line flags of `mrtr-fixture-server` for these keys.
    pub fn args(&self) -> Vec<String> {
        match self {
            StateKeys::Own => Vec::new(),
            StateKeys::Secret(secret) => vec!["--secret-hex".into(), hex(secret)],
            StateKeys::Ring(ring) => ring
                .iter()
                .flat_map(|(id, secret)| ["--key".into(), format!("{id}={}", hex(secret))])
                .collect(),
            StateKeys::None => vec!["--no-keys".into()],
        }
    }
}

/// Lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

type Start = dyn Fn(&StateKeys) -> Box<dyn Boundary>;

/// Starts boundaries of one kind: what a suite body is given, so that it can start as many
/// servers as it needs, with the keys it needs.
pub struct Target {
    name: &'static str,
    start: Box<Start>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("name", &self.name).finish()
    }
}

impl Target {
    /// A target named `name` whose servers `start` starts.
    pub fn new(
        name: &'static str,
        start: impl Fn(&StateKeys) -> Box<dyn Boundary> + 'static,
    ) -> Self {
        Target {
            name,
            start: Box::new(start),
        }
    }

    /// The target's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// A server with its own keys.
    pub fn start(&self) -> Box<dyn Boundary> {
        (self.start)(&StateKeys::Own)
    }

    /// A server sealing with `keys`.
    pub fn start_with(&self, keys: &StateKeys) -> Box<dyn Boundary> {
        (self.start)(keys)
    }
}

// ---------------------------------------------------------------------------------------
// Direct: the core in-process
// ---------------------------------------------------------------------------------------

/// Keeps state options for the rest of the test run, so that a `Server<'static, _>` can
/// borrow them (a boundary owns its server). Each call leaks one small value.
pub fn leak(options: StateOptions) -> &'static StateOptions {
    Box::leak(Box::new(options))
}

type Count<A> = fn(&A) -> usize;

/// One round in-process: `round_async` or `round_sync` of [`crate::harness`].
type RunRound<A> = fn(&Server<'_, A>, &[u8], Round<'_>) -> (Vec<Value>, Option<Value>);

/// The core in-process with a 64 KiB output buffer, anonymous, at [`NOW`]: through the
/// asynchronous round ([`snodo_std::handle`], on the test thread's runtime) as the adapters
/// run it, or through the core's synchronous round ([`Server::handle`], the firmware path)
/// for a synchronous application ([`Direct::sync`]).
pub struct Direct<A: AsyncHandler + 'static> {
    server: Server<'static, A>,
    info: Value,
    run: RunRound<A>,
    counters: Vec<(&'static str, Count<A>)>,
}

impl<A: AsyncHandler + 'static> std::fmt::Debug for Direct<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Direct").field("info", &self.info).finish()
    }
}

impl<A: AsyncHandler + 'static> Direct<A> {
    /// `server`, whose `serverInfo` is `info`, through the asynchronous round.
    pub fn new(server: Server<'static, A>, info: Value) -> Self {
        Direct {
            server,
            info,
            run: round_async,
            counters: Vec::new(),
        }
    }

    /// With a counter of the application, reported by [`Boundary::counter`] under `name`.
    #[must_use]
    pub fn counting(mut self, name: &'static str, count: Count<A>) -> Self {
        self.counters.push((name, count));
        self
    }

    /// The server, for what only in-process tests can do (another time, another principal).
    pub fn server(&self) -> &Server<'static, A> {
        &self.server
    }
}

impl<A: Handler + Send + Sync + 'static> Direct<A> {
    /// `server`, whose `serverInfo` is `info`, through the core's synchronous round.
    pub fn sync(server: Server<'static, A>, info: Value) -> Self {
        Direct {
            run: round_sync,
            ..Direct::new(server, info)
        }
    }
}

impl<A: AsyncHandler + 'static> Boundary for Direct<A> {
    fn name(&self) -> &str {
        "direct"
    }

    fn server_info(&self) -> &Value {
        &self.info
    }

    fn exchange(&mut self, message: &str) -> Exchange {
        let (notifications, reply) = (self.run)(&self.server, message.as_bytes(), NOW);
        Exchange {
            notifications,
            reply,
        }
    }

    fn fixed_time(&self) -> Option<u64> {
        Some(NOW.now)
    }

    fn counter(&self, name: &str) -> Option<usize> {
        let app = self.server.app();
        self.counters
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, count)| count(app))
    }
}

/// An application wrapped so that every run of one of its handlers (tool, resource, prompt;
/// not completions) is counted, for applications that keep no count of their own (the typed
/// layer's). The catalogue is the application's, unchanged.
#[derive(Debug)]
pub struct Counted<A> {
    inner: A,
    runs: AtomicUsize,
}

impl<A> Counted<A> {
    /// `inner`, whose handlers have not run.
    pub fn new(inner: A) -> Self {
        Counted {
            inner,
            runs: AtomicUsize::new(0),
        }
    }

    /// How many times a handler has run.
    pub fn handler_runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    fn ran(&self) -> &A {
        self.runs.fetch_add(1, Ordering::SeqCst);
        &self.inner
    }
}

impl<A: Registry> Registry for Counted<A> {
    fn tools(&self) -> &[Tool<'_>] {
        self.inner.tools()
    }

    fn resources(&self) -> &[Resource<'_>] {
        self.inner.resources()
    }

    fn resource_templates(&self) -> &[ResourceTemplate<'_>] {
        self.inner.resource_templates()
    }

    fn prompts(&self) -> &[Prompt<'_>] {
        self.inner.prompts()
    }

    fn completions(&self) -> bool {
        self.inner.completions()
    }

    fn capabilities(&self) -> ServerCapabilities {
        self.inner.capabilities()
    }
}

impl<A: AsyncHandler> AsyncHandler for Counted<A> {
    fn call_tool<'o>(
        &self,
        call: &ToolCall<'_>,
        reply: ToolReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        self.ran().call_tool(call, reply)
    }

    fn read_resource<'o>(
        &self,
        call: &ResourceRead<'_>,
        reply: ResourceReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        self.ran().read_resource(call, reply)
    }

    fn get_prompt<'o>(
        &self,
        call: &PromptGet<'_>,
        reply: PromptReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        self.ran().get_prompt(call, reply)
    }

    fn complete<'o>(
        &self,
        call: &Completion<'_>,
        reply: CompletionReply<'o>,
    ) -> impl Future<Output = Result<Done<'o>, Error>> + Send {
        self.inner.complete(call, reply)
    }
}

// ---------------------------------------------------------------------------------------
// A spawned server
// ---------------------------------------------------------------------------------------

/// A child process whose standard output is read line by line on a thread of its own and
/// whose standard error is kept for failure messages.
struct Process {
    label: String,
    child: Child,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

impl Process {
    #[track_caller]
    fn spawn(mut command: Command, stdin: Piped) -> Process {
        let label = format!("{command:?}");
        let mut child = command
            .env("RUST_LOG", "warn")
            .stdin(stdin)
            .stdout(Piped::piped())
            .stderr(Piped::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {label}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut errors = child.stderr.take().expect("piped stderr");
        let (tx, lines) = channel();
        thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                        }
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = errors.read(&mut chunk) {
                kept.lock()
                    .expect("stderr lock")
                    .extend_from_slice(&chunk[..n]);
            }
        });
        Process {
            label,
            child,
            lines,
            stderr,
        }
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("stderr lock")).into_owned()
    }

    /// The next line of standard output, failing the test after [`PATIENCE`] or when the
    /// output ends.
    #[track_caller]
    fn next_line(&mut self, waiting_for: &str) -> Vec<u8> {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!(
                "{}: no answer within {PATIENCE:?} while waiting for {waiting_for}\nstderr:\n{}",
                self.label,
                self.stderr()
            ),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.try_wait().ok().flatten();
                panic!(
                    "{}: standard output ended (exit: {status:?}) while waiting for \
                     {waiting_for}\nstderr:\n{}",
                    self.label,
                    self.stderr()
                )
            }
        }
    }

    /// Waits for the process to exit; kills it after [`PATIENCE`].
    fn wait(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(5)),
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        }
    }

    /// Kills the process (if it still runs) and reaps it; the exit status when it had already
    /// exited by itself.
    fn kill(&mut self) -> Option<ExitStatus> {
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(status);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }

    /// Fails the test (unless it is failing already) if standard output holds messages that
    /// no request asked for.
    fn check_nothing_unasked(&self) {
        // The reader thread has seen the end of output once the process is gone.
        let extra: Vec<String> = self
            .lines
            .try_iter()
            .map(|l| String::from_utf8_lossy(&l).into_owned())
            .collect();
        if !extra.is_empty() && !thread::panicking() {
            panic!(
                "{}: messages nobody asked for: {extra:#?}\nstderr:\n{}",
                self.label,
                self.stderr()
            );
        }
    }
}

/// Parses one line of output as a JSON-RPC message: ASCII only (non-ASCII is escaped), one
/// JSON value, `jsonrpc: "2.0"`.
#[track_caller]
fn parse_message(label: &str, line: &[u8]) -> Value {
    let text = String::from_utf8_lossy(line);
    assert!(line.is_ascii(), "{label}: non-ASCII output: {text}");
    let message: Value = serde_json::from_slice(line)
        .unwrap_or_else(|e| panic!("{label}: output is not one JSON message ({e}): {text}"));
    assert_eq!(message["jsonrpc"], "2.0", "{label}: {message}");
    message
}

/// Whether `message` is a response (it has an id and no method).
fn is_response(message: &Value) -> bool {
    message.get("method").is_none() && message.get("id").is_some()
}

/// The id a reply to `message` carries, when `message` is a request that has one.
fn request_id(message: &str) -> Option<Value> {
    let value: Value = serde_json::from_str(message).ok()?;
    value.get("method")?;
    value.get("id").cloned()
}

// ---------------------------------------------------------------------------------------
// Stdio
// ---------------------------------------------------------------------------------------

/// A spawned server speaking newline-delimited JSON on its standard input and output.
///
/// A request is written as one line and answered by the response with its id; anything
/// without a method-and-id (a notification, a line that is not JSON) is followed by a probe
/// (`server/discover`, answered in order by the reader), and the reply to the message is
/// whatever response comes before the probe's, if any. At the end the server's input is
/// closed: it must exit successfully, having written nothing more.
pub struct Stdio {
    process: Process,
    stdin: Option<ChildStdin>,
    info: Value,
    probes: u64,
}

impl std::fmt::Debug for Stdio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio")
            .field("process", &self.process.label)
            .finish()
    }
}

impl Stdio {
    /// Starts `command` (which must serve stdio) as a server whose `serverInfo` is `info`.
    #[track_caller]
    pub fn spawn(command: Command, info: Value) -> Stdio {
        let mut process = Process::spawn(command, Piped::piped());
        let stdin = process.child.stdin.take();
        Stdio {
            process,
            stdin,
            info,
            probes: 0,
        }
    }

    #[track_caller]
    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("the input is open");
        let written = stdin
            .write_all(line.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush());
        if let Err(e) = written {
            panic!(
                "{}: cannot write to the server ({e})\nstderr:\n{}",
                self.process.label,
                self.process.stderr()
            );
        }
    }
}

impl Boundary for Stdio {
    fn name(&self) -> &str {
        "stdio"
    }

    fn server_info(&self) -> &Value {
        &self.info
    }

    fn exchange(&mut self, message: &str) -> Exchange {
        assert!(
            !message.contains('\n'),
            "a stdio message is one line: {message}"
        );
        self.send_line(message);
        let (wanted, probe) = match request_id(message) {
            Some(id) => (id, false),
            None => {
                self.probes += 1;
                let id = Value::from(format!("boundary-probe-{}", self.probes));
                self.send_line(&bare(id.clone(), "server/discover"));
                (id, true)
            }
        };
        let label = self.process.label.clone();
        let mut exchange = Exchange::default();
        loop {
            let line = self.process.next_line(message);
            let received = parse_message(&label, &line);
            if !is_response(&received) {
                exchange.notifications.push(received);
            } else if received["id"] == wanted {
                if !probe {
                    exchange.reply = Some(received);
                }
                return exchange;
            } else if probe && exchange.reply.is_none() {
                exchange.reply = Some(received);
            } else if received["id"].is_null() && exchange.reply.is_none() {
                // The error for a message whose id the server could not read: the reply to
                // the one message in flight.
                return Exchange {
                    reply: Some(received),
                    ..exchange
                };
            } else {
                panic!("{label}: a response nobody waits for: {received}\nafter: {message}");
            }
        }
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        // The end of input: the server answers what it admitted, then exits. A failing test
        // does not wait for that.
        drop(self.stdin.take());
        if thread::panicking() {
            self.process.kill();
            return;
        }
        let status = self.process.wait();
        self.process.check_nothing_unasked();
        if !thread::panicking() && !status.is_some_and(|s| s.success()) {
            panic!(
                "{}: did not exit cleanly at the end of input ({status:?})\nstderr:\n{}",
                self.process.label,
                self.process.stderr()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------

/// A spawned server listening for Streamable HTTP, that prints its endpoint's URL as its
/// first line of output: the URL itself, or `{"url":…}`.
///
/// Each message is one POST on a connection of its own (`Connection: close`), with the
/// headers a conformant client sends: `Content-Type: application/json`, an `Accept` of JSON
/// and event streams, `MCP-Protocol-Version` (the body's, else the revision under test),
/// `Mcp-Method` and, for the methods that name something, `Mcp-Name`. A reply comes as one
/// JSON body whose status must follow its error code (400, 404, 500 or 200), or as an event
/// stream whose last message is the reply; 202 with no body means no reply. At the end the
/// server is killed; it must not have exited by itself.
pub struct Http {
    process: Process,
    authority: String,
    path: String,
    info: Value,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http")
            .field("process", &self.process.label)
            .field("authority", &self.authority)
            .finish()
    }
}

impl Http {
    /// Starts `command` (which must listen and print its URL first) as a server whose
    /// `serverInfo` is `info`.
    #[track_caller]
    pub fn spawn(command: Command, info: Value) -> Http {
        let mut process = Process::spawn(command, Piped::null());
        let first = process.next_line("the endpoint's URL");
        let first = String::from_utf8_lossy(&first).trim().to_owned();
        let url = match serde_json::from_str::<Value>(&first) {
            Ok(Value::Object(o)) => o
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("no url in {first}"))
                .to_owned(),
            _ => first,
        };
        let rest = url
            .strip_prefix("http://")
            .unwrap_or_else(|| panic!("{}: not an http URL: {url}", process.label));
        let (authority, path) = match rest.find('/') {
            Some(i) => (rest[..i].to_owned(), rest[i..].to_owned()),
            None => (rest.to_owned(), "/".to_owned()),
        };
        Http {
            process,
            authority,
            path,
            info,
        }
    }

    /// The POST of `body` with the headers a client derives from it.
    fn request(&self, body: &str) -> Vec<u8> {
        let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let params = &parsed["params"];
        let version = params["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or(PROTOCOL_VERSION);
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {}\r\n",
            self.path,
            self.authority,
            header_value(version)
        );
        if let Some(method) = parsed["method"].as_str() {
            head += &format!("Mcp-Method: {}\r\n", header_value(method));
            let name = match method {
                "tools/call" | "prompts/get" => params["name"].as_str(),
                "resources/read" => params["uri"].as_str(),
                _ => None,
            };
            if let Some(name) = name {
                head += &format!("Mcp-Name: {}\r\n", header_value(name));
            }
        }
        head += &format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let mut request = head.into_bytes();
        request.extend_from_slice(body.as_bytes());
        request
    }

    #[track_caller]
    fn post(&self, body: &str) -> Response {
        let fail = |what: &str, e: std::io::Error| -> ! {
            panic!(
                "{}: {what} ({e}) for {body}\nstderr:\n{}",
                self.process.label,
                self.process.stderr()
            )
        };
        let mut stream =
            TcpStream::connect(&self.authority).unwrap_or_else(|e| fail("cannot connect", e));
        stream
            .set_read_timeout(Some(PATIENCE))
            .and_then(|()| stream.set_write_timeout(Some(PATIENCE)))
            .unwrap_or_else(|e| fail("cannot set timeouts", e));
        stream
            .write_all(&self.request(body))
            .unwrap_or_else(|e| fail("cannot send", e));
        let mut bytes = Vec::new();
        stream
            .read_to_end(&mut bytes)
            .unwrap_or_else(|e| fail("no whole response in time", e));
        Response::parse(&bytes)
            .unwrap_or_else(|| panic!("not an HTTP response: {}", String::from_utf8_lossy(&bytes)))
    }
}

impl Boundary for Http {
    fn name(&self) -> &str {
        "http"
    }

    fn server_info(&self) -> &Value {
        &self.info
    }

    fn exchange(&mut self, message: &str) -> Exchange {
        let response = self.post(message);
        let label = &self.process.label;
        let content_type = response.header("content-type").unwrap_or("").to_owned();
        if response.status == 202 {
            assert!(
                response.body.is_empty(),
                "{label}: 202 with a body: {response:?}"
            );
            return Exchange::default();
        }
        if content_type.starts_with("application/json") {
            let reply = parse_message(label, &response.body);
            assert_eq!(
                response.status,
                status_of(&reply),
                "{label}: the HTTP status does not follow the reply {reply}"
            );
            return Exchange {
                notifications: Vec::new(),
                reply: Some(reply),
            };
        }
        if content_type.starts_with("text/event-stream") {
            assert_eq!(response.status, 200, "{label}: {response:?}");
            let mut messages: Vec<Value> = event_data(&response.body)
                .iter()
                .map(|data| parse_message(label, data.as_bytes()))
                .collect();
            let reply = messages.pop();
            assert!(
                reply.as_ref().is_some_and(is_response),
                "{label}: an event stream must end with the reply: {messages:#?} {reply:?}"
            );
            return Exchange {
                notifications: messages,
                reply,
            };
        }
        panic!("{label}: unexpected response to {message}: {response:?}");
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let exited = self.process.kill();
        self.process.check_nothing_unasked();
        if let (Some(status), false) = (exited, thread::panicking()) {
            panic!(
                "{}: exited by itself ({status})\nstderr:\n{}",
                self.process.label,
                self.process.stderr()
            );
        }
    }
}

/// The HTTP status of a JSON reply, from the Streamable HTTP rules: 400 for -32700, -32600,
/// -32602, -32020, -32021 and -32022; 404 for -32601; 500 for -32603; 200 for a result and
/// for any other code.
pub fn status_of(reply: &Value) -> u16 {
    match reply.pointer("/error/code").and_then(Value::as_i64) {
        Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => 400,
        Some(-32601) => 404,
        Some(-32603) => 500,
        _ => 200,
    }
}

/// A header value as sent: the text itself when it is visible ASCII and spaces, otherwise
/// `=?base64?…?=` around its UTF-8 bytes in standard padded Base64.
fn header_value(text: &str) -> String {
    if text.bytes().all(|b| b == b' ' || b.is_ascii_graphic()) {
        return text.to_owned();
    }
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::from("=?base64?");
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out + "?="
}

/// An HTTP response read whole.
#[derive(Debug)]
struct Response {
    status: u16,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Response {
    fn parse(bytes: &[u8]) -> Option<Response> {
        let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = std::str::from_utf8(&bytes[..end]).ok()?;
        let mut lines = head.split("\r\n");
        let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
        let headers: HashMap<String, String> = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let rest = &bytes[end + 4..];
        let chunked = headers
            .get("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        let body = if chunked {
            dechunk(rest)?
        } else if let Some(len) = headers.get("content-length") {
            rest.get(..len.parse::<usize>().ok()?)?.to_vec()
        } else {
            rest.to_vec()
        };
        Some(Response {
            status,
            headers,
            body,
        })
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// The body of a chunked transfer, or `None` when it is cut short.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}

/// The `data` of each event of an event stream, in order (comments and other fields
/// skipped, multi-line data joined with `\n`).
fn event_data(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            (!data.is_empty()).then(|| data.join("\n"))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// The servers the suites spawn
// ---------------------------------------------------------------------------------------

/// Builds the `preferences` example of `snodo-std` (once per test binary) and returns the
/// path of its executable.
pub fn example_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("tests/ is in the workspace");
        let output = Command::new(cargo)
            .current_dir(workspace)
            .args(["build", "-p", "snodo-std", "--example", "preferences"])
            .arg("--message-format=json-render-diagnostics")
            .stderr(Piped::inherit())
            .output()
            .expect("cargo runs");
        assert!(output.status.success(), "building the example failed");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "preferences")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo names the example's executable")
    })
}

/// The `preferences` example serving stdio (`--stdio`) or HTTP (`--http 127.0.0.1:0`).
pub fn example_command(transport: Transport) -> Command {
    let mut command = Command::new(example_binary());
    command.args(transport.args());
    command
}

/// `mrtr-fixture-server` at `program` (an integration test's
/// `env!("CARGO_BIN_EXE_mrtr-fixture-server")`) serving `app` (`fixture` or `preferences`)
/// over `transport`, sealing with `keys`.
pub fn fixture_server_command(
    program: &str,
    app: &str,
    keys: &StateKeys,
    transport: Transport,
) -> Command {
    let mut command = Command::new(program);
    command
        .args(["--app", app])
        .args(keys.args())
        .args(transport.args());
    command
}

/// Servers of `mrtr-fixture-server` at `program` (an integration test's
/// `env!("CARGO_BIN_EXE_mrtr-fixture-server")`) serving `app` over `transport`, one process
/// per server a test starts, with the fixtures' identity ([`crate::harness::server_info`]).
pub fn fixture_server_target(
    program: &'static str,
    app: &'static str,
    transport: Transport,
) -> Target {
    Target::new(transport.name(), move |keys| {
        transport.spawn(
            fixture_server_command(program, app, keys, transport),
            crate::harness::server_info(),
        )
    })
}

/// The `preferences` example's `serverInfo`; its version is the workspace version, as is this
/// crate's.
pub fn example_info() -> Value {
    serde_json::json!({
        "name": "snodo-preferences",
        "title": "Snodo preferences example",
        "version": env!("CARGO_PKG_VERSION")
    })
}

/// The `preferences` example over `transport` when a test leaves the keys to the server
/// (it seals with a random secret per process); where a test chooses the keys (the same
/// secret in fresh processes, another secret, a key ring, none), `mrtr-fixture-server
/// --app preferences` at `program` with those keys: the same flow code, the fixtures'
/// identity.
pub fn example_target(program: &'static str, transport: Transport) -> Target {
    Target::new(transport.name(), move |keys| match keys {
        StateKeys::Own => transport.spawn(example_command(transport), example_info()),
        keys => transport.spawn(
            fixture_server_command(program, "preferences", keys, transport),
            crate::harness::server_info(),
        ),
    })
}

/// How a spawned server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Standard input and output.
    Stdio,
    /// Streamable HTTP on a free loopback port.
    Http,
}

impl Transport {
    /// `stdio` or `http`: a target's name.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }

    fn args(self) -> &'static [&'static str] {
        match self {
            Transport::Stdio => &["--stdio"],
            Transport::Http => &["--http", "127.0.0.1:0"],
        }
    }

    /// Starts `command` (built for this transport) as a boundary.
    #[track_caller]
    pub fn spawn(self, command: Command, info: Value) -> Box<dyn Boundary> {
        match self {
            Transport::Stdio => Box::new(Stdio::spawn(command, info)),
            Transport::Http => Box::new(Http::spawn(command, info)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_outside_visible_ascii_are_base64() {
        assert_eq!(header_value("tools/call"), "tools/call");
        assert_eq!(header_value("caf\u{e9}"), "=?base64?Y2Fmw6k=?=");
        assert_eq!(header_value("a\tb"), "=?base64?YQli?=");
    }

    #[test]
    fn chunked_bodies_and_event_streams() {
        let body = dechunk(b"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\n\r\n").unwrap();
        assert_eq!(body, b"hello world");
        assert_eq!(dechunk(b"5\r\nhel"), None);
        let events = event_data(b": keep-alive\n\nevent: message\ndata: {\"a\":1}\n\ndata: 2\n\n");
        assert_eq!(events, ["{\"a\":1}", "2"]);
    }

    #[test]
    fn the_status_follows_the_error_code() {
        use serde_json::json;
        assert_eq!(status_of(&json!({"result": {}})), 200);
        assert_eq!(status_of(&json!({"error": {"code": -32021}})), 400);
        assert_eq!(status_of(&json!({"error": {"code": -32601}})), 404);
        assert_eq!(status_of(&json!({"error": {"code": -32603}})), 500);
        assert_eq!(status_of(&json!({"error": {"code": 4003}})), 200);
    }

    #[test]
    fn key_flags() {
        assert_eq!(StateKeys::Own.args(), Vec::<String>::new());
        assert_eq!(StateKeys::None.args(), ["--no-keys"]);
        assert_eq!(
            StateKeys::Ring(vec![("a", [1; 32])]).args(),
            ["--key".to_owned(), format!("a={}", "01".repeat(32))]
        );
    }
}
