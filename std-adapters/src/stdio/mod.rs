//! The stdio transport on tokio: newline-delimited JSON-RPC on standard input and output.
//!
//! # How a line travels
//!
//! One reader reads lines in order ([`StdioConfig::max_line_len`] bounds them; a BOM and
//! `\r\n` are tolerated, blank lines skipped) and runs phase one of the round,
//! [`Server::accept`], on each:
//!
//! - what the core answers by itself (errors, `server/discover`, the lists, invalid tool
//!   arguments) is queued for output at once;
//! - notifications are dropped, and `notifications/cancelled` stops the running request it
//!   names: its handler future is dropped and **no** response is sent for it;
//! - a call waits for one of [`StdioConfig::max_concurrency`] slots, is registered under its
//!   id (before the next line is read, so a cancellation that follows always finds it) and
//!   moves with its line into a task of its own. The task admits the line again — `accept` is
//!   a pure function of the bytes, the round and the configuration, so it yields the same
//!   call — runs the [`AsyncHandler`], and finishes the reply.
//!
//! A `subscriptions/listen` with an [`EventBus`] ([`serve_with_events`]) runs in a task of
//! its own: the acknowledgement, then the events its filter wants, until a
//! `notifications/cancelled` names it (nothing more is sent) or the input ends (its closing
//! response is sent). Without a bus it is acknowledged and closed at once.
//!
//! Progress and log notifications a handler emits are queued as it makes them, so they are
//! written before its response. A single writer task drains the queue into a buffered
//! writer and flushes only when the queue is momentarily empty: a burst of replies is one
//! write. The core's writer escapes every non-ASCII character, so output lines are ASCII.
//!
//! At the end of input the adapter stops reading, waits until every admitted request has been
//! answered (or cancelled), flushes and returns. Logs go through `tracing`; stdout carries
//! only MCP messages. The principal is [`Principal::Anonymous`](snodo_core::server::Principal)
//! and `now` is the system clock in Unix seconds.

mod config;
mod in_flight;
mod lines;
mod output;

use std::future::{Future, poll_fn};
use std::io;
use std::panic::AssertUnwindSafe;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use snodo_core::json::Writer;
use snodo_core::rpc::{self, ErrorCode, Id, Incoming};
use snodo_core::server::{Accepted, Error, Round, Server, Subscription};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, broadcast, mpsc, watch};

use crate::clock::unix_seconds;
use crate::events::{EventBus, ServerEvent, everything_wanted, next_event};
use crate::handler::{AsyncHandler, run_call};

pub use config::StdioConfig;
use in_flight::{CancelSignal, InFlight, RequestKey};
use lines::{Line, Lines};
use output::{BufferPool, Queue, QueueNotifier, write_loop};

/// Serves `server` on the process's standard input and output until the end of input.
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
    serve_inner(server, input, output, config, None).await
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
    serve_inner(server, input, output, config, Some(events)).await
}

async fn serve_inner<A, R, W>(
    server: Arc<Server<'static, A>>,
    input: R,
    output: W,
    config: StdioConfig,
    events: Option<EventBus>,
) -> io::Result<()>
where
    A: AsyncHandler + 'static,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let slots = config.max_concurrency.max(1);
    let (queue, pending) = mpsc::channel(config.write_queue.max(1));
    let writer = tokio::spawn(write_loop(pending, output));
    let session = Arc::new(Session {
        server,
        in_flight: InFlight::default(),
        buffers: BufferPool::new(config.max_response_len, slots),
        slots: Arc::new(Semaphore::new(slots)),
        max_line_len: config.max_line_len,
        events,
        closing: watch::Sender::new(false),
    });
    let lines = Lines::new(input, config.max_line_len);
    let read = tokio::select! {
        read = session.read_loop(lines, &queue) => read,
        () = queue.closed() => Ok(()),
    };
    // Subscription streams end with their closing response.
    session.closing.send_replace(true);
    // Every running request holds a sender: the writer ends after the last answer.
    drop(queue);
    let written = writer.await.unwrap_or_else(|e| Err(io::Error::other(e)));
    read.and(written)
}

/// What the reader and the request tasks share.
struct Session<A: 'static> {
    server: Arc<Server<'static, A>>,
    in_flight: InFlight,
    buffers: BufferPool,
    slots: Arc<Semaphore>,
    max_line_len: usize,
    /// Where subscription streams get their events (none: acknowledge and close at once).
    events: Option<EventBus>,
    /// Set at the end of input: subscription streams close.
    closing: watch::Sender<bool>,
}

/// The writer is gone: nothing more can be answered.
struct Closed;

impl<A: AsyncHandler + 'static> Session<A> {
    async fn read_loop<R: AsyncRead + Unpin>(
        self: &Arc<Self>,
        mut lines: Lines<R>,
        queue: &Queue,
    ) -> io::Result<()> {
        let mut ticket = 0u64;
        while let Some(line) = lines.next().await? {
            let admitted = match line {
                Line::TooLong { len } => {
                    tracing::warn!(len, limit = self.max_line_len, "input line too long");
                    let message = error_message(
                        None,
                        ErrorCode::INVALID_REQUEST,
                        "Message exceeds the maximum line length",
                    );
                    queue.send(message).await.map_err(|_| Closed)
                }
                Line::Message(bytes) => {
                    ticket += 1;
                    self.admit(bytes, ticket, queue).await
                }
            };
            if admitted.is_err() {
                break;
            }
        }
        Ok(())
    }

    /// Phase one for a line, in order: answers it, cancels what it names, or starts a task
    /// for the call it holds.
    async fn admit(
        self: &Arc<Self>,
        line: Vec<u8>,
        ticket: u64,
        queue: &Queue,
    ) -> Result<(), Closed> {
        let now = unix_seconds();
        let mut out = self.buffers.take();
        let key = match self.server.accept(&line, Round::anonymous(now), &mut out) {
            Ok(Accepted::Call(call)) => RequestKey::from(call.context().id()),
            Ok(Accepted::Replied(len)) => {
                let message = out[..len].to_vec();
                self.buffers.give(out);
                return queue.send(message).await.map_err(|_| Closed);
            }
            Ok(Accepted::Silent) => {
                self.buffers.give(out);
                return Ok(());
            }
            Ok(Accepted::Listen(subscription)) => {
                let Some(bus) = &self.events else {
                    // No event source: acknowledge, then end the subscription gracefully,
                    // so a client is never left waiting.
                    let mut messages = Vec::with_capacity(2);
                    for write in [Subscription::write_acknowledged, Subscription::write_closed] {
                        let mut w = Writer::new(&mut out);
                        write(&subscription, &mut w);
                        if let Ok(len) = w.finish() {
                            messages.push(out[..len].to_vec());
                        }
                    }
                    self.buffers.give(out);
                    for message in messages {
                        queue.send(message).await.map_err(|_| Closed)?;
                    }
                    return Ok(());
                };
                let key = RequestKey::from(subscription.id());
                let stream = ListenTask {
                    session: Arc::clone(self),
                    events: Some(bus.subscribe()),
                    closing: self.closing.subscribe(),
                    cancel: self.in_flight.admit(key.clone(), ticket),
                    line,
                    out,
                    now,
                    key,
                    ticket,
                    queue: queue.clone(),
                };
                tokio::spawn(stream.run());
                return Ok(());
            }
            Ok(Accepted::Cancelled(id)) => {
                self.buffers.give(out);
                let key = RequestKey::from(id);
                let stopped = self.in_flight.cancel(&key);
                tracing::debug!(request = ?key, stopped, "cancellation");
                return Ok(());
            }
            Err(too_small) => {
                self.buffers.give(out);
                let id = request_id(&line, self.server.config().limits);
                tracing::warn!(
                    required = too_small.required,
                    "reply exceeds the output buffer"
                );
                let message = error_message(id, ErrorCode::INTERNAL_ERROR, TOO_LARGE);
                return queue.send(message).await.map_err(|_| Closed);
            }
        };
        let Ok(slot) = Arc::clone(&self.slots).acquire_owned().await else {
            return Err(Closed);
        };
        let cancel = self.in_flight.admit(key.clone(), ticket);
        let task = Task {
            session: Arc::clone(self),
            line,
            out,
            now,
            key,
            ticket,
            cancel,
            slot,
            queue: queue.clone(),
        };
        tokio::spawn(task.run());
        Ok(())
    }
}

/// One admitted call, run in a task of its own.
struct Task<A: 'static> {
    session: Arc<Session<A>>,
    line: Vec<u8>,
    out: Vec<u8>,
    now: u64,
    key: RequestKey,
    ticket: u64,
    cancel: CancelSignal,
    /// Held until the answer is queued.
    slot: OwnedSemaphorePermit,
    queue: Queue,
}

impl<A: AsyncHandler + 'static> Task<A> {
    async fn run(mut self) {
        let answer = self.answer().await;
        let session = &self.session;
        session.in_flight.finish(&self.key, self.ticket);
        session.buffers.give(self.out);
        match answer {
            Some(message) => {
                // A send fails only when the writer is gone, and then there is no one to tell.
                let _ = self.queue.send(message).await;
            }
            None => tracing::debug!(request = ?self.key, "cancelled; no response"),
        }
        drop(self.slot);
    }

    /// Runs the call and returns its response, or `None` when it was cancelled.
    async fn answer(&mut self) -> Option<Vec<u8>> {
        let server = &*self.session.server;
        let out = &mut self.out[..];
        let call = match server.accept(&self.line, Round::anonymous(self.now), out) {
            Ok(Accepted::Call(call)) => call,
            // `accept` is deterministic, so the reader saw a call too; answer whatever it is.
            Ok(Accepted::Replied(len)) => return Some(out[..len].to_vec()),
            Ok(Accepted::Silent | Accepted::Cancelled(_) | Accepted::Listen(_)) => return None,
            Err(_) => {
                let id = request_id(&self.line, server.config().limits);
                return Some(error_message(id, ErrorCode::INTERNAL_ERROR, TOO_LARGE));
            }
        };
        let outcome = {
            let mut notifier = QueueNotifier { queue: &self.queue };
            let running = catch_unwind(run_call(server.app(), &call, out, Some(&mut notifier)));
            tokio::select! {
                biased;
                Ok(()) = &mut self.cancel => return None,
                outcome = running => outcome,
            }
        };
        let outcome = outcome.unwrap_or_else(|_| {
            tracing::error!(request = ?self.key, "handler panicked");
            Err(Error::internal("The handler failed"))
        });
        match call.finish(out, outcome) {
            Ok(len) => Some(out[..len].to_vec()),
            Err(too_small) => {
                tracing::warn!(
                    required = too_small.required,
                    "reply exceeds the output buffer"
                );
                let id = Some(call.context().id());
                Some(error_message(id, ErrorCode::INTERNAL_ERROR, TOO_LARGE))
            }
        }
    }
}

/// A `subscriptions/listen` stream, run in a task of its own: the acknowledgement, the
/// events its filter wants, and the closing response at the end of input (nothing more once
/// the client cancels it).
struct ListenTask<A: 'static> {
    session: Arc<Session<A>>,
    events: Option<broadcast::Receiver<ServerEvent>>,
    closing: watch::Receiver<bool>,
    cancel: CancelSignal,
    line: Vec<u8>,
    out: Vec<u8>,
    now: u64,
    key: RequestKey,
    ticket: u64,
    queue: Queue,
}

impl<A: AsyncHandler + 'static> ListenTask<A> {
    async fn run(mut self) {
        self.stream().await;
        self.session.in_flight.finish(&self.key, self.ticket);
        let out = std::mem::take(&mut self.out);
        self.session.buffers.give(out);
    }

    async fn stream(&mut self) {
        let server = &*self.session.server;
        let sub = match server.accept(&self.line, Round::anonymous(self.now), &mut self.out) {
            Ok(Accepted::Listen(sub)) => sub,
            // `accept` is deterministic: the reader saw a subscription too.
            _ => return,
        };
        let (out, queue) = (&mut self.out, &self.queue);
        if send_written(out, queue, |w| sub.write_acknowledged(w))
            .await
            .is_err()
        {
            return;
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
                event = next_event(&mut self.events) => match event {
                    Ok(event) if sub.wants(&event.as_event()) => {
                        send_written(out, queue, |w| sub.write_event(&event.as_event(), w)).await
                    }
                    Ok(_) => Ok(()),
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::debug!(missed, "a subscription fell behind; sending everything");
                        let mut sent = Ok(());
                        for event in everything_wanted(&sub) {
                            sent = sent.and(
                                send_written(out, queue, |w| sub.write_event(&event.as_event(), w))
                                    .await,
                            );
                        }
                        sent
                    }
                    // The bus is gone: no more events, but the stream stays until it ends.
                    Err(broadcast::error::RecvError::Closed) => Ok(()),
                },
            };
            if sent.is_err() {
                return;
            }
        }
        let _ = send_written(out, queue, |w| sub.write_closed(w)).await;
    }
}

/// Writes one message into `out` and queues it.
async fn send_written(
    out: &mut [u8],
    queue: &Queue,
    write: impl FnOnce(&mut Writer<'_>),
) -> Result<(), Closed> {
    let mut w = Writer::new(out);
    write(&mut w);
    match w.finish() {
        Ok(len) => queue.send(out[..len].to_vec()).await.map_err(|_| Closed),
        Err(too_small) => {
            tracing::warn!(required = too_small.required, "notification too large");
            Ok(())
        }
    }
}

const TOO_LARGE: &str = "The response exceeds the output buffer";

/// Polls `future`, turning a panic into an error rather than a request that is never
/// answered.
async fn catch_unwind<F: Future>(future: F) -> std::thread::Result<F::Output> {
    let mut future = pin!(future);
    poll_fn(
        |cx| match std::panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(panic)),
        },
    )
    .await
}

/// The id of a request line, when it has one.
fn request_id(line: &[u8], limits: snodo_core::json::Limits) -> Option<Id<'_>> {
    match rpc::parse(line, &limits) {
        Ok(Incoming::Request(request)) => Some(request.id),
        Ok(_) => None,
        Err(rejected) => rejected.id,
    }
}

/// A whole error response of its own.
fn error_message(id: Option<Id<'_>>, code: ErrorCode, message: &str) -> Vec<u8> {
    let mut buf = vec![0; 128];
    loop {
        let mut w = Writer::new(&mut buf);
        rpc::write_error(&mut w, id, code, message, None);
        match w.finish() {
            Ok(len) => {
                buf.truncate(len);
                return buf;
            }
            Err(too_small) => buf.resize(too_small.required, 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use snodo_core::server::{Config, ListChanged, Registry, ServerCapabilities, Tool};

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
        fn call_tool(
            &self,
            _: &snodo_core::server::ToolCall<'_>,
            reply: snodo_core::server::ToolReply<'_>,
        ) -> Result<snodo_core::server::Done, Error> {
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
        let server = Arc::new(Server::new(Config::new("stdio-events", "0.0.1"), App));
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
