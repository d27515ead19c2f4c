//! Legacy (2025-11-25) sessions over Streamable HTTP, beside the modern endpoint.
//!
//! The endpoint classifies each POST ([`classify`]): modern requests take the modern path
//! unchanged; `initialize` opens a session whose id the response carries in
//! `Mcp-Session-Id`; any other message with that header belongs to the session (404 when it
//! is unknown, ended or expired; 400 for an `MCP-Protocol-Version` it cannot accept).
//! A session's requests run on the endpoint's [`Backend`] (the modern handler path of a
//! server in this process, or the device behind the serial bridge), lifted into the modern
//! shape and their results lowered again ([`snodo_core::legacy`]); their progress and log
//! notifications make the POST's response an event stream. `GET` with the session id opens
//! the session's own stream (list changes, updates of subscribed resources), `DELETE` ends
//! the session. A request without a session and without the modern envelope takes the modern
//! path, whose 400 is what a legacy client without a session must get.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::request::Parts;
use http::{HeaderMap, HeaderValue, Method, Response, StatusCode};
use snodo_core::json::Writer;
use snodo_core::legacy::{
    BridgeId, Era, EraMismatch, EraSupport, HttpRoute, RequestHandle, Session, SessionId, Step,
    check_version_header, classify_post, write_event,
};
use snodo_core::protocol::META_PROTOCOL_VERSION;
use snodo_core::protocol::http::HEADER_PROTOCOL_VERSION;
use snodo_core::rpc::{self, ErrorCode, Id, Incoming};
use snodo_core::server::{Notifier, Principal, ServerCapabilities};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use super::McpBody;
use super::body::{Exchange, Out, Work};
use super::body::{empty, event_stream, json, tick};
use super::headers::HEADER_SESSION_ID;
use crate::buffers::BufferPool;
use crate::events::{EventBus, ServerEvent, next_event};
use crate::in_flight::{InFlight, RequestKey};
use crate::legacy::backend::{Backend, initialize_reply, session_of, written};
use crate::legacy::replay::{parse_event_id, priming};
use crate::legacy::round::{
    Answer, BridgeBuffers, BridgeConfig, Bridged, Link, LinkClosed, WaitsFull, bridge,
};
use crate::legacy::sessions::{Entry, RequestTicket, Sessions, StreamClaim};

/// JSON-RPC code of "no such session" (as the TypeScript SDK answers it).
const SESSION_NOT_FOUND: ErrorCode = ErrorCode(-32001);

/// Where one POST goes, or the era refusal that answers it.
pub(crate) fn classify(
    message: &Incoming<'_>,
    headers: &HeaderMap,
    support: EraSupport,
) -> Result<HttpRoute, EraMismatch> {
    // An `initialize` in the modern envelope is a modern request (answered -32601 there):
    // no legacy client writes the 2026-07-28 envelope.
    if enveloped(message) {
        return if support.serves(Era::Modern) {
            Ok(HttpRoute::Modern)
        } else {
            Err(EraMismatch::NotServed(Era::Modern))
        };
    }
    classify_post(message, headers.contains_key(HEADER_SESSION_ID), support)
}

fn enveloped(message: &Incoming<'_>) -> bool {
    let params = match message {
        Incoming::Request(r) => r.params,
        Incoming::Notification(n) => n.params,
        Incoming::Response(_) => None,
    };
    params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .is_some()
}

/// What a legacy POST needs of its endpoint.
pub(crate) struct Endpoint<'e, B: Backend> {
    pub(crate) backend: B,
    pub(crate) sessions: &'e Sessions,
    pub(crate) in_flight: &'e Arc<InFlight>,
    /// The bounds of the bridge.
    pub(crate) bridge: BridgeConfig,
}

/// The refusal of a message for an era the endpoint does not serve: 400 naming the
/// versions it does.
pub(crate) fn refuse_era(
    mismatch: EraMismatch,
    message: &Incoming<'_>,
    support: EraSupport,
) -> Out {
    let id = match message {
        Incoming::Request(r) => Some(r.id),
        _ => None,
    };
    let reply = written(|w| mismatch.write_error(w, id, support));
    Out::Reply(reply, StatusCode::BAD_REQUEST)
}

/// A legacy POST read once: what its message (parsed by the endpoint, which routed it) left
/// to do, holding no borrow of the body.
pub(crate) enum Prepared {
    /// Answered already.
    Answered(Out),
    /// `initialize`: the backend's result, then the session opens (boxed: a session is
    /// large beside the other answers, and opens once).
    Initialize {
        session: Box<Session>,
        request: RequestHandle,
    },
    /// A request of `entry` for the modern path: it runs on a task of its own.
    Run {
        entry: Arc<Entry>,
        request: RequestHandle,
    },
}

/// What [`prepare`] needs of the endpoint.
pub(crate) struct Reading<'r> {
    pub(crate) sessions: &'r Sessions,
    pub(crate) in_flight: &'r InFlight,
    /// What the backend serves, as the session answers it.
    pub(crate) served: ServerCapabilities,
}

/// Steps the session with `message`, the endpoint's one parse of `body` (`route` is
/// [`HttpRoute::Initialize`] or [`HttpRoute::Session`]): whatever the session answers
/// itself is answered here, a request for the modern path is kept as a handle into `body`.
pub(crate) fn prepare(
    reading: &Reading<'_>,
    route: HttpRoute,
    message: &Incoming<'_>,
    body: &Bytes,
    headers: &HeaderMap,
    principal: Option<&str>,
) -> Prepared {
    let answered = |out| Prepared::Answered(out);
    if route == HttpRoute::Initialize {
        return match read_initialize(message, body) {
            Ok((session, request)) => Prepared::Initialize {
                session: Box::new(session),
                request,
            },
            Err(out) => answered(out),
        };
    }
    let Some(entry) = headers
        .get(HEADER_SESSION_ID)
        .and_then(|id| reading.sessions.find(id.as_bytes(), principal))
    else {
        return answered(failure(StatusCode::NOT_FOUND, "Session not found"));
    };
    let version = headers.get(HEADER_PROTOCOL_VERSION).map(|v| v.as_bytes());
    if check_version_header(version).is_err() {
        return answered(failure(
            StatusCode::BAD_REQUEST,
            "Unsupported MCP-Protocol-Version for this session",
        ));
    }
    // Room for any answer the session writes itself: an error echoes at most the body's id.
    let mut reply = vec![0u8; body.len() + 512];
    let mut w = Writer::new(&mut reply);
    let step = match entry.update(|session| session.step(message, reading.served, &mut w)) {
        Step::Subscription { id, uri, subscribe } => {
            entry.change_subscription(id, uri, subscribe, &mut w);
            Step::Replied
        }
        step => step,
    };
    let len = w.finish();
    answered(match step {
        Step::Replied | Step::Subscription { .. } => match len {
            Ok(len) => Out::Reply(Bytes::copy_from_slice(&reply[..len]), StatusCode::OK),
            Err(_) => failure(StatusCode::INTERNAL_SERVER_ERROR, "The reply does not fit"),
        },
        Step::Quiet => Out::Accepted,
        Step::Cancel { request_id } => {
            let stopped = reading.in_flight.cancel(&request_key(&entry, request_id));
            tracing::debug!(stopped, "legacy cancellation");
            Out::Accepted
        }
        Step::Answer(response) => {
            answer(&entry, body, &response);
            Out::Accepted
        }
        Step::Modern { request, .. } => match RequestHandle::of(body, &request) {
            Some(request) => return Prepared::Run { entry, request },
            None => failure(StatusCode::INTERNAL_SERVER_ERROR, "The request was lost"),
        },
    })
}

/// Finishes a legacy POST [`prepare`] read from `body`: `Ok` with the answer to send, or
/// `Err` when a request's stream went to `outputs` already, with the response at its end
/// (`None`: it was cancelled, polled, or the client left first).
pub(crate) async fn post<B: Backend>(
    endpoint: Endpoint<'_, B>,
    prepared: Prepared,
    body: &Bytes,
    principal: Option<&str>,
    outputs: &mpsc::Sender<Out>,
) -> Result<Out, Option<Bytes>> {
    let (entry, request) = match prepared {
        Prepared::Answered(out) => return Ok(out),
        Prepared::Initialize { session, request } => {
            let Some(id) = request.view(body).map(|r| r.id) else {
                return Ok(failure(StatusCode::BAD_REQUEST, "Parse error"));
            };
            return Ok(initialize(&endpoint, id, *session, principal).await);
        }
        Prepared::Run { entry, request } => (entry, request),
    };
    let Ok(ticket) = entry.start_request() else {
        let reply = written(|w| {
            let id = request.view(body).map(|r| r.id);
            rpc::write_error(
                w,
                id,
                ErrorCode::INTERNAL_ERROR,
                "Too many requests in progress: try again later",
                None,
            );
        });
        return Ok(Out::Reply(reply, StatusCode::OK));
    };
    let stream = entry.streams().open();
    let job = Job {
        backend: endpoint.backend.clone(),
        buffers: Arc::clone(endpoint.sessions.buffers()),
        in_flight: Arc::clone(endpoint.in_flight),
        ticket,
        stream: StreamEnd {
            entry: Arc::clone(&entry),
            stream,
        },
        body: body.clone(),
        request,
        principal: principal.map(str::to_owned),
        bridge: endpoint.bridge,
    };
    // Over 2025-11-25 a dropped connection is not a cancellation: the request runs on,
    // and its events wait for a client that resumes with `Last-Event-ID`.
    tokio::spawn(job.run());
    Err(relay(&entry, stream, 0, outputs, true).await)
}

/// A request of a legacy session, running on its own task; its events go to the session's
/// stream `stream`.
struct Job<B> {
    backend: B,
    buffers: Arc<BufferPool>,
    in_flight: Arc<InFlight>,
    ticket: RequestTicket,
    stream: StreamEnd,
    body: Bytes,
    /// The request in `body`, read once by [`prepare`].
    request: RequestHandle,
    principal: Option<String>,
    bridge: BridgeConfig,
}

impl<B: Backend> Job<B> {
    async fn run(self) {
        let entry = Arc::clone(self.ticket.entry());
        tokio::select! {
            () = entry.ended() => {}
            () = self.serve() => {}
        }
    }

    /// Runs the request through the bridge loop: its notifications and bridged requests
    /// become events of its stream, and its reply the last.
    async fn serve(&self) {
        let entry = self.ticket.entry();
        let Some(request) = self.request.view(&self.body) else {
            return;
        };
        let mut link = StreamLink {
            entry,
            stream: self.stream.stream,
        };
        let principal = self
            .principal
            .as_deref()
            .map_or(Principal::Anonymous, Principal::Id);
        // `notifications/cancelled` for this request's id stops it.
        let (_registration, cancelled) = self.in_flight.register(request_key(entry, request.id));
        let cancelled = async {
            if cancelled.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let mut buffers = BridgeBuffers::new(Arc::clone(&self.buffers), &self.bridge);
        let rounds = self.backend.rounds(principal);
        let bridged = bridge(
            &rounds,
            &mut link,
            &self.bridge,
            &request,
            &mut buffers,
            cancelled,
        )
        .await;
        if let Bridged::Reply(len) = bridged {
            let reply = Bytes::copy_from_slice(buffers.reply(len));
            entry.streams().push(self.stream.stream, reply, true);
        }
    }
}

/// The bridge loop's way to a legacy HTTP client: the session, and the request's stream,
/// which carries its bridged requests, notifications and reply (to the POST's response, or
/// to a client that resumes it).
struct StreamLink<'e> {
    entry: &'e Entry,
    stream: u64,
}

impl Link for StreamLink<'_> {
    fn session(&self) -> Session {
        self.entry.session()
    }

    fn update_session<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R {
        self.entry.update(change)
    }

    fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Answer>, WaitsFull> {
        self.entry.answers().wait_for(id)
    }

    async fn send(&mut self, message: &[u8]) -> Result<(), LinkClosed> {
        let message = Bytes::copy_from_slice(message);
        self.entry.streams().push(self.stream, message, false);
        Ok(())
    }

    fn notifier(&mut self) -> &mut (dyn Notifier + Send) {
        self
    }
}

impl Notifier for StreamLink<'_> {
    fn notify(&mut self, message: &[u8]) {
        let message = Bytes::copy_from_slice(message);
        self.entry.streams().push(self.stream, message, false);
    }
}

/// Ends a session's stream when its request's task ends, answered or not.
struct StreamEnd {
    entry: Arc<Entry>,
    stream: u64,
}

impl Drop for StreamEnd {
    fn drop(&mut self) {
        self.entry.streams().end(self.stream);
    }
}

/// Sends the events of the session's stream `stream` after sequence `after` to `outputs`:
/// a lone reply as JSON when `json` allows it, otherwise an event stream that opens with
/// its priming event. With [`SessionLimits::poll_after`](crate::legacy::SessionLimits), a POST whose
/// request has said nothing for that long gets only the priming event and is closed: the
/// client polls with `GET` and `Last-Event-ID` (2025-11-25, SEP-1699).
pub(crate) async fn relay(
    entry: &Entry,
    stream: u64,
    after: u64,
    outputs: &mpsc::Sender<Out>,
    json: bool,
) -> Option<Bytes> {
    let streams = entry.streams();
    let limits = entry.limits();
    let retry = u64::try_from(limits.reconnect_delay.as_millis()).unwrap_or(u64::MAX);
    let mut cursor = after;
    // A POST's response is undecided (JSON or a stream) until its first event.
    let mut primed = !json;
    loop {
        let next = streams.next(stream, cursor);
        let event = match (primed, limits.poll_after) {
            (false, Some(quiet)) => match tokio::time::timeout(quiet, next).await {
                Ok(event) => event,
                Err(_) => {
                    let _ = outputs.send(Out::Framed(priming(stream, retry))).await;
                    return None;
                }
            },
            _ => next.await,
        };
        let event = event?;
        if !primed {
            if event.last && event.seq == 1 {
                let sent = outputs.send(Out::Reply(event.message.clone(), StatusCode::OK));
                return sent.await.is_ok().then_some(event.message);
            }
            outputs
                .send(Out::Framed(priming(stream, retry)))
                .await
                .ok()?;
            primed = true;
        }
        outputs.send(Out::Framed(event.frame(stream))).await.ok()?;
        if event.last {
            return Some(event.message);
        }
        cursor = event.seq;
    }
}

/// The session an `initialize` request opens, and the request; or the refusal.
fn read_initialize(message: &Incoming<'_>, body: &[u8]) -> Result<(Session, RequestHandle), Out> {
    let Incoming::Request(request) = message else {
        return Err(failure(
            StatusCode::BAD_REQUEST,
            "initialize must be a request",
        ));
    };
    let session =
        session_of(request).map_err(|refusal| Out::Reply(refusal, StatusCode::BAD_REQUEST))?;
    let handle = RequestHandle::of(body, request)
        .ok_or_else(|| failure(StatusCode::BAD_REQUEST, "Parse error"))?;
    Ok((session, handle))
}

/// Opens `session` for the `initialize` request `id`.
async fn initialize<B: Backend>(
    endpoint: &Endpoint<'_, B>,
    id: Id<'_>,
    session: Session,
    principal: Option<&str>,
) -> Out {
    let reply = match initialize_reply(&endpoint.backend, id, &session).await {
        Ok(reply) => reply,
        Err(refusal) => return Out::Reply(refusal, StatusCode::BAD_GATEWAY),
    };
    let Ok(entry) = endpoint.sessions.open(session, principal) else {
        tracing::warn!("legacy session table full; initialize refused");
        let reply = written(|w| {
            rpc::write_error(
                w,
                Some(id),
                ErrorCode::INTERNAL_ERROR,
                "Too many open sessions: try again later",
                None,
            );
        });
        return Out::Reply(reply, StatusCode::SERVICE_UNAVAILABLE);
    };
    tracing::debug!(
        session = entry.id().as_str(),
        version = session.version().name(),
        "legacy session opened"
    );
    Out::Opened {
        reply,
        session: entry.id(),
    }
}

/// Routes a client's response (`body`, read as `response`) to the bridged request waiting
/// for it; anything else is dropped (a late or unknown answer changes nothing).
fn answer(entry: &Entry, body: &Bytes, response: &rpc::Response<'_>) {
    entry.answers().route(body, response, |_| body.clone());
}

/// The in-flight key of a session's request: ids are chosen per session, so the session id
/// stands in for the principal.
fn request_key(entry: &Entry, id: Id<'_>) -> RequestKey {
    RequestKey::new(Some(entry.id().as_str()), id)
}

/// What a session's `GET` stream is made of.
pub(crate) struct StreamSettings {
    /// What the server advertised (which list changes it announces).
    pub(crate) served: ServerCapabilities,
    /// The change events, if the endpoint has a bus.
    pub(crate) events: Option<broadcast::Receiver<ServerEvent>>,
    /// Set when the service closes its streams (shutdown).
    pub(crate) closing: watch::Receiver<bool>,
    /// How often an idle stream sends a comment.
    pub(crate) keep_alive: Option<Duration>,
    /// Most events waiting for the client.
    pub(crate) queue: usize,
}

/// Answers a `GET` or `DELETE` carrying a session id: 404 for an unknown session, 400 for a
/// bad version header; `DELETE` ends the session; `GET` with the `Last-Event-ID` of one of
/// its POST streams resumes that stream, any other `GET` opens the session's own stream
/// (one at a time: 409 for a second).
pub(crate) fn session_method(
    sessions: &Sessions,
    parts: &Parts,
    principal: Option<&str>,
    settings: StreamSettings,
) -> Response<McpBody> {
    let Some(entry) = parts
        .headers
        .get(HEADER_SESSION_ID)
        .and_then(|id| sessions.find(id.as_bytes(), principal))
    else {
        return refusal(StatusCode::NOT_FOUND, "Session not found");
    };
    let version = parts
        .headers
        .get(HEADER_PROTOCOL_VERSION)
        .map(|v| v.as_bytes());
    if check_version_header(version).is_err() {
        return refusal(
            StatusCode::BAD_REQUEST,
            "Unsupported MCP-Protocol-Version for this session",
        );
    }
    if parts.method == Method::DELETE {
        sessions.end(&entry);
        tracing::debug!(session = entry.id().as_str(), "legacy session ended");
        return empty(StatusCode::OK);
    }
    let (outputs, received) = mpsc::channel(settings.queue);
    let resumed = parts
        .headers
        .get("last-event-id")
        .and_then(|id| parse_event_id(id.as_bytes()))
        .filter(|(stream, _)| entry.streams().known(*stream));
    let work: Work = match resumed {
        Some((stream, after)) => Box::pin(async move {
            let _ = relay(&entry, stream, after, &outputs, false).await;
        }),
        None => {
            let Some(claim) = entry.claim_stream() else {
                return refusal(
                    StatusCode::CONFLICT,
                    "Conflict: this session's stream is already open",
                );
            };
            let stream = SessionStream {
                entry,
                claim,
                settings,
                outputs,
            };
            Box::pin(stream.run())
        }
    };
    event_stream(None, Exchange::new(work, received))
}

fn refusal(status: StatusCode, message: &str) -> Response<McpBody> {
    match failure(status, message) {
        Out::Reply(body, status) => json(status, body),
        _ => empty(status),
    }
}

/// A session's `GET` stream: list changes and updates of the resources it subscribed to,
/// keep-alives, until the session or the service ends.
struct SessionStream {
    entry: Arc<Entry>,
    claim: StreamClaim,
    settings: StreamSettings,
    outputs: mpsc::Sender<Out>,
}

impl SessionStream {
    async fn run(self) {
        let SessionStream {
            entry,
            claim: _claim,
            settings,
            outputs,
        } = self;
        let StreamSettings {
            served,
            mut events,
            mut closing,
            keep_alive,
            ..
        } = settings;
        let mut keep_alive =
            keep_alive.map(|every| tokio::time::interval_at(Instant::now() + every, every));
        // Something first, so the response head goes out at once.
        if outputs.send(Out::KeepAlive).await.is_err() {
            return;
        }
        loop {
            if *closing.borrow_and_update() {
                return;
            }
            tokio::select! {
                () = entry.ended() => return,
                changed = closing.changed() => {
                    if changed.is_err() {
                        return;
                    }
                }
                received = next_event(&mut events) => {
                    for event in entry.due(received) {
                        let announced = std::cell::Cell::new(false);
                        let message = written(|w| {
                            announced.set(write_event(&event.as_event(), served, w));
                        });
                        if announced.get() && outputs.send(Out::Event(message)).await.is_err() {
                            return;
                        }
                    }
                }
                () = tick(&mut keep_alive) => {
                    if outputs.send(Out::KeepAlive).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// The bus a session stream listens to.
pub(crate) fn subscribe(events: Option<&EventBus>) -> Option<broadcast::Receiver<ServerEvent>> {
    events.map(EventBus::subscribe)
}

/// The response to an `initialize` that opened `session`: its result, and the session id
/// in `Mcp-Session-Id`.
pub(crate) fn opened(reply: Bytes, session: &SessionId) -> Response<McpBody> {
    let mut response = json(StatusCode::OK, reply);
    if let Ok(id) = HeaderValue::from_str(session.as_str()) {
        response.headers_mut().insert(HEADER_SESSION_ID, id);
    }
    response
}

/// An HTTP-level failure of a legacy request: a JSON-RPC error without an id.
pub(crate) fn failure(status: StatusCode, message: &str) -> Out {
    let code = if status == StatusCode::NOT_FOUND {
        SESSION_NOT_FOUND
    } else {
        ErrorCode::INVALID_REQUEST
    };
    Out::Reply(
        written(|w| rpc::write_error(w, None, code, message, None)),
        status,
    )
}
