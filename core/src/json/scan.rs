//! The validating scanner: one pass over untrusted bytes that either proves them to be a
//! single well-formed JSON value within [`Limits`] or says why not.
//!
//! Everything the views in [`super::value`] do afterwards relies on this pass; they never see
//! bytes it did not accept.

use super::string::JsonStr;
use super::value::{Value, skip_ws};

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
pub fn parse<'a>(bytes: &'a [u8], limits: &Limits) -> Result<Value<'a>, JsonError> {
    if bytes.len() > limits.max_size {
        return Err(JsonError::TooLarge);
    }
    if core::str::from_utf8(bytes).is_err() {
        return Err(JsonError::InvalidUtf8);
    }
    let mut scanner = Scanner {
        b: bytes,
        i: 0,
        limits,
    };
    scanner.ws();
    let start = scanner.i;
    scanner.value(0)?;
    let end = scanner.i;
    scanner.ws();
    if scanner.i != bytes.len() {
        return Err(JsonError::Syntax { at: scanner.i });
    }
    Ok(Value::from_validated(&bytes[start..end]))
}

struct Scanner<'a, 'l> {
    b: &'a [u8],
    i: usize,
    limits: &'l Limits,
}

impl<'a> Scanner<'a, '_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn err(&self) -> JsonError {
        JsonError::Syntax { at: self.i }
    }

    fn ws(&mut self) {
        self.i = skip_ws(self.b, self.i);
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
        // A 128-bit Bloom filter of key hashes: earlier keys are only rescanned when a new
        // key's bits are already set, which keeps the common case linear.
        let mut seen: u128 = 0;
        loop {
            members += 1;
            if members > self.limits.max_members {
                return Err(JsonError::TooManyMembers);
            }
            let key = self.string()?;
            let bits = key_bits(key);
            if seen & bits == bits && key_seen_before(&self.b[open..], key) {
                return Err(JsonError::DuplicateKey);
            }
            seen |= bits;
            self.ws();
            self.expect(b':')?;
            self.ws();
            self.value(depth)?;
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

    /// Scans a string starting at its opening quote and returns its escaped contents.
    fn string(&mut self) -> Result<JsonStr<'a>, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.err());
        }
        self.i += 1;
        let start = self.i;
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.err());
            };
            match byte {
                b'"' => {
                    let raw = &self.b[start..self.i];
                    self.i += 1;
                    return Ok(JsonStr::from_validated(raw));
                }
                b'\\' => {
                    self.i += 1;
                    self.escape()?;
                }
                0x00..=0x1f => return Err(self.err()),
                _ => self.i += 1,
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

/// Two bits of a 128-bit filter chosen by an FNV-1a hash of the decoded key.
fn key_bits(key: JsonStr<'_>) -> u128 {
    let mut hash: u32 = 0x811c_9dc5;
    for c in key.chars() {
        hash ^= c as u32;
        hash = hash.wrapping_mul(0x0100_0193);
    }
    (1u128 << (hash & 127)) | (1u128 << ((hash >> 7) & 127))
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
