//! The serial frame reader fed arbitrary bytes in arbitrary chunks, in both framings.
//!
//! The input's first byte picks the framing and the buffer, the next bytes the sizes of the
//! reads (a link may deliver any number of bytes at a time, including none before the end),
//! the rest is the stream. Never a panic, and:
//! - the frames do not depend on how the stream was chunked: the same frames come out read
//!   a byte at a time, in the fuzzed chunks, and all at once;
//! - for lines, the frames are exactly the stream split at `\n` (a last piece without one
//!   included), each too long for the buffer reported as `TooLong` and the others as
//!   messages without a trailing `\r` (and the first message without a byte-order mark);
//! - for COBS, as many frames as the stream has non-empty pieces between `0x00`s, and every
//!   message, framed again by `write_frame`, reads back as the same message.
#![no_main]

use core::convert::Infallible;

use embedded_io::{ErrorType, Read, Write};
use libfuzzer_sys::fuzz_target;
use snodo_core::io::{Frame, FrameReader, Framing, write_frame};

/// A link that hands out `stream` in reads of the sizes `chunks` cycles through.
struct Chunked<'a> {
    stream: &'a [u8],
    chunks: &'a [u8],
    next: usize,
}

impl ErrorType for Chunked<'_> {
    type Error = Infallible;
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if self.stream.is_empty() || buf.is_empty() {
            return Ok(0);
        }
        let size = match self.chunks {
            [] => usize::MAX,
            sizes => {
                let size = usize::from(sizes[self.next % sizes.len()]);
                self.next += 1;
                // A blocking read returns at least one byte until the end.
                size.max(1)
            }
        };
        let n = size.min(buf.len()).min(self.stream.len());
        buf[..n].copy_from_slice(&self.stream[..n]);
        self.stream = &self.stream[n..];
        Ok(n)
    }
}

/// What the reader returned, owned.
#[derive(Debug, PartialEq, Eq)]
enum Got {
    Message(Vec<u8>),
    TooLong,
    Corrupt,
}

/// Every frame of `stream` read through a `N`-byte reader in reads of `chunks`.
fn frames<const N: usize>(framing: Framing, stream: &[u8], chunks: &[u8]) -> Vec<Got> {
    let mut reader = FrameReader::<N>::new(framing);
    let mut link = Chunked {
        stream,
        chunks,
        next: 0,
    };
    let mut got = Vec::new();
    loop {
        match reader.next(&mut link) {
            Ok(Frame::Message(m)) => got.push(Got::Message(m.to_vec())),
            Ok(Frame::TooLong) => got.push(Got::TooLong),
            Ok(Frame::Corrupt) => got.push(Got::Corrupt),
            Ok(Frame::End) => return got,
            Err(never) => match never {},
        }
        assert!(got.len() <= stream.len() + 1, "more frames than bytes");
    }
}

/// The pieces of `stream` between `delimiter`s, a last one without it included.
fn pieces(stream: &[u8], delimiter: u8) -> Vec<&[u8]> {
    let mut pieces: Vec<&[u8]> = stream.split(|&b| b == delimiter).collect();
    if pieces.last().is_some_and(|last| last.is_empty()) {
        pieces.pop();
    }
    pieces
}

/// The line model: what a reader of `n` bytes returns for `stream`.
fn lines(stream: &[u8], n: usize) -> Vec<Got> {
    let mut first = true;
    pieces(stream, b'\n')
        .into_iter()
        .map(|piece| {
            if piece.len() >= n {
                return Got::TooLong;
            }
            let mut line = piece;
            if core::mem::take(&mut first) {
                line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            }
            Got::Message(line.strip_suffix(b"\r").unwrap_or(line).to_vec())
        })
        .collect()
}

struct Sink(Vec<u8>);

impl ErrorType for Sink {
    type Error = Infallible;
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

fn check<const N: usize>(framing: Framing, stream: &[u8], chunks: &[u8]) {
    let fuzzed = frames::<N>(framing, stream, chunks);
    assert_eq!(fuzzed, frames::<N>(framing, stream, &[1]), "byte at a time");
    assert_eq!(fuzzed, frames::<N>(framing, stream, &[]), "all at once");
    match framing {
        Framing::Line => assert_eq!(fuzzed, lines(stream, N)),
        Framing::Cobs => {
            let non_empty = pieces(stream, 0).iter().filter(|p| !p.is_empty()).count();
            assert_eq!(fuzzed.len(), non_empty, "one frame per non-empty piece");
            for got in &fuzzed {
                if let Got::Message(message) = got {
                    let mut framed = Sink(Vec::new());
                    let Ok(()) = write_frame(&mut framed, Framing::Cobs, message);
                    assert_eq!(
                        frames::<N>(Framing::Cobs, &framed.0, &[]),
                        [Got::Message(message.clone())],
                        "a message framed again reads back"
                    );
                }
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let framing = if pick & 1 == 0 {
        Framing::Line
    } else {
        Framing::Cobs
    };
    let chunk_count = usize::from(pick >> 4).min(rest.len());
    let (chunks, stream) = rest.split_at(chunk_count);
    // A small buffer makes overlong frames common; a roomier one lets messages through.
    if pick & 2 == 0 {
        check::<8>(framing, stream, chunks);
    } else {
        check::<64>(framing, stream, chunks);
    }
});
