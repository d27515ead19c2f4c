//! The MRTR bridge loop, written once for both transports: one request of a legacy session,
//! run through the modern handler path until it has a final result for the legacy client.
//!
//! # API
//!
//! - [`bridge`]`(rounds, link, config, request, buffers, cancelled)` serves one
//!   request [`Step::Modern`](snodo_core::legacy::Step::Modern) handed over: it lifts it
//!   ([`lift_request`]), runs the modern round through [`Rounds`] (a local server with
//!   [`crate::handle`]: [`Local`]; a device behind the serial bridge), and [`settle`]s the
//!   reply. A final reply is lowered into [`BridgeBuffers::reply`]; `input_required` opens a
//!   [`Leg`] (capability admission, at most [`BridgeConfig::max_rounds`] legs), sends each
//!   input request through the [`Link`], waits for the answers (each within
//!   [`BridgeConfig::answer_timeout`], the whole wait ended by `cancelled`), gathers them
//!   into a store of [`BridgeConfig::max_answers_len`] bytes and runs the retry. It returns
//!   [`Bridged`]: a reply to send, a cancelled request (send nothing), or a closed link.
//! - [`Link`] is what a transport gives the loop: the session (read for each lift, changed
//!   when a leg takes its bridge ids), a wait for the answer to one bridged request, a way to
//!   send a message to the client (stdio: a line on the connection; HTTP: an event of the
//!   POST's stream), and the notifier the handler's progress and log messages go through.
//! - [`Answers`] is a bounded table of those waits ([`BridgeConfig::max_waiting`] at most),
//!   a transport can keep per session: [`Answers::wait_for`] registers one,
//!   [`Answers::deliver`] routes a client's response by its [`BridgeId`].
//! - [`BridgeBuffers`] are the loop's buffers, made once and reused from request to request.
//!
//! When the wait ends early (a timeout, the client's cancellation, an error answer), the
//! bridged requests still open are cancelled with `notifications/cancelled`. Errors end the
//! client's request with -32603 ([`BridgeError::write_error`], [`write_refused`]): 2026 codes
//! mean nothing to a legacy client.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use snodo_core::json::Writer;
use snodo_core::legacy::{
    Accepted, AnswerError, BridgeError, BridgeId, BridgeLimits, Leg, Session, Settled,
    lift_request, parse_response, settle, write_cancelled, write_refused,
};
use snodo_core::rpc::{self, ErrorCode, Id, Request};
use snodo_core::server::{Handled, Notifier, Principal, Round, Server};
use tokio::sync::oneshot;

use crate::clock::unix_seconds;
use crate::handler::{AsyncHandler, handle};

/// The bounds of the bridge: how many legs, how long a wait, how much the answers may
/// hold, how many waits at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BridgeConfig {
    /// Most `input_required` results bridged for one client request. Default 8.
    pub max_rounds: u8,
    /// How long the client may take to answer one bridged request (the wait restarts with
    /// each answer). Default 5 minutes: a person may be filling in a form.
    pub answer_timeout: Duration,
    /// Bytes the answers of one leg may take together (their results, as JSON). A larger
    /// answer ends the request with an error. Default 256 KiB.
    pub max_answers_len: usize,
    /// Most bridged requests of one session waiting for an answer at once. A leg that would
    /// exceed it ends its request with an error. Default 64.
    pub max_waiting: usize,
}

impl BridgeConfig {
    /// The defaults.
    pub const DEFAULT: BridgeConfig = BridgeConfig {
        max_rounds: 8,
        answer_timeout: Duration::from_secs(5 * 60),
        max_answers_len: 256 * 1024,
        max_waiting: 64,
    };

    /// With another bound on legs per request.
    #[must_use]
    pub const fn with_max_rounds(mut self, rounds: u8) -> Self {
        self.max_rounds = rounds;
        self
    }

    /// With another wait for each answer.
    #[must_use]
    pub const fn with_answer_timeout(mut self, timeout: Duration) -> Self {
        self.answer_timeout = timeout;
        self
    }

    /// With another bound on a leg's answers, in bytes.
    #[must_use]
    pub const fn with_max_answers_len(mut self, bytes: usize) -> Self {
        self.max_answers_len = bytes;
        self
    }

    /// With another bound on waits per session.
    #[must_use]
    pub const fn with_max_waiting(mut self, waits: usize) -> Self {
        self.max_waiting = waits;
        self
    }

    fn limits(&self, json: snodo_core::json::Limits) -> BridgeLimits {
        BridgeLimits {
            max_rounds: self.max_rounds,
            json,
        }
    }
}

impl Default for BridgeConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The link is gone (the connection closed, the POST's stream was dropped): nothing more
/// can reach the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LinkClosed;

/// Too many bridged requests of the session wait for answers already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaitsFull;

/// Who runs a lifted 2026-07-28 request to its reply: the one step of the bridge loop that
/// differs between a server in this process ([`Local`]) and a device behind the serial
/// bridge.
pub(crate) trait Rounds {
    /// Bounds on the JSON of the replies and the client's answers.
    fn limits(&self) -> snodo_core::json::Limits;

    /// Runs `request`, writing its reply (or an error reply with its id) into `out`: the
    /// reply's length. Notifications sent ahead of the reply go to `notifier`.
    fn run(
        &self,
        request: &[u8],
        out: &mut [u8],
        notifier: &mut (dyn Notifier + Send),
    ) -> impl Future<Output = usize> + Send;
}

/// A server in this process, run with [`crate::handle`] for `principal`.
pub(crate) struct Local<'s, A: 'static> {
    pub(crate) server: &'s Server<'static, A>,
    pub(crate) principal: Principal<'s>,
}

impl<A: AsyncHandler + 'static> Rounds for Local<'_, A> {
    fn limits(&self) -> snodo_core::json::Limits {
        self.server.config().limits
    }

    async fn run(
        &self,
        request: &[u8],
        out: &mut [u8],
        notifier: &mut (dyn Notifier + Send),
    ) -> usize {
        let round = Round {
            now: unix_seconds(),
            principal: self.principal,
        };
        // `handle` answers a panicking handler itself (-32603 "The handler failed").
        let failure = match handle(self.server, request, round, out, Some(notifier)).await {
            Ok(Handled::Reply(len)) => return len,
            Ok(_) => "The handler failed",
            Err(_) => "The response exceeds the output buffer",
        };
        // An error the size of an id: it fits any output buffer a server can work with.
        let mut w = Writer::new(out);
        self.server.write_too_large(request, failure, &mut w);
        w.finish().unwrap_or(0)
    }
}

/// What a transport gives the bridge loop for one request of a legacy session.
pub(crate) trait Link: Send {
    /// The session as it is now (each leg lifts with the latest log level).
    fn session(&self) -> Session;

    /// Changes the session (a leg takes its bridge ids); concurrent requests share it.
    fn update_session<R>(&self, change: impl FnOnce(&mut Session) -> R) -> R;

    /// Registers a wait for the client's response to the bridged request `id`.
    fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Bytes>, WaitsFull>;

    /// Sends one message to the client, waiting for room.
    fn send(&mut self, message: &[u8]) -> impl Future<Output = Result<(), LinkClosed>> + Send;

    /// Where the handler's progress and log notifications go, ahead of the reply.
    fn notifier(&mut self) -> &mut (dyn Notifier + Send);

    /// The request starts (`true`) or stops (`false`) waiting for the client's answers: a
    /// transport whose every running request waits knows only the client can go on.
    fn waiting(&self, waiting: bool) {
        let _ = waiting;
    }
}

/// A bounded table of bridged requests waiting for the client's answer, by [`BridgeId`].
#[derive(Debug)]
pub(crate) struct Answers {
    capacity: usize,
    waiting: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    senders: HashMap<u64, oneshot::Sender<Bytes>>,
    /// No answer can come any more (the client's input ended).
    closed: bool,
}

impl Answers {
    /// A table of at most `capacity` waits.
    pub(crate) fn new(capacity: usize) -> Self {
        Answers {
            capacity,
            waiting: Mutex::new(Waiting::default()),
        }
    }

    /// Registers a wait for the answer to `id`; a wait whose receiver was dropped no longer
    /// counts.
    /// Once [closed](Answers::close), the wait ends at once, without an answer.
    pub(crate) fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Bytes>, WaitsFull> {
        let mut waiting = self.lock();
        waiting.senders.retain(|_, sender| !sender.is_closed());
        if waiting.senders.len() >= self.capacity {
            return Err(WaitsFull);
        }
        let (sender, receiver) = oneshot::channel();
        if !waiting.closed {
            waiting.senders.insert(id.0, sender);
        }
        Ok(receiver)
    }

    /// No answer can come any more: every wait ends without one, now and from now on.
    pub(crate) fn close(&self) {
        let mut waiting = self.lock();
        waiting.closed = true;
        waiting.senders.clear();
    }

    /// Hands `response` (a whole JSON-RPC response from the client) to the request waiting
    /// for it; whether one was.
    pub(crate) fn deliver(&self, response: &[u8], limits: &snodo_core::json::Limits) -> bool {
        let Some(id) = parse_response(response, limits)
            .ok()
            .and_then(|r| BridgeId::from_id(&r.id))
        else {
            return false;
        };
        let waiter = self.lock().senders.remove(&id.0);
        waiter.is_some_and(|w| w.send(Bytes::copy_from_slice(response)).is_ok())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The loop's buffers, reused from request to request.
#[derive(Debug)]
pub(crate) struct BridgeBuffers {
    /// The request the next round runs (the lifted request, then each retry).
    request: Vec<u8>,
    /// The retry being written.
    next: Vec<u8>,
    /// The modern round's reply.
    modern: Vec<u8>,
    /// The legacy reply, and each bridged request on its way out.
    reply: Vec<u8>,
    /// The answers of the current leg.
    store: Vec<u8>,
}

impl BridgeBuffers {
    /// Buffers for replies of at most `max_response_len` bytes and answers of at most
    /// [`BridgeConfig::max_answers_len`]. Zeroed memory: pages become resident only as
    /// messages are written into them.
    pub(crate) fn new(max_response_len: usize, config: &BridgeConfig) -> Self {
        BridgeBuffers {
            request: Vec::new(),
            next: Vec::new(),
            modern: vec![0; max_response_len],
            // Lowering drops members; an error naming missing capabilities may be longer.
            reply: vec![0; max_response_len + 512],
            store: vec![0; config.max_answers_len],
        }
    }

    /// Whether these buffers have the sizes [`BridgeBuffers::new`] would give.
    fn fits(&self, max_response_len: usize, config: &BridgeConfig) -> bool {
        self.modern.len() == max_response_len && self.store.len() == config.max_answers_len
    }

    /// The reply [`Bridged::Reply`] names.
    pub(crate) fn reply(&self, len: usize) -> &[u8] {
        &self.reply[..len]
    }
}

/// Idle [`BridgeBuffers`] kept for the next request, at most `keep` of them: a transport
/// that starts a bridge per request (HTTP) reuses them instead of zeroing megabytes anew.
#[derive(Debug)]
pub(crate) struct BridgePool {
    keep: usize,
    idle: Mutex<Vec<BridgeBuffers>>,
}

impl BridgePool {
    /// A pool that keeps at most `keep` idle sets.
    pub(crate) fn new(keep: usize) -> Self {
        BridgePool {
            keep,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// An idle set of the sizes asked for, or a new one.
    pub(crate) fn take(&self, max_response_len: usize, config: &BridgeConfig) -> BridgeBuffers {
        let reused = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match reused {
            Some(buffers) if buffers.fits(max_response_len, config) => buffers,
            _ => BridgeBuffers::new(max_response_len, config),
        }
    }

    /// Keeps `buffers` for a later request, unless the pool is full.
    pub(crate) fn give(&self, buffers: BridgeBuffers) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.keep {
            idle.push(buffers);
        }
    }
}

/// How one bridged request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bridged {
    /// Send [`BridgeBuffers::reply`]`(len)`.
    Reply(usize),
    /// The client cancelled the request: send nothing.
    Cancelled,
    /// The link closed: no one is left to answer.
    Closed,
}

/// Serves `request` of a legacy session to its final reply; see the module doc.
pub(crate) async fn bridge<R, L, C>(
    rounds: &R,
    link: &mut L,
    config: &BridgeConfig,
    request: &Request<'_>,
    buffers: &mut BridgeBuffers,
    cancelled: C,
) -> Bridged
where
    R: Rounds,
    L: Link,
    C: Future<Output = ()>,
{
    let mut cancelled = pin!(cancelled);
    let limits = config.limits(rounds.limits());
    let id = request.id;
    let session = link.session();
    let lifted = write_growing(&mut buffers.request, |w| lift_request(request, &session, w));
    buffers.request.truncate(lifted);
    let mut round = 0u8;
    loop {
        let Some(len) = run_round(rounds, link, buffers, cancelled.as_mut()).await else {
            return Bridged::Cancelled;
        };
        let modern = &buffers.modern[..len];
        let mut w = Writer::new(&mut buffers.reply);
        match settle(modern, &limits.json, &mut w) {
            Ok(Settled::Final) => {
                return match w.finish() {
                    Ok(len) => Bridged::Reply(len),
                    Err(_) => reply_error(buffers, id, "The response exceeds the output buffer"),
                };
            }
            Ok(Settled::InputRequired) => {}
            Err(_) => return reply_error(buffers, id, "The handler's reply could not be read"),
        }
        // Past 255 legs `Leg::open` sees the bound too (`max_rounds` is a `u8`).
        round = round.saturating_add(1);
        let leg = match link.update_session(|s| Leg::<MAX_INPUTS>::open(modern, s, &limits, round))
        {
            Ok(leg) => leg,
            Err(e) => return reply_bridge_error(buffers, id, e),
        };
        link.waiting(true);
        let gathered = gather(
            link,
            config,
            &limits,
            leg,
            buffers,
            len,
            id,
            cancelled.as_mut(),
        )
        .await;
        link.waiting(false);
        let leg = match gathered {
            Ok(leg) => leg,
            Err(end) => return end,
        };
        let mut failed = None;
        let retry = write_growing(&mut buffers.next, |w| {
            let modern = &buffers.modern[..len];
            if let Err(e) = leg.write_retry(&buffers.request, modern, &buffers.store, &limits, w) {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return reply_bridge_error(buffers, id, e);
        }
        buffers.next.truncate(retry);
        std::mem::swap(&mut buffers.request, &mut buffers.next);
    }
}

/// Most input requests one `input_required` result may hold.
const MAX_INPUTS: usize = 8;

/// Runs the modern round on `buffers.request`: the length of its reply in
/// `buffers.modern`, or `None` when the client cancelled first.
async fn run_round<R: Rounds, L: Link>(
    rounds: &R,
    link: &mut L,
    buffers: &mut BridgeBuffers,
    cancelled: Pin<&mut impl Future<Output = ()>>,
) -> Option<usize> {
    let running = rounds.run(&buffers.request, &mut buffers.modern, link.notifier());
    tokio::select! {
        biased;
        () = cancelled => None,
        len = running => Some(len),
    }
}

/// Sends the leg's input requests and gathers their answers into `buffers.store`: the
/// completed leg, or how the request ended (its error reply written).
#[allow(clippy::too_many_arguments)]
async fn gather<L: Link>(
    link: &mut L,
    config: &BridgeConfig,
    limits: &BridgeLimits,
    mut leg: Leg<MAX_INPUTS>,
    buffers: &mut BridgeBuffers,
    len: usize,
    id: Id<'_>,
    mut cancelled: Pin<&mut impl Future<Output = ()>>,
) -> Result<Leg<MAX_INPUTS>, Bridged> {
    let mut waits = Vec::with_capacity(leg.len());
    for index in 0..leg.len() {
        let Some(bridge_id) = leg.id(index) else {
            break;
        };
        match link.wait_for(bridge_id) {
            Ok(wait) => waits.push(Some(wait)),
            Err(WaitsFull) => {
                return Err(reply_error(
                    buffers,
                    id,
                    "Too many requests wait for the client's answers: try again later",
                ));
            }
        }
    }
    for index in 0..leg.len() {
        let mut w = Writer::new(&mut buffers.reply);
        let written = leg
            .write_request(index, &buffers.modern[..len], limits, &mut w)
            .and_then(|()| {
                w.finish()
                    .map_err(|_| BridgeError::Misuse("a bridged request exceeds the buffer"))
            });
        let sent = match written {
            Ok(message_len) => link.send(&buffers.reply[..message_len]).await,
            Err(e) => return Err(reply_bridge_error(buffers, id, e)),
        };
        if sent.is_err() {
            return Err(Bridged::Closed);
        }
    }
    while !leg.is_complete() {
        let next = poll_fn(|cx| next_answer(&mut waits, cx));
        let mut refused = None;
        let (ended, reason) = tokio::select! {
            biased;
            () = cancelled.as_mut() => (Bridged::Cancelled, "The request was cancelled"),
            answer = tokio::time::timeout(config.answer_timeout, next) => match answer {
                Ok(Some(answer)) => match take_answer(&mut leg, &answer, buffers, limits, id) {
                    Taken::Recorded => continue,
                    Taken::Refused(bridge_id, ended) => {
                        refused = Some(bridge_id);
                        (ended, "The request ended")
                    }
                    Taken::Ended(ended) => (ended, "The request ended"),
                },
                // Every wait is gone: the session or the client's input ended.
                Ok(None) => (
                    reply_error(buffers, id, "The client can no longer answer the server's request"),
                    "The session ended",
                ),
                Err(_) => (
                    reply_bridge_error(buffers, id, BridgeError::TimedOut),
                    "No answer in time",
                ),
            },
        };
        return Err(match cancel_pending(link, &leg, refused, reason).await {
            Ok(()) => ended,
            Err(LinkClosed) => Bridged::Closed,
        });
    }
    Ok(leg)
}

/// The next answer of any wait still open, or `None` when none is.
fn next_answer(
    waits: &mut [Option<oneshot::Receiver<Bytes>>],
    cx: &mut std::task::Context<'_>,
) -> Poll<Option<Bytes>> {
    for wait in waits.iter_mut() {
        let Some(receiver) = wait else { continue };
        if let Poll::Ready(answer) = Pin::new(receiver).poll(cx) {
            *wait = None;
            // A dropped sender (the session ended) is an answer that never comes.
            if let Ok(answer) = answer {
                return Poll::Ready(Some(answer));
            }
        }
    }
    if waits.iter().all(Option::is_none) {
        Poll::Ready(None)
    } else {
        Poll::Pending
    }
}

/// What one answer did.
enum Taken {
    /// Recorded (or ignored): wait on.
    Recorded,
    /// The client answered the bridged request with an error: the request ends (its error
    /// reply written); the refused request needs no cancellation.
    Refused(BridgeId, Bridged),
    /// The request ends (its error reply written).
    Ended(Bridged),
}

/// Records one answer in the leg.
fn take_answer(
    leg: &mut Leg<MAX_INPUTS>,
    answer: &[u8],
    buffers: &mut BridgeBuffers,
    limits: &BridgeLimits,
    id: Id<'_>,
) -> Taken {
    let Ok(response) = parse_response(answer, &limits.json) else {
        return Taken::Ended(reply_error(
            buffers,
            id,
            "The client's answer could not be read",
        ));
    };
    match leg.accept(&response, &mut buffers.store) {
        Ok(Accepted::Waiting { .. } | Accepted::Complete) => Taken::Recorded,
        Ok(Accepted::Refused {
            kind,
            code,
            message,
        }) => {
            let ended = reply_with(buffers, |w| write_refused(w, id, kind, code, message));
            match BridgeId::from_id(&response.id) {
                Some(bridge_id) => Taken::Refused(bridge_id, ended),
                None => Taken::Ended(ended),
            }
        }
        // Routed by id and removed once answered, so neither happens; ignoring is safe.
        Err(AnswerError::NotThisLeg | AnswerError::Duplicate) => Taken::Recorded,
        Err(AnswerError::StoreFull { .. }) => Taken::Ended(reply_error(
            buffers,
            id,
            "The client's answers are larger than the server accepts",
        )),
    }
}

/// Sends `notifications/cancelled` for each of the leg's requests still waiting, but the
/// one the client `refused` (it is answered).
async fn cancel_pending<L: Link>(
    link: &mut L,
    leg: &Leg<MAX_INPUTS>,
    refused: Option<BridgeId>,
    reason: &str,
) -> Result<(), LinkClosed> {
    for id in leg.pending().filter(|&id| Some(id) != refused) {
        // A bridge id of at most 35 bytes and a short reason.
        let mut buf = [0u8; 256];
        let mut w = Writer::new(&mut buf);
        write_cancelled(&mut w, id, reason);
        if let Ok(len) = w.finish() {
            link.send(&buf[..len]).await?;
        }
    }
    Ok(())
}

/// Ends the request `id` with a -32603 error saying `message`.
fn reply_error(buffers: &mut BridgeBuffers, id: Id<'_>, message: &str) -> Bridged {
    reply_with(buffers, |w| {
        rpc::write_error(w, Some(id), ErrorCode::INTERNAL_ERROR, message, None);
    })
}

/// Ends the request `id` with the error of a bridge failure.
fn reply_bridge_error(buffers: &mut BridgeBuffers, id: Id<'_>, error: BridgeError) -> Bridged {
    reply_with(buffers, |w| error.write_error(w, id))
}

/// Writes the reply into `buffers.reply` (grown when it must be).
fn reply_with(buffers: &mut BridgeBuffers, write: impl FnMut(&mut Writer<'_>)) -> Bridged {
    Bridged::Reply(write_growing(&mut buffers.reply, write))
}

/// Writes into `out`, growing it until the message fits; the message's length.
fn write_growing(out: &mut Vec<u8>, mut write: impl FnMut(&mut Writer<'_>)) -> usize {
    if out.len() < 256 {
        out.resize(256, 0);
    }
    loop {
        let mut w = Writer::new(out);
        write(&mut w);
        match w.finish() {
            Ok(len) => return len,
            Err(too_small) => out.resize(too_small.required, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BridgeConfig, BridgePool};

    #[test]
    fn the_pool_reuses_buffers_of_the_same_sizes_and_keeps_at_most_its_capacity() {
        let config = BridgeConfig::default();
        let pool = BridgePool::new(1);
        let first = pool.take(4096, &config);
        let address = first.modern.as_ptr();
        pool.give(first);
        // A second set beyond the capacity is dropped, not kept.
        pool.give(pool_set(&config));
        let reused = pool.take(4096, &config);
        assert_eq!(reused.modern.as_ptr(), address);
        // Buffers of another size are never handed out for this one.
        pool.give(reused);
        let other = pool.take(8192, &config);
        assert_eq!(other.modern.len(), 8192);
    }

    fn pool_set(config: &BridgeConfig) -> super::BridgeBuffers {
        super::BridgeBuffers::new(4096, config)
    }
}
