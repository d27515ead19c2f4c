//! Base64url without padding, streamed into a caller's buffer.
//!
//! Encoding uses the `base64` crate's engine. Decoding is hand-written: a token's MAC and
//! payload are a few dozen characters each, and for such short runs the engine's set-up for
//! each call cost more than the characters themselves. The decoder is as strict as the
//! engine's `URL_SAFE_NO_PAD` (the tests compare the two): no padding, no characters outside
//! the alphabet, no stray bits in the last character, so every byte string has exactly one
//! encoding that decodes.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The base64url alphabet (the encoder's too).
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// What [`DECODE`] holds for a byte outside the alphabet (any value with a high bit set).
const INVALID: u8 = 0xff;

/// The six bits each alphabet character stands for, by byte; [`INVALID`] for other bytes.
const DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// The six bits `c` stands for, or [`INVALID`].
#[inline(always)]
fn bits_of(c: u8) -> u8 {
    DECODE[usize::from(c)]
}

/// Encodes bytes pushed in pieces as one base64url text, written straight into `out`.
///
/// Only up to two bytes wait between pushes; whole groups of three are encoded in place from
/// the pushed slice. The caller sizes `out` beforehand; output that would not fit is dropped
/// and [`Base64Writer::finish`] reports `None`.
pub(crate) struct Base64Writer<'o> {
    out: &'o mut [u8],
    pos: usize,
    pending: [u8; 3],
    pending_len: usize,
    overflow: bool,
}

impl<'o> Base64Writer<'o> {
    /// A writer that starts at `out[0]`.
    pub(crate) fn new(out: &'o mut [u8]) -> Self {
        Base64Writer {
            out,
            pos: 0,
            pending: [0; 3],
            pending_len: 0,
            overflow: false,
        }
    }

    /// Adds `bytes` to the encoded text.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if self.pending_len > 0 {
            let take = (3 - self.pending_len).min(bytes.len());
            let (head, tail) = bytes.split_at(take);
            if let Some(slot) = self
                .pending
                .get_mut(self.pending_len..self.pending_len + take)
            {
                slot.copy_from_slice(head);
            }
            self.pending_len += take;
            bytes = tail;
            if self.pending_len < 3 {
                return;
            }
            let group = self.pending;
            self.encode(&group);
            self.pending_len = 0;
        }
        let whole = bytes.len() / 3 * 3;
        let (groups, rest) = bytes.split_at(whole);
        self.encode(groups);
        if let Some(slot) = self.pending.get_mut(..rest.len()) {
            slot.copy_from_slice(rest);
        }
        self.pending_len = rest.len();
    }

    /// Encodes what is still pending and returns the characters written.
    pub(crate) fn finish(mut self) -> Option<usize> {
        let pending = self.pending;
        if let Some(last) = pending.get(..self.pending_len) {
            self.encode(last);
        }
        (!self.overflow).then_some(self.pos)
    }

    fn encode(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let written = self
            .out
            .get_mut(self.pos..)
            .and_then(|dst| URL_SAFE_NO_PAD.encode_slice(bytes, dst).ok());
        match written {
            Some(n) => self.pos += n,
            None => self.overflow = true,
        }
    }
}

/// Decodes base64url without padding into `out`, strictly (no padding, no stray bits), and
/// returns the bytes written; `None` for text that is not such an encoding or does not fit.
pub(crate) fn decode(text: &[u8], out: &mut [u8]) -> Option<usize> {
    let len = text.len() / 4 * 3
        + match text.len() % 4 {
            0 => 0,
            2 => 1,
            3 => 2,
            _ => return None,
        };
    let out = out.get_mut(..len)?;
    let mut quads = text.chunks_exact(4);
    let mut groups = out.chunks_exact_mut(3);
    for (quad, group) in (&mut quads).zip(&mut groups) {
        let (&[w, x, y, z], [a, b, c]) = (quad, group) else {
            return None;
        };
        let (w, x, y, z) = (bits_of(w), bits_of(x), bits_of(y), bits_of(z));
        if (w | x | y | z) & 0xc0 != 0 {
            return None;
        }
        let n = u32::from(w) << 18 | u32::from(x) << 12 | u32::from(y) << 6 | u32::from(z);
        (*a, *b, *c) = ((n >> 16) as u8, (n >> 8) as u8, n as u8);
    }
    match (quads.remainder(), groups.into_remainder()) {
        (&[], []) => {}
        (&[w, x], [a]) => {
            let (w, x) = (bits_of(w), bits_of(x));
            // The last character's low four bits are not part of any byte: they must be 0.
            if (w | x) & 0xc0 != 0 || x & 0x0f != 0 {
                return None;
            }
            *a = w << 2 | x >> 4;
        }
        (&[w, x, y], [a, b]) => {
            let (w, x, y) = (bits_of(w), bits_of(x), bits_of(y));
            if (w | x | y) & 0xc0 != 0 || y & 0x03 != 0 {
                return None;
            }
            let n = u32::from(w) << 18 | u32::from(x) << 12 | u32::from(y) << 6;
            (*a, *b) = ((n >> 16) as u8, (n >> 8) as u8);
        }
        _ => return None,
    }
    Some(len)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// `bytes` pushed in the pieces `cuts` marks, through a writer over `room` bytes.
    fn written(bytes: &[u8], cuts: &[usize], room: usize) -> Option<Vec<u8>> {
        let mut out = std::vec![0u8; room];
        let mut w = Base64Writer::new(&mut out);
        let mut at = 0;
        for &cut in cuts.iter().chain([&bytes.len()]) {
            let cut = cut.clamp(at, bytes.len());
            w.push(&bytes[at..cut]);
            at = cut;
        }
        let n = w.finish()?;
        Some(out[..n].to_vec())
    }

    #[test]
    fn known_encodings() {
        for (bytes, text) in [
            (&b""[..], ""),
            (b"f", "Zg"),
            (b"fo", "Zm8"),
            (b"foo", "Zm9v"),
            (b"\xfb\xff\xbf", "-_-_"),
        ] {
            assert_eq!(written(bytes, &[], 8).unwrap(), text.as_bytes());
            let mut out = [0u8; 8];
            assert_eq!(decode(text.as_bytes(), &mut out), Some(bytes.len()));
            assert_eq!(&out[..bytes.len()], bytes);
        }
        // Padding, the standard alphabet, stray bits and an impossible length do not decode.
        for text in ["Zg==", "Zm8=", "+/+/", "Zh", "Zm9", "Zm9vZ", "Zm 9v"] {
            assert_eq!(decode(text.as_bytes(), &mut [0u8; 8]), None, "{text}");
        }
        // Output that does not fit is refused both ways.
        assert_eq!(written(b"foo", &[], 3), None);
        assert_eq!(decode(b"Zm9v", &mut [0u8; 2]), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn encodes_as_the_base64_crate_in_any_pieces(
            bytes in proptest::collection::vec(any::<u8>(), 0..64),
            cuts in proptest::collection::vec(0usize..64, 0..4),
        ) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            let expected = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert_eq!(written(&bytes, &cuts, 128).unwrap(), expected.as_bytes());
        }

        #[test]
        fn decodes_as_the_base64_crate(
            text in proptest::collection::vec(
                prop_oneof![
                    8 => proptest::sample::select(ALPHABET.to_vec()),
                    1 => proptest::sample::select(b"=+/ .\n\xff\x00".to_vec()),
                ],
                0..40,
            ),
            room in 0usize..40,
        ) {
            let mut ours = std::vec![0u8; room];
            let mut theirs = std::vec![0u8; room];
            let a = decode(&text, &mut ours);
            let b = URL_SAFE_NO_PAD.decode_slice(&text, &mut theirs).ok();
            prop_assert_eq!(a, b);
            if let Some(n) = a {
                prop_assert_eq!(&ours[..n], &theirs[..n]);
            }
        }

        #[test]
        fn decodes_every_encoding_back(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let text = URL_SAFE_NO_PAD.encode(&bytes);
            let mut out = [0u8; 64];
            prop_assert_eq!(decode(text.as_bytes(), &mut out), Some(bytes.len()));
            prop_assert_eq!(&out[..bytes.len()], &bytes[..]);
        }
    }
}
