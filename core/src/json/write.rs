//! A JSON writer into a caller-owned buffer.
//!
//! Output is always ASCII: every non-ASCII character is written as a `\u` escape, so replies
//! are safe on links that are not 8-bit clean and need no further escaping on stdio.
//!
//! Writing never fails midway. When the buffer runs out the writer keeps counting, and
//! [`Writer::finish`] reports the size that would have been needed, in the manner of rustls'
//! `InsufficientSizeError`.

use super::skip::{next_hit, string_stops};
use super::string::JsonStr;
use super::value::{Kind, Value};

/// The output buffer was too small; `required` bytes would have been enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct BufferTooSmall {
    /// Bytes needed for the whole output.
    pub required: usize,
}

/// The bytes a string body cannot hold as they are: control characters, `"`, `\` and
/// every byte of a non-ASCII character (written as `\u` escapes).
static ESCAPED: [bool; 256] = {
    let mut escaped = [true; 256];
    let mut b = 0x20;
    while b < 0x80 {
        escaped[b] = false;
        b += 1;
    }
    escaped[b'"' as usize] = true;
    escaped[b'\\' as usize] = true;
    escaped
};

/// Strings up to this long are checked for bytes to escape one byte at a time.
const SHORT: usize = 16;

/// Writes JSON text into a byte buffer.
#[derive(Debug)]
pub struct Writer<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> Writer<'b> {
    /// A writer that starts at the beginning of `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Writer { buf, len: 0 }
    }

    /// A writer that continues after the first `position` bytes already in `buf`.
    pub fn resume(buf: &'b mut [u8], position: usize) -> Self {
        Writer { buf, len: position }
    }

    /// Bytes written so far (or that would have been, past the end of the buffer).
    pub fn position(&self) -> usize {
        self.len
    }

    /// Whether everything written so far fitted.
    pub fn fits(&self) -> bool {
        self.len <= self.buf.len()
    }

    /// Forgets everything written after `position` (for rewriting a reply as an error).
    pub fn rewind(&mut self, position: usize) {
        if position < self.len {
            self.len = position;
        }
    }

    /// The bytes written so far, when they all fitted.
    pub fn written(&self) -> Option<&[u8]> {
        self.buf.get(..self.len)
    }

    /// The first `len` bytes of the buffer, when they fit.
    pub(crate) fn written_prefix(&self, len: usize) -> Option<&[u8]> {
        self.buf.get(..len)
    }

    /// Bytes written between `from` and now, when they fitted.
    pub fn written_since(&self, from: usize) -> Option<&[u8]> {
        self.buf.get(from..self.len)
    }

    /// Ends writing: the length written, or the size that was needed.
    pub fn finish(self) -> Result<usize, BufferTooSmall> {
        if self.fits() {
            Ok(self.len)
        } else {
            Err(BufferTooSmall { required: self.len })
        }
    }

    /// Appends bytes that are already valid JSON text (or punctuation) verbatim.
    #[inline]
    pub fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        let end = self.len + bytes.len();
        if let Some(dst) = self.buf.get_mut(self.len..end) {
            copy(dst, bytes);
        }
        self.len = end;
        self
    }

    fn byte(&mut self, byte: u8) {
        if let Some(dst) = self.buf.get_mut(self.len) {
            *dst = byte;
        }
        self.len += 1;
    }

    /// `null`.
    pub fn null(&mut self) -> &mut Self {
        self.raw(b"null")
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.raw(if v { b"true" } else { b"false" })
    }

    /// A signed integer.
    pub fn i64(&mut self, v: i64) -> &mut Self {
        if v < 0 {
            self.byte(b'-');
        }
        self.u64(v.unsigned_abs())
    }

    /// An unsigned integer.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut n = v;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.raw(&digits[i..])
    }

    /// A float; non-finite values are written as `null`, as JSON has no spelling for them.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        if !v.is_finite() {
            return self.null();
        }
        let _ = core::fmt::Write::write_fmt(&mut RawSink(self), format_args!("{v:?}"));
        self
    }

    /// Any Rust number: integers through [`Writer::i64`] or [`Writer::u64`], floats through
    /// [`Writer::f64`]. Generic, so a caller that only ever writes integers (a firmware's
    /// progress counts) links no float formatting.
    pub fn number<N: JsonNumber>(&mut self, n: N) -> &mut Self {
        n.write_to(self);
        self
    }

    /// A quoted, escaped string.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.byte(b'"');
        self.escaped(s);
        self.byte(b'"');
        self
    }

    /// A quoted string made of formatted text, escaped as it is produced.
    pub fn str_fmt(&mut self, args: core::fmt::Arguments<'_>) -> &mut Self {
        self.byte(b'"');
        let _ = core::fmt::Write::write_fmt(&mut EscapeSink(self), args);
        self.byte(b'"');
        self
    }

    /// A string from another document, re-escaped to ASCII.
    pub fn json_str(&mut self, s: JsonStr<'_>) -> &mut Self {
        self.byte(b'"');
        if let Some(plain) = s.as_plain().filter(|p| p.is_ascii()) {
            self.escaped(plain);
        } else {
            let mut utf8 = [0u8; 4];
            for c in s.chars() {
                self.escaped(c.encode_utf8(&mut utf8));
            }
        }
        self.byte(b'"');
        self
    }

    /// A value from another document, copied verbatim when it is ASCII and re-emitted with
    /// ASCII escapes otherwise.
    pub fn value(&mut self, v: Value<'_>) -> &mut Self {
        if v.raw().is_ascii() {
            return self.raw(v.raw());
        }
        match v.kind() {
            Kind::String => match v.as_str() {
                Some(s) => self.json_str(s),
                None => self.null(),
            },
            Kind::Object => {
                let mut o = self.begin_object();
                if let Some(obj) = v.as_object() {
                    for (k, item) in obj {
                        o.key_json(k).value(item);
                    }
                }
                o.end();
                self
            }
            Kind::Array => {
                let mut a = self.begin_array();
                if let Some(arr) = v.as_array() {
                    for item in arr {
                        a.item().value(item);
                    }
                }
                a.end();
                self
            }
            _ => self.raw(v.raw()),
        }
    }

    /// Writes the escaped body of a string (without quotes): each run of bytes that need no
    /// escape is found a word at a time and copied in one piece.
    ///
    /// With feature `inline-scan` (optimised builds only) the short path is inlined into the
    /// writers that call it: fewer instructions per string, for code in each of them, which
    /// a device (feature off) keeps instead.
    #[cfg_attr(all(feature = "inline-scan", not(debug_assertions)), inline)]
    #[cfg_attr(
        not(all(feature = "inline-scan", not(debug_assertions))),
        inline(never)
    )]
    pub(crate) fn escaped(&mut self, s: &str) {
        let bytes = s.as_bytes();
        // Most strings written are short and plain (keys, names, `"text"`): a look at each
        // byte and one copy cost less than setting up the word-wise search.
        if bytes.len() <= SHORT && !bytes.iter().any(|&b| ESCAPED[usize::from(b)]) {
            self.raw(bytes);
        } else {
            self.escaped_runs(s);
        }
    }

    /// [`Writer::escaped`] of a longer string, or one with bytes to escape.
    #[inline(never)]
    fn escaped_runs(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut start = 0;
        loop {
            let i = plain_run_end(bytes, start);
            if let Some(run) = bytes.get(start..i) {
                if !run.is_empty() {
                    self.raw(run);
                }
            }
            let Some(&b) = bytes.get(i) else {
                return;
            };
            let mut width = 1;
            match b {
                b'"' => {
                    self.raw(b"\\\"");
                }
                b'\\' => {
                    self.raw(b"\\\\");
                }
                b'\n' => {
                    self.raw(b"\\n");
                }
                b'\r' => {
                    self.raw(b"\\r");
                }
                b'\t' => {
                    self.raw(b"\\t");
                }
                0x00..=0x1f => self.unicode_escape(u16::from(b)),
                _ => {
                    // The start of a multi-byte character: escape the whole scalar.
                    let c = s.get(i..).and_then(|rest| rest.chars().next());
                    let c = c.unwrap_or('\u{fffd}');
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        self.unicode_escape(*unit);
                    }
                    width = c.len_utf8();
                }
            }
            start = i + width;
        }
    }

    fn unicode_escape(&mut self, unit: u16) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.raw(b"\\u");
        for shift in [12, 8, 4, 0] {
            self.byte(HEX[usize::from((unit >> shift) & 0xf)]);
        }
    }

    /// Writes, as a quoted JSON string, the text this writer already wrote between `from`
    /// and `to` (used to mirror structured content as text without a second buffer).
    pub fn str_from_own(&mut self, from: usize, to: usize) -> &mut Self {
        self.byte(b'"');
        if to <= self.buf.len() && from <= to {
            for i in from..to {
                let b = self.buf.get(i).copied().unwrap_or(b' ');
                match b {
                    b'"' => {
                        self.raw(b"\\\"");
                    }
                    b'\\' => {
                        self.raw(b"\\\\");
                    }
                    0x00..=0x1f => self.unicode_escape(u16::from(b)),
                    _ => self.byte(b),
                }
            }
        } else {
            // Already past the end of the buffer: only the size matters now.
            self.len += 2 * to.saturating_sub(from);
        }
        self.byte(b'"');
        self
    }

    /// The unused rest of the buffer, for code that writes bytes itself; follow with
    /// [`Writer::advance`].
    pub fn spare(&mut self) -> &mut [u8] {
        let start = self.len.min(self.buf.len());
        &mut self.buf[start..]
    }

    /// Counts `n` bytes written into [`Writer::spare`] (or needed, when they did not fit).
    pub fn advance(&mut self, n: usize) {
        self.len += n;
    }

    /// A writer over the unused tail of the buffer, for a message written beside this one.
    pub fn tail(&mut self) -> Writer<'_> {
        let start = self.len.min(self.buf.len());
        Writer::new(&mut self.buf[start..])
    }

    /// Opens an object; members are added through the returned writer.
    pub fn begin_object(&mut self) -> ObjectWriter<'_, 'b> {
        self.byte(b'{');
        ObjectWriter {
            w: self,
            first: true,
        }
    }

    /// Opens an array; items are added through the returned writer.
    pub fn begin_array(&mut self) -> ArrayWriter<'_, 'b> {
        self.byte(b'[');
        ArrayWriter {
            w: self,
            first: true,
        }
    }

    /// Writes an object whose members `f` adds.
    pub fn object(&mut self, f: impl FnOnce(&mut ObjectWriter<'_, 'b>)) -> &mut Self {
        let mut o = self.begin_object();
        f(&mut o);
        o.end();
        self
    }

    /// Writes an array whose items `f` adds.
    pub fn array(&mut self, f: impl FnOnce(&mut ArrayWriter<'_, 'b>)) -> &mut Self {
        let mut a = self.begin_array();
        f(&mut a);
        a.end();
        self
    }
}

/// Adds members to an open object.
#[derive(Debug)]
pub struct ObjectWriter<'w, 'b> {
    w: &'w mut Writer<'b>,
    first: bool,
}

impl<'w, 'b> ObjectWriter<'w, 'b> {
    /// Adds members to an object whose `{` was already written (`first`: no member yet).
    /// Nothing is written when it is dropped; the caller closes the object.
    pub fn continuing(w: &'w mut Writer<'b>, first: bool) -> Self {
        ObjectWriter { w, first }
    }

    /// Whether any member has been written through this writer (or before it).
    pub fn wrote_any(&self) -> bool {
        !self.first
    }

    fn comma(&mut self) {
        if !self.first {
            self.w.byte(b',');
        }
        self.first = false;
    }

    /// Writes `"key":` and returns the writer for the value, which the caller must write.
    pub fn key(&mut self, key: &str) -> &mut Writer<'b> {
        self.comma();
        self.w.str(key);
        self.w.byte(b':');
        self.w
    }

    /// Like [`ObjectWriter::key`] for a key taken from another document.
    pub fn key_json(&mut self, key: JsonStr<'_>) -> &mut Writer<'b> {
        self.comma();
        self.w.json_str(key);
        self.w.byte(b':');
        self.w
    }

    /// A string member.
    pub fn str(&mut self, key: &str, v: &str) -> &mut Self {
        self.key(key).str(v);
        self
    }

    /// An integer member.
    pub fn u64(&mut self, key: &str, v: u64) -> &mut Self {
        self.key(key).u64(v);
        self
    }

    /// A signed integer member.
    pub fn i64(&mut self, key: &str, v: i64) -> &mut Self {
        self.key(key).i64(v);
        self
    }

    /// A boolean member.
    pub fn bool(&mut self, key: &str, v: bool) -> &mut Self {
        self.key(key).bool(v);
        self
    }

    /// A member whose value is JSON text written verbatim.
    pub fn raw(&mut self, key: &str, json: &[u8]) -> &mut Self {
        self.key(key).raw(json);
        self
    }

    /// A member copied from another document.
    pub fn value(&mut self, key: &str, v: Value<'_>) -> &mut Self {
        self.key(key).value(v);
        self
    }

    /// A nested object member.
    pub fn object(&mut self, key: &str, f: impl FnOnce(&mut ObjectWriter<'_, 'b>)) -> &mut Self {
        self.key(key).object(f);
        self
    }

    /// A nested array member.
    pub fn array(&mut self, key: &str, f: impl FnOnce(&mut ArrayWriter<'_, 'b>)) -> &mut Self {
        self.key(key).array(f);
        self
    }

    /// Closes the object.
    pub fn end(self) {
        self.w.byte(b'}');
    }
}

/// Adds items to an open array.
#[derive(Debug)]
pub struct ArrayWriter<'w, 'b> {
    w: &'w mut Writer<'b>,
    first: bool,
}

impl<'b> ArrayWriter<'_, 'b> {
    /// Starts an item and returns the writer for it, which the caller must write.
    pub fn item(&mut self) -> &mut Writer<'b> {
        if !self.first {
            self.w.byte(b',');
        }
        self.first = false;
        self.w
    }

    /// A string item.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.item().str(v);
        self
    }

    /// An object item.
    pub fn object(&mut self, f: impl FnOnce(&mut ObjectWriter<'_, 'b>)) -> &mut Self {
        self.item().object(f);
        self
    }

    /// Closes the array.
    pub fn end(self) {
        self.w.byte(b']');
    }
}

/// Index of the first byte at or after `i` that a string body cannot hold as it is (see
/// [`ESCAPED`]), or `bytes.len()`: eight bytes at a time, then the last few one by one.
#[inline]
fn plain_run_end(bytes: &[u8], i: usize) -> usize {
    let mut j = next_hit(bytes, i, string_stops);
    while let Some(&b) = bytes.get(j) {
        if ESCAPED[usize::from(b)] {
            break;
        }
        j += 1;
    }
    j
}

/// Copies `from` into `into` (of the same length). Replies are written in many short
/// pieces; up to 32 bytes are moved as two overlapping fixed-size words rather than by a
/// call to `memcpy`.
#[inline]
fn copy(into: &mut [u8], from: &[u8]) {
    fn overlapping<const W: usize>(into: &mut [u8], from: &[u8]) {
        let tail = from.len().saturating_sub(W);
        if let (Some(head), Some(end)) = (
            from.first_chunk::<W>(),
            from.get(tail..).and_then(<[u8]>::first_chunk::<W>),
        ) {
            if let Some(to) = into.first_chunk_mut::<W>() {
                *to = *head;
            }
            if let Some(to) = into.get_mut(tail..).and_then(<[u8]>::first_chunk_mut::<W>) {
                *to = *end;
            }
        }
    }
    match from.len() {
        n if n != into.len() => {}
        0..=3 => {
            for (to, &byte) in into.iter_mut().zip(from) {
                *to = byte;
            }
        }
        4..=7 => overlapping::<4>(into, from),
        8..=15 => overlapping::<8>(into, from),
        16..=32 => overlapping::<16>(into, from),
        _ => into.copy_from_slice(from),
    }
}

/// Formats straight into the writer without escaping (numbers).
struct RawSink<'w, 'b>(&'w mut Writer<'b>);

impl core::fmt::Write for RawSink<'_, '_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0.raw(s.as_bytes());
        Ok(())
    }
}

/// Formats into the writer, escaping as a string body.
struct EscapeSink<'w, 'b>(&'w mut Writer<'b>);

impl core::fmt::Write for EscapeSink<'_, '_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.0.escaped(s);
        Ok(())
    }
}

/// A Rust number [`Writer::number`] can spell as JSON. Sealed: implemented for the primitive
/// integers and floats only.
pub trait JsonNumber: Copy + sealed::Sealed {
    /// Writes the number.
    fn write_to(self, w: &mut Writer<'_>);
}

mod sealed {
    pub trait Sealed {}
}

macro_rules! json_numbers {
    ($via:ident: $($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl JsonNumber for $t {
            fn write_to(self, w: &mut Writer<'_>) {
                w.$via(self.into());
            }
        }
    )*};
}
json_numbers!(u64: u8, u16, u32, u64);
json_numbers!(i64: i8, i16, i32, i64);
json_numbers!(f64: f32, f64);

impl sealed::Sealed for usize {}
impl JsonNumber for usize {
    fn write_to(self, w: &mut Writer<'_>) {
        // usize is at most 64 bits on every target Rust supports.
        w.u64(u64::try_from(self).unwrap_or(u64::MAX));
    }
}
