//! Header values: plain visible ASCII, or `=?base64?…?=` around canonical padded standard
//! Base64 of UTF-8 text; and their comparison with the JSON values of a body.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::json::{JsonStr, Number, Value, compare_literals};

use super::HeaderMismatch;

/// Opening marker of a Base64-encoded header value.
const BASE64_PREFIX: &[u8] = b"=?base64?";
/// Closing marker of a Base64-encoded header value.
const BASE64_SUFFIX: &[u8] = b"?=";
/// Longest number or boolean compared, in bytes of header text.
const MAX_SCALAR_LEN: usize = 64;

/// Decodes a header value into `buf`: the bytes of a `=?base64?…?=` value, or the value itself.
/// Fails with [`HeaderMismatch::InvalidCharacters`] or [`HeaderMismatch::InvalidBase64`] for
/// a malformed value, and with [`HeaderMismatch::Param`] when `buf` is too small.
pub fn decode_value<'b>(value: &[u8], buf: &'b mut [u8]) -> Result<&'b [u8], HeaderMismatch> {
    let text = Text::parse(value)?;
    let mut n = 0;
    for byte in text.bytes() {
        *buf.get_mut(n).ok_or(HeaderMismatch::Param)? = byte;
        n += 1;
    }
    Ok(buf.get(..n).unwrap_or_default())
}

/// Whether every byte is visible ASCII, a space or a tab.
pub(super) fn check_characters(value: &[u8]) -> Result<(), HeaderMismatch> {
    if value
        .iter()
        .all(|&b| b == b'\t' || (b' '..=b'~').contains(&b))
    {
        Ok(())
    } else {
        Err(HeaderMismatch::InvalidCharacters)
    }
}

/// A header value: plain text, or the payload of `=?base64?…?=` (checked to be canonical,
/// padded standard Base64).
#[derive(Clone, Copy)]
pub(super) enum Text<'h> {
    Plain(&'h [u8]),
    Base64(&'h [u8]),
}

impl<'h> Text<'h> {
    pub(super) fn parse(value: &'h [u8]) -> Result<Self, HeaderMismatch> {
        check_characters(value)?;
        let encoded = value
            .strip_prefix(BASE64_PREFIX)
            .and_then(|v| v.strip_suffix(BASE64_SUFFIX));
        let Some(payload) = encoded else {
            return Ok(Text::Plain(value));
        };
        if payload.len() % 4 != 0 {
            return Err(HeaderMismatch::InvalidBase64);
        }
        let mut chunks = payload.chunks_exact(4).peekable();
        while let Some(chunk) = chunks.next() {
            let last = chunks.peek().is_none();
            if !last && chunk.contains(&b'=') {
                return Err(HeaderMismatch::InvalidBase64);
            }
            if STANDARD.decode_slice(chunk, &mut [0u8; 3]).is_err() {
                return Err(HeaderMismatch::InvalidBase64);
            }
        }
        Ok(Text::Base64(payload))
    }

    fn bytes(self) -> TextBytes<'h> {
        match self {
            Text::Plain(bytes) => TextBytes {
                rest: &[],
                chunk: [0; 3],
                len: 0,
                pos: 0,
                plain: bytes.iter(),
            },
            Text::Base64(payload) => TextBytes {
                rest: payload,
                chunk: [0; 3],
                len: 0,
                pos: 0,
                plain: [].iter(),
            },
        }
    }

    /// The decoded text in `buf`, when it is UTF-8 and fits.
    fn as_str(self, buf: &mut [u8; MAX_SCALAR_LEN]) -> Option<&str> {
        let mut n = 0;
        for byte in self.bytes() {
            *buf.get_mut(n)? = byte;
            n += 1;
        }
        core::str::from_utf8(buf.get(..n)?).ok()
    }
}

/// The decoded bytes of a [`Text`], four Base64 characters at a time.
struct TextBytes<'h> {
    plain: core::slice::Iter<'h, u8>,
    rest: &'h [u8],
    chunk: [u8; 3],
    len: usize,
    pos: usize,
}

impl Iterator for TextBytes<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if let Some(&b) = self.plain.next() {
            return Some(b);
        }
        if self.pos == self.len {
            let (group, rest) = self.rest.split_at_checked(4)?;
            self.rest = rest;
            self.len = STANDARD.decode_slice(group, &mut self.chunk).ok()?;
            self.pos = 0;
        }
        let b = *self.chunk.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
}

/// Whether the header text equals the decoded JSON string, byte for byte in UTF-8.
pub(super) fn text_eq(text: Text<'_>, s: JsonStr<'_>) -> bool {
    if let (Text::Plain(plain), false) = (text, s.has_escapes()) {
        return plain == s.raw();
    }
    let mut bytes = text.bytes();
    let mut utf8 = [0u8; 4];
    for c in s.chars() {
        for &b in c.encode_utf8(&mut utf8).as_bytes() {
            if bytes.next() != Some(b) {
                return false;
            }
        }
    }
    bytes.next().is_none()
}

/// Whether `name` is a non-empty HTTP field-name token (`1*tchar`).
pub(super) fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether a header's text stands for the body value `v`.
pub(super) fn scalar_eq(text: Text<'_>, v: Value<'_>) -> bool {
    if let Some(s) = v.as_str() {
        return text_eq(text, s);
    }
    let mut buf = [0u8; MAX_SCALAR_LEN];
    let Some(header) = text.as_str(&mut buf) else {
        return false;
    };
    if let Some(b) = v.as_bool() {
        return header == if b { "true" } else { "false" };
    }
    v.as_number().is_some_and(|n| numbers_eq(header, n))
}

/// Whether the header text is a number equal to `n`, compared exactly on the digits (`1.0`
/// equals `1`; two integers beyond `f64`'s exact range stay distinct).
fn numbers_eq(header: &str, n: Number<'_>) -> bool {
    is_json_number(header)
        && compare_literals(header.as_bytes(), n.bytes()) == Some(core::cmp::Ordering::Equal)
}

/// Whether `s` is a JSON number literal.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}
