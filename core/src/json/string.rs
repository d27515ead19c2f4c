//! Escaped JSON string contents, compared and decoded without allocating.

use super::skip::{HIGHS, bytes_equal, find_backslash, has_backslash, same_bytes, word_at};

/// The contents of a validated JSON string, still escaped (without the quotes).
#[derive(Clone, Copy)]
pub struct JsonStr<'a> {
    raw: &'a [u8],
}

impl core::fmt::Debug for JsonStr<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("\"")?;
        for c in self.chars() {
            for e in c.escape_debug() {
                core::fmt::Write::write_char(f, e)?;
            }
        }
        f.write_str("\"")
    }
}

impl PartialEq for JsonStr<'_> {
    /// Equality of the decoded text, whatever escapes either side used.
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.raw, other.raw);
        if same_bytes(a, b) {
            // The same escaped text decodes to the same text.
            return true;
        }
        // Every escape decodes to fewer bytes than it takes: text without escapes decodes to
        // itself, so different bytes can only decode alike if the longer side (both, at
        // equal lengths) has escapes.
        if let (Some(&x), Some(&y)) = (a.first(), b.first()) {
            if x != y && x != b'\\' && y != b'\\' {
                // Neither starts with an escape: each starts with its first byte.
                return false;
            }
        }
        let escapes = match a.len().cmp(&b.len()) {
            core::cmp::Ordering::Less => other.has_escapes(),
            core::cmp::Ordering::Equal => self.has_escapes() && other.has_escapes(),
            core::cmp::Ordering::Greater => self.has_escapes(),
        };
        escapes && self.chars().eq(other.chars())
    }
}

impl Eq for JsonStr<'_> {}

/// How many bytes of validated UTF-8 start a character (are not `10xxxxxx` continuation
/// bytes): eight at a time, and an ASCII word has no continuation byte.
fn lead_bytes(raw: &[u8]) -> usize {
    let mut continuations = 0;
    let mut j = 0;
    while let Some(word) = word_at(raw, j) {
        if word & HIGHS != 0 {
            continuations += (word & !(word << 1) & HIGHS).count_ones() as usize;
        }
        j += 8;
    }
    let tail = raw.get(j..).unwrap_or_default();
    continuations += tail.iter().filter(|&&b| b & 0xc0 == 0x80).count();
    raw.len() - continuations
}

/// Whether `raw` is ASCII without a backslash, in one pass eight bytes at a time; the last
/// word overlaps the one before it rather than leaving a tail to look at byte by byte.
fn is_plain_ascii(raw: &[u8]) -> bool {
    let plain = |word: Option<u64>| word.is_some_and(|w| (w & HIGHS) | bytes_equal(w, b'\\') == 0);
    let Some(last) = raw.len().checked_sub(8) else {
        return raw.iter().all(|&b| b.is_ascii() && b != b'\\');
    };
    let mut j = 0;
    while j < last {
        if !plain(word_at(raw, j)) {
            return false;
        }
        j += 8;
    }
    plain(word_at(raw, last))
}

impl<'a> JsonStr<'a> {
    pub(crate) fn from_validated(raw: &'a [u8]) -> Self {
        JsonStr { raw }
    }

    /// The escaped bytes between the quotes.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// Whether any escape sequence occurs.
    pub fn has_escapes(&self) -> bool {
        has_backslash(self.raw)
    }

    /// The text itself when it needs no unescaping.
    pub fn as_plain(&self) -> Option<&'a str> {
        if self.has_escapes() {
            None
        } else {
            core::str::from_utf8(self.raw).ok()
        }
    }

    /// Whether the decoded text equals `s`.
    ///
    /// Inlined: `s` is most often a constant, whose length and backslashes then fold away.
    #[inline]
    pub fn eq_str(&self, s: &str) -> bool {
        // Every escape decodes to fewer bytes than it takes, so escaped text is longer than
        // what it decodes to, and text without escapes is exactly as long. Text as long as
        // `s` and with the same bytes has escapes exactly when `s` has backslashes.
        match self.raw.len().cmp(&s.len()) {
            core::cmp::Ordering::Less => false,
            core::cmp::Ordering::Equal => {
                same_bytes(self.raw, s.as_bytes()) && !has_backslash(s.as_bytes())
            }
            core::cmp::Ordering::Greater => self.eq_str_escaped(s),
        }
    }

    /// [`JsonStr::eq_str`] for text longer than `s`, which only escapes can make equal.
    #[inline(never)]
    fn eq_str_escaped(&self, s: &str) -> bool {
        match (self.raw.first(), s.as_bytes().first()) {
            // Text that does not start with an escape starts with its first byte.
            (Some(&first), Some(&wanted)) if first != b'\\' && first != wanted => false,
            _ => self.has_escapes() && self.chars().eq(s.chars()),
        }
    }

    /// Whether the decoded text starts with `prefix`.
    pub fn starts_with(&self, prefix: &str) -> bool {
        let mut chars = self.chars();
        prefix.chars().all(|p| chars.next() == Some(p))
    }

    /// The decoded characters.
    pub fn chars(&self) -> Chars<'a> {
        Chars { b: self.raw, i: 0 }
    }

    /// Number of decoded Unicode scalar values (what JSON Schema calls the length), counted
    /// without decoding: the bytes that start a character, less what each escape adds.
    pub fn char_count(&self) -> usize {
        let raw = self.raw;
        if is_plain_ascii(raw) {
            // The common case: every byte is a character.
            return raw.len();
        }
        let mut count = lead_bytes(raw);
        let mut i = 0;
        while let Some(at) = find_backslash(raw, i) {
            // Validated escapes: `\x` is one character written with two ASCII bytes,
            // `\uXXXX` one with six, and a low surrogate's `\uDCXX` completes the character
            // the high one before it began.
            if raw.get(at + 1) == Some(&b'u') {
                let low = matches!(
                    raw.get(at + 2..at + 4),
                    Some([b'd' | b'D', b'c'..=b'f' | b'C'..=b'F'])
                );
                count = count.saturating_sub(if low { 6 } else { 5 });
                i = at + 6;
            } else {
                count = count.saturating_sub(1);
                i = at + 2;
            }
        }
        count
    }

    /// Length in bytes of the decoded UTF-8 text.
    pub fn decoded_len(&self) -> usize {
        if self.has_escapes() {
            self.chars().map(char::len_utf8).sum()
        } else {
            self.raw.len()
        }
    }

    /// Decodes into `buf` and returns the text, or `None` if `buf` is too small.
    pub fn decode_into<'b>(&self, buf: &'b mut [u8]) -> Option<&'b str> {
        if let Some(plain) = self.as_plain() {
            let out = buf.get_mut(..plain.len())?;
            out.copy_from_slice(plain.as_bytes());
            return core::str::from_utf8(out).ok();
        }
        let mut n = 0;
        for c in self.chars() {
            let len = c.len_utf8();
            c.encode_utf8(buf.get_mut(n..n + len)?);
            n += len;
        }
        core::str::from_utf8(buf.get(..n)?).ok()
    }
}

/// Iterator over the decoded characters of a [`JsonStr`].
#[derive(Clone, Debug)]
pub struct Chars<'a> {
    b: &'a [u8],
    i: usize,
}

impl Chars<'_> {
    /// The four hex digits at `at` (as `u32::from_str_radix` reads them, which also takes a
    /// leading `+`; the scanner never lets one through).
    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.b.get(at..at + 4)?;
        let digits = match digits {
            [b'+', rest @ ..] => rest,
            all => all,
        };
        let mut unit = 0;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return None,
            };
            unit = (unit << 4) | u32::from(v);
        }
        Some(unit)
    }
}

impl Iterator for Chars<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let first = *self.b.get(self.i)?;
        if first.is_ascii() && first != b'\\' {
            self.i += 1;
            return Some(char::from(first));
        }
        if first != b'\\' {
            // Decode one UTF-8 scalar from the validated text.
            let width = match first {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            let bytes = self.b.get(self.i..self.i + width)?;
            self.i += width;
            return core::str::from_utf8(bytes).ok()?.chars().next();
        }
        let kind = *self.b.get(self.i + 1)?;
        self.i += 2;
        let simple = match kind {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4(self.i)?;
                self.i += 4;
                if (0xD800..0xDC00).contains(&unit) {
                    let low = self.hex4(self.i + 2)?;
                    self.i += 6;
                    let scalar = 0x10000 + ((unit - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
                    return char::from_u32(scalar);
                }
                return char::from_u32(unit);
            }
            _ => return None,
        };
        Some(simple)
    }
}
