//! Keep-alive HTTP/1.1 clients, one connection each, driving one scenario in a closed loop
//! (each client sends its next request as soon as the previous answer is read) for a
//! bounded time.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use crate::stats::Samples;

/// The `_meta` of a request from a client that declares nothing.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
/// The `_meta` of a request from a client that can answer form elicitations.
const ELICITING_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
/// What `echo` is asked to return.
pub(crate) const ECHO_TEXT: &str = "hello from http_load";
/// What the flow's last leg returns for the answers the clients give.
pub(crate) const FLOW_RESULT: &str =
    r#"{\"color\":\"teal\",\"style\":\"bold\",\"status\":\"preview\"}"#;

/// Where the server listens: a loopback address and the endpoint's path.
#[derive(Debug)]
pub struct Target {
    pub addr: SocketAddr,
    host: HeaderValue,
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
        let host = HeaderValue::from_str(authority).map_err(|e| e.to_string())?;
        Ok(Target {
            addr,
            host,
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
}

impl Scenario {
    /// How many requests one unit of work takes.
    pub fn legs(self) -> usize {
        match self {
            Scenario::Echo => 1,
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
                sender: None,
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
    sender: Option<SendRequest<Full<Bytes>>>,
    window: Window,
    timeout: Duration,
    next_id: u64,
    out: Outcome,
}

impl Client {
    async fn run(mut self, scenario: Scenario) -> Outcome {
        while Instant::now() < self.window.end {
            match scenario {
                Scenario::Echo => self.echo().await,
                Scenario::Flow => self.flow().await,
            }
        }
        self.out
    }

    async fn echo(&mut self) {
        let id = self.id();
        let Some((reply, in_window)) = self.call(0, "echo", echo_body(id)).await else {
            return;
        };
        if let Some(missing) = echo_mismatch(id, &reply) {
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
        let Some((reply, in_window)) = self.call(2, "preference_preview", body).await else {
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
        let (reply, _) = self.call(leg, "preference_preview", body).await?;
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

    /// POSTs `body` as `tools/call` of `name` and reads the whole answer; records its latency
    /// under `leg` when it completed in the window. `None` (counted as an error, connection
    /// dropped) on any failure.
    async fn call(
        &mut self,
        leg: usize,
        name: &'static str,
        body: String,
    ) -> Option<(Bytes, bool)> {
        let mut sender = match self.sender.take() {
            Some(sender) => sender,
            None => match connect(&self.target).await {
                Ok(sender) => sender,
                Err(e) => {
                    self.out.fail(e);
                    // Do not spin on a server that is gone; the window still bounds the run.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    return None;
                }
            },
        };
        let started = Instant::now();
        let answered =
            tokio::time::timeout(self.timeout, post(&mut sender, &self.target, name, body)).await;
        let finished = Instant::now();
        match answered {
            Ok(Ok(reply)) => {
                self.sender = Some(sender);
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

/// A `tools/call` of `echo`.
pub fn echo_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    )
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

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Opens a keep-alive HTTP/1.1 connection (no Nagle delay) and drives it on a task that
/// ends when the sender is dropped.
async fn connect(target: &Target) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(target.addr)
        .await
        .map_err(|e| format!("connect {}: {e}", target.addr))?;
    stream
        .set_nodelay(true)
        .map_err(|e| format!("nodelay: {e}"))?;
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// One POST with the headers a conformant 2026-07-28 client sends for `tools/call`; the body
/// of a 200 `application/json` answer.
async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    target: &Target,
    name: &'static str,
    body: String,
) -> Result<Bytes, String> {
    let request = Request::post(target.path.as_str())
        .header(HOST, target.host.clone())
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", name)
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("request: {e}"))?;
    sender
        .ready()
        .await
        .map_err(|e| format!("connection: {e}"))?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("send: {e}"))?;
    let status = response.status();
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let body = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("body: {e}"))?
        .to_bytes();
    if status != StatusCode::OK || !json {
        let shown = String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
        return Err(format!("HTTP {status} (JSON: {json}): {shown}"));
    }
    Ok(body)
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
