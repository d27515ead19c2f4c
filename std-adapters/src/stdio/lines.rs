//! Newline-delimited input with a bound on the line length.
//!
//! A line is read straight from the reader's buffer into a fresh `Vec` of its own, which the
//! request then owns. A line that grows past the bound stops being kept: the rest of it is
//! skipped as it arrives, so an endless line costs no memory. A UTF-8 byte order mark at the
//! start of a line and a `\r` before the `\n` are dropped; blank lines are skipped.

use std::io;

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

const BOM: &[u8] = b"\xEF\xBB\xBF";
/// Bytes a line may hold beyond the limit while it is read: a BOM and a `\r`.
const FRAMING_SLACK: usize = BOM.len() + 1;
/// Size of the read buffer.
const READ_BUFFER: usize = 64 * 1024;

/// One line of input.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A message (not blank; BOM and `\r` removed).
    Message(Vec<u8>),
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
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(crate) fn new(reader: R, max_len: usize) -> Self {
        Lines {
            inner: BufReader::with_capacity(READ_BUFFER, reader),
            max_len,
        }
    }

    /// The next non-blank line, or `None` at the end of input. A last line without a
    /// trailing newline counts.
    pub(crate) async fn next(&mut self) -> io::Result<Option<Line>> {
        loop {
            let Some((mut line, len)) = self.raw_line().await? else {
                return Ok(None);
            };
            let Some(kept) = line.as_mut() else {
                return Ok(Some(Line::TooLong { len }));
            };
            if kept.starts_with(BOM) {
                kept.drain(..BOM.len());
            }
            if kept.last() == Some(&b'\r') {
                kept.pop();
            }
            if kept.len() > self.max_len {
                return Ok(Some(Line::TooLong { len }));
            }
            if kept
                .iter()
                .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            {
                continue;
            }
            return Ok(line.map(Line::Message));
        }
    }

    /// Reads up to and including the next `\n` (or the end of input). Returns the bytes
    /// before the `\n` when they stayed within the limit (plus slack for framing), and the
    /// line's length in every case; `None` at the end of input.
    async fn raw_line(&mut self) -> io::Result<Option<(Option<Vec<u8>>, usize)>> {
        let mut kept = Some(Vec::new());
        let mut len = 0usize;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok((len > 0).then_some((kept, len)));
            }
            let newline = memchr::memchr(b'\n', available);
            let chunk = &available[..newline.unwrap_or(available.len())];
            len = len.saturating_add(chunk.len());
            if len > self.max_len.saturating_add(FRAMING_SLACK) {
                // Past the limit: drop what was kept and skip the rest of the line.
                kept = None;
            } else if let Some(kept) = kept.as_mut() {
                kept.extend_from_slice(chunk);
            }
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(Some((kept, len)));
            }
        }
    }
}
