//! A closed-loop load generator running the three-leg preference flow over keep-alive
//! HTTP/1.1: every client starts a flow as soon as its last one ends, and retries a failed
//! leg (the same request, the same sealed state) on a fresh connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

/// Longest wait for one answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(10);
/// Tries of one leg before the flow is abandoned.
const ATTEMPTS: usize = 3;

/// What one POST got back.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: StatusCode,
    /// nginx's `X-Upstream`: the node(s) it tried, in order.
    pub upstream: String,
    /// The body as JSON (`Null` when it is not JSON).
    pub body: Value,
}

/// A `tools/call` of `preference_preview` from a client that answers forms; after the first
/// leg, with the sealed state and one answer.
pub fn flow_request(id: u64, previous: Option<(&str, Value)>) -> Value {
    let mut params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        },
        "name": "preference_preview",
        "arguments": {"subject": "cluster"}
    });
    if let Some((state, answer)) = previous {
        params["requestState"] = json!(state);
        params["inputResponses"] = answer;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The answer a client gives to the question under `key`.
pub fn accepted(key: &str, value: &str) -> Value {
    json!({key: {"action": "accept", "content": {key: value}}})
}

/// A keep-alive connection to `addr`, driven on a task of its own.
async fn connect(addr: SocketAddr) -> Result<SendRequest<Full<Bytes>>, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
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

/// POSTs `message` to `/mcp` on `sender` with the headers a 2026-07-28 client sends.
async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    message: &Value,
) -> Result<Answer, String> {
    sender
        .ready()
        .await
        .map_err(|e| format!("connection: {e}"))?;
    let request = Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "preference_preview")
        .body(Full::new(Bytes::from(message.to_string())))
        .map_err(|e| format!("request: {e}"))?;
    let exchange = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("send: {e}"))?;
        let status = response.status();
        let upstream = response
            .headers()
            .get("x-upstream")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Ok(Answer {
            status,
            upstream,
            body,
        })
    };
    tokio::time::timeout(ANSWER_WITHIN, exchange)
        .await
        .map_err(|_| format!("no answer within {ANSWER_WITHIN:?}"))?
}

/// One POST on a connection of its own.
pub async fn post_once(addr: SocketAddr, message: &Value) -> Result<Answer, String> {
    Connection::open(addr).await?.post(message).await
}

/// One keep-alive connection, for a test that must see it survive.
#[derive(Debug)]
pub struct Connection {
    addr: SocketAddr,
    sender: SendRequest<Full<Bytes>>,
}

impl Connection {
    /// Connects to `addr`.
    pub async fn open(addr: SocketAddr) -> Result<Connection, String> {
        let sender = connect(addr).await?;
        Ok(Connection { addr, sender })
    }

    /// POSTs `message` on this connection (an error if it was closed).
    pub async fn post(&mut self, message: &Value) -> Result<Answer, String> {
        post(&mut self.sender, self.addr, message).await
    }
}

/// A leg that failed, and where.
#[derive(Clone, Debug)]
pub struct LegFailure {
    /// Which leg (0, 1, 2).
    pub leg: usize,
    /// The node(s) nginx tried (empty when nginx did not answer).
    pub upstream: String,
    /// When the answer (or the error) came.
    pub at: Instant,
    /// What was wrong.
    pub what: String,
}

/// What the clients measured.
#[derive(Debug, Default)]
pub struct Report {
    /// Latencies of successful legs, per leg.
    pub legs: [Vec<Duration>; 3],
    /// Flows completed.
    pub flows: u64,
    /// Failed leg attempts (each was retried).
    pub failures: Vec<LegFailure>,
    /// Failed attempts whose retry of the same leg succeeded.
    pub recovered: u64,
    /// Flows given up after three failures of one leg.
    pub abandoned: u64,
    /// Completed flows whose legs were answered by more than one node.
    pub spread: u64,
    /// How long the clients ran.
    pub elapsed: Duration,
}

impl Report {
    fn merge(&mut self, other: Report) {
        for (mine, theirs) in self.legs.iter_mut().zip(other.legs) {
            mine.extend(theirs);
        }
        self.flows += other.flows;
        self.failures.extend(other.failures);
        self.recovered += other.recovered;
        self.abandoned += other.abandoned;
        self.spread += other.spread;
    }

    /// The `q` quantile (0..=1) of leg `leg`'s latencies.
    pub fn quantile(&self, leg: usize, q: f64) -> Duration {
        let mut sorted = self.legs[leg].clone();
        sorted.sort_unstable();
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let at = ((sorted.len() - 1) as f64 * q).round() as usize;
        sorted[at]
    }

    /// Flows per second over the run.
    pub fn flows_per_second(&self) -> f64 {
        self.flows as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// One line per leg: p50 and p99.
    pub fn legs_summary(&self) -> String {
        (0..3)
            .map(|leg| {
                format!(
                    "leg {}: p50 {:.2} ms, p99 {:.2} ms ({} answers)",
                    leg + 1,
                    self.quantile(leg, 0.5).as_secs_f64() * 1e3,
                    self.quantile(leg, 0.99).as_secs_f64() * 1e3,
                    self.legs[leg].len()
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Clients running flows until stopped (or `max_flows` each, or the deadline).
#[derive(Debug)]
pub struct Load {
    stop: Arc<AtomicBool>,
    phase: Arc<AtomicU64>,
    started_in: Vec<Arc<AtomicU64>>,
    flows: Arc<AtomicU64>,
    clients: Vec<JoinHandle<Report>>,
    began: Instant,
}

impl Load {
    /// Starts `clients` clients against `addr` (inside a tokio runtime), each running at most
    /// `max_flows` flows and none past `deadline`.
    pub fn start(addr: SocketAddr, clients: usize, max_flows: u64, deadline: Instant) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let phase = Arc::new(AtomicU64::new(0));
        let flows = Arc::new(AtomicU64::new(0));
        let mut started_in = Vec::new();
        let mut handles = Vec::new();
        for n in 0..clients {
            let started = Arc::new(AtomicU64::new(0));
            started_in.push(Arc::clone(&started));
            let client = Client {
                addr,
                sender: None,
                next_id: (n as u64) << 40,
                report: Report::default(),
            };
            let (stop, phase, flows) = (Arc::clone(&stop), Arc::clone(&phase), Arc::clone(&flows));
            handles.push(tokio::spawn(async move {
                client
                    .run(max_flows, deadline, &stop, &phase, &started, &flows)
                    .await
            }));
        }
        Load {
            stop,
            phase,
            started_in,
            flows,
            clients: handles,
            began: Instant::now(),
        }
    }

    /// Flows completed so far.
    pub fn flows(&self) -> u64 {
        self.flows.load(Ordering::Relaxed)
    }

    /// Marks a new phase: flows started from now on are started in `phase`.
    pub fn enter_phase(&self, phase: u64) {
        self.phase.store(phase, Ordering::SeqCst);
    }

    /// Waits until every client has started a flow in `phase` or later (so no client holds
    /// state from an earlier phase); false after `within`.
    pub async fn every_client_in(&self, phase: u64, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self
                .started_in
                .iter()
                .all(|p| p.load(Ordering::SeqCst) >= phase)
            {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        false
    }

    /// Waits until `more` further flows have completed; false after `within`.
    pub async fn progress(&self, more: u64, within: Duration) -> bool {
        let target = self.flows() + more;
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.flows() >= target {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        false
    }

    /// Stops the clients after their current flow and gathers what they measured.
    pub async fn finish(self) -> Report {
        self.stop.store(true, Ordering::SeqCst);
        self.join().await
    }

    /// Waits for the clients to stop by themselves (at their deadline or flow count) and
    /// gathers what they measured.
    pub async fn join(self) -> Report {
        let mut total = Report::default();
        for client in self.clients {
            match client.await {
                Ok(report) => total.merge(report),
                Err(e) => panic!("a load client failed: {e}"),
            }
        }
        total.elapsed = self.began.elapsed();
        total
    }
}

struct Client {
    addr: SocketAddr,
    sender: Option<SendRequest<Full<Bytes>>>,
    next_id: u64,
    report: Report,
}

impl Client {
    async fn run(
        mut self,
        max_flows: u64,
        deadline: Instant,
        stop: &AtomicBool,
        phase: &AtomicU64,
        started_in: &AtomicU64,
        flows: &AtomicU64,
    ) -> Report {
        let mut done = 0;
        while done < max_flows && !stop.load(Ordering::SeqCst) && Instant::now() < deadline {
            started_in.store(phase.load(Ordering::SeqCst), Ordering::SeqCst);
            if self.flow().await {
                done += 1;
                flows.fetch_add(1, Ordering::Relaxed);
            } else {
                self.report.abandoned += 1;
            }
        }
        self.report.flows = done;
        self.report
    }

    /// The three legs; false when a leg failed every attempt.
    async fn flow(&mut self) -> bool {
        let Some((state, first)) = self.leg(0, None).await else {
            return false;
        };
        let answer = accepted("color", "teal");
        let Some((state, second)) = self.leg(1, Some((state, answer))).await else {
            return false;
        };
        let answer = accepted("style", "bold");
        let Some((_, third)) = self.leg(2, Some((state, answer))).await else {
            return false;
        };
        if first != second || second != third {
            self.report.spread += 1;
        }
        true
    }

    /// One leg, retried on failure: the sealed state it returns (empty for the last leg) and
    /// the node that answered.
    async fn leg(
        &mut self,
        leg: usize,
        previous: Option<(String, Value)>,
    ) -> Option<(String, String)> {
        let mut failed_before = false;
        for _ in 0..ATTEMPTS {
            self.next_id += 1;
            let previous = previous.as_ref().map(|(s, a)| (s.as_str(), a.clone()));
            let message = flow_request(self.next_id, previous);
            let started = Instant::now();
            // A connection nginx closed after its last answer (`keepalive_requests`) sent
            // nothing of this leg: take a fresh one.
            let open = self.sender.take().filter(|s| !s.is_closed());
            let answered = match open {
                Some(sender) => Ok(sender),
                None => connect(self.addr).await,
            };
            let answered = match answered {
                Ok(mut sender) => {
                    let answer = post(&mut sender, self.addr, &message).await;
                    if answer.is_ok() {
                        self.sender = Some(sender);
                    }
                    answer
                }
                Err(e) => Err(e),
            };
            let checked = answered.map_err(|e| (String::new(), e)).and_then(|a| {
                let upstream = a.upstream.clone();
                check(leg, self.next_id, a).map(|state| (state, upstream))
            });
            match checked {
                Ok(state) => {
                    self.report.legs[leg].push(started.elapsed());
                    if failed_before {
                        self.report.recovered += 1;
                    }
                    return Some(state);
                }
                Err((upstream, what)) => {
                    failed_before = true;
                    self.sender = None;
                    self.report.failures.push(LegFailure {
                        leg,
                        upstream,
                        at: Instant::now(),
                        what,
                    });
                }
            }
        }
        None
    }
}

/// Whether an answer is the one leg `leg` must give: the sealed state of an
/// `input_required` asking the next question, or the final preview. On failure, the
/// upstream and what was wrong.
fn check(leg: usize, id: u64, answer: Answer) -> Result<String, (String, String)> {
    let fail = |what: String| (answer.upstream.clone(), what);
    let result = &answer.body["result"];
    if answer.status != StatusCode::OK || answer.body["id"] != id {
        return Err(fail(format!("{}: {}", answer.status, answer.body)));
    }
    let asks = ["color", "style"];
    if let Some(asks) = asks.get(leg) {
        let state = result["requestState"].as_str();
        return match state {
            Some(state)
                if result["resultType"] == "input_required"
                    && result["inputRequests"][asks]["method"] == "elicitation/create" =>
            {
                Ok(state.to_owned())
            }
            _ => Err(fail(format!(
                "leg {} did not ask for {asks}: {}",
                leg + 1,
                answer.body
            ))),
        };
    }
    let text = result["content"][0]["text"].as_str().unwrap_or("");
    if result["resultType"] == "complete" && text.contains("teal") && text.contains("bold") {
        Ok(String::new())
    } else {
        Err(fail(format!("leg 3 did not complete: {}", answer.body)))
    }
}
