//! What both ways of writing the canonical encoding share: its depth bound, where its bytes
//! go, and the order of object keys.

use core::cmp::Ordering;

use crate::json::string::JsonStr;

/// Deepest nesting [`canonical_digest`](super::canonical_digest) descends into (the root container is depth 1); deeper
/// values are refused with [`TooDeep`] rather than risking the stack. Every [`Limits`]
/// preset parses shallower than this.
///
/// [`Limits`]: crate::json::Limits
pub const CANONICAL_MAX_DEPTH: u16 = 128;

/// Receives the bytes of a canonical encoding (a hash, a MAC, or a closure).
pub trait DigestSink {
    /// Absorbs the next bytes of the encoding.
    fn update(&mut self, bytes: &[u8]);
}

impl<F: FnMut(&[u8])> DigestSink for F {
    fn update(&mut self, bytes: &[u8]) {
        self(bytes)
    }
}

/// The value nests deeper than [`CANONICAL_MAX_DEPTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TooDeep;

impl core::fmt::Display for TooDeep {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("JSON value nested too deeply to canonicalise")
    }
}

impl core::error::Error for TooDeep {}

/// Orders keys by their decoded text (Unicode scalar order, which UTF-8 byte order matches).
pub(super) fn compare_keys(a: JsonStr<'_>, b: JsonStr<'_>) -> Ordering {
    let (x, y) = (a.raw(), b.raw());
    for (p, q) in x.iter().zip(y) {
        if *p == b'\\' || *q == b'\\' {
            // An escape before the first difference: compare what the keys decode to.
            return a.chars().cmp(b.chars());
        }
        if p != q {
            // Equal, escape-free prefixes of validated UTF-8: byte order is scalar order.
            return p.cmp(q);
        }
    }
    // One is an escape-free prefix of the other: the shorter decodes to a prefix of the longer.
    x.len().cmp(&y.len())
}
