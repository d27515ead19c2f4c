//! Consistent Overhead Byte Stuffing: a frame body with no zero bytes, so a single `0x00`
//! can delimit frames and a receiver can find the next frame after any corruption.
//!
//! The data is cut into blocks at each zero byte (and after 254 non-zero bytes). Each block is
//! written as a code byte, `1 + ` the number of non-zero bytes that follow, then those bytes;
//! a block with code `0xFF` has no zero after it, every other block but the last stands for
//! its bytes followed by a zero. The overhead is one byte per 254 bytes of data, rounded up,
//! plus one: [`max_encoded_len`].

use embedded_io::Write;

/// Most non-zero bytes in one block.
const MAX_RUN: usize = 254;

/// Longest encoding of `len` bytes of data (without the delimiter).
pub const fn max_encoded_len(len: usize) -> usize {
    len + len / MAX_RUN + 1
}

/// The data to encode: a message and its checksum, read as one sequence without copying.
#[derive(Clone, Copy)]
pub(crate) struct Parts<'a> {
    pub(crate) head: &'a [u8],
    pub(crate) tail: &'a [u8],
}

impl Parts<'_> {
    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn byte(&self, at: usize) -> u8 {
        match self.head.get(at) {
            Some(&b) => b,
            None => self.tail.get(at - self.head.len()).copied().unwrap_or(0),
        }
    }

    /// Writes the bytes `from..to` of the sequence.
    fn write_range<W: Write>(&self, w: &mut W, from: usize, to: usize) -> Result<(), W::Error> {
        let split = self.head.len();
        if from < split {
            w.write_all(self.head.get(from..to.min(split)).unwrap_or(&[]))?;
        }
        if to > split {
            let start = from.max(split) - split;
            w.write_all(self.tail.get(start..to - split).unwrap_or(&[]))?;
        }
        Ok(())
    }
}

/// Writes the COBS encoding of `data` (no delimiter) to `w`, one block at a time.
pub(crate) fn encode_to<W: Write>(w: &mut W, data: Parts<'_>) -> Result<(), W::Error> {
    let total = data.len();
    let mut at = 0;
    loop {
        let mut run = 0;
        while at + run < total && run < MAX_RUN && data.byte(at + run) != 0 {
            run += 1;
        }
        // `run` is at most 254, so the code fits a byte.
        w.write_all(&[run as u8 + 1])?;
        data.write_range(w, at, at + run)?;
        at += run;
        if at == total {
            return Ok(());
        }
        if run < MAX_RUN {
            // The zero that ended the block is implied by its code.
            at += 1;
        }
    }
}

/// Decodes a COBS frame body (without its delimiter) in place; returns the length of the
/// data at the start of `frame`, or `None` when it is no valid encoding (a zero byte, or a
/// code that runs past the end).
pub fn decode_in_place(frame: &mut [u8]) -> Option<usize> {
    let len = frame.len();
    let (mut read, mut written) = (0, 0);
    while read < len {
        let code = usize::from(*frame.get(read)?);
        if code == 0 {
            return None;
        }
        read += 1;
        let run = code - 1;
        let end = read.checked_add(run).filter(|&end| end <= len)?;
        if frame.get(read..end)?.contains(&0) {
            return None;
        }
        frame.copy_within(read..end, written);
        written += run;
        read = end;
        if code != 0xFF && read < len {
            *frame.get_mut(written)? = 0;
            written += 1;
        }
    }
    Some(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// Collects what is written.
    struct Collect(Vec<u8>);

    impl embedded_io::ErrorType for Collect {
        type Error = core::convert::Infallible;
    }

    impl Write for Collect {
        fn write(&mut self, buf: &[u8]) -> Result<usize, Self::Error> {
            self.0.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    fn encode(data: &[u8]) -> Vec<u8> {
        let mut out = Collect(Vec::new());
        let split = data.len() / 2;
        encode_to(
            &mut out,
            Parts {
                head: &data[..split],
                tail: &data[split..],
            },
        )
        .unwrap();
        out.0
    }

    fn round_trip(data: &[u8]) {
        let mut encoded = encode(data);
        assert!(!encoded.contains(&0), "{data:?} -> {encoded:?}");
        assert!(encoded.len() <= max_encoded_len(data.len()));
        let n = decode_in_place(&mut encoded).unwrap();
        assert_eq!(&encoded[..n], data);
    }

    #[test]
    fn known_vectors() {
        assert_eq!(encode(&[]), [1]);
        assert_eq!(encode(&[0]), [1, 1]);
        assert_eq!(encode(&[0, 0]), [1, 1, 1]);
        assert_eq!(encode(&[0x11, 0x22, 0, 0x33]), [3, 0x11, 0x22, 2, 0x33]);
        assert_eq!(encode(&[0x11, 0, 0, 0]), [2, 0x11, 1, 1, 1]);
        let run: Vec<u8> = (1..=254).collect();
        let mut expected = Vec::from([0xFF]);
        expected.extend_from_slice(&run);
        assert_eq!(encode(&run), expected);
        let mut longer = run.clone();
        longer.push(0);
        expected.extend_from_slice(&[1, 1]);
        assert_eq!(encode(&longer), expected);
    }

    #[test]
    fn round_trips() {
        round_trip(b"");
        round_trip(b"{\"jsonrpc\":\"2.0\"}");
        let mixed: Vec<u8> = (0..2000u32).map(|i| (i * 7 % 251) as u8).collect();
        round_trip(&mixed);
        let no_zero: Vec<u8> = (0..1000u32).map(|i| (i % 255 + 1) as u8).collect();
        round_trip(&no_zero);
        round_trip(&[0; 600]);
        for len in 250..=520 {
            round_trip(&std::vec![b'x'; len]);
        }
    }

    #[test]
    fn invalid_encodings_are_refused() {
        assert_eq!(decode_in_place(&mut [3, 1]), None);
        assert_eq!(decode_in_place(&mut [2, 0]), None);
        assert_eq!(decode_in_place(&mut [0]), None);
        assert_eq!(decode_in_place(&mut [0xFF]), None);
        assert_eq!(decode_in_place(&mut []), Some(0));
    }
}
