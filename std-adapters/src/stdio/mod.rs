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
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::clock::unix_seconds;
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
    let slots = config.max_concurrency.max(1);
    let (queue, pending) = mpsc::channel(config.write_queue.max(1));
    let writer = tokio::spawn(write_loop(pending, output));
    let session = Arc::new(Session {
        server,
        in_flight: InFlight::default(),
        buffers: BufferPool::new(config.max_response_len, slots),
        slots: Arc::new(Semaphore::new(slots)),
        max_line_len: config.max_line_len,
    });
    let lines = Lines::new(input, config.max_line_len);
    let read = tokio::select! {
        read = session.read_loop(lines, &queue) => read,
        () = queue.closed() => Ok(()),
    };
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
                // Interim until the event stream lands: acknowledge, then end the
                // subscription gracefully, so a client is never left waiting.
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
