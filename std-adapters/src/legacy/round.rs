//! The legacy round's transport side, written once for every transport: the core's
//! [`drive`] (`snodo_core::legacy::drive`) owns one request of a legacy session from lift to
//! final reply (settle, bridge legs, retries); this module gives it what only a host has.
//!
//! # API
//!
//! - [`bridge`]`(rounds, link, config, request, buffers, cancelled)` serves one request
//!   [`Step::Modern`](snodo_core::legacy::Step::Modern) handed over, through the core's
//!   [`drive`]: the modern round runs on [`Rounds`] (a local server with [`crate::handle`]:
//!   [`Local`]; a device behind the serial bridge); each answer is awaited within
//!   [`BridgeConfig::answer_timeout`], the whole wait ended by `cancelled`. It returns
//!   [`Bridged`]: a reply to send, a cancelled request (send nothing), or a closed link.
//! - [`Link`] is what a transport gives: the session (read for each lift, changed when a leg
//!   takes its bridge ids), a wait for the answer to one bridged request, a way to send a
//!   message to the client (stdio: a line on the connection; HTTP: an event of the POST's
//!   stream), and the notifier the handler's progress and log messages go through.
//! - [`Answers`] is a bounded table of those waits ([`BridgeConfig::max_waiting`] at most),
//!   a transport can keep per session: [`Answers::wait_for`] registers one,
//!   [`Answers::deliver`] routes a client's response, read once where it arrived
//!   ([`Answer`]), by its [`BridgeId`].
//! - [`BridgeBuffers`] are the core's [`Scratch`]: empty when a request starts, each grown to
//!   what a message needs, and the modern round's reply buffer borrowed from a
//!   [`BufferPool`] only while a round writes into it.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use bytes::Bytes;
use snodo_core::json::Writer;
use snodo_core::legacy::{
    BridgeId, BridgeLimits, Link as CoreLink, Next, Part, Parts, ReadAnswer, Scratch, Session,
    drive,
};
use snodo_core::rpc::Request;
use snodo_core::server::{Handled, Notifier, Principal, Round, Server};
use tokio::sync::oneshot;

use crate::buffers::BufferPool;
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

pub(crate) use snodo_core::legacy::{LinkClosed, WaitsFull};

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
    fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Answer>, WaitsFull>;

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

/// A client's answer to a bridged request, read once where it arrived (its id routes it; the
/// waiting request views it again without a scan), with the bytes it was read from.
pub(crate) type Answer = ReadAnswer<Bytes>;

/// A bounded table of bridged requests waiting for the client's answer, by [`BridgeId`].
#[derive(Debug)]
pub(crate) struct Answers {
    capacity: usize,
    waiting: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    senders: HashMap<u64, oneshot::Sender<Answer>>,
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
    pub(crate) fn wait_for(&self, id: BridgeId) -> Result<oneshot::Receiver<Answer>, WaitsFull> {
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

    /// Hands `answer` (a client's response, read where it arrived) to the request waiting
    /// for it; whether one was.
    pub(crate) fn deliver(&self, answer: Answer) -> bool {
        let waiter = self.lock().senders.remove(&answer.id().0);
        waiter.is_some_and(|w| w.send(answer).is_ok())
    }

    /// Routes the client's `response`, read from `message`, by its id to the bridged request
    /// waiting for it, keeping the bytes `keep` gives; a response nobody waits for (an
    /// unknown or foreign id, a wait that ended) is dropped. The same on every transport.
    pub(crate) fn route(
        &self,
        message: &[u8],
        response: &snodo_core::rpc::Response<'_>,
        keep: impl FnOnce(&[u8]) -> Bytes,
    ) {
        let answer = Answer::new(message, response, keep);
        if !answer.is_some_and(|a| self.deliver(a)) {
            tracing::debug!("a response nobody waits for was dropped");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The buffers one request of a legacy session works in. While the request waits for the
/// client's answers it holds only what the retry needs: the previous request, the
/// `input_required` result and the answers so far, each at its own length. The buffer a
/// modern round writes its reply into is borrowed from the transport's [`BufferPool`] for
/// that round only, and given back when the request ends or starts to wait.
#[derive(Debug)]
pub(crate) struct BridgeBuffers {
    /// The request the next round runs (the lifted request, then each retry).
    request: Vec<u8>,
    /// The retry being written.
    next: Vec<u8>,
    /// The modern round's reply: a pool's buffer while a round writes, then only the reply.
    modern: Vec<u8>,
    /// The legacy reply, and each bridged request on its way out.
    reply: Vec<u8>,
    /// The answers of the current leg.
    store: Vec<u8>,
    /// Where `modern` comes from while a round writes.
    pool: Arc<BufferPool>,
    /// Most bytes `store` may grow to ([`BridgeConfig::max_answers_len`]).
    max_answers_len: usize,
}

/// Room beyond the modern reply that its legacy lowering may take: lowering drops members,
/// but an error naming missing capabilities may be longer than what it replaces.
const LOWERING_ROOM: usize = 512;

impl BridgeBuffers {
    /// Empty buffers for one request: modern replies as large as `pool`'s buffers, answers
    /// of at most [`BridgeConfig::max_answers_len`]. Each grows only to what a message needs.
    pub(crate) fn new(pool: Arc<BufferPool>, config: &BridgeConfig) -> Self {
        BridgeBuffers {
            request: Vec::new(),
            next: Vec::new(),
            modern: Vec::new(),
            reply: Vec::new(),
            store: Vec::new(),
            pool,
            max_answers_len: config.max_answers_len,
        }
    }

    /// The reply [`Bridged::Reply`] names.
    pub(crate) fn reply(&self, len: usize) -> &[u8] {
        &self.reply[..len]
    }

    /// Gives a borrowed modern buffer back, keeping its first `len` bytes.
    fn give_back_modern(&mut self, len: usize) {
        if self.modern.len() == self.pool.size() {
            let kept = self.modern[..len.min(self.modern.len())].to_vec();
            self.pool.give(std::mem::replace(&mut self.modern, kept));
        }
    }
}

impl Drop for BridgeBuffers {
    fn drop(&mut self) {
        self.give_back_modern(0);
    }
}

pub(crate) use snodo_core::legacy::Bridged;

impl Scratch for BridgeBuffers {
    fn parts(&mut self) -> Parts<'_> {
        Parts {
            requests: [&mut self.request, &mut self.next],
            modern: &mut self.modern,
            reply: &mut self.reply,
            store: &mut self.store,
        }
    }

    fn grow(&mut self, part: Part, required: usize) -> bool {
        let (buffer, most) = match part {
            // A request is the client's (bounded by the transport's body limit) with the
            // answers and the state token added, each bounded.
            Part::Request(0) => (&mut self.request, usize::MAX),
            Part::Request(_) => (&mut self.next, usize::MAX),
            Part::Reply => (&mut self.reply, self.pool.size() + LOWERING_ROOM),
            Part::Store => (&mut self.store, self.max_answers_len),
            // Lent whole by `lend`: it never grows halfway through a write.
            Part::Modern => return false,
        };
        if required > most {
            return false;
        }
        if buffer.len() < required {
            buffer.resize(required, 0);
        }
        true
    }

    fn lend(&mut self, part: Part) {
        if part == Part::Modern && self.modern.len() != self.pool.size() {
            self.modern = self.pool.take();
        }
    }

    fn keep(&mut self, part: Part, len: usize) {
        match part {
            Part::Modern => self.give_back_modern(len),
            Part::Reply => {
                self.reply.truncate(len);
                self.reply.shrink_to_fit();
            }
            _ => {}
        }
    }
}

/// Serves `request` of a legacy session to its final reply in `buffers`: the core's
/// [`drive`] with this transport's rounds, link, waits and cancellation.
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
    let limits = config.limits(rounds.limits());
    let mut driven = Driven {
        rounds,
        link,
        answer_timeout: config.answer_timeout,
        waits: Vec::new(),
        cancelled: pin!(cancelled),
    };
    drive(&mut driven, buffers, &limits, request).await
}

/// The core's [`CoreLink`] over a transport: the waits of the current leg, the answer
/// timeout and the client's cancellation are kept here.
struct Driven<'d, R, L, C> {
    rounds: &'d R,
    link: &'d mut L,
    answer_timeout: Duration,
    /// The current leg's waits; `None` once answered.
    waits: Vec<Option<oneshot::Receiver<Answer>>>,
    cancelled: Pin<&'d mut C>,
}

impl<R: Rounds, L: Link, C: Future<Output = ()>> CoreLink for Driven<'_, R, L, C> {
    type Answer = Answer;

    fn session(&self) -> Session {
        self.link.session()
    }

    fn update_session<T>(&mut self, change: impl FnOnce(&mut Session) -> T) -> T {
        self.link.update_session(change)
    }

    async fn run(&mut self, request: &[u8], out: &mut [u8]) -> Option<usize> {
        let running = self.rounds.run(request, out, self.link.notifier());
        tokio::select! {
            biased;
            () = self.cancelled.as_mut() => None,
            len = running => Some(len),
        }
    }

    fn expect(&mut self, ids: &[BridgeId]) -> Result<(), WaitsFull> {
        self.waits.clear();
        for &id in ids {
            let wait = self.link.wait_for(id)?;
            self.waits.push(Some(wait));
        }
        Ok(())
    }

    async fn send(&mut self, message: &[u8]) -> Result<(), LinkClosed> {
        self.link.send(message).await
    }

    async fn next_answer(&mut self) -> Next<Answer> {
        let waits = &mut self.waits;
        let next = poll_fn(|cx| next_answer(waits, cx));
        tokio::select! {
            biased;
            () = self.cancelled.as_mut() => Next::Cancelled,
            answer = tokio::time::timeout(self.answer_timeout, next) => match answer {
                Ok(Some(answer)) => Next::Answer(answer),
                Ok(None) => Next::Gone,
                Err(_) => Next::TimedOut,
            },
        }
    }

    fn waiting(&mut self, waiting: bool) {
        self.link.waiting(waiting);
    }
}

/// The next answer of any wait still open, or `None` when none is.
fn next_answer(
    waits: &mut [Option<oneshot::Receiver<Answer>>],
    cx: &mut std::task::Context<'_>,
) -> Poll<Option<Answer>> {
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
