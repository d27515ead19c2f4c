//! Base64url without padding, streamed into a caller's buffer.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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

/// Decodes base64url without padding into `out`, strictly (no padding, no stray bits).
pub(crate) fn decode(text: &[u8], out: &mut [u8]) -> Option<usize> {
    URL_SAFE_NO_PAD.decode_slice(text, out).ok()
}
