//! The stdio transport on tokio: newline-delimited JSON-RPC on standard input and output.
//!
//! # How a line travels
//!
//! One reader reads lines in order ([`StdioConfig::max_line_len`] bounds them; a BOM and
//! `\r\n` are tolerated, blank lines skipped) into one of [`StdioConfig::max_concurrency`]
//! slots, each with a line buffer and an output buffer that are reused from request to
//! request. The slot's round starts at once, before the next line is read, and is driven by
//! the core ([`Server::drive`]), which parses the line once:
//!
//! - what the core answers by itself (errors, `server/discover`, the lists, invalid tool
//!   arguments) is queued for output at once;
//! - notifications are dropped, and `notifications/cancelled` stops the running request it
//!   names: its handler future is dropped and **no** response is sent for it;
//! - a call is registered under its id (so a cancellation that follows always finds it) and
//!   its [`AsyncHandler`] runs; the reply is finished in the same output buffer.
//!
//! The rounds run concurrently on the serving task itself (no task per request): a handler
//! that is ready at once (every synchronous [`Handler`](snodo_core::server::Handler)) is done
//! before the next line is read, and one that waits keeps its slot while the reader goes on.
//! A handler with heavy computation should move it to `tokio::task::spawn_blocking` or a task
//! of its own, as it would block the reader otherwise. When every slot is busy the reader
//! stops reading until one is free, so the client's writes back up in the pipe.
//!
//! A `subscriptions/listen` with an [`EventBus`] ([`serve_with_events`]) runs in a task of
//! its own: the acknowledgement, then the events its filter wants, until a
//! `notifications/cancelled` names it (nothing more is sent) or the input ends (its closing
//! response is sent). Without a bus it is acknowledged and closed at once.
//!
//! Finished messages, and the progress and log notifications a handler emits (written before
//! its response), are appended to one output buffer of [`StdioConfig::write_buffer`] bytes,
//! which a single writer task drains with one write per batch. A response that finds it full
//! waits for room, holding its slot: so a client that does not read its answers stops the
//! reader too, and memory stays within the configuration. The core's writer escapes every
//! non-ASCII character, so output lines are ASCII.
//!
//! A connection speaks one era (of the server's [`Config::eras`](snodo_core::server::Config::eras), default both): the first request that
//! says decides. `initialize` opens a legacy (2025-11-25) session whose requests run through
//! the same handlers, `input_required` bridged to the client as its own requests on this
//! connection (see [`crate::legacy`]); the `_meta` envelope keeps the connection modern, with
//! everything above unchanged. On a legacy connection the reader also takes the client's
//! answers and notifications itself, with every slot busy, since the answers free the slots.
//!
//! At the end of input the adapter stops reading, waits until every admitted request has been
//! answered (or cancelled), flushes and returns. Logs go through `tracing`; stdout carries
//! only MCP messages. The principal is [`Principal::Anonymous`](snodo_core::server::Principal)
//! and `now` is the system clock in Unix seconds.

mod config;
pub(crate) mod legacy;
pub(crate) mod lines;
pub(crate) mod output;

use std::future::{Future, poll_fn};
use std::io;
use std::pin::{Pin, pin};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use snodo_core::json::BufferTooSmall;
use snodo_core::legacy::RequestHandle;
use snodo_core::rpc::{self, ErrorCode};
use snodo_core::server::{
    Call, Done, Error, Handled, Round, Runner, Server, Subscription, SubscriptionSpans,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{broadcast, oneshot, watch};
use tokio::task::JoinSet;

use crate::buffers::{BufferPool, KEEP_IDLE};
use crate::clock::unix_seconds;
use crate::events::{EventBus, ServerEvent, due, next_event};
use crate::handler::{AppRunner, AsyncHandler};
use crate::legacy::backend::ServerBackend;
use crate::message;
use legacy::{Legacy, Read};

use crate::in_flight::{InFlight, RequestKey, Stop};
use crate::tasks::{self, TaskFeed, TaskHost};
use bytes::Bytes;
pub use config::StdioConfig;
use lines::{Line, Lines};
use output::{Closed, Output, OutputNotifier};

/// Serves `server` on the process's standard input and output until the end of input
/// ([`crate::serve_stdio`] does this and starts the runtime too).
pub async fn serve_stdio<A>(server: Arc<Server<'static, A>>, config: StdioConfig) -> io::Result<()>
where
    A: AsyncHandler + 'static,
{
    serve(server, tokio::io::stdin(), tokio::io::stdout(), config).await
}

/// Serves `server` on any byte streams (a pipe, a socket, an in-memory duplex in tests)
/// until the end of `input`; returns once every admitted request has been answered and the
/// output flushed and shut down.
///
/// Fails with the first error of reading or writing. A failed output ends serving at once
/// (there is no one left to answer); requests still running are abandoned.
pub async fn serve<A, R, W>(
    server: Arc<Server<'static, A>>,
    input: R,
    output: W,
    config: StdioConfig,
) -> io::Result<()>
where
    A: AsyncHandler + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_inner(server, input, output, config, None).await.0
}

/// [`serve`], with `subscriptions/listen` streams fed by `events`: each stream is
/// acknowledged, then carries the events its filter wants until the client cancels it with
/// `notifications/cancelled` (no response follows) or the input ends (its closing response
/// follows). Without a bus ([`serve`]), a subscription is acknowledged and closed at once.
pub async fn serve_with_events<A, R, W>(
    server: Arc<Server<'static, A>>,
    input: R,
    output: W,
    config: StdioConfig,
    events: EventBus,
) -> io::Result<()>
where
    A: AsyncHandler + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_inner(server, input, output, config, Some(events))
        .await
        .0
}

/// The most a session ever held at once, to check its bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HighWater {
    /// Requests in flight (slots busy).
    pub(crate) in_flight: usize,
    /// Slots made (each a line buffer and an output buffer).
    pub(crate) slots: usize,
    /// Bytes waiting for or being written by the writer.
    pub(crate) output_bytes: usize,
}

async fn serve_inner<A, R, W>(
    server: Arc<Server<'static, A>>,
    input: R,
    output: W,
    config: StdioConfig,
    events: Option<EventBus>,
) -> (io::Result<()>, HighWater)
where
    A: AsyncHandler + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let slots = config.max_concurrency.max(1);
    let eras = server.config().eras;
    let session = Arc::new(Session {
        server,
        in_flight: InFlight::new(slots),
        output: Arc::new(Output::new(config.write_buffer)),
        max_line_len: config.max_line_len,
        max_response_len: config.max_response_len,
        buffers: Arc::new(BufferPool::new(
            config.max_response_len,
            KEEP_IDLE.min(slots),
        )),
        legacy: Arc::new(Legacy::new(
            eras,
            config.bridge,
            config.legacy_subscriptions,
        )),
        events,
        listeners: Mutex::new(JoinSet::new()),
        closing: watch::Sender::new(false),
        tasks: TaskHost::in_memory(config.tasks),
    });
    let mut writer = tokio::spawn({
        let buffer = Arc::clone(&session.output);
        async move { buffer.write_loop(output).await }
    });
    let lines = Lines::new(input, config.max_line_len);
    let mut high_water = HighWater::default();
    let read = session
        .read_loop(lines, slots, &mut writer, &mut high_water)
        .await;
    // Subscription streams end with their closing response.
    session.closing.send_replace(true);
    let listeners = std::mem::take(&mut *session.listeners());
    listeners.join_all().await;
    session.output.close();
    let result = match read {
        Ok(ReadEnd::Input) => writer.await.unwrap_or_else(|e| Err(io::Error::other(e))),
        Ok(ReadEnd::Writer(written)) => written,
        Err(e) => {
            writer.abort();
            Err(e)
        }
    };
    high_water.output_bytes = session.output.high_water();
    (result, high_water)
}

/// How reading ended.
enum ReadEnd {
    /// At the end of input, with every admitted request answered.
    Input,
    /// The writer stopped first (its result): there is no one left to answer.
    Writer(io::Result<()>),
}

/// What the reader and the subscription tasks share.
struct Session<A: 'static> {
    server: Arc<Server<'static, A>>,
    in_flight: InFlight,
    output: Arc<Output>,
    max_line_len: usize,
    max_response_len: usize,
    /// The output buffers rounds borrow while they run (a waiting legacy request holds none).
    buffers: Arc<BufferPool>,
    /// The connection's era, and its legacy session once `initialize` opened one.
    legacy: Arc<Legacy>,
    /// Where subscription streams get their events (none: acknowledge and close at once).
    events: Option<EventBus>,
    /// The running subscription streams.
    listeners: Mutex<JoinSet<()>>,
    /// Set at the end of input: subscription streams close.
    closing: watch::Sender<bool>,
    /// The tasks of calls that became tasks (the connection's caller is anonymous).
    tasks: TaskHost,
}

/// A slot's buffers: the line it serves (its output buffer is borrowed per round).
struct Buffers {
    line: Vec<u8>,
}

/// The reader's slots: each runs one round at a time in a future boxed once and reused.
struct Reader<F> {
    /// One per slot made so far; `None` when the slot is idle.
    slots: Vec<Pin<Box<Option<F>>>>,
    /// The buffers of idle slots, by slot.
    idle: Vec<Option<Buffers>>,
    /// Idle slots.
    free: Vec<usize>,
    limit: usize,
    busy: usize,
    busy_high_water: usize,
}

impl<F: Future<Output = Buffers>> Reader<F> {
    fn new(limit: usize) -> Self {
        Reader {
            slots: Vec::with_capacity(limit),
            idle: Vec::with_capacity(limit),
            free: Vec::with_capacity(limit),
            limit,
            busy: 0,
            busy_high_water: 0,
        }
    }

    /// Whether a line could be taken now.
    fn has_room(&self) -> bool {
        !self.free.is_empty() || self.slots.len() < self.limit
    }

    /// An idle slot and its buffers (made when none is idle and the limit allows).
    fn claim(&mut self) -> (usize, Buffers) {
        if let Some(slot) = self.free.pop() {
            if let Some(buffers) = self.idle[slot].take() {
                return (slot, buffers);
            }
        }
        self.slots.push(Box::pin(None));
        self.idle.push(None);
        let buffers = Buffers { line: Vec::new() };
        (self.slots.len() - 1, buffers)
    }

    /// Starts `round` in `slot` and polls it once, so that its line is admitted before the
    /// next one is read.
    fn start(&mut self, slot: usize, round: F, cx: &mut Context<'_>) {
        self.slots[slot].set(Some(round));
        self.busy += 1;
        self.busy_high_water = self.busy_high_water.max(self.busy);
        if let Poll::Ready(buffers) = self.poll_slot(slot, cx) {
            self.release(slot, buffers);
        }
    }

    fn poll_slot(&mut self, slot: usize, cx: &mut Context<'_>) -> Poll<Buffers> {
        let Some(round) = self.slots[slot].as_mut().as_pin_mut() else {
            return Poll::Pending;
        };
        let buffers = std::task::ready!(round.poll(cx));
        self.slots[slot].set(None);
        Poll::Ready(buffers)
    }

    fn release(&mut self, slot: usize, buffers: Buffers) {
        self.idle[slot] = Some(buffers);
        self.free.push(slot);
        self.busy -= 1;
    }

    /// Polls every busy slot; ready once at least one round finished.
    fn poll_rounds(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let mut finished = false;
        for slot in 0..self.slots.len() {
            if let Poll::Ready(buffers) = self.poll_slot(slot, cx) {
                self.release(slot, buffers);
                finished = true;
            }
        }
        if finished {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl<A: AsyncHandler + 'static> Session<A> {
    fn listeners(&self) -> std::sync::MutexGuard<'_, JoinSet<()>> {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads lines into slots and runs their rounds until the end of input (every round
    /// finished) or until the writer stops.
    async fn read_loop<R: AsyncRead + Unpin>(
        self: &Arc<Self>,
        mut lines: Lines<R>,
        limit: usize,
        writer: &mut tokio::task::JoinHandle<io::Result<()>>,
        high_water: &mut HighWater,
    ) -> io::Result<ReadEnd> {
        let mut reader = Reader::new(limit);
        let mut ticket = 0u64;
        let mut ended = false;
        // A line read and not yet started: it waits in `lines` for a free slot (only a
        // legacy connection reads with every slot busy); with the legacy request it holds.
        let mut held = false;
        let mut held_request = None;
        // The replies a legacy session writes itself, from the reader.
        let mut reply = Vec::new();
        let result = loop {
            if ended && reader.busy == 0 {
                break Ok(ReadEnd::Input);
            }
            if held && !reader.has_room() && self.legacy.stalled(reader.busy) {
                held = false;
                held_request = None;
                let limits = &self.server.config().limits;
                // A failure means the writer is gone, which the next turn sees.
                let _ = (self.legacy)
                    .refuse_stalled(lines.current(), limits, &self.output)
                    .await;
                lines.discard();
                continue;
            }
            if held && reader.has_room() {
                held = false;
                let (slot, mut buffers) = reader.claim();
                lines.take(&mut buffers.line);
                ticket += 1;
                let mut round = Some(self.round(slot, ticket, buffers, held_request.take()));
                poll_fn(|cx| {
                    if let Some(round) = round.take() {
                        reader.start(slot, round, cx);
                    }
                    Poll::Ready(())
                })
                .await;
                continue;
            }
            // A legacy connection reads on with every slot busy: the client's answers to
            // bridged requests are what frees the slots.
            let readable = !ended && !held && (reader.has_room() || self.legacy.is_legacy());
            let busy = reader.busy > 0;
            tokio::select! {
                biased;
                written = &mut *writer => {
                    break Ok(ReadEnd::Writer(written.unwrap_or_else(|e| Err(io::Error::other(e)))));
                }
                () = poll_fn(|cx| match reader.poll_rounds(cx) {
                    // The rounds just polled may all have come to wait for the client.
                    Poll::Pending if held && self.legacy.stalled(reader.busy) => Poll::Ready(()),
                    polled => polled,
                }), if busy => {}
                line = lines.next(), if readable => match line {
                    Err(e) => break Err(e),
                    Ok(None) => {
                        ended = true;
                        self.legacy.end_of_input();
                    }
                    Ok(Some(Line::TooLong { len })) => {
                        tracing::warn!(len, limit = self.max_line_len, "input line too long");
                        let message = message::written(|w| {
                            rpc::write_error(
                                w,
                                None,
                                ErrorCode::INVALID_REQUEST,
                                "Message exceeds the maximum line length",
                                None,
                            );
                        });
                        // A failure means the writer is gone, which the next turn sees.
                        let _ = self.output.send(&message).await;
                    }
                    Ok(Some(Line::Message)) => {
                        match self.read_line(lines.current(), &mut reply).await {
                            Some(request) => {
                                held = true;
                                held_request = request;
                            }
                            None => lines.discard(),
                        }
                    }
                },
            }
        };
        high_water.in_flight = reader.busy_high_water;
        high_water.slots = reader.slots.len();
        result
    }

    /// Reads one line in the reader, parsed once ([`Legacy::read`]): `None` when it was
    /// taken or answered here, otherwise what its slot runs (`Some(None)`: the modern path).
    async fn read_line(
        self: &Arc<Self>,
        line: &[u8],
        reply: &mut Vec<u8>,
    ) -> Option<Option<RequestHandle>> {
        let read = self.legacy.read(
            line,
            &self.server.config().limits,
            || self.server.app().capabilities(),
            reply,
            |key| self.in_flight.cancel(key),
        );
        // A failed send means the writer is gone, which the reader's next turn sees.
        match read {
            Read::Modern => return Some(None),
            Read::Request(request) => return RequestHandle::of(line, &request).map(Some),
            Read::Taken => {}
            Read::Reply(len) => {
                let _ = self.output.send(&reply[..len]).await;
            }
            Read::Initialize(request) => {
                let backend = ServerBackend(Arc::clone(&self.server));
                let (answer, opened) = self.legacy.open(&request, &backend).await;
                let _ = self.output.send(&answer).await;
                if let (true, Some(bus)) = (opened, &self.events) {
                    let forward = legacy::forward_events(
                        Arc::clone(&self.legacy),
                        Arc::clone(&self.server),
                        Arc::clone(&self.output),
                        bus.subscribe(),
                        self.closing.subscribe(),
                    );
                    self.listeners().spawn(forward);
                }
            }
        }
        None
    }

    /// One request's round in `slot`: a modern line (`request` is `None`) through the
    /// driver, or the legacy session's `request` through the core's legacy round. Gives the
    /// slot's buffers back at the end.
    async fn round(
        self: &Arc<Self>,
        slot: usize,
        ticket: u64,
        buffers: Buffers,
        request: Option<RequestHandle>,
    ) -> Buffers {
        let line = &buffers.line;
        // A failure means the writer is gone: serving is ending and no one can be told.
        let _ = match request {
            None => {
                let mut out = self.buffers.take();
                let answered = self.answer(slot, ticket, line, &mut out).await;
                self.buffers.give(out);
                answered
            }
            Some(handle) => self.answer_legacy(handle, slot, ticket, line).await,
        };
        buffers
    }

    async fn answer(
        self: &Arc<Self>,
        slot: usize,
        ticket: u64,
        line: &[u8],
        out: &mut [u8],
    ) -> Result<(), Closed> {
        let round = Round::anonymous(unix_seconds());
        let mut notifier = OutputNotifier {
            output: &self.output,
        };
        let mut runner = SlotRunner {
            session: self,
            slot,
            ticket,
            app: AppRunner {
                app: self.server.app(),
                notifier: Some(&mut notifier),
            },
        };
        let driven = self.server.drive(line, round, out, &mut runner);
        match driven.await {
            Some(Ok(Handled::Reply(len))) => self.output.send(&out[..len]).await,
            Some(Ok(Handled::Listen(subscription))) => {
                self.listen(&subscription, line, ticket, out).await
            }
            Some(Ok(Handled::Cancelled(id))) => {
                let key = RequestKey::from(id);
                let stopped = self.in_flight.cancel(&key);
                tracing::debug!(request = ?key, stopped, "cancellation");
                Ok(())
            }
            Some(Ok(Handled::Task { id, request })) => {
                let answer = self.tasks.answer(id, request, None).await;
                self.output.send(&answer).await
            }
            Some(Ok(Handled::BecameTask)) => {
                let server = Arc::clone(&self.server);
                let started = self.tasks.start(server, Bytes::copy_from_slice(line), None);
                let answer = match started.await {
                    Ok(created) => created,
                    Err(full) => {
                        let round = Round::anonymous(unix_seconds());
                        let answer = self.tasks.in_request(&self.server, line, round, full);
                        answer.await
                    }
                };
                self.output.send(&answer).await
            }
            Some(Ok(Handled::Silent)) | None => Ok(()),
            Some(Err(too_small)) => self.send_too_large(line, too_small).await,
        }
    }

    /// Runs the legacy session's request on `line` (read by [`Session::read_line`]); see
    /// [`crate::legacy`].
    async fn answer_legacy(
        self: &Arc<Self>,
        handle: RequestHandle,
        slot: usize,
        ticket: u64,
        line: &[u8],
    ) -> Result<(), Closed> {
        // The bytes the reader read the request from: viewed again without a scan.
        let Some(request) = handle.view(line) else {
            return Ok(());
        };
        let round = legacy::Slot {
            server: &self.server,
            output: &self.output,
            in_flight: &self.in_flight,
            slot,
            ticket,
            buffers: &self.buffers,
        };
        self.legacy.run(&request, round).await
    }

    /// Answers the request on `line` whose reply exceeded the output buffer.
    async fn send_too_large(&self, line: &[u8], too_small: BufferTooSmall) -> Result<(), Closed> {
        tracing::warn!(
            required = too_small.required,
            "reply exceeds the output buffer"
        );
        self.output
            .send(&message::too_large(&self.server, line))
            .await
    }

    /// A `subscriptions/listen`: without a bus or watched tasks, acknowledged and closed at
    /// once; with either, a stream in a task of its own, which keeps a copy of the line and
    /// re-borrows the subscription from it by its spans (the line is parsed once).
    async fn listen(
        self: &Arc<Self>,
        subscription: &Subscription<'_>,
        line: &[u8],
        ticket: u64,
        out: &mut [u8],
    ) -> Result<(), Closed> {
        let tasks = TaskFeed::of(&self.tasks, subscription, None);
        let watched = (self.events.is_some() || tasks.is_some()).then_some(());
        let held = watched.and(subscription.spans(line));
        let Some(spans) = held else {
            for unheld in subscription.unheld() {
                self.output.send_written(out, |w| unheld.write(w)).await?;
            }
            return Ok(());
        };
        let key = RequestKey::from(subscription.id());
        let (stop, cancel) = oneshot::channel();
        self.in_flight.admit(key.clone(), ticket, Stop::Task(stop));
        let stream = ListenTask {
            session: Arc::clone(self),
            events: self.events.as_ref().map(EventBus::subscribe),
            tasks,
            closing: self.closing.subscribe(),
            cancel,
            line: line.to_vec(),
            spans,
            out: Vec::new(),
            most: self.max_response_len,
            key,
            ticket,
        };
        let mut listeners = self.listeners();
        // Forget the streams that ended, so their results do not pile up over a session.
        while listeners.try_join_next().is_some() {}
        listeners.spawn(stream.run());
        Ok(())
    }
}

/// Runs a call in its reader slot: registered under its id while it runs, so that a
/// `notifications/cancelled` naming it drops its handler (and no response is sent).
struct SlotRunner<'s, 'r, 'n, A: 'static> {
    session: &'s Session<A>,
    slot: usize,
    ticket: u64,
    app: AppRunner<'r, 'n, A>,
}

impl<A: AsyncHandler + 'static> Runner for SlotRunner<'_, '_, '_, A> {
    fn run<'o>(
        &'o mut self,
        call: &'o Call<'o>,
        out: &'o mut [u8],
    ) -> impl Future<Output = Option<Result<Done<'o>, Error>>> + 'o {
        let (in_flight, slot, ticket) = (&self.session.in_flight, self.slot, self.ticket);
        let key = RequestKey::from(call.context().id());
        in_flight.admit(key.clone(), ticket, Stop::Slot(slot));
        let running = self.app.run(call, out);
        async move {
            let mut running = pin!(running);
            let outcome = poll_fn(|cx| {
                if in_flight.is_cancelled(slot) {
                    return Poll::Ready(None);
                }
                running.as_mut().poll(cx)
            })
            .await;
            in_flight.finish(&key, ticket);
            if outcome.is_none() {
                tracing::debug!(request = ?key, "cancelled; no response");
            }
            outcome
        }
    }
}

/// A `subscriptions/listen` stream, run in a task of its own: the acknowledgement, the
/// events its filter wants, and the closing response at the end of input (nothing more once
/// the client cancels it).
struct ListenTask<A: 'static> {
    session: Arc<Session<A>>,
    events: Option<broadcast::Receiver<ServerEvent>>,
    /// The changes of the tasks it watches (`taskIds`).
    tasks: Option<TaskFeed>,
    closing: watch::Receiver<bool>,
    cancel: oneshot::Receiver<()>,
    /// A copy of the request's line, and where the subscription lies in it.
    line: Vec<u8>,
    spans: SubscriptionSpans,
    /// Where each message is written: as long as the longest so far, at most `most` bytes.
    out: Vec<u8>,
    most: usize,
    key: RequestKey,
    ticket: u64,
}

impl<A: AsyncHandler + 'static> ListenTask<A> {
    async fn run(mut self) {
        self.stream().await;
        self.session.in_flight.finish(&self.key, self.ticket);
    }

    async fn stream(&mut self) {
        let server = &*self.session.server;
        // The spans were taken from this line: it gives the subscription back.
        let Some(sub) = self.spans.view(&self.line, &server.config().info) else {
            return;
        };
        let (out, most, output) = (&mut self.out, self.most, &*self.session.output);
        if output
            .send_grown(out, most, |w| sub.write_acknowledged(w))
            .await
            .is_err()
        {
            return;
        }
        if let Some(tasks) = &self.tasks {
            for message in tasks.all(&sub).await {
                if output.send(&message).await.is_err() {
                    return;
                }
            }
        }
        loop {
            if self.cancel.try_recv().is_ok() {
                tracing::debug!(request = ?self.key, "subscription cancelled; no response");
                return;
            }
            if *self.closing.borrow_and_update() {
                break;
            }
            let sent = tokio::select! {
                biased;
                Ok(()) = &mut self.cancel => {
                    tracing::debug!(request = ?self.key, "subscription cancelled; no response");
                    return;
                }
                changed = self.closing.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    Ok(())
                }
                received = next_event(&mut self.events) => {
                    let mut sent = Ok(());
                    for event in due(&sub, received) {
                        sent = output
                            .send_grown(out, most, |w| sub.write_event(&event.as_event(), w))
                            .await;
                        if sent.is_err() {
                            break;
                        }
                    }
                    sent
                }
                messages = tasks::next_of(&mut self.tasks, &sub) => {
                    let mut sent = Ok(());
                    for message in messages {
                        sent = output.send(&message).await;
                        if sent.is_err() {
                            break;
                        }
                    }
                    sent
                }
            };
            if sent.is_err() {
                return;
            }
        }
        let _ = output.send_grown(out, most, |w| sub.write_closed(w)).await;
    }
}

#[cfg(test)]
mod tests {
    use snodo_core::server::{Config, Error, ListChanged, Registry, ServerCapabilities, Tool};

    use super::*;

    struct App;

    impl Registry for App {
        fn tools(&self) -> &[Tool<'_>] {
            const TOOLS: &[Tool<'static>] = &[Tool::new("noop")];
            TOOLS
        }

        fn capabilities(&self) -> ServerCapabilities {
            ServerCapabilities {
                tools: true,
                list_changed: ListChanged::ALL,
                ..ServerCapabilities::default()
            }
        }
    }

    impl snodo_core::server::Handler for App {
        fn call_tool<'o>(
            &self,
            _: &snodo_core::server::ToolCall<'_>,
            reply: snodo_core::server::ToolReply<'o>,
        ) -> Result<snodo_core::server::Done<'o>, Error> {
            Ok(reply.text("ok"))
        }
    }

    fn listen(id: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ) + "\n"
    }

    #[tokio::test]
    async fn subscriptions_carry_events_until_cancelled_or_the_input_ends() {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

        let bus = EventBus::new();
        let server = Arc::new(
            Server::new(Config::new("stdio-events", "0.0.1"), App).expect("valid definitions"),
        );
        let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(serve_with_events(
            server,
            server_in,
            server_out,
            StdioConfig::default(),
            bus.clone(),
        ));
        let mut lines = BufReader::new(client_out).lines();
        let mut next = async || -> serde_json::Value {
            let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
                .await
                .expect("a line in time")
                .expect("readable")
                .expect("a line");
            serde_json::from_str(&line).expect("JSON")
        };
        client_in.write_all(listen(1).as_bytes()).await.unwrap();
        let ack = next().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            1
        );
        client_in.write_all(listen(2).as_bytes()).await.unwrap();
        assert_eq!(
            next().await["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            2
        );
        let cancel =
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#;
        client_in
            .write_all(format!("{cancel}\n").as_bytes())
            .await
            .unwrap();
        // Wait until the cancelled stream has let go of the bus: then only one listens.
        while bus.listeners() > 1 {
            tokio::task::yield_now().await;
        }
        bus.publish(ServerEvent::PromptsListChanged);
        bus.publish(ServerEvent::ToolsListChanged);
        let event = next().await;
        assert_eq!(event["method"], "notifications/tools/list_changed");
        assert_eq!(
            event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            1
        );
        drop(client_in);
        let closed = next().await;
        assert_eq!(closed["id"], 1);
        assert_eq!(closed["result"]["resultType"], "complete");
        assert!(
            lines.next_line().await.unwrap().is_none(),
            "nothing for the cancelled one"
        );
        serving.await.unwrap().unwrap();
    }
}

#[cfg(test)]
mod bounds_tests;
