//! The output side: finished messages are appended, one line each, to a bounded byte buffer
//! that a single writer task drains with one write per batch.
//!
//! Room in the buffer is counted in bytes by a semaphore of `capacity` permits: a message
//! takes permits for its bytes (a message longer than the whole buffer takes them all, so it
//! waits until the buffer is empty and is then alone in it), and the writer gives them back
//! once the bytes are written. So the bytes waiting or being written never exceed the
//! capacity (or one message, when a single message is longer), whoever produces them, and a
//! producer that finds the buffer full waits: that wait is what stops the reader when the
//! client does not read its answers. Nothing is allocated per message; the writer swaps the
//! filled buffer for the one it has just written.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use snodo_core::json::{BufferTooSmall, Writer};
use snodo_core::server::Notifier;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, Semaphore};

/// The writer is gone (it failed or serving ended): nothing more can be sent.
#[derive(Debug)]
pub(crate) struct Closed;

/// The bounded output buffer shared by the requests and the writer.
#[derive(Debug)]
pub(crate) struct Output {
    capacity: usize,
    pending: Mutex<Pending>,
    /// Free bytes of the buffer.
    room: Semaphore,
    /// Signalled when bytes are appended or the output is closed.
    ready: Notify,
    /// Bytes appended and not yet written.
    buffered: AtomicUsize,
    /// The most bytes ever buffered at once.
    high_water: AtomicUsize,
}

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    /// Permits the bytes in `bytes` hold (fewer than the bytes for an oversized message).
    permits: usize,
    closed: bool,
}

impl Output {
    /// A buffer of `capacity` bytes (at least 1, at most `u32::MAX`).
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.clamp(1, u32::MAX as usize);
        Output {
            capacity,
            pending: Mutex::new(Pending {
                bytes: Vec::with_capacity(capacity),
                ..Pending::default()
            }),
            room: Semaphore::new(capacity),
            ready: Notify::new(),
            buffered: AtomicUsize::new(0),
            high_water: AtomicUsize::new(0),
        }
    }

    /// The most bytes that were ever waiting or being written at once.
    pub(crate) fn high_water(&self) -> usize {
        self.high_water.load(Ordering::Relaxed)
    }

    /// Queues `message` as one line, waiting for room.
    pub(crate) async fn send(&self, message: &[u8]) -> Result<(), Closed> {
        let permits = self.permits_for(message);
        let permit = self
            .room
            .acquire_many(permits as u32)
            .await
            .map_err(|_| Closed)?;
        permit.forget();
        self.append(message, permits)
    }

    /// Queues `message` as one line if there is room now; otherwise drops it.
    pub(crate) fn try_send(&self, message: &[u8]) -> Result<(), Closed> {
        let permits = self.permits_for(message);
        let permit = self
            .room
            .try_acquire_many(permits as u32)
            .map_err(|_| Closed)?;
        permit.forget();
        self.append(message, permits)
    }

    /// No more messages: the writer ends once the buffer is written.
    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_one();
    }

    fn permits_for(&self, message: &[u8]) -> usize {
        (message.len() + 1).min(self.capacity)
    }

    fn append(&self, message: &[u8], permits: usize) -> Result<(), Closed> {
        let mut pending = self.lock();
        if pending.closed {
            self.room.add_permits(permits);
            return Err(Closed);
        }
        let start = pending.bytes.len();
        pending.bytes.extend_from_slice(message);
        one_line(&mut pending.bytes[start..]);
        pending.bytes.push(b'\n');
        pending.permits += permits;
        // Counted before the writer can take these bytes (it takes them under the lock),
        // so its subtraction always follows this addition.
        let now = self
            .buffered
            .fetch_add(message.len() + 1, Ordering::Relaxed)
            + message.len()
            + 1;
        drop(pending);
        self.high_water.fetch_max(now, Ordering::Relaxed);
        self.ready.notify_one();
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes batches until the output is closed and empty, then shuts `output` down. On a
    /// write error, closes the buffer so every waiting producer learns the writer is gone.
    pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(&self, mut output: W) -> io::Result<()> {
        let written = self.drain(&mut output).await;
        self.room.close();
        self.lock().closed = true;
        written?;
        output.shutdown().await
    }

    async fn drain<W: AsyncWrite + Unpin>(&self, output: &mut W) -> io::Result<()> {
        let mut batch = Vec::with_capacity(self.capacity);
        loop {
            let (permits, closed) = {
                let mut pending = self.lock();
                std::mem::swap(&mut pending.bytes, &mut batch);
                (std::mem::take(&mut pending.permits), pending.closed)
            };
            if batch.is_empty() {
                if closed {
                    return Ok(());
                }
                self.ready.notified().await;
                continue;
            }
            output.write_all(&batch).await?;
            output.flush().await?;
            self.buffered.fetch_sub(batch.len(), Ordering::Relaxed);
            batch.clear();
            if batch.capacity() > self.capacity {
                // An oversized message grew it: keep no more than the configured buffer.
                batch.shrink_to(self.capacity);
            }
            self.room.add_permits(permits);
        }
    }

    /// Writes one message into `out` and queues it, or says how large `out` must be.
    async fn send_if_fits(
        &self,
        out: &mut [u8],
        write: impl FnOnce(&mut Writer<'_>),
    ) -> Result<Result<(), BufferTooSmall>, Closed> {
        let mut w = Writer::new(out);
        write(&mut w);
        match w.finish() {
            Ok(len) => self.send(&out[..len]).await.map(Ok),
            Err(too_small) => Ok(Err(too_small)),
        }
    }

    /// Writes one message into `out` and queues it (a message too large for `out` is
    /// dropped with a warning).
    pub(crate) async fn send_written(
        &self,
        out: &mut [u8],
        write: impl FnOnce(&mut Writer<'_>),
    ) -> Result<(), Closed> {
        if let Err(too_small) = self.send_if_fits(out, write).await? {
            tracing::warn!(required = too_small.required, "notification too large");
        }
        Ok(())
    }

    /// Writes one message into `out`, grown to what it needs up to `most` bytes, and queues
    /// it: a stream that waits for events holds only its longest message so far.
    pub(crate) async fn send_grown(
        &self,
        out: &mut Vec<u8>,
        most: usize,
        write: impl Fn(&mut Writer<'_>),
    ) -> Result<(), Closed> {
        let Err(too_small) = self.send_if_fits(out, &write).await? else {
            return Ok(());
        };
        if too_small.required <= most {
            out.resize(too_small.required, 0);
        }
        // Written again, into the grown buffer (or refused, when it may not grow).
        self.send_written(out, write).await
    }
}

/// Keeps a message on one line. The core never writes a raw line break, but an application
/// may add verbatim JSON text; in valid JSON a raw `\r` or `\n` can only be whitespace
/// between tokens, so a space is an exact substitute.
fn one_line(message: &mut [u8]) {
    let mut from = 0;
    while let Some(at) = memchr::memchr2(b'\n', b'\r', &message[from..]) {
        message[from + at] = b' ';
        from += at + 1;
    }
}

/// Forwards a request's notifications to the output, in order, ahead of its reply.
#[derive(Debug)]
pub(crate) struct OutputNotifier<'o> {
    pub(crate) output: &'o Output,
}

impl Notifier for OutputNotifier<'_> {
    fn notify(&mut self, message: &[u8]) {
        // Notifications are advisory: when the writer is this far behind, one is dropped
        // rather than blocking the handler or growing the buffer.
        if self.output.try_send(message).is_err() {
            tracing::debug!("notification dropped: the output buffer is full");
        }
    }
}
