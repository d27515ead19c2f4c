//! The MCP endpoint as a `tower::Service`: one POST, one round.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::header::{ALLOW, HeaderValue};
use http::request::Parts;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use snodo_core::json::{BufferTooSmall, Writer};
use snodo_core::legacy::HttpRoute;
use snodo_core::protocol::http::{HeaderMismatch, reply_status};
use snodo_core::rpc::{self, ErrorCode, Id, Incoming};
use snodo_core::server::{
    Accepted, Call, Done, Error, Handled, Notifier, Principal, Registry, Round, Runner, Server,
    Subscription,
};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;
use tracing::Instrument;

use super::admission::{self, Admitted, Refusal};
use super::body::{Exchange, McpBody, Out, Work, empty, event_stream, json, sse_event, tick};
use super::config::HttpConfig;
use super::grant;
use super::headers;
use super::ops::{Metrics, Observation, Outcome};
use crate::buffers::{BufferPool, KEEP_IDLE};
use crate::clock::unix_seconds;
use crate::events::{EventBus, ServerEvent, due, next_event};
use crate::handler::{AppRunner, AsyncHandler};
use crate::http::legacy;
use crate::in_flight::{InFlight, RequestKey};
use crate::legacy::backend::ServerBackend;
use crate::legacy::sessions::Sessions;
use crate::message::written_within;
use crate::server_slot::ServerSlot;
use crate::tasks::TaskHost;
use crate::tasks::{self, TaskFeed};

/// Errors a request body may fail with.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Who is calling, from the request's line and headers: `Some(id)` for an authenticated
/// principal, `None` for an anonymous one. See [`McpService::with_principal`].
pub type PrincipalHook = dyn Fn(&Parts) -> Option<String> + Send + Sync;

/// The MCP endpoint: a `tower::Service` over `http::Request<B>` for any body `B`, so it runs
/// under the listener of this module ([`HttpListener`](super::HttpListener)) or mounts in an
/// axum router (`Router::new().route_service("/mcp", service)`).
///
/// Cloning is cheap; clones share the server, the configuration, the requests in flight and
/// the subscription streams.
pub struct McpService<A: 'static> {
    inner: Arc<Inner<A>>,
}

struct Inner<A: 'static> {
    servers: ServerSlot<A>,
    config: Arc<HttpConfig>,
    principal: Option<Arc<PrincipalHook>>,
    events: Option<EventBus>,
    shared: Arc<Shared>,
    metrics: Option<Metrics>,
    /// The tasks of calls that became tasks.
    tasks: TaskHost,
    #[cfg(feature = "auth")]
    auth: Option<super::auth::Authorization>,
}

impl<A> Clone for Inner<A> {
    fn clone(&self) -> Self {
        Inner {
            servers: self.servers.clone(),
            config: Arc::clone(&self.config),
            principal: self.principal.clone(),
            events: self.events.clone(),
            shared: Arc::clone(&self.shared),
            metrics: self.metrics.clone(),
            tasks: self.tasks.clone(),
            #[cfg(feature = "auth")]
            auth: self.auth.clone(),
        }
    }
}

/// What every request of a service shares.
struct Shared {
    in_flight: Arc<InFlight>,
    buffers: Arc<BufferPool>,
    /// Set once: every subscription stream ends with its closing response.
    closing: watch::Sender<bool>,
    /// The legacy (2025-11-25) sessions.
    sessions: Sessions,
}

impl<A> Clone for McpService<A> {
    fn clone(&self) -> Self {
        McpService {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<A> fmt::Debug for McpService<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpService")
            .field("config", &self.inner.config)
            .field("events", &self.inner.events.is_some())
            .finish_non_exhaustive()
    }
}

impl<A: AsyncHandler + 'static> McpService<A> {
    /// The endpoint for `server`, with anonymous callers and no change events.
    pub fn new(server: Arc<Server<'static, A>>, config: HttpConfig) -> Self {
        Self::with_slot(ServerSlot::new(server), config)
    }

    /// The endpoint for whatever server `servers` holds when each request starts (a
    /// [`KeyRingReloader`](crate::keys::KeyRingReloader) replaces it when the key ring
    /// changes; requests in flight finish on the server they started with).
    pub fn with_slot(servers: ServerSlot<A>, config: HttpConfig) -> Self {
        let buffers = Arc::new(BufferPool::new(config.max_response_len, KEEP_IDLE));
        let sessions = Sessions::new(
            config.legacy_sessions,
            config.bridge.max_waiting,
            Arc::clone(&buffers),
        );
        McpService {
            inner: Arc::new(Inner {
                servers,
                config: Arc::new(config),
                principal: None,
                events: None,
                shared: Arc::new(Shared {
                    in_flight: Arc::default(),
                    buffers,
                    closing: watch::Sender::new(false),
                    sessions,
                }),
                metrics: None,
                tasks: TaskHost::default(),
                #[cfg(feature = "auth")]
                auth: None,
            }),
        }
    }

    /// Names the caller of each request from its line and headers (for example the subject
    /// of a bearer token an authentication layer in front has verified): `Some(id)` becomes
    /// [`Principal::Id`], `None` [`Principal::Anonymous`]. The principal is bound into sealed
    /// request state, so a token issued to one caller does not open for another. Refusing
    /// unauthenticated requests is the job of that layer, not of this hook.
    #[must_use]
    pub fn with_principal(
        self,
        principal: impl Fn(&Parts) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.principal = Some(Arc::new(principal));
        McpService {
            inner: Arc::new(inner),
        }
    }

    /// Delivers the events published on `bus` to `subscriptions/listen` streams (without a
    /// bus, a stream carries its acknowledgement, keep-alives and, at shutdown, its closing
    /// response).
    #[must_use]
    pub fn with_events(self, bus: EventBus) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.events = Some(bus);
        McpService {
            inner: Arc::new(inner),
        }
    }

    /// Keeps the tasks of calls that become tasks in `tasks` (by default a
    /// [`TaskHost`] over the bounded in-memory store, with default limits).
    #[must_use]
    pub fn with_tasks(self, tasks: TaskHost) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        if let Some(metrics) = &inner.metrics {
            tasks.observe(metrics.clone());
        }
        inner.tasks = tasks;
        McpService {
            inner: Arc::new(inner),
        }
    }

    /// Where this endpoint keeps its tasks (for a readiness check on its store, or to wait
    /// for its running tasks when draining).
    pub fn tasks(&self) -> &TaskHost {
        &self.inner.tasks
    }

    /// Counts every request in `metrics` (show them with an
    /// [`OpsServer`](super::ops::OpsServer)).
    #[must_use]
    pub fn with_metrics(self, metrics: Metrics) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.tasks.observe(metrics.clone());
        inner.metrics = Some(metrics);
        McpService {
            inner: Arc::new(inner),
        }
    }

    /// Makes the endpoint an OAuth resource server: its metadata served, every request's
    /// bearer token and the endpoint's scopes checked (after the HTTP admission rules,
    /// before the body is read), the scopes of its tool, resource or prompt checked on the
    /// parsed body (both eras), and its subject the principal, overriding
    /// [`with_principal`](Self::with_principal). See [`auth`](super::auth).
    #[cfg(feature = "auth")]
    #[must_use]
    pub fn with_auth(self, auth: super::auth::Authorization) -> Self {
        let mut inner = Arc::unwrap_or_clone(self.inner);
        inner.auth = Some(auth);
        McpService {
            inner: Arc::new(inner),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &HttpConfig {
        &self.inner.config
    }

    /// The server a request starting now uses.
    pub fn server(&self) -> Arc<Server<'static, A>> {
        self.inner.servers.load()
    }

    /// Ends every `subscriptions/listen` stream, now and from now on, with its closing
    /// response (the listener does this when it shuts down). Other requests are unaffected.
    pub fn close_streams(&self) {
        self.inner.shared.closing.send_replace(true);
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, request: Request<B>) -> Response<McpBody>
    where
        B: http_body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<BoxError>,
    {
        let inner = &self.inner;
        let config = &*inner.config;
        #[cfg_attr(not(feature = "auth"), allow(unused_mut))]
        let (mut parts, body) = request.into_parts();
        #[cfg(feature = "auth")]
        if let Some(metadata) = inner.auth.as_ref().and_then(|auth| auth.metadata(&parts)) {
            return metadata;
        }
        let mut observation = Observation::start(inner.metrics.as_ref());
        let eras = || inner.servers.load().config().eras;
        let admitted = match admission::admit(&parts, config).and_then(|a| a.served(eras)) {
            Ok(admitted) => admitted,
            Err(refusal) => {
                tracing::debug!(?refusal, method = %parts.method, path = parts.uri.path(), "refused");
                observation.finish(|| Outcome::Refused(refusal.status()));
                return refused(refusal);
            }
        };
        #[cfg(feature = "auth")]
        if let Some(auth) = &inner.auth {
            let admitted = auth
                .admit(&mut parts)
                .instrument(observation.span().clone())
                .await;
            if let Err(refusal) = admitted {
                observation.finish(|| Outcome::Refused(refusal.status()));
                return refusal;
            }
        }
        let principal = grant::subject(&parts)
            .or_else(|| inner.principal.as_ref().and_then(|hook| hook(&parts)));
        let grant = grant::take(&mut parts);
        if admitted == Admitted::SessionMethod {
            observation.finish(|| Outcome::Stream);
            return self.session_method(&parts, principal.as_deref());
        }
        let body = match read_body(body, config.max_body_len, config.body_read_timeout).await {
            Ok(body) => body,
            Err(refusal) => {
                tracing::debug!(?refusal, "request body refused");
                observation.finish(|| Outcome::Refused(refusal.status()));
                return refused(refusal);
            }
        };
        let (outputs, received) = mpsc::channel(config.notification_queue.max(1));
        let span = observation.span().clone();
        let work: Work = Box::pin(
            run(
                Arc::clone(inner),
                body,
                parts.headers,
                Caller { principal, grant },
                outputs,
                observation,
            )
            .instrument(span),
        );
        let mut exchange = Exchange::new(work, received);
        match exchange.next().await {
            Some(Out::Reply(message, status)) => json(status, message),
            Some(Out::Opened { reply, session }) => legacy::opened(reply, &session),
            Some(Out::Refused(response)) => *response,
            Some(Out::Accepted) => empty(StatusCode::ACCEPTED),
            Some(Out::Event(message)) => event_stream(Some(sse_event(&message)), exchange),
            Some(Out::Framed(frame)) => event_stream(Some(frame), exchange),
            Some(Out::KeepAlive) => event_stream(Some(Bytes::from_static(b":\n\n")), exchange),
            // Cancelled before anything was said: an event stream with no events.
            None => event_stream(None, exchange),
        }
    }

    /// A legacy session's `GET` (its event stream, or a resumed POST stream) or `DELETE`
    /// (its end).
    fn session_method(&self, parts: &Parts, principal: Option<&str>) -> Response<McpBody> {
        let inner = &self.inner;
        let streams = legacy::StreamSettings {
            served: inner.servers.load().app().capabilities(),
            events: legacy::subscribe(inner.events.as_ref()),
            closing: inner.shared.closing.subscribe(),
            keep_alive: inner.config.keep_alive,
            queue: inner.config.notification_queue.max(1),
        };
        legacy::session_method(&inner.shared.sessions, parts, principal, streams)
    }
}

impl<A, B> tower_service::Service<Request<B>> for McpService<A>
where
    A: AsyncHandler + 'static,
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<McpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<McpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let service = self.clone();
        Box::pin(async move { Ok(service.handle(request).await) })
    }
}

/// Reads the whole body within the size and time limits.
pub(crate) async fn read_body<B>(body: B, limit: usize, timeout: Duration) -> Result<Bytes, Refusal>
where
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    match tokio::time::timeout(timeout, Limited::new(body, limit).collect()).await {
        Err(_) => Err(Refusal::Timeout),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.is::<LengthLimitError>() => Err(Refusal::TooLarge),
        Ok(Err(_)) => Err(Refusal::BadBody),
    }
}

/// Who sends a request, as the request's line and headers told.
struct Caller {
    /// The principal its round runs for.
    principal: Option<String>,
    /// The scopes its token was verified for, if the endpoint checks tokens.
    grant: Option<grant::Grant>,
}

/// A request's work: checks the headers against the body and the target against the
/// caller's scopes, runs the round and sends what it produces to `outputs`.
async fn run<A: AsyncHandler + 'static>(
    inner: Arc<Inner<A>>,
    body: Bytes,
    headers: HeaderMap,
    caller: Caller,
    outputs: mpsc::Sender<Out>,
    mut observation: Observation,
) {
    let Caller { principal, grant } = caller;
    let shared_server = inner.servers.load();
    let server = &*shared_server;
    let shared = &*inner.shared;
    let mut out = shared.buffers.take();
    let round = Round {
        now: unix_seconds(),
        principal: principal
            .as_deref()
            .map_or(Principal::Anonymous, Principal::Id),
    };
    let eras = server.config().eras;
    // One parse: the metrics note the method, the era is told, a modern request's headers
    // are checked against it, and its target against the caller's scopes, before the core
    // routes it (or the legacy session takes it).
    let accepted = server.accept_inspected(&body, round, &mut out, |parsed| {
        observation.target(parsed);
        let Ok(message) = parsed else {
            return Ok(());
        };
        let reaches = |request| grant::admit(grant.as_ref(), request).map_err(Diverted::Refused);
        match legacy::classify(message, &headers, eras) {
            Ok(HttpRoute::Modern) => {}
            Ok(route) => {
                if let Incoming::Request(request) = message {
                    reaches(request)?;
                }
                let reading = legacy::Reading {
                    sessions: &shared.sessions,
                    in_flight: &shared.in_flight,
                    served: server.app().capabilities(),
                };
                let principal = principal.as_deref();
                let prepared =
                    legacy::prepare(&reading, route, message, &body, &headers, principal);
                return Err(Diverted::Legacy(prepared));
            }
            Err(mismatch) => {
                return Err(Diverted::Era(legacy::refuse_era(mismatch, message, eras)));
            }
        }
        match message {
            Incoming::Request(request) => {
                headers::check(server, &headers, request)
                    .map_err(|mismatch| Diverted::Headers(mismatch, request.id))?;
                reaches(request)
            }
            _ => Ok(()),
        }
    });
    let answer = match accepted {
        Ok(Err(Diverted::Headers(mismatch, id))) => {
            tracing::debug!(?mismatch, "headers disagree with the body");
            let reply = message(|w| mismatch.write(w, Some(id)));
            Some(Out::Reply(reply, StatusCode::BAD_REQUEST))
        }
        Ok(Err(Diverted::Era(refusal))) => Some(refusal),
        Ok(Err(Diverted::Refused(refusal))) => Some(Out::Refused(refusal)),
        Ok(Err(Diverted::Legacy(prepared))) => {
            // The session's request borrows a buffer only while a round writes; this POST
            // may wait minutes for its reply.
            shared.buffers.give(std::mem::take(&mut out));
            let endpoint = legacy::Endpoint {
                backend: ServerBackend(Arc::clone(&shared_server)),
                sessions: &shared.sessions,
                in_flight: &shared.in_flight,
                bridge: inner.config.bridge,
            };
            let principal = principal.as_deref();
            match legacy::post(endpoint, prepared, &body, principal, &outputs).await {
                Ok(answer) => Some(answer),
                Err(reply) => {
                    observation
                        .finish(|| reply.map_or(Outcome::Cancelled, |r| Outcome::of_reply(&r)));
                    None
                }
            }
        }
        Ok(Ok(Accepted::Replied(len))) => {
            let reply = Bytes::copy_from_slice(&out[..len]);
            Some(Out::Reply(reply.clone(), status_of(&reply)))
        }
        Ok(Ok(Accepted::Silent)) => Some(Out::Accepted),
        Ok(Ok(Accepted::Cancelled(id))) => {
            if inner.config.cancel_by_notification {
                let key = RequestKey::new(principal.as_deref(), id);
                let stopped = shared.in_flight.cancel(&key);
                tracing::debug!(request = ?key, stopped, "cancellation");
            }
            Some(Out::Accepted)
        }
        Ok(Ok(Accepted::Call(call))) => {
            let mut notifier = ChannelNotifier { outputs: &outputs };
            let mut runner = CancellableRunner {
                in_flight: &shared.in_flight,
                principal: principal.as_deref(),
                app: AppRunner {
                    app: server.app(),
                    notifier: Some(&mut notifier),
                },
            };
            match server.drive_call(call, &mut out, &mut runner).await {
                Some(Ok(Handled::BecameTask)) => {
                    let principal = principal.clone();
                    let started =
                        inner
                            .tasks
                            .start(Arc::clone(&shared_server), body.clone(), principal);
                    let reply = match started.await {
                        Ok(created) => Bytes::from(created),
                        Err(full) => {
                            tracing::debug!(?full, "a task was not created");
                            let answer = inner.tasks.in_request(server, &body, round, full);
                            Bytes::from(answer.await)
                        }
                    };
                    Some(Out::Reply(reply.clone(), status_of(&reply)))
                }
                Some(Ok(Handled::Reply(len))) => {
                    let reply = Bytes::copy_from_slice(&out[..len]);
                    Some(Out::Reply(reply.clone(), status_of(&reply)))
                }
                Some(Ok(_)) => None,
                Some(Err(too_small)) => Some(too_large(server, &body, too_small)),
                // Cancelled: no response.
                None => None,
            }
        }
        Ok(Ok(Accepted::Task { id, request })) => {
            let answer = inner.tasks.answer(id, request, principal.as_deref()).await;
            let reply = Bytes::from(answer);
            Some(Out::Reply(reply.clone(), status_of(&reply)))
        }
        Ok(Ok(Accepted::Listen(subscription))) => {
            let events = inner.events.as_ref().map(EventBus::subscribe);
            let tasks = TaskFeed::of(&inner.tasks, &subscription, principal.clone());
            let stream = Listen {
                subscription,
                tasks,
                outputs: &outputs,
                closing: shared.closing.subscribe(),
                events,
                keep_alive: inner.config.keep_alive,
                most: inner.config.max_response_len,
            };
            // The stream may stay open for hours: it writes each event in its own buffer.
            shared.buffers.give(std::mem::take(&mut out));
            stream.run().await;
            observation.finish(|| Outcome::Stream);
            None
        }
        Err(too_small) => Some(too_large(server, &body, too_small)),
    };
    shared.buffers.give(out);
    observation.finish(|| match &answer {
        Some(Out::Reply(reply, _) | Out::Opened { reply, .. }) => Outcome::of_reply(reply),
        Some(Out::Refused(refusal)) => Outcome::Refused(refusal.status()),
        Some(Out::Accepted) => Outcome::Accepted,
        Some(Out::Event(_) | Out::Framed(_) | Out::KeepAlive) | None => Outcome::Cancelled,
    });
    if let Some(answer) = answer {
        let _ = outputs.send(answer).await;
    }
}

/// Why a POST left the modern path before the core routed it.
enum Diverted<'a> {
    /// Its MCP headers disagree with its body.
    Headers(HeaderMismatch, Id<'a>),
    /// It belongs to the legacy era: read, with what is left to do.
    Legacy(legacy::Prepared),
    /// Its era is not served: the refusal.
    Era(Out),
    /// Its caller's token does not reach its target: the refusal.
    Refused(Box<Response<McpBody>>),
}

/// A `subscriptions/listen` stream: the acknowledgement, then the events the filter wants
/// (and keep-alives) until the service closes streams, then the closing response.
struct Listen<'a, 'o> {
    subscription: Subscription<'a>,
    /// The changes of the tasks it watches (`taskIds`).
    tasks: Option<TaskFeed>,
    outputs: &'o mpsc::Sender<Out>,
    closing: watch::Receiver<bool>,
    events: Option<broadcast::Receiver<ServerEvent>>,
    keep_alive: Option<Duration>,
    /// The largest message it writes (`max_response_len`).
    most: usize,
}

impl Listen<'_, '_> {
    async fn run(mut self) {
        let sub = self.subscription;
        self.send_written(|w| sub.write_acknowledged(w)).await;
        if let Some(tasks) = &self.tasks {
            for message in tasks.all(&sub).await {
                self.send(message).await;
            }
        }
        let mut keep_alive = self
            .keep_alive
            .map(|every| tokio::time::interval_at(Instant::now() + every, every));
        loop {
            if *self.closing.borrow_and_update() {
                break;
            }
            tokio::select! {
                changed = self.closing.changed() => {
                    if changed.is_err() {
                        break;
                    }
                }
                received = next_event(&mut self.events) => {
                    for event in due(&sub, received) {
                        self.send_written(|w| sub.write_event(&event.as_event(), w)).await;
                    }
                }
                messages = tasks::next_of(&mut self.tasks, &sub) => {
                    for message in messages {
                        self.send(message).await;
                    }
                }
                () = tick(&mut keep_alive) => {
                    let _ = self.outputs.send(Out::KeepAlive).await;
                }
            }
        }
        if let Ok(reply) = written_within(self.most, |w| sub.write_closed(w)) {
            let reply = Bytes::from(reply);
            let _ = self.outputs.send(Out::Reply(reply, StatusCode::OK)).await;
        }
    }

    /// Queues one message written already, if it is within `most`.
    async fn send(&self, message: Vec<u8>) {
        if message.len() > self.most {
            tracing::warn!(required = message.len(), "notification too large");
            return;
        }
        let _ = self.outputs.send(Out::Event(Bytes::from(message))).await;
    }

    /// Writes one event, in a buffer of its own size (a stream that waits for events holds
    /// none), and queues it.
    async fn send_written(&self, write: impl Fn(&mut Writer<'_>)) {
        match written_within(self.most, write) {
            Ok(message) => {
                let _ = self.outputs.send(Out::Event(Bytes::from(message))).await;
            }
            Err(too_small) => {
                tracing::warn!(required = too_small.required, "notification too large");
            }
        }
    }
}

/// Runs a call registered under its principal and id while it runs, so that a
/// `notifications/cancelled` naming it drops its handler (and no response is sent).
struct CancellableRunner<'s, 'r, 'n, A> {
    in_flight: &'s InFlight,
    principal: Option<&'s str>,
    app: AppRunner<'r, 'n, A>,
}

impl<A: AsyncHandler> Runner for CancellableRunner<'_, '_, '_, A> {
    fn run<'o>(
        &'o mut self,
        call: &'o Call<'o>,
        out: &'o mut [u8],
    ) -> impl Future<Output = Option<Result<Done<'o>, Error>>> + 'o {
        let id = call.context().id();
        let (registration, cancelled) =
            self.in_flight.register(RequestKey::new(self.principal, id));
        let running = self.app.run(call, out);
        async move {
            let outcome = tokio::select! {
                biased;
                Ok(()) = cancelled => None,
                outcome = running => outcome,
            };
            drop(registration);
            if outcome.is_none() {
                tracing::debug!(?id, "cancelled; no response");
            }
            outcome
        }
    }
}

/// Sends a request's notifications ahead of its reply. When the client is this far behind,
/// a notification is dropped rather than blocking the handler or growing without bound.
struct ChannelNotifier<'o> {
    outputs: &'o mpsc::Sender<Out>,
}

impl Notifier for ChannelNotifier<'_> {
    fn notify(&mut self, message: &[u8]) {
        if let Err(e) = self
            .outputs
            .try_send(Out::Event(Bytes::copy_from_slice(message)))
        {
            tracing::debug!("notification dropped: {e}");
        }
    }
}

/// The HTTP status of a reply the core wrote.
pub(crate) fn status_of(reply: &[u8]) -> StatusCode {
    StatusCode::from_u16(reply_status(reply)).unwrap_or(StatusCode::OK)
}

/// The reply to a request whose reply exceeded the output buffer.
fn too_large<A: Registry>(server: &Server<'_, A>, body: &[u8], too_small: BufferTooSmall) -> Out {
    tracing::warn!(required = too_small.required, "reply too large");
    let reply = Bytes::from(crate::message::too_large(server, body));
    Out::Reply(reply, StatusCode::INTERNAL_SERVER_ERROR)
}

/// A message written into a buffer of its own, grown until it fits.
fn message(write: impl Fn(&mut Writer<'_>)) -> Bytes {
    Bytes::from(crate::message::written(write))
}

/// An HTTP-level refusal: a JSON-RPC error without an id (a wrong path gets no body).
pub(crate) fn refused(refusal: Refusal) -> Response<McpBody> {
    if refusal == Refusal::NotFound {
        return empty(StatusCode::NOT_FOUND);
    }
    let body = message(|w| {
        rpc::write_error(w, None, ErrorCode::INVALID_REQUEST, refusal.message(), None);
    });
    let mut response = json(refusal.status(), body);
    if refusal == Refusal::MethodNotAllowed {
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("POST"));
    }
    response
}
