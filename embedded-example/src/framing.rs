//! Newline-delimited JSON over a byte link, with fixed buffers.
//!
//! This is the MCP stdio framing, right for reliable links such as USB-CDC or a pipe: one JSON
//! message per line, `\r\n` tolerated, a UTF-8 byte order mark at the start ignored. A line
//! longer than the buffer is skipped up to its newline and reported as
//! [`Frame::TooLong`], so one oversized message cannot wedge the device.
//!
//! (Once the core grows its `embedded-io` layer, this module gives way to it.)

/// A byte link: a UART, a USB-CDC endpoint, or stdin/stdout on a host.
pub trait Link {
    /// What goes wrong on the link.
    type Error;

    /// Reads at least one byte into `buf` and returns how many, or 0 at the end of input.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;

    /// Writes all of `bytes`.
    fn write_all(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;
}

/// One frame taken from the link.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A line without its terminator (`\n` or `\r\n`).
    Line(&'a [u8]),
    /// A line longer than the buffer; it was skipped.
    TooLong,
    /// The link reached the end of input.
    End,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Splits the bytes of a link into lines held in a buffer of `N` bytes (a line of up to `N - 2`
/// bytes plus `\r\n` always fits).
#[derive(Debug)]
pub struct LineReader<const N: usize> {
    buf: [u8; N],
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    /// Skipping the rest of an overlong line.
    skipping: bool,
    at_start: bool,
    eof: bool,
}

impl<const N: usize> Default for LineReader<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> LineReader<N> {
    /// An empty reader.
    pub const fn new() -> Self {
        LineReader {
            buf: [0; N],
            start: 0,
            end: 0,
            skipping: false,
            at_start: true,
            eof: false,
        }
    }

    /// The next frame, reading from `link` as needed. The line borrows the reader until the
    /// next call.
    pub fn next<L: Link>(&mut self, link: &mut L) -> Result<Frame<'_>, L::Error> {
        let (from, to) = loop {
            if let Some(at) = self.buf[self.start..self.end]
                .iter()
                .position(|&b| b == b'\n')
            {
                let line = (self.start, self.start + at);
                self.start += at + 1;
                if core::mem::take(&mut self.skipping) {
                    return Ok(Frame::TooLong);
                }
                break line;
            }
            if self.eof {
                if core::mem::take(&mut self.skipping) {
                    return Ok(Frame::TooLong);
                }
                if self.start == self.end {
                    return Ok(Frame::End);
                }
                // A last line without a newline.
                let line = (self.start, self.end);
                self.start = self.end;
                break line;
            }
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == N {
                // No newline in a full buffer: drop it and skip to the next newline.
                self.skipping = true;
                self.end = 0;
            }
            match link.read(&mut self.buf[self.end..])? {
                0 => self.eof = true,
                n => self.end += n,
            }
        };
        let mut line = &self.buf[from..to];
        if core::mem::take(&mut self.at_start) {
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        Ok(Frame::Line(line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Yields its bytes in chunks of at most `chunk`.
    struct Chunks<'a> {
        bytes: &'a [u8],
        chunk: usize,
    }

    impl Link for Chunks<'_> {
        type Error = ();
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, ()> {
            let n = self.chunk.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
        fn write_all(&mut self, _: &[u8]) -> Result<(), ()> {
            Ok(())
        }
    }

    fn frames<const N: usize>(bytes: &[u8], chunk: usize) -> Vec<Option<Vec<u8>>> {
        let mut link = Chunks { bytes, chunk };
        let mut reader = LineReader::<N>::new();
        let mut out = Vec::new();
        loop {
            match reader.next(&mut link).unwrap() {
                Frame::Line(l) => out.push(Some(l.to_vec())),
                Frame::TooLong => out.push(None),
                Frame::End => return out,
            }
        }
    }

    #[test]
    fn lines_survive_any_chunking() {
        let input = b"\xEF\xBB\xBF{\"a\":1}\r\n\n{\"b\":2}\nlast";
        for chunk in 1..=input.len() {
            assert_eq!(
                frames::<16>(input, chunk),
                [
                    Some(b"{\"a\":1}".to_vec()),
                    Some(b"".to_vec()),
                    Some(b"{\"b\":2}".to_vec()),
                    Some(b"last".to_vec()),
                ],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn an_overlong_line_is_skipped_once_and_reading_goes_on() {
        let mut input = Vec::new();
        input.extend_from_slice(b"ok\n");
        input.extend_from_slice(&[b'x'; 40]);
        input.extend_from_slice(b"\nafter\n");
        input.extend_from_slice(&[b'y'; 40]);
        for chunk in [1, 3, 7, 64] {
            assert_eq!(
                frames::<8>(&input, chunk),
                [Some(b"ok".to_vec()), None, Some(b"after".to_vec()), None],
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn a_line_that_exactly_fills_the_buffer_with_crlf_fits() {
        assert_eq!(frames::<8>(b"123456\r\n", 8), [Some(b"123456".to_vec())]);
        assert_eq!(frames::<8>(b"1234567\r\n", 8), [None]);
    }
}
