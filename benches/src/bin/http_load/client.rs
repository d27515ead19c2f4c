//! Keep-alive HTTP/1.1 clients, one connection each, driving one scenario in a closed loop
//! (each client sends its next request as soon as the previous answer is read) for a
//! bounded time.

use std::io::Write as _;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::stats::Samples;

/// The `_meta` of a request from a client that declares nothing.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
/// The `_meta` of a request from a client that can answer form elicitations.
const ELICITING_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
/// The `_meta` of a request from a client that takes tasks and answers forms.
const TASKS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
/// What `echo` is asked to return.
pub(crate) const ECHO_TEXT: &str = "hello from http_load";
/// What the flow's last leg returns for the answers the clients give.
pub(crate) const FLOW_RESULT: &str =
    r#"{\"color\":\"teal\",\"style\":\"bold\",\"status\":\"preview\"}"#;

/// Where the server listens: a loopback address and the endpoint's path.
#[derive(Debug)]
pub struct Target {
    pub addr: SocketAddr,
    host: String,
    path: String,
}

impl Target {
    /// Reads `http://HOST:PORT/PATH`; refuses anything that is not on loopback.
    pub fn parse(url: &str) -> Result<Target, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("`{url}`: only http:// URLs"))?;
        let (authority, path) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
        let addrs: Vec<SocketAddr> = authority
            .to_socket_addrs()
            .map_err(|e| format!("`{authority}`: {e}"))?
            .collect();
        let addr = *addrs
            .first()
            .ok_or_else(|| format!("`{authority}` has no address"))?;
        if !addrs.iter().all(|a| a.ip().is_loopback()) {
            return Err(format!(
                "`{authority}` is not loopback; this tool loads loopback only"
            ));
        }
        Ok(Target {
            addr,
            host: authority.to_owned(),
            path: path.to_owned(),
        })
    }
}

/// What the clients do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// `tools/call` of `echo`, over and over.
    Echo,
    /// The three legs of `preference_preview` (ask color, ask style, complete), over and
    /// over; each leg echoes the sealed state and adds the answer to the question asked.
    Flow,
    /// `tools/call` of `report` from a client that takes tasks: one task created per
    /// request (its work then waits for its question's answer), over and over.
    TaskCreate,
    /// `tasks/get` of one task (created before the window, waiting for input), over and
    /// over.
    TaskPoll,
}

impl Scenario {
    /// How many requests one unit of work takes.
    pub fn legs(self) -> usize {
        match self {
            Scenario::Echo | Scenario::TaskCreate | Scenario::TaskPoll => 1,
            Scenario::Flow => 3,
        }
    }
}

/// How hard and how long to load.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Concurrent clients, one keep-alive connection each.
    pub clients: usize,
    /// Load before measuring (connections opened, caches warm); not counted.
    pub warmup: Duration,
    /// The measured window after the warm-up.
    pub duration: Duration,
    /// Longest wait for one response; a slower one is an error.
    pub timeout: Duration,
    /// Whether each client opens a 2025-11-25 session (`initialize`, then every call with
    /// its `Mcp-Session-Id` and no `_meta` envelope) instead of speaking 2026-07-28. `Echo`
    /// only: the legacy flow's questions come on an event stream this generator does not read.
    pub legacy: bool,
}

/// What the clients measured. Only requests that completed inside the window count; errors
/// count over the whole phase, warm-up included.
#[derive(Debug)]
pub struct Outcome {
    /// Latency of each leg (one for `Echo`, three for `Flow`).
    pub legs: Vec<Samples>,
    /// Units of work (requests for `Echo`, whole flows for `Flow`) completed in the window.
    pub completed: u64,
    /// Failed requests: refused connections, timeouts, non-200 or unexpected answers.
    pub errors: u64,
    /// The first failure, to show.
    pub first_error: Option<String>,
}

impl Outcome {
    fn new(scenario: Scenario) -> Outcome {
        Outcome {
            legs: (0..scenario.legs()).map(|_| Samples::default()).collect(),
            completed: 0,
            errors: 0,
            first_error: None,
        }
    }

    fn merge(&mut self, other: Outcome) {
        for (mine, theirs) in self.legs.iter_mut().zip(other.legs) {
            mine.merge(theirs);
        }
        self.completed += other.completed;
        self.errors += other.errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }

    fn fail(&mut self, problem: String) {
        self.errors += 1;
        self.first_error.get_or_insert(problem);
    }

    /// Requests completed in the window, all legs together.
    pub fn requests(&self) -> u64 {
        self.legs.iter().map(|l| l.len() as u64).sum()
    }
}

/// Runs `plan.clients` clients on `scenario` for the warm-up and the window, and gathers
/// what they measured. Returns once every client has stopped: at the end of the window plus
/// at most one request timeout.
pub async fn run(target: Arc<Target>, scenario: Scenario, plan: Plan) -> Outcome {
    let window_start = Instant::now() + plan.warmup;
    let window = Window {
        start: window_start,
        end: window_start + plan.duration,
    };
    let clients: Vec<_> = (0..plan.clients)
        .map(|n| {
            let client = Client {
                target: target.clone(),
                connection: None,
                session: plan.legacy.then_some(None),
                window,
                timeout: plan.timeout,
                next_id: (n as u64) << 32,
                out: Outcome::new(scenario),
            };
            tokio::spawn(client.run(scenario))
        })
        .collect();
    let mut total = Outcome::new(scenario);
    for client in clients {
        match client.await {
            Ok(outcome) => total.merge(outcome),
            Err(e) => total.fail(format!("a client task failed: {e}")),
        }
    }
    total
}

/// The measured window.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: Instant,
    end: Instant,
}

impl Window {
    fn holds(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

/// One client: a connection (opened again after a failure) and what it measured.
struct Client {
    target: Arc<Target>,
    connection: Option<Connection>,
    /// In a legacy plan, the session this client opened (`Some(None)` until it has one).
    session: Option<Option<String>>,
    window: Window,
    timeout: Duration,
    next_id: u64,
    out: Outcome,
}

impl Client {
    async fn run(mut self, scenario: Scenario) -> Outcome {
        if self.session.is_some() && scenario == Scenario::Flow {
            self.out
                .fail("the legacy HTTP flow is not generated (echo only)".to_owned());
            return self.out;
        }
        let mut polled = None;
        while Instant::now() < self.window.end {
            match scenario {
                Scenario::Echo => self.echo().await,
                Scenario::Flow => self.flow().await,
                Scenario::TaskCreate => {
                    self.create_task(true).await;
                }
                Scenario::TaskPoll => match polled.take() {
                    None => polled = self.create_task(false).await,
                    Some(task) => {
                        self.poll_task(&task).await;
                        polled = Some(task);
                    }
                },
            }
        }
        self.out
    }

    /// Creates a `report` task; its id. Counted in the window when `counted`.
    async fn create_task(&mut self, counted: bool) -> Option<String> {
        let id = self.id();
        let body = report_body(id);
        let (reply, in_window) = self.call(0, "tools/call", "report", body).await?;
        let parsed: Value = serde_json::from_slice(&reply).unwrap_or_default();
        let result = &parsed["result"];
        match result["taskId"].as_str() {
            Some(task) if parsed["id"] == id && result["resultType"] == "task" => {
                if counted && in_window {
                    self.out.completed += 1;
                }
                Some(task.to_owned())
            }
            _ => {
                self.out
                    .fail(format!("report: expected a task, got {parsed}"));
                None
            }
        }
    }

    /// One `tasks/get` of `task`, which must answer the task.
    async fn poll_task(&mut self, task: &str) {
        let id = self.id();
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tasks/get","params":{{{TASKS_META},"taskId":"{task}"}}}}"#
        );
        let Some((reply, in_window)) = self.call(0, "tasks/get", task, body).await else {
            return;
        };
        let expected = [format!(r#""id":{id}"#), format!(r#""taskId":"{task}""#)];
        match expected.iter().find(|e| !contains(&reply, e.as_bytes())) {
            Some(missing) => self.out.fail(format!(
                "tasks/get: {missing} missing from {}",
                String::from_utf8_lossy(&reply)
            )),
            None if in_window => self.out.completed += 1,
            None => {}
        }
    }

    async fn echo(&mut self) {
        let id = self.id();
        let legacy = self.session.is_some();
        let body = if legacy {
            legacy_echo_body(id)
        } else {
            echo_body(id)
        };
        let Some((reply, in_window)) = self.call(0, "tools/call", "echo", body).await else {
            return;
        };
        let wrong = if legacy {
            legacy_mismatch(id, &reply, ECHO_TEXT)
        } else {
            echo_mismatch(id, &reply)
        };
        if let Some(missing) = wrong {
            self.out.fail(format!(
                "echo: {missing} missing from {}",
                String::from_utf8_lossy(&reply)
            ));
        } else if in_window {
            self.out.completed += 1;
        }
    }

    async fn flow(&mut self) {
        // Leg 1: no state; the server asks for a color.
        let Some(state) = self.leg(0, None, "color").await else {
            return;
        };
        // Leg 2: the state back with the color; the server asks for a style.
        let Some(state) = self.leg(1, Some((&state, FLOW_ANSWERS[0])), "style").await else {
            return;
        };
        if Instant::now() >= self.window.end {
            return;
        }
        // Leg 3: the state back with the style; the server completes.
        let id = self.id();
        let body = flow_body(id, Some((&state, FLOW_ANSWERS[1])));
        let Some((reply, in_window)) = self.call(2, "tools/call", "preference_preview", body).await
        else {
            return;
        };
        if let Some(missing) = flow_mismatch(id, &reply) {
            self.out.fail(format!(
                "flow leg 3: {missing} missing from {}",
                String::from_utf8_lossy(&reply)
            ));
        } else if in_window {
            self.out.completed += 1;
        }
    }

    /// A leg that must answer `input_required` asking `asks`; returns the sealed state.
    async fn leg(
        &mut self,
        leg: usize,
        previous: Option<(&str, &str)>,
        asks: &str,
    ) -> Option<String> {
        if Instant::now() >= self.window.end {
            return None;
        }
        let id = self.id();
        let body = flow_body(id, previous);
        let (reply, _) = self
            .call(leg, "tools/call", "preference_preview", body)
            .await?;
        let parsed: Value = match serde_json::from_slice(&reply) {
            Ok(v) => v,
            Err(e) => {
                self.out
                    .fail(format!("flow leg {}: not JSON ({e})", leg + 1));
                return None;
            }
        };
        let result = &parsed["result"];
        let state = result["requestState"].as_str();
        match state {
            Some(state)
                if parsed["id"] == id
                    && result["resultType"] == "input_required"
                    && result["inputRequests"][asks]["method"] == "elicitation/create" =>
            {
                Some(state.to_owned())
            }
            _ => {
                self.out.fail(format!(
                    "flow leg {}: expected input_required asking {asks}, got {parsed}",
                    leg + 1
                ));
                None
            }
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// POSTs `body` as `method` about `name` (a tool, or a task id) and reads the whole
    /// answer; records its latency under `leg` when it completed in the window. `None`
    /// (counted as an error, connection dropped) on any failure.
    async fn call(
        &mut self,
        leg: usize,
        method: &'static str,
        name: &str,
        body: String,
    ) -> Option<(Bytes, bool)> {
        let mut connection = match self.connection.take() {
            Some(connection) => connection,
            None => match Connection::open(&self.target).await {
                Ok(connection) => connection,
                Err(e) => {
                    self.out.fail(e);
                    // Do not spin on a server that is gone; the window still bounds the run.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    return None;
                }
            },
        };
        let headers = match &mut self.session {
            None => Headers::Modern { method, name },
            Some(session) => {
                if session.is_none() {
                    match open_session(&mut connection, &self.target).await {
                        Ok(id) => *session = Some(id),
                        Err(e) => {
                            self.out.fail(format!("initialize: {e}"));
                            return None;
                        }
                    }
                }
                Headers::Legacy {
                    session: session.as_deref(),
                }
            }
        };
        let started = Instant::now();
        let answered = tokio::time::timeout(
            self.timeout,
            connection.post(&self.target, headers, body.as_bytes()),
        )
        .await;
        let finished = Instant::now();
        match answered {
            Ok(Ok(reply)) => {
                self.connection = Some(connection);
                let in_window = self.window.holds(finished);
                if in_window {
                    self.out.legs[leg].push(finished - started);
                }
                Some((reply, in_window))
            }
            Ok(Err(e)) => {
                self.out.fail(e);
                None
            }
            Err(_) => {
                self.out
                    .fail(format!("no answer within {:?}", self.timeout));
                None
            }
        }
    }
}

/// A `tools/call` of `report` that becomes a task (its first half takes no time, then it
/// waits for its question's answer).
pub fn report_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{TASKS_META},"name":"report","arguments":{{"topic":"http_load","seconds":0}}}}}}"#
    )
}

/// A `tools/call` of `echo`.
pub fn echo_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    )
}

/// A `tools/call` of `echo` in a legacy session: no `_meta` envelope.
pub fn legacy_echo_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    )
}

/// The handshake of a legacy client that declares no capabilities.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"http_load","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Opens a legacy session on `connection`: `initialize`, then `notifications/initialized`
/// with the session id the server minted; that id.
async fn open_session(connection: &mut Connection, target: &Target) -> Result<String, String> {
    let opening = Headers::Legacy { session: None };
    let answer = connection
        .send(target, opening, INITIALIZE.as_bytes())
        .await?;
    let session = answer
        .session
        .filter(|_| answer.status == 200 && contains(&answer.body, b"\"2025-11-25\""))
        .ok_or_else(|| {
            format!(
                "HTTP {} without a 2025-11-25 session: {}",
                answer.status,
                String::from_utf8_lossy(&answer.body)
            )
        })?;
    let opened = Headers::Legacy {
        session: Some(&session),
    };
    let answer = connection
        .send(target, opened, INITIALIZED.as_bytes())
        .await?;
    if answer.status != 202 {
        return Err(format!("notifications/initialized: HTTP {}", answer.status));
    }
    Ok(session)
}

/// What is wrong with the legacy answer to request `id`, if anything: its id, its `text`,
/// and no 2026-only `resultType`.
pub fn legacy_mismatch(id: u64, reply: &[u8], text: &str) -> Option<String> {
    if contains(reply, br#""resultType""#) {
        return Some("a result without resultType".to_owned());
    }
    [format!(r#""id":{id},"#), format!(r#""text":"{text}""#)]
        .into_iter()
        .find(|e| !contains(reply, e.as_bytes()))
}

/// What is missing from the answer to `echo` request `id`, if anything.
pub fn echo_mismatch(id: u64, reply: &[u8]) -> Option<String> {
    let expected = [
        format!(r#""id":{id},"#),
        format!(r#""text":"{ECHO_TEXT}""#),
        r#""resultType":"complete""#.to_owned(),
    ];
    expected
        .into_iter()
        .find(|e| !contains(reply, e.as_bytes()))
}

/// What is missing from the answer to the flow's last leg, request `id`, if anything.
pub fn flow_mismatch(id: u64, reply: &[u8]) -> Option<String> {
    let expected = [
        format!(r#""id":{id},"#),
        r#""resultType":"complete""#.to_owned(),
        format!(r#""text":"{FLOW_RESULT}""#),
    ];
    expected
        .into_iter()
        .find(|e| !contains(reply, e.as_bytes()))
}

/// The input responses of the flow's legs 2 (the color) and 3 (the style).
pub const FLOW_ANSWERS: [&str; 2] = [
    r#""color":{"action":"accept","content":{"color":"teal"}}"#,
    r#""style":{"action":"accept","content":{"style":"bold"}}"#,
];

/// A `tools/call` of `preference_preview`; with `previous` = (sealed state, one input
/// response member) for the legs after the first.
pub fn flow_body(id: u64, previous: Option<(&str, &str)>) -> String {
    let more = match previous {
        None => String::new(),
        Some((state, answer)) => format!(
            r#","requestState":{},"inputResponses":{{{answer}}}"#,
            Value::from(state)
        ),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{ELICITING_META},"name":"preference_preview","arguments":{{"subject":"http_load"}}{more}}}}}"#
    )
}

/// Whether `needle` occurs in `haystack`.
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The longest answer head and body a connection reads.
const MAX_ANSWER: usize = 1 << 20;

/// A keep-alive HTTP/1.1 connection (no Nagle delay) that its client's own task drives: each
/// request written with one `write_all`, its answer read into a buffer the connection keeps.
/// There is no connection task and no channel between tasks, so a request costs this
/// generator its system calls and wakes no other task: about 5 µs of CPU per request, where a
/// hyper client (a task per connection, woken through channels) took about 8 µs, nearly what
/// the faster server spent, so at that server's rates the generator's own queue could add to
/// the latencies it measured.
struct Connection {
    stream: TcpStream,
    /// The answer being read (and what was written before it, briefly).
    buf: Vec<u8>,
}

impl Connection {
    async fn open(target: &Target) -> Result<Connection, String> {
        let stream = TcpStream::connect(target.addr)
            .await
            .map_err(|e| format!("connect {}: {e}", target.addr))?;
        stream
            .set_nodelay(true)
            .map_err(|e| format!("nodelay: {e}"))?;
        Ok(Connection {
            stream,
            buf: Vec::with_capacity(4096),
        })
    }

    /// One POST of `tools/call` with `headers`; the body of a 200 `application/json` answer
    /// (which must carry a `Content-Length`).
    async fn post(
        &mut self,
        target: &Target,
        headers: Headers<'_>,
        body: &[u8],
    ) -> Result<Bytes, String> {
        let answer = self.send(target, headers, body).await?;
        if answer.status != 200 || !answer.json {
            let shown = &answer.body[..answer.body.len().min(300)];
            return Err(format!(
                "HTTP {} (JSON: {}): {}",
                answer.status,
                answer.json,
                String::from_utf8_lossy(shown)
            ));
        }
        Ok(answer.body)
    }

    /// One POST with `headers`, and its answer, whatever its status.
    async fn send(
        &mut self,
        target: &Target,
        headers: Headers<'_>,
        body: &[u8],
    ) -> Result<Answer, String> {
        self.buf.clear();
        write!(
            self.buf,
            "POST {} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\n",
            target.path, target.host,
        )
        .map_err(|e| format!("request: {e}"))?;
        match headers {
            Headers::Modern { method, name } => write!(
                self.buf,
                "mcp-protocol-version: 2026-07-28\r\nmcp-method: {method}\r\nmcp-name: {name}\r\n"
            ),
            Headers::Legacy { session: None } => Ok(()),
            Headers::Legacy {
                session: Some(session),
            } => write!(
                self.buf,
                "mcp-protocol-version: 2025-11-25\r\nmcp-session-id: {session}\r\n"
            ),
        }
        .map_err(|e| format!("request: {e}"))?;
        write!(self.buf, "content-length: {}\r\n\r\n", body.len())
            .map_err(|e| format!("request: {e}"))?;
        self.buf.extend_from_slice(body);
        self.stream
            .write_all(&self.buf)
            .await
            .map_err(|e| format!("send: {e}"))?;
        self.buf.clear();
        let Head {
            len: head,
            status,
            json,
            body: len,
            session,
        } = loop {
            if let Some(head) = parse_head(&self.buf)? {
                break head;
            }
            self.read_more().await?;
        };
        let Some(len) = len else {
            // A chunked event stream (rmcp's answer in a session): its data events.
            let body = self.read_chunked(head).await?;
            return Ok(Answer {
                status,
                json: true,
                session,
                body: sse_response(&body).ok_or_else(|| {
                    format!(
                        "an event stream without a response: {}",
                        String::from_utf8_lossy(&body[..body.len().min(300)])
                    )
                })?,
            });
        };
        let end = head
            .checked_add(len)
            .filter(|&end| end <= MAX_ANSWER)
            .ok_or_else(|| format!("an answer of {len} bytes"))?;
        while self.buf.len() < end {
            self.read_more().await?;
        }
        if self.buf.len() > end {
            return Err("bytes after the answer (nothing was asked)".to_owned());
        }
        Ok(Answer {
            status,
            json,
            session,
            body: Bytes::copy_from_slice(&self.buf[head..end]),
        })
    }

    /// Reads a chunked body that starts at `at` in the buffer, up to its last chunk.
    async fn read_chunked(&mut self, mut at: usize) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        loop {
            let (size_len, size) = loop {
                match httparse::parse_chunk_size(&self.buf[at..]) {
                    Ok(httparse::Status::Complete(found)) => break found,
                    Ok(httparse::Status::Partial) => self.read_more().await?,
                    Err(_) => return Err("a malformed chunk size".to_owned()),
                }
            };
            let size = usize::try_from(size)
                .ok()
                .filter(|&size| body.len() + size <= MAX_ANSWER)
                .ok_or("a chunked answer that is too long")?;
            // The chunk and the CRLF after it (after the last chunk, the final CRLF).
            let end = at + size_len + size + 2;
            while self.buf.len() < end {
                self.read_more().await?;
            }
            body.extend_from_slice(&self.buf[at + size_len..end - 2]);
            at = end;
            if size == 0 {
                if self.buf.len() > at {
                    return Err("bytes after the answer (nothing was asked)".to_owned());
                }
                return Ok(body);
            }
        }
    }

    /// Reads what the server sent next; an error when it closed or the answer is too long.
    async fn read_more(&mut self) -> Result<(), String> {
        if self.buf.len() >= MAX_ANSWER {
            return Err(format!("an answer longer than {MAX_ANSWER} bytes"));
        }
        self.buf.reserve(4096);
        match self.stream.read_buf(&mut self.buf).await {
            Ok(0) => Err("the server closed the connection".to_owned()),
            Ok(_) => Ok(()),
            Err(e) => Err(format!("receive: {e}")),
        }
    }
}

/// The headers that say what a request is, besides its body's type and length.
#[derive(Clone, Copy)]
enum Headers<'a> {
    /// A 2026-07-28 request of `method` about `name` (a tool, or a task id).
    Modern { method: &'a str, name: &'a str },
    /// A request of a 2025-11-25 client: `initialize` (no session yet) or one in `session`.
    Legacy { session: Option<&'a str> },
}

/// An answer as read.
struct Answer {
    status: u16,
    json: bool,
    /// Its `Mcp-Session-Id`, if it has one.
    session: Option<String>,
    body: Bytes,
}

/// The head of an answer.
#[derive(Debug, PartialEq, Eq)]
struct Head {
    /// The head's length.
    len: usize,
    status: u16,
    /// Whether the body is JSON.
    json: bool,
    /// The body's length (`Content-Length`; 0 for a 202 or 204 without one), or `None` for
    /// a chunked body.
    body: Option<usize>,
    /// The `Mcp-Session-Id` header.
    session: Option<String>,
}

/// The JSON-RPC response among the `data:` lines of an event stream.
fn sse_response(stream: &[u8]) -> Option<Bytes> {
    stream
        .split(|&b| b == b'\n')
        .filter_map(|line| line.strip_prefix(b"data:"))
        .map(|data| data.trim_ascii())
        .find(|data| {
            contains(data, b"\"id\":")
                && (contains(data, b"\"result\"") || contains(data, b"\"error\""))
        })
        .map(Bytes::copy_from_slice)
}

/// The head of an answer in `buf`; `None` until the whole head is in.
fn parse_head(buf: &[u8]) -> Result<Option<Head>, String> {
    let mut headers = [httparse::EMPTY_HEADER; 32];
    let mut response = httparse::Response::new(&mut headers);
    let head = match response.parse(buf) {
        Ok(httparse::Status::Complete(head)) => head,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(format!("answer head: {e}")),
    };
    let header = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    };
    let status = response.code.unwrap_or(0);
    let json = header("content-type").is_some_and(|v| v.starts_with(b"application/json"));
    let chunked = header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case(b"chunked"));
    let len = match header("content-length") {
        Some(v) => Some(
            std::str::from_utf8(v)
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .ok_or("an unreadable Content-Length")?,
        ),
        None if chunked => None,
        None if matches!(status, 202 | 204) => Some(0),
        None => return Err("an answer without a Content-Length".to_owned()),
    };
    let session = header("mcp-session-id")
        .and_then(|v| std::str::from_utf8(v).ok())
        .map(str::to_owned);
    Ok(Some(Head {
        len: head,
        status,
        json,
        body: len,
        session,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_targets() {
        let target = Target::parse("http://127.0.0.1:8080/mcp").expect("loopback");
        assert_eq!(target.addr, SocketAddr::from(([127, 0, 0, 1], 8080)));
        assert_eq!(target.path, "/mcp");
        assert_eq!(target.host, "127.0.0.1:8080");
        assert!(Target::parse("http://[::1]:80").is_ok());
        assert!(Target::parse("http://192.0.2.1:80/mcp").is_err());
        assert!(Target::parse("https://127.0.0.1:443/mcp").is_err());
    }

    #[test]
    fn answer_heads_give_status_type_and_length() {
        let answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}";
        let head = answer.len() - 7;
        let read = |len, status, json, body| Head {
            len,
            status,
            json,
            body: Some(body),
            session: None,
        };
        assert_eq!(parse_head(answer), Ok(Some(read(head, 200, true, 7))));
        assert_eq!(parse_head(&answer[..head - 2]), Ok(None));
        let refused = b"HTTP/1.1 406 Not Acceptable\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(
            parse_head(refused),
            Ok(Some(read(refused.len(), 406, false, 0)))
        );
        let accepted = b"HTTP/1.1 202 Accepted\r\n\r\n";
        assert_eq!(
            parse_head(accepted),
            Ok(Some(read(accepted.len(), 202, false, 0)))
        );
        let opened = b"HTTP/1.1 200 OK\r\nMcp-Session-Id: s-1\r\ncontent-length: 0\r\n\r\n";
        let session = parse_head(opened).ok().flatten().and_then(|h| h.session);
        assert_eq!(session.as_deref(), Some("s-1"));
        let chunked = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
        let head = parse_head(chunked).ok().flatten().map(|h| h.body);
        assert_eq!(head, Some(None), "a chunked body has no length");
        let no_length = b"HTTP/1.1 200 OK\r\n\r\n";
        assert!(parse_head(no_length).is_err());
        assert!(parse_head(b"HTTP/1.1 2x0\r\n\r\n").is_err());
    }

    #[test]
    fn an_event_stream_gives_its_response() {
        let stream = b"data: \nid: 0\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        assert_eq!(
            sse_response(stream).as_deref(),
            Some(&b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"[..])
        );
        assert_eq!(sse_response(b"data: \n\n"), None);
    }

    #[test]
    fn flow_bodies_are_json() {
        let first: Value = serde_json::from_str(&flow_body(1, None)).expect("JSON");
        assert_eq!(first["params"]["name"], "preference_preview");
        assert!(first["params"].get("requestState").is_none());
        let answer = r#""color":{"action":"accept","content":{"color":"teal"}}"#;
        let second: Value =
            serde_json::from_str(&flow_body(2, Some(("s1..a\"b", answer)))).expect("JSON");
        assert_eq!(second["params"]["requestState"], "s1..a\"b");
        assert_eq!(
            second["params"]["inputResponses"]["color"]["content"]["color"],
            "teal"
        );
    }
}
