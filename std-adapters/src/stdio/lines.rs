//! Newline-delimited input with a bound on the line length.
//!
//! A line is gathered from the reader's buffer into a buffer the caller then takes by swapping
//! in one of its own, so line buffers circulate and nothing is allocated per line once they
//! have grown to the lines' size. The partial line lives in [`Lines`], so a `next` that is
//! dropped midway (in a `select!`) loses nothing. A line that grows past the bound stops
//! being kept: the rest of it is skipped as it arrives, so an endless line costs no memory.
//! A UTF-8 byte order mark at the start of a line and a `\r` before the `\n` are dropped;
//! blank lines are skipped.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// Bytes a line may hold beyond the limit while it is read: a BOM and a `\r`.
const FRAMING_SLACK: usize = BOM.len() + 1;
/// Size of the read buffer.
const READ_BUFFER: usize = 64 * 1024;
/// Line buffers keep at most this much room after a longer line, so one long line does not
/// pin its memory for the rest of the session.
const KEEP_LINE_CAPACITY: usize = 64 * 1024;

/// What the next line of input was.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A message (not blank; BOM and `\r` removed): take it with [`Lines::take`].
    Message,
    /// A line longer than the limit; `len` is its length in bytes.
    TooLong {
        /// How long it was.
        len: usize,
    },
}

/// Reads lines of at most `max_len` bytes.
#[derive(Debug)]
pub(crate) struct Lines<R> {
    inner: BufReader<R>,
    max_len: usize,
    /// The line being gathered.
    current: Vec<u8>,
    /// Its length so far, counting bytes no longer kept.
    len: usize,
    /// Whether it grew past the limit.
    too_long: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(crate) fn new(reader: R, max_len: usize) -> Self {
        Lines {
            inner: BufReader::with_capacity(READ_BUFFER, reader),
            max_len,
            current: Vec::new(),
            len: 0,
            too_long: false,
        }
    }

    /// The next non-blank line, or `None` at the end of input. A last line without a
    /// trailing newline counts. Cancel-safe.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Line>> {
        loop {
            if !self.raw_line().await? {
                return Ok(None);
            }
            let len = std::mem::take(&mut self.len);
            if std::mem::take(&mut self.too_long) {
                self.current.clear();
                self.current.shrink_to(KEEP_LINE_CAPACITY);
                return Ok(Some(Line::TooLong { len }));
            }
            let kept = &mut self.current;
            if kept.starts_with(BOM) {
                kept.drain(..BOM.len());
            }
            if kept.last() == Some(&b'\r') {
                kept.pop();
            }
            if kept.len() > self.max_len {
                kept.clear();
                return Ok(Some(Line::TooLong { len }));
            }
            if kept
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                kept.clear();
                continue;
            }
            return Ok(Some(Line::Message));
        }
    }

    /// The message [`next`](Lines::next) found, to look at before taking it.
    pub(crate) fn current(&self) -> &[u8] {
        &self.current
    }

    /// Drops the message [`next`](Lines::next) found (it was served without a slot).
    pub(crate) fn discard(&mut self) {
        self.current.clear();
    }

    /// Swaps the message [`next`](Lines::next) found into `into`, taking `into`'s buffer
    /// (emptied) for the next line.
    pub(crate) fn take(&mut self, into: &mut Vec<u8>) {
        into.clear();
        if into.capacity() > KEEP_LINE_CAPACITY {
            into.shrink_to(KEEP_LINE_CAPACITY);
        }
        std::mem::swap(&mut self.current, into);
    }

    /// Gathers up to and including the next `\n` (or the end of input) into `current`, as
    /// long as the line stays within the limit (plus slack for framing). Returns whether
    /// there is a line; `false` at the end of input.
    async fn raw_line(&mut self) -> io::Result<bool> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(self.len > 0);
            }
            let newline = memchr::memchr(b'\n', available);
            let chunk = &available[..newline.unwrap_or(available.len())];
            self.len = self.len.saturating_add(chunk.len());
            if self.len > self.max_len.saturating_add(FRAMING_SLACK) {
                // Past the limit: drop what was kept and skip the rest of the line.
                self.too_long = true;
                self.current.clear();
            } else if !self.too_long {
                self.current.extend_from_slice(chunk);
            }
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(true);
            }
        }
    }
}
