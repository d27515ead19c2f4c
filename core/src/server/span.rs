//! Where a part of a message lies in the bytes it was accepted from: what lets a call or a
//! subscription that outlives its round keep offsets, small and `'static`, and be borrowed
//! again from a copy of those bytes without accepting the message again.

use crate::json::{JsonStr, Limits, Value, range_in, view_accepted};
use crate::rpc::Id;

/// A byte range of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    start: usize,
    end: usize,
}

impl Span {
    /// Where `part` lies in `input`, when it lies there.
    pub(crate) fn of(input: &[u8], part: &[u8]) -> Option<Span> {
        let range = range_in(input, part)?;
        Some(Span {
            start: range.start,
            end: range.end,
        })
    }

    /// The bytes at this span of `input`.
    pub(crate) fn bytes(self, input: &[u8]) -> Option<&[u8]> {
        input.get(self.start..self.end)
    }

    /// The bytes at this span of `input`, parsed again on their own (a few bytes, not the
    /// message): checked JSON even when `input` is not what the span was taken from.
    pub(crate) fn parse(self, input: &[u8]) -> Option<Value<'_>> {
        let limits = Limits {
            max_size: usize::MAX,
            ..Limits::HOST
        };
        crate::json::parse(self.bytes(input)?, &limits).ok()
    }

    /// The value at this span of `input`, which the core accepted before: viewed again
    /// without scanning it.
    pub(crate) fn view(self, input: &[u8]) -> Option<Value<'_>> {
        self.bytes(input).map(view_accepted)
    }

    /// The string at this span of `input` (its bytes between the quotes), accepted before.
    pub(crate) fn view_str(self, input: &[u8]) -> Option<JsonStr<'_>> {
        self.bytes(input).map(JsonStr::from_validated)
    }
}

/// A JSON-RPC id by value or by span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdSpan {
    Num(i64),
    /// The string id with its quotes.
    Str(Span),
}

impl IdSpan {
    /// `id` as it lies in `input`.
    pub(crate) fn of(input: &[u8], id: Id<'_>) -> Option<IdSpan> {
        Some(match id {
            Id::Num(n) => IdSpan::Num(n),
            Id::Str(s) => {
                let inner = Span::of(input, s.raw())?;
                IdSpan::Str(Span {
                    start: inner.start.checked_sub(1)?,
                    end: inner.end.checked_add(1)?,
                })
            }
        })
    }

    /// The id again, its string parsed from `input` (checked).
    pub(crate) fn parse(self, input: &[u8]) -> Option<Id<'_>> {
        Some(match self {
            IdSpan::Num(n) => Id::Num(n),
            IdSpan::Str(span) => Id::Str(span.parse(input)?.as_str()?),
        })
    }

    /// The id again, viewed in `input` (accepted before).
    pub(crate) fn view(self, input: &[u8]) -> Option<Id<'_>> {
        Some(match self {
            IdSpan::Num(n) => Id::Num(n),
            IdSpan::Str(span) => Id::Str(span.view(input)?.as_str()?),
        })
    }
}

/// A fingerprint of a message's bytes (FNV-1a's constants over 8-byte words, the tail byte by
/// byte): a handle checks with it that the bytes it is viewed in are those it was taken from,
/// at a small fraction of a parse's cost. Not a defence against chosen bytes: a transport
/// views a handle only in its own copy of the message.
pub(crate) fn fingerprint(input: &[u8]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut words = input.chunks_exact(8);
    let mut hash = words.by_ref().fold(0xcbf2_9ce4_8422_2325, |hash, word| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        (hash ^ u64::from_le_bytes(bytes))
            .wrapping_mul(PRIME)
            .rotate_left(29)
    });
    for &byte in words.remainder() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
    }
    hash
}
