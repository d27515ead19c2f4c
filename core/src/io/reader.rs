//! Taking frames off a byte stream into one fixed buffer.

use embedded_io::Read;

use super::{Framing, checksum, cobs};

/// One frame taken from the link.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A message: a line without its terminator, or a decoded COBS frame without its
    /// checksum.
    Message(&'a [u8]),
    /// A frame longer than the buffer; it was skipped up to its delimiter.
    TooLong,
    /// A COBS frame whose encoding or checksum is wrong; it was dropped.
    Corrupt,
    /// The link reached the end of input.
    End,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Splits the bytes of a link into frames held in a buffer of `N` bytes.
///
/// A frame is complete at its delimiter (`\n` for [`Framing::Line`], `0x00` for
/// [`Framing::Cobs`]); reads may end anywhere, and bytes after a delimiter stay buffered for
/// the next frame. A frame that does not fit is skipped up to its delimiter and reported once
/// as [`Frame::TooLong`], so a flood of bytes cannot wedge the link. See
/// [`input_capacity`](super::input_capacity) for the `N` a message size needs.
#[derive(Debug)]
pub struct FrameReader<const N: usize> {
    framing: Framing,
    buf: [u8; N],
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Skipping the rest of an overlong frame.
    skipping: bool,
    at_start: bool,
    eof: bool,
}

impl<const N: usize> FrameReader<N> {
    /// An empty reader for `framing`.
    pub const fn new(framing: Framing) -> Self {
        FrameReader {
            framing,
            buf: [0; N],
            start: 0,
            end: 0,
            skipping: false,
            at_start: true,
            eof: false,
        }
    }

    /// The framing it reads.
    pub const fn framing(&self) -> Framing {
        self.framing
    }

    /// The next frame, reading from `link` as needed. The frame borrows the reader until the
    /// next call. Empty COBS frames (two delimiters in a row, which a sender may use to flush
    /// a receiver) are skipped; empty lines are returned, as they are for the MCP stdio
    /// framing.
    pub fn next<R: Read>(&mut self, link: &mut R) -> Result<Frame<'_>, R::Error> {
        let delimiter = match self.framing {
            Framing::Line => b'\n',
            Framing::Cobs => 0,
        };
        let (from, to) = loop {
            let pending = self.buf.get(self.start..self.end).unwrap_or(&[]);
            if let Some(at) = pending.iter().position(|&b| b == delimiter) {
                let frame = (self.start, self.start + at);
                self.start += at + 1;
                if core::mem::take(&mut self.skipping) {
                    return Ok(Frame::TooLong);
                }
                if self.framing == Framing::Cobs && at == 0 {
                    continue;
                }
                break frame;
            }
            if self.eof {
                if core::mem::take(&mut self.skipping) {
                    // What is buffered is the rest of the overlong frame: not a frame of its own.
                    self.start = self.end;
                    return Ok(Frame::TooLong);
                }
                if self.start == self.end {
                    return Ok(Frame::End);
                }
                // A last frame without its delimiter.
                let frame = (self.start, self.end);
                self.start = self.end;
                break frame;
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == N {
                // No delimiter in a full buffer: drop it and skip to the next delimiter.
                self.skipping = true;
                self.end = 0;
            }
            match link.read(self.buf.get_mut(self.end..).unwrap_or(&mut []))? {
                0 => self.eof = true,
                n => self.end = (self.end + n).min(N),
            }
        };
        let Some(raw) = self.buf.get_mut(from..to) else {
            return Ok(Frame::Corrupt);
        };
        match self.framing {
            Framing::Line => {
                let mut line = &*raw;
                if core::mem::take(&mut self.at_start) {
                    line = line.strip_prefix(BOM).unwrap_or(line);
                }
                Ok(Frame::Message(line.strip_suffix(b"\r").unwrap_or(line)))
            }
            Framing::Cobs => {
                let Some(len) = cobs::decode_in_place(raw) else {
                    return Ok(Frame::Corrupt);
                };
                let decoded = raw.get(..len).unwrap_or(&[]);
                match checksum::split(decoded) {
                    Some(message) => Ok(Frame::Message(message)),
                    None => Ok(Frame::Corrupt),
                }
            }
        }
    }
}
