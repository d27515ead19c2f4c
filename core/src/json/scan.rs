//! The validating scanner: one pass over untrusted bytes that either proves them to be a
//! single well-formed JSON value within [`Limits`] or says why not.
//!
//! Everything the views in [`super::value`] do afterwards relies on this pass; they never see
//! bytes it did not accept.

use super::skip::{is_ws, next_hit, skip_ws, string_stops};
use super::string::JsonStr;
use super::value::Value;

/// Bounds applied while scanning untrusted JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Limits {
    /// Largest accepted document, in bytes.
    pub max_size: usize,
    /// Deepest accepted nesting of arrays and objects (the root container is depth 1).
    pub max_depth: u16,
    /// Most members accepted in one object (duplicate detection is quadratic in this).
    pub max_members: u16,
}

impl Limits {
    /// Integer parts longer than this many digits are refused.
    pub const MAX_INTEGER_DIGITS: usize = 64;
    /// Whole number literals longer than this many bytes are refused.
    pub const MAX_NUMBER_LEN: usize = 128;

    /// Defaults suited to a host: 1 MiB documents, depth 64, 1024 members per object.
    pub const HOST: Limits = Limits {
        max_size: 1 << 20,
        max_depth: 64,
        max_members: 1024,
    };

    /// Defaults suited to a small device: 2 KiB documents, depth 16, 64 members per object.
    pub const DEVICE: Limits = Limits {
        max_size: 2048,
        max_depth: 16,
        max_members: 64,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::HOST
    }
}

/// Why bytes were not accepted as JSON. Every variant maps to JSON-RPC -32700.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum JsonError {
    /// The document is larger than [`Limits::max_size`].
    TooLarge,
    /// Nesting deeper than [`Limits::max_depth`].
    TooDeep,
    /// An object with more than [`Limits::max_members`] members.
    TooManyMembers,
    /// The bytes are not valid UTF-8.
    InvalidUtf8,
    /// A number literal longer than the documented bounds.
    NumberTooLong,
    /// The same key twice in one object (after unescaping).
    DuplicateKey,
    /// Anything else that is not JSON; `at` is the byte offset where it was noticed.
    Syntax {
        /// Byte offset of the first offending byte.
        at: usize,
    },
}
/// Validates `bytes` as exactly one JSON value (surrounding whitespace allowed) and returns a
/// view of it.
///
/// UTF-8 is checked inside strings as they are scanned (outside strings only ASCII can be
/// valid JSON), so a document is read once. When a document is refused for another reason,
/// the whole input is checked for UTF-8 after all, so that invalid UTF-8 anywhere is always
/// reported as [`JsonError::InvalidUtf8`], whatever else is wrong.
pub fn parse<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Value<'a>, JsonError> {
    parse_visiting(bytes, limits, &mut Unseen)
}

/// Told about the members of objects while a document is scanned, so that a caller wanting a
/// few of them need not walk the document again afterwards. What it is told before the
/// scan succeeds must be dropped if it fails.
pub(crate) trait Visitor<'a> {
    /// How deep the objects whose members are reported are at most (the root container is
    /// at depth 1); 0 for none, which costs nothing.
    const DEPTH: u16;

    /// The value of member `key` of an object at `depth` is about to be scanned.
    fn enter(&mut self, depth: u16, key: &Key<'a>);

    /// The value of member `key` of an object at `depth` was scanned: it is `value`.
    fn leave(&mut self, depth: u16, key: &Key<'a>, value: Value<'a>);
}

/// A member's key as the scanner saw it: its text, and whether that has escapes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key<'a> {
    text: JsonStr<'a>,
    escaped: bool,
}

impl<'a> Key<'a> {
    /// A key found by a view (which must look for escapes itself).
    pub(crate) fn of(text: JsonStr<'a>) -> Self {
        Key {
            text,
            escaped: text.has_escapes(),
        }
    }

    /// The key's decoded bytes: its own text when it has no escapes, else decoded into
    /// `buf` (`None` when it does not fit).
    pub(crate) fn decoded<'b>(&self, buf: &'b mut [u8]) -> Option<&'b [u8]>
    where
        'a: 'b,
    {
        if self.escaped {
            self.text.decode_into(buf).map(str::as_bytes)
        } else {
            Some(self.text.raw())
        }
    }

    /// The key's text, still escaped.
    pub(crate) fn text(&self) -> JsonStr<'a> {
        self.text
    }

    /// Whether the key decodes to `name`: a comparison of bytes unless it has escapes.
    #[inline]
    pub(crate) fn is(&self, name: &str) -> bool {
        if self.escaped {
            self.text.eq_str(name)
        } else {
            self.text.raw() == name.as_bytes()
        }
    }
}

/// A visitor told nothing.
pub(crate) struct Unseen;

impl<'a> Visitor<'a> for Unseen {
    const DEPTH: u16 = 0;

    fn enter(&mut self, _: u16, _: &Key<'a>) {}

    fn leave(&mut self, _: u16, _: &Key<'a>, _: Value<'a>) {}
}

/// [`parse`], telling `visitor` about the members of objects up to its depth.
pub(crate) fn parse_visiting<'a, V: Visitor<'a>>(
    bytes: &'a [u8],
    limits: &Limits,
    visitor: &mut V,
) -> Result<Value<'a>, JsonError> {
    if bytes.len() > limits.max_size {
        return Err(JsonError::TooLarge);
    }
    let mut scanner = Scanner {
        b: bytes,
        i: 0,
        limits,
        visitor,
    };
    match scanner.document() {
        Ok((start, end)) => Ok(Value::from_validated(
            bytes.get(start..end).unwrap_or_default(),
        )),
        Err(JsonError::InvalidUtf8) => Err(JsonError::InvalidUtf8),
        Err(_) if core::str::from_utf8(bytes).is_err() => Err(JsonError::InvalidUtf8),
        Err(e) => Err(e),
    }
}

/// The value of a document [`parse`] has accepted before (under the same limits), viewed
/// again without scanning it: `bytes` minus the whitespace around it.
pub(crate) fn view_accepted(bytes: &[u8]) -> Value<'_> {
    let start = skip_ws(bytes, 0);
    let mut end = bytes.len();
    while end > start && bytes.get(end - 1).copied().is_some_and(is_ws) {
        end -= 1;
    }
    Value::from_validated(bytes.get(start..end).unwrap_or_default())
}

struct Scanner<'a, 'l, 'v, V> {
    b: &'a [u8],
    i: usize,
    limits: &'l Limits,
    visitor: &'v mut V,
}

impl<'a, V: Visitor<'a>> Scanner<'a, '_, '_, V> {
    /// The whole input: one value with optional whitespace around it; its span.
    fn document(&mut self) -> Result<(usize, usize), JsonError> {
        self.ws();
        let start = self.i;
        self.value(0)?;
        let end = self.i;
        self.ws();
        if self.i != self.b.len() {
            return Err(self.err());
        }
        Ok((start, end))
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn err(&self) -> JsonError {
        JsonError::Syntax { at: self.i }
    }

    #[inline(always)]
    fn ws(&mut self) {
        // Compact JSON has no whitespace at most places this is asked.
        if self.peek().is_some_and(is_ws) {
            self.i = skip_ws(self.b, self.i);
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), JsonError> {
        if self.peek() == Some(byte) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err())
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), JsonError> {
        match self.b.get(self.i..self.i + word.len()) {
            Some(found) if found == word => {
                self.i += word.len();
                Ok(())
            }
            _ => Err(self.err()),
        }
    }

    fn value(&mut self, depth: u16) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(|_| ()),
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.err()),
        }
    }

    fn object(&mut self, depth: u16) -> Result<(), JsonError> {
        if depth > self.limits.max_depth {
            return Err(JsonError::TooDeep);
        }
        let open = self.i;
        self.i += 1;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        let mut members: u16 = 0;
        // A Bloom filter of key hashes: earlier keys are only rescanned when a new key's
        // bits are already set, which keeps the common case linear.
        let mut seen = KeyFilter::default();
        loop {
            members += 1;
            if members > self.limits.max_members {
                return Err(JsonError::TooManyMembers);
            }
            let key = self.key(open, &mut seen)?;
            self.ws();
            self.expect(b':')?;
            self.ws();
            if depth <= V::DEPTH {
                self.visited_value(depth, key)?;
            } else {
                self.value(depth)?;
            }
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err()),
            }
        }
    }

    /// Scans a member's key (in the object opened at `open`) and refuses it if an earlier
    /// member had it, which `seen` (the object's filter of key bits) rules out cheaply.
    ///
    /// Kept out of [`Scanner::object`] (like [`Scanner::visited_value`]) so that the frame
    /// each nesting level costs stays small.
    fn key(&mut self, open: usize, seen: &mut KeyFilter) -> Result<Key<'a>, JsonError> {
        let start = self.i + 1;
        let (text, escaped) = self.string()?;
        let bits = key_bits(self.b, start, self.i - 1, escaped);
        if seen.holds(bits) && key_seen_before(self.b.get(open..).unwrap_or_default(), text) {
            return Err(JsonError::DuplicateKey);
        }
        seen.add(bits);
        Ok(Key { text, escaped })
    }

    /// Scans the value of member `key` of an object at `depth`, telling the visitor.
    fn visited_value(&mut self, depth: u16, key: Key<'a>) -> Result<(), JsonError> {
        self.visitor.enter(depth, &key);
        let start = self.i;
        self.value(depth)?;
        let value = self.b.get(start..self.i).unwrap_or_default();
        self.visitor
            .leave(depth, &key, Value::from_validated(value));
        Ok(())
    }

    fn array(&mut self, depth: u16) -> Result<(), JsonError> {
        if depth > self.limits.max_depth {
            return Err(JsonError::TooDeep);
        }
        self.i += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.value(depth)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.ws();
                }
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.err()),
            }
        }
    }

    /// Scans a string starting at its opening quote and returns its escaped contents and
    /// whether any escape occurs in them.
    ///
    /// Eight bytes at a time up to the next quote, backslash, control character or
    /// non-ASCII byte; a non-ASCII byte must start a well-formed UTF-8 sequence.
    ///
    /// With feature `inline-scan` (optimised builds only) it is inlined into the recursive
    /// value and key paths: the call costs about what scanning a short string does, but the
    /// frame of every nesting level grows.
    #[cfg_attr(all(feature = "inline-scan", not(debug_assertions)), inline(always))]
    fn string(&mut self) -> Result<(JsonStr<'a>, bool), JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.err());
        }
        let b = self.b;
        let start = self.i + 1;
        let mut j = start;
        let mut escaped = false;
        loop {
            j = next_hit(b, j, string_stops);
            let Some(&byte) = b.get(j) else {
                self.i = j;
                return Err(self.err());
            };
            match byte {
                b'"' => {
                    self.i = j + 1;
                    let raw = b.get(start..j).unwrap_or_default();
                    return Ok((JsonStr::from_validated(raw), escaped));
                }
                b'\\' => {
                    escaped = true;
                    self.i = j + 1;
                    self.escape()?;
                    j = self.i;
                }
                0x00..=0x1f => {
                    self.i = j;
                    return Err(self.err());
                }
                0x80..=0xff => j = utf8_char(b, j).ok_or(JsonError::InvalidUtf8)?,
                _ => j += 1,
            }
        }
    }

    /// Checks one escape after its backslash, including surrogate pairing.
    fn escape(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.i += 1;
                Ok(())
            }
            Some(b'u') => {
                self.i += 1;
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                            return Err(self.err());
                        }
                        self.i += 2;
                        match self.hex4()? {
                            0xDC00..=0xDFFF => Ok(()),
                            _ => Err(self.err()),
                        }
                    }
                    0xDC00..=0xDFFF => Err(self.err()),
                    _ => Ok(()),
                }
            }
            _ => Err(self.err()),
        }
    }

    fn hex4(&mut self) -> Result<u16, JsonError> {
        let Some(digits) = self.b.get(self.i..self.i + 4) else {
            return Err(self.err());
        };
        let mut unit: u16 = 0;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.err()),
            };
            unit = (unit << 4) | u16::from(v);
        }
        self.i += 4;
        Ok(unit)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<(), JsonError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let int_digits = match self.peek() {
            Some(b'0') => {
                self.i += 1;
                1
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err()),
        };
        if int_digits > Limits::MAX_INTEGER_DIGITS {
            return Err(JsonError::NumberTooLong);
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.err());
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.err());
            }
        }
        if self.i - start > Limits::MAX_NUMBER_LEN {
            return Err(JsonError::NumberTooLong);
        }
        Ok(())
    }
}

/// Index just past the UTF-8 sequence whose first byte (not ASCII) is at `j`, if that
/// sequence is well formed: no overlong forms, no surrogates, nothing above U+10FFFF.
fn utf8_char(b: &[u8], j: usize) -> Option<usize> {
    let (width, second) = match *b.get(j)? {
        0xc2..=0xdf => (2, 0x80..=0xbf),
        0xe0 => (3, 0xa0..=0xbf),
        0xe1..=0xec | 0xee..=0xef => (3, 0x80..=0xbf),
        0xed => (3, 0x80..=0x9f),
        0xf0 => (4, 0x90..=0xbf),
        0xf1..=0xf3 => (4, 0x80..=0xbf),
        0xf4 => (4, 0x80..=0x8f),
        _ => return None,
    };
    if !second.contains(b.get(j + 1)?) {
        return None;
    }
    for k in 2..width {
        if b.get(j + k)? & 0xc0 != 0x80 {
            return None;
        }
    }
    Some(j + width)
}

/// A filter of the keys of one object: two 64-bit halves, each with one bit of a key's hash
/// set (a Bloom filter of 128 bits and two hashes, partitioned).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KeyFilter(u64, u64);

impl KeyFilter {
    fn holds(self, key: KeyFilter) -> bool {
        self.0 & key.0 != 0 && self.1 & key.1 != 0
    }

    fn add(&mut self, key: KeyFilter) {
        self.0 |= key.0;
        self.1 |= key.1;
    }
}

/// The bits of a [`KeyFilter`] chosen by the decoded key, which sits at `text[start..end]`
/// (`escaped` when it has escapes): by its length and its last byte in one half, by its
/// first byte in the other.
///
/// A key without escapes is read straight from the input with two loads; one with escapes
/// (rare) is decoded first, so two spellings of one key always get the same bits. Keys that
/// share those bytes only cost a rescan of the object's earlier keys. No word loads and no
/// multiplications: a round of a dozen keys runs about 250 fewer instructions than with a
/// hash of the key's first and last eight bytes.
#[cfg_attr(all(feature = "inline-scan", not(debug_assertions)), inline)]
fn key_bits(text: &[u8], start: usize, end: usize, escaped: bool) -> KeyFilter {
    let raw = text.get(start..end).unwrap_or_default();
    let (len, first, last) = if escaped {
        decoded_key_ends(raw)
    } else {
        let ends = (raw.first(), raw.last());
        (
            raw.len(),
            ends.0.copied().unwrap_or(0),
            ends.1.copied().unwrap_or(0),
        )
    };
    let low = (len as u32).wrapping_add(u32::from(last).wrapping_mul(7));
    KeyFilter(1 << (low & 63), 1 << (first & 63))
}

/// The decoded length and first and last bytes of a key with escapes (rare; kept out of
/// line so that the scanner's inlined path stays small).
#[inline(never)]
fn decoded_key_ends(raw: &[u8]) -> (usize, u8, u8) {
    let mut ends = (0, 0, 0);
    let mut utf8 = [0u8; 4];
    for c in JsonStr::from_validated(raw).chars() {
        for &byte in c.encode_utf8(&mut utf8).as_bytes() {
            if ends.0 == 0 {
                ends.1 = byte;
            }
            ends = (ends.0 + 1, ends.1, byte);
        }
    }
    ends
}

/// Whether `key` (which sits at the end of `object`, a validated prefix of an object) occurs
/// as an earlier key of that same object.
fn key_seen_before(object: &[u8], key: JsonStr<'_>) -> bool {
    let mut members = super::value::PrefixMembers::new(object);
    while let Some(earlier) = members.next_key() {
        if earlier.raw().as_ptr() == key.raw().as_ptr() {
            return false;
        }
        if earlier == key {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_and_plain_keys_hash_alike() {
        let pairs = [
            (r#""a""#, r#""\u0061""#),
            (r#""abc""#, r#""\u0061b\u0063""#),
            (r#""abcdefgh""#, r#""abcdefg\u0068""#),
            (
                r#""io.modelcontextprotocol/protocolVersion""#,
                r#""io.model\u0063ontextprotocol/protocol\u0056ersion""#,
            ),
            (r#""é😀xyzxyz""#, r#""\u00e9\ud83d\ude00xyzxyz""#),
            (r#""""#, r#""""#),
        ];
        for (plain, escaped) in pairs {
            let (p, e) = (plain.as_bytes(), escaped.as_bytes());
            // Keys at the end of the text (fewer than eight bytes after their start) too.
            for tail in ["", ":1234567890"] {
                let mut text = std::vec::Vec::from(p);
                text.extend_from_slice(tail.as_bytes());
                let ours = key_bits(&text, 1, p.len() - 1, false);
                let mut text = std::vec::Vec::from(e);
                text.extend_from_slice(tail.as_bytes());
                assert_eq!(ours, key_bits(&text, 1, e.len() - 1, true), "{plain}");
            }
        }
    }

    #[test]
    fn utf8_sequences_are_checked_like_core_does() {
        for lead in 0x80..=0xffu8 {
            for second in [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0] {
                for third in [0x80, 0xbf, 0x7f, 0xc0] {
                    for fourth in [0x80, 0xbf, 0x41] {
                        let buf = [lead, second, third, fourth];
                        let ours = utf8_char(&buf, 0);
                        // From a non-ASCII lead byte, core accepts at most one prefix: the
                        // whole sequence (shorter ones are incomplete).
                        let core_says = (2..=4).find(|&w| core::str::from_utf8(&buf[..w]).is_ok());
                        assert_eq!(ours, core_says, "{buf:x?}");
                    }
                }
            }
        }
        assert_eq!(utf8_char(&[0xe2, 0x82], 0), None);
    }
}
