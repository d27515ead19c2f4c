//! The legacy era on the stdio transport: one connection, one era, one session.
//!
//! The reader reads every line once ([`Legacy::read`]), in the order they arrive: until the
//! era is decided each line is parsed for its signal (`initialize` → legacy; the `_meta`
//! envelope or `server/discover` → modern; anything else is served the modern way and
//! decides nothing). Once the connection is modern every line takes the modern path
//! unparsed, as on a modern-only server; the core answers a late `initialize` there -32601,
//! saying why in the server's terms ([`Config::eras`](snodo_core::server::Config::eras)). On
//! a legacy connection a modern request is refused with -32600 naming the versions served.
//!
//! On a legacy connection the first `initialize` opens the process's [`Session`]
//! ([`Legacy::open`]); later messages go through [`Session::step`] in the same read. The
//! client's responses (answers to bridged requests), notifications (cancellation,
//! `initialized`) and what the session answers itself (`ping`, `logging/setLevel`, ...) are
//! taken by the reader, without a slot: a connection whose every slot waits for an answer
//! still reads the answers. A request for the modern handler path runs in a reader slot as
//! before (the in-flight limit and the bounded output hold), from a
//! [`RequestHandle`](snodo_core::legacy::RequestHandle) into its line, through the core's
//! legacy round ([`crate::legacy::round`]). List changes and updates of subscribed resources from the
//! [`EventBus`](crate::events::EventBus) are written in their legacy shape
//! ([`forward_events`]).

use std::future::poll_fn;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Poll;

use bytes::Bytes;
use snodo_core::json::{Limits, Writer};
use snodo_core::legacy::{
    Action, BridgeId, Connection, Era, EraSupport, Session, Step, write_event,
};
use snodo_core::rpc::{self, ErrorCode, Incoming};
use snodo_core::server::{Notifier, Principal, Server, ServerCapabilities};
use tokio::sync::{broadcast, oneshot, watch};

use super::output::{Closed, Output, OutputNotifier};
use crate::buffers::BufferPool;
use crate::events::{ServerEvent, due};
use crate::handler::AsyncHandler;
use crate::in_flight::{InFlight, RequestKey, Stop};
use crate::legacy::backend::{Backend, initialize_reply, session_of};
use crate::legacy::round::{
    Answer, Answers, BridgeBuffers, BridgeConfig, Bridged, Link, LinkClosed, Local, WaitsFull,
    bridge,
};
use crate::legacy::subscriptions::Subscriptions;

/// The era and, once `initialize` opened it, the legacy session of one stdio connection.
#[derive(Debug)]
pub(crate) struct Legacy {
    bridge: BridgeConfig,
    /// The core's sans-IO connection: the era gate and the session.
    connection: Mutex<Connection>,
    subscriptions: Mutex<Subscriptions>,
    answers: Answers,
    /// Requests waiting for the client's answers (each holds its reader slot).
    waiting: AtomicUsize,
}

/// What the reader made of one line, parsed once ([`Legacy::read`]).
pub(crate) enum Read<'l> {
    /// The modern path, exactly as a modern-only server serves it.
    Modern,
    /// Taken (an answer, a notification, a message of the other era without an id):
    /// nothing to send.
    Taken,
    /// Send the first `len` bytes of the reader's buffer (the session answered itself, or
    /// the gate refused the message).
    Reply(usize),
    /// `initialize` on a connection without a session: the caller answers it and opens the
    /// session.
    Initialize(rpc::Request<'l>),
    /// A request of the session for the modern handler path: run it in a slot.
    Request(rpc::Request<'l>),
}

/// What a legacy request's round needs of the connection.
pub(crate) struct Slot<'r, A: 'static> {
    pub(crate) server: &'r Server<'static, A>,
    pub(crate) output: &'r Output,
    pub(crate) in_flight: &'r InFlight,
    /// The reader slot the request runs in, and its admission ticket.
    pub(crate) slot: usize,
    pub(crate) ticket: u64,
    /// Where the request's rounds borrow their output buffers.
    pub(crate) buffers: &'r Arc<BufferPool>,
}

impl Legacy {
    /// The state of a new connection.
    pub(crate) fn new(support: EraSupport, bridge: BridgeConfig, max_subscriptions: usize) -> Self {
        Legacy {
            bridge,
            connection: Mutex::new(Connection::new(support)),
            subscriptions: Mutex::new(Subscriptions::new(max_subscriptions)),
            answers: Answers::new(bridge.max_waiting),
            waiting: AtomicUsize::new(0),
        }
    }

    fn era(&self) -> Option<Era> {
        lock(&self.connection).era()
    }

    /// The client's input ended: no answer to a bridged request can come any more.
    pub(crate) fn end_of_input(&self) {
        self.answers.close();
    }

    /// Whether each of the `busy` reader slots waits for the client's answers: then no slot
    /// frees until the reader reaches the answers, which may lie behind the line it holds.
    pub(crate) fn stalled(&self, busy: usize) -> bool {
        busy > 0 && self.waiting.load(Ordering::Relaxed) >= busy
    }

    /// Refuses the request on `line` that found every slot waiting for this client's
    /// answers ([`Legacy::stalled`]), so the reader can go on to the answers: holding it would
    /// wait for the answer timeout, reading past it would buffer without bound.
    pub(crate) async fn refuse_stalled(
        &self,
        line: &[u8],
        limits: &Limits,
        output: &Output,
    ) -> Result<(), Closed> {
        let Ok(Incoming::Request(request)) = rpc::parse(line, limits) else {
            return Ok(());
        };
        tracing::warn!("every slot waits for the client's answers; a request was refused");
        let mut out = [0u8; 512];
        output
            .send_written(&mut out, |w| {
                rpc::write_error(
                    w,
                    Some(request.id),
                    ErrorCode::INTERNAL_ERROR,
                    "The server is busy: every request in flight waits for this client's answers",
                    None,
                );
            })
            .await
    }

    /// Whether the connection opened with `initialize`.
    pub(crate) fn is_legacy(&self) -> bool {
        self.era() == Some(Era::Legacy)
    }

    /// Reads `line` (parsed once, here) through the gate and the session: answers,
    /// cancellations (`stop`s its request, whether one was stopped) and notifications are
    /// taken, what the session answers itself is written into `out` (sized here when it is
    /// needed), and a request is handed back. Called for the lines in the order they arrive, in the reader: a connection
    /// whose every slot waits for an answer still reads the answers.
    pub(crate) fn read<'l>(
        &self,
        line: &'l [u8],
        limits: &Limits,
        served: impl FnOnce() -> ServerCapabilities,
        out: &mut Vec<u8>,
        stop: impl FnOnce(&RequestKey) -> bool,
    ) -> Read<'l> {
        if self.era() == Some(Era::Modern) {
            return Read::Modern;
        }
        // A line that does not parse is answered by the modern path, which says why in the
        // same words in both eras.
        let Ok(message) = rpc::parse(line, limits) else {
            return Read::Modern;
        };
        // Only a request is answered by the dialect itself; an answer or a notification
        // writes nothing, so it neither grows nor needs the reply buffer.
        let room: &mut [u8] = match message {
            Incoming::Request(_) => room(out, line),
            Incoming::Response(_) | Incoming::Notification(_) => &mut [],
        };
        let mut w = Writer::new(room);
        let action = lock(&self.connection).read(&message, served(), &mut w);
        let step = match action {
            Action::Modern => return Read::Modern,
            Action::Initialize(request) => return Read::Initialize(request),
            Action::Session(step) => step,
        };
        match step {
            Step::Replied => {}
            Step::Subscription { id, uri, subscribe } => {
                lock(&self.subscriptions).change(id, uri, subscribe, &mut w);
            }
            Step::Modern { request, .. } => return Read::Request(request),
            Step::Answer(response) => {
                self.answers.route(line, &response, Bytes::copy_from_slice);
                return Read::Taken;
            }
            Step::Cancel { request_id } => {
                let key = RequestKey::from(request_id);
                let stopped = stop(&key);
                tracing::debug!(request = ?key, stopped, "legacy cancellation");
                return Read::Taken;
            }
            Step::Quiet => return Read::Taken,
        }
        w.finish().map_or(Read::Taken, Read::Reply)
    }

    /// Opens the session for the `initialize` `request`, answered by `backend` (the
    /// server, or the device behind the bridge), or refuses it: the answer, and whether the
    /// session opened.
    pub(crate) async fn open<B: Backend>(
        &self,
        request: &rpc::Request<'_>,
        backend: &B,
    ) -> (Bytes, bool) {
        let session = match session_of(request) {
            Ok(session) => session,
            Err(refusal) => return (refusal, false),
        };
        let reply = match initialize_reply(backend, request.id, &session).await {
            Ok(reply) => reply,
            Err(refusal) => return (refusal, false),
        };
        self.open_session(session);
        tracing::info!(
            version = session.version().name(),
            "a legacy session opened on stdio"
        );
        (reply, true)
    }

    /// The session as it is now, once `initialize` opened it.
    pub(crate) fn session(&self) -> Option<Session> {
        lock(&self.connection).session().copied()
    }

    /// Changes the session (a leg of the bridge takes its ids); `opened` stands in for it
    /// should it not be open, which a running request never sees.
    pub(crate) fn update_session<R>(
        &self,
        opened: Session,
        change: impl FnOnce(&mut Session) -> R,
    ) -> R {
        let mut connection = lock(&self.connection);
        match connection.session_mut() {
            Some(session) => change(session),
            None => change(&mut { opened }),
        }
    }

    /// Opens the session (`initialize` was answered with it). Lines are admitted in order,
    /// so no other `initialize` got here first.
    fn open_session(&self, session: Session) {
        lock(&self.connection).open(session);
    }

    /// The waits of the session's bridged requests.
    #[cfg(feature = "bridge")]
    pub(crate) fn answers(&self) -> &Answers {
        &self.answers
    }

    /// Runs a request of the session through the core's legacy round in its slot;
    /// cancellation reaches it there.
    pub(crate) async fn run<A: AsyncHandler + 'static>(
        &self,
        request: &rpc::Request<'_>,
        slot: Slot<'_, A>,
    ) -> Result<(), Closed> {
        let Some(session) = self.session() else {
            return Ok(());
        };
        let key = RequestKey::from(request.id);
        slot.in_flight
            .admit(key.clone(), slot.ticket, Stop::Slot(slot.slot));
        let mut buffers = BridgeBuffers::new(Arc::clone(slot.buffers), &self.bridge);
        let mut link = StdioLink {
            legacy: self,
            session,
            output: slot.output,
            notifier: OutputNotifier {
                output: slot.output,
            },
        };
        let (in_flight, index) = (slot.in_flight, slot.slot);
        // The reader polls every busy slot after each line, so the flag is seen at once.
        let cancelled = poll_fn(|_| {
            if in_flight.is_cancelled(index) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        });
        let local = Local {
            server: slot.server,
            principal: Principal::Anonymous,
        };
        let bridged = bridge(
            &local,
            &mut link,
            &self.bridge,
            request,
            &mut buffers,
            cancelled,
        )
        .await;
        slot.in_flight.finish(&key, slot.ticket);
        match bridged {
            Bridged::Reply(len) => slot.output.send(buffers.reply(len)).await,
            Bridged::Cancelled => {
                tracing::debug!(request = ?key, "cancelled; no response");
                Ok(())
            }
            Bridged::Closed => Err(Closed),
        }
    }
}

/// Writes list changes and updates of subscribed resources to a legacy session, in their
/// 2025-11-25 shape, until serving ends.
pub(crate) async fn forward_events<A: AsyncHandler + 'static>(
    legacy: Arc<Legacy>,
    server: Arc<Server<'static, A>>,
    output: Arc<Output>,
    mut events: broadcast::Receiver<ServerEvent>,
    mut closing: watch::Receiver<bool>,
) {
    let served = server.app().capabilities();
    // The longest notification: a resource URI within the line limit and a short frame.
    let mut out = Vec::new();
    loop {
        let event = tokio::select! {
            biased;
            changed = closing.changed() => {
                if changed.is_err() || *closing.borrow() {
                    return;
                }
                continue;
            }
            event = events.recv() => event,
        };
        if matches!(event, Err(broadcast::error::RecvError::Closed)) {
            return;
        }
        // Taken before the sends: the lock is not held across them.
        let pending = due(&*lock(&legacy.subscriptions), event);
        for event in pending {
            let uri_len = match &event {
                ServerEvent::ResourceUpdated(uri) => uri.len(),
                _ => 0,
            };
            out.resize(uri_len * 6 + 128, 0);
            let mut w = Writer::new(&mut out);
            if !write_event(&event.as_event(), served, &mut w) {
                continue;
            }
            let Ok(len) = w.finish() else { continue };
            if output.send(&out[..len]).await.is_err() {
                return;
            }
        }
    }
}

/// The bridge loop's view of a stdio connection.
struct StdioLink<'s> {
    legacy: &'s Legacy,
    /// The session when the request started.
    session: Session,
    output: &'s Output,
    notifier: OutputNotifier<'s>,
}

impl Link for StdioLink<'_> {
    fn session(&self) -> Session {
        self.legacy.session().unwrap_or(self.session)
    }

    fn update_session<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R {
        self.legacy.update_session(self.session, change)
    }

    fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Answer>, WaitsFull> {
        self.legacy.answers.wait_for(id)
    }

    async fn send(&mut self, message: &[u8]) -> Result<(), LinkClosed> {
        self.output.send(message).await.map_err(|Closed| LinkClosed)
    }

    fn notifier(&mut self) -> &mut (dyn Notifier + Send) {
        &mut self.notifier
    }

    fn waiting(&self, waiting: bool) {
        if waiting {
            self.legacy.waiting.fetch_add(1, Ordering::Relaxed);
        } else {
            self.legacy.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// `out` with room for any answer the session writes itself to `line`: an error echoes at
/// most the line's id.
fn room<'o>(out: &'o mut Vec<u8>, line: &[u8]) -> &'o mut [u8] {
    if out.len() < line.len() + 512 {
        out.resize(line.len() + 512, 0);
    }
    out
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
