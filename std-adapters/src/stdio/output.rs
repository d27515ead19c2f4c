//! The output side: one writer task drains a queue of finished messages into a buffered
//! writer and flushes when the queue is momentarily empty, so a burst of replies costs one
//! write rather than one per message.

use std::io;
use std::sync::{Mutex, PoisonError};

use snodo_core::server::Notifier;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// Size of the write buffer in front of the output.
const WRITE_BUFFER: usize = 64 * 1024;

/// Finished messages on their way out, each one line once written.
pub(crate) type Queue = mpsc::Sender<Vec<u8>>;

/// Output buffers of one size, kept for reuse so that a request does not zero a fresh
/// megabyte. Holds at most `keep` idle buffers.
#[derive(Debug)]
pub(crate) struct BufferPool {
    size: usize,
    keep: usize,
    idle: Mutex<Vec<Vec<u8>>>,
}

impl BufferPool {
    pub(crate) fn new(size: usize, keep: usize) -> Self {
        BufferPool {
            size,
            keep,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// A buffer of the pool's size (its contents are whatever the last user left).
    pub(crate) fn take(&self) -> Vec<u8> {
        let reused = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        reused.unwrap_or_else(|| vec![0; self.size])
    }

    /// Returns a buffer for reuse.
    pub(crate) fn give(&self, buf: Vec<u8>) {
        if buf.len() != self.size {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < self.keep {
            idle.push(buf);
        }
    }
}

/// Writes every queued message as one line until every sender is gone, then flushes and
/// shuts the output down.
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut queue: mpsc::Receiver<Vec<u8>>,
    output: W,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(WRITE_BUFFER, output);
    while let Some(first) = queue.recv().await {
        write_line(&mut out, first).await?;
        while let Ok(next) = queue.try_recv() {
            write_line(&mut out, next).await?;
        }
        out.flush().await?;
    }
    out.shutdown().await
}

async fn write_line<W: AsyncWrite + Unpin>(
    out: &mut BufWriter<W>,
    mut message: Vec<u8>,
) -> io::Result<()> {
    one_line(&mut message);
    message.push(b'\n');
    out.write_all(&message).await
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

/// Forwards a request's notifications to the writer queue, in order, ahead of its reply.
#[derive(Debug)]
pub(crate) struct QueueNotifier<'q> {
    pub(crate) queue: &'q Queue,
}

impl Notifier for QueueNotifier<'_> {
    fn notify(&mut self, message: &[u8]) {
        // Notifications are advisory: when the writer is this far behind, one is dropped
        // rather than blocking the handler or growing the queue without bound.
        if let Err(e) = self.queue.try_send(message.to_vec()) {
            tracing::debug!("notification dropped: {e}");
        }
    }
}
