//! Canonical digest of a JSON value (object key order ignored, array order and number kind kept).
//!
//! [`canonical_digest`] feeds an unambiguous byte encoding of a [`Value`] into any
//! [`DigestSink`] (a hash, a MAC, or a closure), without any memory of its own:
//!
//! - an object's members are emitted in key order, found by scanning the object for the
//!   next-larger key each time (quadratic in the members of one object, zero memory; sound
//!   because [`parse`](super::parse) rejects duplicate keys); keys compare by their decoded
//!   text, in Unicode scalar order (which is also UTF-8 byte order);
//! - an array's items are emitted in order;
//! - strings (keys included) are emitted as their decoded UTF-8 text, so `"\u0061"` and `"a"`
//!   are the same string;
//! - numbers are emitted as their literal, tagged with its kind: `1` (an integer literal) and
//!   `1.0` (a literal with a fraction or exponent) differ, and so do `1.0` and `1.00`; a string
//!   `"1"` and a number `1` differ by their tags.
//!
//! # Encoding
//!
//! | JSON          | bytes                                                             |
//! |---------------|-------------------------------------------------------------------|
//! | `null`        | `n`                                                               |
//! | `true`/`false`| `t` / `f`                                                         |
//! | integer       | `i`, length as `u64` big-endian, the literal                      |
//! | other number  | `d`, length as `u64` big-endian, the literal                      |
//! | string        | `s`, decoded length as `u64` big-endian, the decoded UTF-8 text   |
//! | array         | `[`, each item, `]`                                               |
//! | object        | `{`, each member in key order as key (a string) then value, `}`   |
//!
//! Every encoding starts with a tag, and a container's closing tag differs from every
//! opening tag, so no encoding is a prefix of another: two values share an encoding only if
//! they are canonically equal.
//!
//! # Cost
//!
//! Zero memory beyond the stack frames of the recursion, whose depth is that of the value
//! (bounded by the parse depth limit, and refused beyond [`CANONICAL_MAX_DEPTH`]). Time is
//! linear in the bytes of arrays and scalars and, for each object, proportional to its member
//! count times its size.

use super::string::JsonStr;
use super::value::{Kind, Object, Value};
use core::cmp::Ordering;

/// Deepest nesting [`canonical_digest`] descends into (the root container is depth 1); deeper
/// values are refused with [`TooDeep`] rather than risking the stack. Every [`Limits`]
/// preset parses shallower than this.
///
/// [`Limits`]: super::Limits
pub const CANONICAL_MAX_DEPTH: u16 = 128;

/// The top-level keys of request params that are not part of the request's salient
/// arguments: protocol metadata and the retry fields a client adds when it retries.
pub const NON_SALIENT_PARAMS_KEYS: [&str; 3] = ["_meta", "requestState", "inputResponses"];

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

/// Feeds the canonical encoding of `value` into `sink` (see the [module docs](self)).
///
/// On error the sink has received part of an encoding and should be discarded.
pub fn canonical_digest<S: DigestSink + ?Sized>(
    value: Value<'_>,
    sink: &mut S,
) -> Result<(), TooDeep> {
    emit_value(value, sink, 0)
}

/// Like [`canonical_digest`], but when `value` is an object its top-level members named in
/// `excluded` are left out (nested members of the same names stay in).
pub fn canonical_digest_excluding<S: DigestSink + ?Sized>(
    value: Value<'_>,
    excluded: &[&str],
    sink: &mut S,
) -> Result<(), TooDeep> {
    match value.as_object() {
        Some(object) => emit_object(object, excluded, sink, 1),
        None => emit_value(value, sink, 0),
    }
}

/// Feeds the canonical encoding of a request's salient params into `sink`: the params minus
/// the top-level [`NON_SALIENT_PARAMS_KEYS`] (`_meta`, `requestState`, `inputResponses`);
/// nested fields of those names stay bound.
///
/// Absent params digest like an empty object, so a request sent without params matches its
/// retry, whose params hold only the retry fields.
pub fn canonical_digest_params<S: DigestSink + ?Sized>(
    params: Option<Value<'_>>,
    sink: &mut S,
) -> Result<(), TooDeep> {
    match params {
        Some(value) => canonical_digest_excluding(value, &NON_SALIENT_PARAMS_KEYS, sink),
        None => {
            sink.update(b"{}");
            Ok(())
        }
    }
}

fn emit_value<S: DigestSink + ?Sized>(
    value: Value<'_>,
    sink: &mut S,
    depth: u16,
) -> Result<(), TooDeep> {
    match value.kind() {
        Kind::Null => sink.update(b"n"),
        Kind::Bool => sink.update(if value.as_bool() == Some(true) {
            b"t"
        } else {
            b"f"
        }),
        Kind::Number => {
            let literal = value.raw();
            let integer = !literal.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
            sink.update(if integer { b"i" } else { b"d" });
            emit_len(literal.len(), sink);
            sink.update(literal);
        }
        Kind::String => match value.as_str() {
            Some(s) => emit_str(s, sink),
            // Unreachable for validated input; still a distinct, total encoding.
            None => sink.update(b"?"),
        },
        Kind::Array => {
            let depth = enter(depth)?;
            sink.update(b"[");
            if let Some(array) = value.as_array() {
                for item in array {
                    emit_value(item, sink, depth)?;
                }
            }
            sink.update(b"]");
        }
        Kind::Object => {
            if let Some(object) = value.as_object() {
                emit_object(object, &[], sink, enter(depth)?)?;
            }
        }
    }
    Ok(())
}

fn enter(depth: u16) -> Result<u16, TooDeep> {
    let depth = depth + 1;
    if depth > CANONICAL_MAX_DEPTH {
        Err(TooDeep)
    } else {
        Ok(depth)
    }
}

/// Emits `object` (already at `depth`) with its members in key order, leaving out the
/// members named in `excluded`.
fn emit_object<S: DigestSink + ?Sized>(
    object: Object<'_>,
    excluded: &[&str],
    sink: &mut S,
    depth: u16,
) -> Result<(), TooDeep> {
    if depth > CANONICAL_MAX_DEPTH {
        return Err(TooDeep);
    }
    sink.update(b"{");
    let mut previous: Option<JsonStr<'_>> = None;
    loop {
        // The smallest key strictly greater than the previous one.
        let mut next = None;
        for (key, value) in object {
            if previous.is_some_and(|p| compare_keys(key, p) != Ordering::Greater) {
                continue;
            }
            if next.is_none_or(|(best, _)| compare_keys(key, best) == Ordering::Less) {
                next = Some((key, value));
            }
        }
        let Some((key, value)) = next else { break };
        previous = Some(key);
        if excluded.iter().any(|name| key.eq_str(name)) {
            continue;
        }
        emit_str(key, sink);
        emit_value(value, sink, depth)?;
    }
    sink.update(b"}");
    Ok(())
}

/// Orders keys by their decoded text (Unicode scalar order, which UTF-8 byte order matches).
fn compare_keys(a: JsonStr<'_>, b: JsonStr<'_>) -> Ordering {
    match (a.as_plain(), b.as_plain()) {
        (Some(a), Some(b)) => a.as_bytes().cmp(b.as_bytes()),
        _ => a.chars().cmp(b.chars()),
    }
}

fn emit_len<S: DigestSink + ?Sized>(len: usize, sink: &mut S) {
    sink.update(&(len as u64).to_be_bytes());
}

fn emit_str<S: DigestSink + ?Sized>(s: JsonStr<'_>, sink: &mut S) {
    sink.update(b"s");
    if let Some(plain) = s.as_plain() {
        emit_len(plain.len(), sink);
        sink.update(plain.as_bytes());
        return;
    }
    emit_len(s.decoded_len(), sink);
    // Decode through a small stack buffer so the sink sees few, larger updates.
    let mut chunk = [0u8; 64];
    let mut used = 0;
    for c in s.chars() {
        if used + 4 > chunk.len() {
            sink.update(chunk.get(..used).unwrap_or_default());
            used = 0;
        }
        if let Some(slot) = chunk.get_mut(used..used + c.len_utf8()) {
            c.encode_utf8(slot);
            used += c.len_utf8();
        }
    }
    sink.update(chunk.get(..used).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::{Limits, parse};
    use super::*;

    /// A sink that records the encoding (fixed capacity; tests keep values small).
    struct Recorder {
        bytes: [u8; 1024],
        len: usize,
    }

    impl Recorder {
        fn new() -> Self {
            Recorder {
                bytes: [0; 1024],
                len: 0,
            }
        }
        fn as_slice(&self) -> &[u8] {
            &self.bytes[..self.len]
        }
    }

    impl DigestSink for Recorder {
        fn update(&mut self, bytes: &[u8]) {
            self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    fn encode(text: &str) -> Recorder {
        let value = parse(text.as_bytes(), &Limits::default()).expect(text);
        let mut r = Recorder::new();
        canonical_digest(value, &mut r).unwrap();
        r
    }

    fn same(a: &str, b: &str) -> bool {
        encode(a).as_slice() == encode(b).as_slice()
    }

    fn params(text: Option<&str>) -> Recorder {
        let value = text.map(|t| parse(t.as_bytes(), &Limits::default()).expect(t));
        let mut r = Recorder::new();
        canonical_digest_params(value, &mut r).unwrap();
        r
    }

    #[test]
    fn scalars_have_the_documented_encoding() {
        assert_eq!(encode("null").as_slice(), b"n");
        assert_eq!(encode("true").as_slice(), b"t");
        assert_eq!(encode("false").as_slice(), b"f");
        assert_eq!(encode("12").as_slice(), b"i\0\0\0\0\0\0\0\x0212");
        assert_eq!(encode("1.5").as_slice(), b"d\0\0\0\0\0\0\0\x031.5");
        assert_eq!(encode(r#""ab""#).as_slice(), b"s\0\0\0\0\0\0\0\x02ab");
        assert_eq!(encode("[]").as_slice(), b"[]");
        assert_eq!(encode("{}").as_slice(), b"{}");
        assert_eq!(
            encode(r#"{"b":null,"a":1}"#).as_slice(),
            b"{s\0\0\0\0\0\0\0\x01ai\0\0\0\0\0\0\0\x011s\0\0\0\0\0\0\0\x01bn}"
        );
    }

    #[test]
    fn object_key_order_does_not_matter() {
        assert!(same(r#"{"a":1,"b":2,"c":3}"#, r#"{"c":3,"a":1,"b":2}"#));
        assert!(same(
            r#"{"x":{"q":[1,{"z":0,"y":1}],"p":null}}"#,
            r#"{"x":{"p":null,"q":[1,{"y":1,"z":0}]}}"#
        ));
    }

    #[test]
    fn array_order_matters() {
        assert!(!same("[1,2]", "[2,1]"));
        assert!(!same(r#"{"a":[1,2]}"#, r#"{"a":[2,1]}"#));
    }

    #[test]
    fn number_kind_and_literal_matter() {
        assert!(!same("1", "1.0"));
        assert!(!same("1.0", "1.00"));
        assert!(!same("1", "1e0"));
        assert!(!same("1", r#""1""#));
        assert!(!same("10", "1"));
    }

    #[test]
    fn strings_compare_by_decoded_text() {
        assert!(same(r#""a/é""#, r#""\u0061\/\u00e9""#));
        assert!(same(r#"{"\u0062":1,"a":2}"#, r#"{"a":2,"b":1}"#));
        assert!(!same(r#""a""#, r#""A""#));
        // A long escaped string goes through the chunked path.
        let long = "\\u00e9".repeat(100);
        let plain = "é".repeat(100);
        assert!(same(&format_str(&long), &format_str(&plain)));
    }

    fn format_str(inner: &str) -> std::string::String {
        std::format!("\"{inner}\"")
    }

    #[test]
    fn keys_order_by_unicode_scalar_value() {
        // "é" (U+00E9) sorts after "z"; an escaped key sorts by what it decodes to.
        let r = encode(r#"{"\u00e9":1,"z":2,"a":3}"#);
        let a = r.as_slice().iter().position(|&b| b == b'a').unwrap();
        let z = r.as_slice().iter().position(|&b| b == b'z').unwrap();
        let e = r
            .as_slice()
            .windows(2)
            .position(|w| w == "é".as_bytes())
            .unwrap();
        assert!(a < z && z < e);
    }

    #[test]
    fn framing_is_unambiguous() {
        assert!(!same(r#"["ab"]"#, r#"["a","b"]"#));
        assert!(!same(r#"[[]]"#, r#"[[],[]]"#));
        assert!(!same(r#"{"a":"b"}"#, r#"["a","b"]"#));
        assert!(!same(r#"{"a":{}}"#, r#"{"a":[]}"#));
        assert!(!same("null", r#""null""#));
        assert!(!same("true", r#""t""#));
    }

    #[test]
    fn params_drop_only_top_level_retry_and_meta_fields() {
        let plain = params(Some(r#"{"name":"x","arguments":{"a":1}}"#));
        let retry = params(Some(
            r#"{"requestState":"s1..x.y","arguments":{"a":1},"inputResponses":{"c":{}},"_meta":{"p":1},"name":"x"}"#,
        ));
        assert_eq!(plain.as_slice(), retry.as_slice());
        // Nested fields of the same names stay bound.
        let nested = params(Some(r#"{"name":"x","arguments":{"a":1,"_meta":{}}}"#));
        assert_ne!(plain.as_slice(), nested.as_slice());
        let nested = params(Some(
            r#"{"name":"x","arguments":{"a":1,"requestState":"z"}}"#,
        ));
        assert_ne!(plain.as_slice(), nested.as_slice());
        // Other top-level fields stay bound.
        let other = params(Some(r#"{"name":"x","arguments":{"a":1},"task":{}}"#));
        assert_ne!(plain.as_slice(), other.as_slice());
    }

    #[test]
    fn absent_params_match_an_object_of_retry_fields_only() {
        assert_eq!(params(None).as_slice(), params(Some("{}")).as_slice());
        assert_eq!(
            params(None).as_slice(),
            params(Some(r#"{"requestState":"t","_meta":{}}"#)).as_slice()
        );
        assert_ne!(params(None).as_slice(), params(Some("[]")).as_slice());
        // Array params are bound whole.
        assert_ne!(
            params(Some("[1]")).as_slice(),
            params(Some("[2]")).as_slice()
        );
    }

    #[test]
    fn refuses_values_deeper_than_the_bound() {
        let limits = Limits {
            max_depth: 200,
            ..Limits::default()
        };
        let mut text = [0u8; 400];
        for (i, b) in text.iter_mut().enumerate() {
            *b = if i < 200 { b'[' } else { b']' };
        }
        let deep = parse(&text, &limits).unwrap();
        let mut sink = |_: &[u8]| {};
        assert_eq!(canonical_digest(deep, &mut sink), Err(TooDeep));
        let ok = parse(&text[72..328], &limits).unwrap();
        assert_eq!(canonical_digest(ok, &mut sink), Ok(()));
        let over = parse(&text[71..329], &limits).unwrap();
        assert_eq!(canonical_digest(over, &mut sink), Err(TooDeep));
    }
}
