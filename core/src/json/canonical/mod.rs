//! Canonical digest of a JSON value (object key order ignored, array order and number kind
//! kept): see [`canonical_digest`].

mod encoding;
mod one_pass;

pub use encoding::{CANONICAL_MAX_DEPTH, DigestSink, TooDeep};

use super::skip::{has_backslash, skip_string, skip_value, skip_ws};
use super::string::JsonStr;
use super::value::{Kind, Object, Value};
use core::cmp::Ordering;
use encoding::compare_keys;
use one_pass::canonical_digest_small;

/// Members an object pass collects at once: an object of up to this many members is
/// ordered in a single pass over it; a larger one takes one pass per this many members.
/// Costs `WINDOW` × 32 bytes of stack per nesting level being emitted.
const WINDOW: usize = 8;

/// The top-level keys of request params that are not part of the request's salient
/// arguments: protocol metadata and the retry fields a client adds when it retries.
pub const NON_SALIENT_PARAMS_KEYS: [&str; 3] = ["_meta", "requestState", "inputResponses"];

/// Feeds an unambiguous byte encoding of `value` into any
/// [`DigestSink`] (a hash, a MAC, or a closure), with no buffer beyond fixed stack frames:
///
/// - an object's members are emitted in key order, found by scanning the object for the
///   next-larger keys (no table of the members: each pass keeps only the next eight in a
///   fixed window, so objects of up to eight members take one pass and larger ones one pass
///   per eight; sound because [`parse`](super::parse) rejects duplicate keys); keys compare
///   by their decoded text, in Unicode scalar order (which is also UTF-8 byte order);
/// - an array's items are emitted in order;
/// - strings (keys included) are emitted as their decoded UTF-8 text, so `"\u0061"` and `"a"`
///   are the same string;
/// - numbers are emitted as their literal, tagged with its kind: `1` (an integer literal) and
///   `1.0` (a literal with a fraction or exponent) differ, and so do `1.0` and `1.00`; a string
///   `"1"` and a number `1` differ by their tags.
///
/// # Encoding
///
/// | JSON          | bytes                                                             |
/// |---------------|-------------------------------------------------------------------|
/// | `null`        | `n`                                                               |
/// | `true`/`false`| `t` / `f`                                                         |
/// | integer       | `i`, the literal's length, the literal                            |
/// | other number  | `d`, the literal's length, the literal                            |
/// | string        | `s`, the decoded text's length in bytes, the decoded UTF-8 text   |
/// | array         | `[`, each item, `]`                                               |
/// | object        | `{`, each member in key order as key (a string) then value, `}`   |
///
/// Lengths are unsigned LEB128 (seven bits a byte, low bits first, the high bit set on every
/// byte but the last), so a length is itself self-delimiting. Every encoding starts with a
/// tag, and a container's closing tag differs from every opening tag, so no encoding is a prefix of another: two values share an encoding only if
/// they are canonically equal.
///
/// # Cost
///
/// A value whose encoding fits 512 bytes with at most 32 members in the objects open at once
/// (request params of a few hundred bytes) is encoded in one pass into a buffer on the
/// stack, each object's members moved into key order there when the object closes, and the
/// sink gets it in one update. A larger one is emitted by rescanning instead, with no memory
/// beyond the stack frames of the recursion (about 300 bytes per object level, most of it the
/// eight-member window), whose depth is that of the value (bounded by the parse depth limit,
/// and refused beyond [`CANONICAL_MAX_DEPTH`]); time is then linear in the bytes of arrays
/// and scalars and, for each object, proportional to its size times `1 + members / 8`
/// passes.
///
/// On error the sink has received part of an encoding and should be discarded.
pub fn canonical_digest<S: DigestSink + ?Sized>(
    value: Value<'_>,
    sink: &mut S,
) -> Result<(), TooDeep> {
    canonical_digest_excluding(value, &[], sink)
}

/// Like [`canonical_digest`], but when `value` is an object its top-level members named in
/// `excluded` are left out (nested members of the same names stay in).
pub fn canonical_digest_excluding<S: DigestSink + ?Sized>(
    value: Value<'_>,
    excluded: &[&str],
    sink: &mut S,
) -> Result<(), TooDeep> {
    digest_excluding(value, excluded, &[], sink)
}

/// [`canonical_digest_excluding`], stepping over an excluded member whose value is one of
/// the `known` values (whole values inside `value`'s text) rather than walking it.
fn digest_excluding<S: DigestSink + ?Sized>(
    value: Value<'_>,
    excluded: &[&str],
    known: &[&[u8]],
    sink: &mut S,
) -> Result<(), TooDeep> {
    // Small values are encoded in one pass into a buffer and handed over whole; larger ones
    // are emitted by rescanning, in bounded memory.
    if let Some(done) = canonical_digest_small(value.raw(), excluded, known, sink) {
        return done;
    }
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
    canonical_digest_params_known(params, &[], sink)
}

/// [`canonical_digest_params`] when the request's parse already located some of the
/// excluded members' values (`known`: whole values inside the params' text, as the parse
/// returned them): those are stepped over rather than walked again. A known value that is
/// not an excluded member's changes nothing.
pub(crate) fn canonical_digest_params_known<S: DigestSink + ?Sized>(
    params: Option<Value<'_>>,
    known: &[&[u8]],
    sink: &mut S,
) -> Result<(), TooDeep> {
    match params {
        Some(value) => digest_excluding(value, &NON_SALIENT_PARAMS_KEYS, known, sink),
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
    let raw = value.raw();
    match value.kind() {
        Kind::Null => sink.update(b"n"),
        Kind::Bool => sink.update(if raw == b"true" { b"t" } else { b"f" }),
        Kind::Number => {
            let integer = !raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
            emit_header(if integer { b'i' } else { b'd' }, raw.len(), sink);
            sink.update(raw);
        }
        Kind::String => match value.as_str() {
            Some(s) => emit_str(s, sink),
            // Unreachable for validated input; still a distinct, total encoding.
            None => sink.update(b"?"),
        },
        Kind::Array => {
            let depth = enter(depth)?;
            sink.update(b"[");
            let mut walk = Walk::new(raw);
            while let Some(item) = walk.item() {
                emit_value(item, sink, depth)?;
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
    let raw = object.as_value().raw();
    sink.update(b"{");
    let placeholder = (JsonStr::from_validated(b""), Value::from_validated(b"null"));
    let mut previous: Option<JsonStr<'_>> = None;
    loop {
        // One pass collects, in order, the (up to) WINDOW smallest keys after `previous`.
        let mut window = [placeholder; WINDOW];
        let mut filled = 0;
        let mut remaining = 0;
        let mut walk = Walk::new(raw);
        while let Some((key, value)) = walk.member() {
            if previous.is_some_and(|p| compare_keys(key, p) != Ordering::Greater) {
                continue;
            }
            remaining += 1;
            // Insertion into the sorted window, from its end (members often come sorted).
            let mut at = filled;
            while at > 0 {
                match window.get(at - 1) {
                    Some(&(k, _)) if compare_keys(k, key) == Ordering::Greater => at -= 1,
                    _ => break,
                }
            }
            if at >= WINDOW {
                continue;
            }
            let end = (filled + 1).min(WINDOW);
            let mut slot = end - 1;
            while slot > at {
                if let Some(moved) = window.get(slot - 1).copied() {
                    if let Some(into) = window.get_mut(slot) {
                        *into = moved;
                    }
                }
                slot -= 1;
            }
            if let Some(into) = window.get_mut(at) {
                *into = (key, value);
            }
            filled = end;
        }
        for &(key, value) in window.get(..filled).unwrap_or_default() {
            if !excluded.iter().any(|name| key.eq_str(name)) {
                emit_str(key, sink);
                emit_value(value, sink, depth)?;
            }
        }
        match window.get(filled.wrapping_sub(1)) {
            Some(&(last, _)) if remaining > filled => previous = Some(last),
            _ => break,
        }
    }
    sink.update(b"}");
    Ok(())
}

/// A tag and a length (LEB128: seven bits a byte, low bits first), in one update.
fn emit_header<S: DigestSink + ?Sized>(tag: u8, len: usize, sink: &mut S) {
    let mut header = [0u8; 11];
    header[0] = tag;
    let mut n = 1;
    let mut rest = len as u64;
    for slot in header.iter_mut().skip(1) {
        let low = (rest & 0x7f) as u8;
        rest >>= 7;
        n += 1;
        if rest == 0 {
            *slot = low;
            break;
        }
        *slot = low | 0x80;
    }
    sink.update(header.get(..n).unwrap_or_default());
}

fn emit_str<S: DigestSink + ?Sized>(s: JsonStr<'_>, sink: &mut S) {
    let raw = s.raw();
    if !has_backslash(raw) {
        // Validated UTF-8 without escapes is its own decoded text.
        emit_header(b's', raw.len(), sink);
        sink.update(raw);
        return;
    }
    emit_header(b's', s.decoded_len(), sink);
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

/// Walks the members or items of a validated container, skipping nested values quickly
/// (strings eight bytes at a time). Total on any bytes: it stops, it never panics.
struct Walk<'a> {
    b: &'a [u8],
    i: usize,
    done: bool,
}

impl<'a> Walk<'a> {
    /// A walk over the container `raw` (starting at its opening bracket).
    fn new(raw: &'a [u8]) -> Self {
        Walk {
            b: raw,
            i: 1,
            done: false,
        }
    }

    fn member(&mut self) -> Option<(JsonStr<'a>, Value<'a>)> {
        if self.done {
            return None;
        }
        let start = skip_ws(self.b, self.i);
        let found = (|| {
            if self.b.get(start) != Some(&b'"') {
                return None;
            }
            let key_end = skip_string(self.b, start)?;
            let key = JsonStr::from_validated(self.b.get(start + 1..key_end - 1)?);
            let colon = skip_ws(self.b, key_end);
            if self.b.get(colon) != Some(&b':') {
                return None;
            }
            let value = self.value_at(skip_ws(self.b, colon + 1))?;
            Some((key, value))
        })();
        if found.is_none() {
            self.done = true;
        }
        found
    }

    fn item(&mut self) -> Option<Value<'a>> {
        if self.done {
            return None;
        }
        let start = skip_ws(self.b, self.i);
        let found = match self.b.get(start) {
            None | Some(b']') => None,
            Some(_) => self.value_at(start),
        };
        if found.is_none() {
            self.done = true;
        }
        found
    }

    /// The value starting at `start`; moves past it and its separator.
    fn value_at(&mut self, start: usize) -> Option<Value<'a>> {
        let end = skip_value(self.b, start)?;
        let value = Value::from_validated(self.b.get(start..end)?);
        let after = skip_ws(self.b, end);
        self.i = after + 1;
        if self.b.get(after) != Some(&b',') {
            self.done = true;
        }
        Some(value)
    }
}

/// The encoding as the rescanning emitter gives it (the reference the faster paths are
/// tested against).
#[cfg(test)]
pub(super) fn rescanned(value: Value<'_>, excluded: &[&str]) -> Result<std::vec::Vec<u8>, TooDeep> {
    extern crate std;
    let mut bytes = std::vec::Vec::new();
    let mut sink = |b: &[u8]| bytes.extend_from_slice(b);
    match value.as_object() {
        Some(object) => emit_object(object, excluded, &mut sink, 1)?,
        None => emit_value(value, &mut sink, 0)?,
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::one_pass::canonical_digest_small;
    use super::*;
    use crate::json::{Limits, parse};

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
        assert_eq!(encode("12").as_slice(), b"i\x0212");
        assert_eq!(encode("1.5").as_slice(), b"d\x031.5");
        assert_eq!(encode(r#""ab""#).as_slice(), b"s\x02ab");
        assert_eq!(encode("[]").as_slice(), b"[]");
        assert_eq!(encode("{}").as_slice(), b"{}");
        assert_eq!(
            encode(r#"{"b":null,"a":1}"#).as_slice(),
            b"{s\x01ai\x011s\x01bn}"
        );
    }

    #[test]
    fn key_order_matches_the_order_of_decoded_text() {
        let keys = [
            r#""""#,
            r#""a""#,
            r#""\u0061""#,
            r#""ab""#,
            r#""a\u0062""#,
            r#""\u0061b""#,
            r#""b""#,
            r#""é""#,
            r#""\u00e9""#,
            r#""\u00E9""#,
            r#""\u0100""#,
            r#""z""#,
            r#""😀""#,
            r#""\ud83d\ude00""#,
            r#""\/""#,
            r#""/""#,
            r#""a\n""#,
            r#""a\t""#,
            r#""\"""#,
            r#""xyz""#,
            r#""xy""#,
            r#""x\u0079z""#,
        ];
        for a in keys {
            for b in keys {
                let va = parse(a.as_bytes(), &Limits::default()).unwrap();
                let vb = parse(b.as_bytes(), &Limits::default()).unwrap();
                let (ka, kb) = (va.as_str().unwrap(), vb.as_str().unwrap());
                assert_eq!(
                    compare_keys(ka, kb),
                    ka.chars().cmp(kb.chars()),
                    "{a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn lengths_are_leb128() {
        let text = std::format!("\"{}\"", "x".repeat(200));
        let r = encode(&text);
        assert_eq!(&r.as_slice()[..3], b"s\xc8\x01");
        assert_eq!(r.as_slice().len(), 203);
        let mut sink = Recorder::new();
        emit_header(b'i', 0, &mut sink);
        emit_header(b'i', 127, &mut sink);
        emit_header(b'i', 128, &mut sink);
        emit_header(b'i', usize::MAX, &mut sink);
        assert_eq!(
            sink.as_slice(),
            b"i\x00i\x7fi\x80\x01i\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
        );
    }

    #[test]
    fn walking_is_total_and_skips_strings_with_quotes_and_escapes() {
        // Strings longer than a word, with escaped quotes and backslashes at every offset.
        for pad in 0..17 {
            let x = "x".repeat(pad);
            let text = std::format!(r#"{{"b{x}":"{x}\"{x}\\","a":["{x}\\\"",{{"z":"]}}"}}]}}"#);
            let value = parse(text.as_bytes(), &Limits::default()).expect(&text);
            let mut walk = Walk::new(value.raw());
            let (k1, _) = walk.member().unwrap();
            let (k2, v2) = walk.member().unwrap();
            assert!(walk.member().is_none());
            assert!(k1.starts_with("b") && k2.eq_str("a"));
            assert_eq!(v2.as_array().unwrap().len(), 2);
        }
        // Brackets and quotes inside strings, at every offset of a word, in nested values.
        for pad in 0..17 {
            let x = "x".repeat(pad);
            let text = std::format!(
                r#"[{{"{x}":"{x}]}}[{{\"","n":[1,{{"k":"{x}}}"}},[]],"m":{{}}}},"{x}\\",[[["]"]]]]"#
            );
            let value = parse(text.as_bytes(), &Limits::default()).expect(&text);
            let mut walk = Walk::new(value.raw());
            let mut theirs = value.as_array().unwrap().iter();
            while let Some(item) = walk.item() {
                assert_eq!(Some(item), theirs.next(), "{text}");
            }
            assert_eq!(theirs.next(), None);
        }
        // Garbage never panics.
        for junk in [
            &b"{"[..],
            b"[\"",
            b"{\"a",
            b"{\"a\":",
            b"[\"\\",
            b"{]]]",
            b"[}",
        ] {
            let mut walk = Walk::new(junk);
            while walk.member().is_some() {}
            let mut walk = Walk::new(junk);
            while walk.item().is_some() {}
            let _ = skip_value(junk, 0);
        }
    }

    /// The encoding through the one pass and through rescanning (what values too large for
    /// the pass get), for the same value; `None` when the one pass does not take it.
    fn both_ways(text: &str, excluded: &[&str]) -> Option<(std::vec::Vec<u8>, std::vec::Vec<u8>)> {
        let value = parse(text.as_bytes(), &Limits::default()).expect(text);
        let mut one_pass = std::vec::Vec::new();
        let mut sink = |b: &[u8]| one_pass.extend_from_slice(b);
        canonical_digest_small(value.raw(), excluded, &[], &mut sink)?.unwrap();
        Some((one_pass, rescanned(value, excluded).unwrap()))
    }

    #[test]
    fn one_pass_and_rescanning_agree() {
        let long = "\\u00e9x".repeat(30);
        let texts = [
            "null".into(),
            "-12.5e3".into(),
            r#""plain""#.into(),
            std::format!(r#""{long}""#),
            "[]".into(),
            "{}".into(),
            r#"{"b":[1,{"z":null,"y":[true,false]}],"a":{},"\u0061b":"x\ny","é":1.0}"#.into(),
            r#"{"requestState":"s","name":"x","_meta":{"k":1},"arguments":{"_meta":2}}"#.into(),
            std::format!(r#"{{"k":"{long}","j":["{long}",{{"{long}":1}}]}}"#),
            r#"[[[[[[[[1]]]]]]],{"x":{"y":{"z":[]}}}]"#.into(),
        ];
        for text in &texts {
            for excluded in [&[][..], &NON_SALIENT_PARAMS_KEYS[..]] {
                let (a, b) = both_ways(text, excluded).expect("fits the one pass");
                assert_eq!(a, b, "{text}");
            }
        }
        // Beyond the one pass's capacity the rescanning emitter takes over.
        let wide: std::string::String = (0..60)
            .map(|i| std::format!(r#""k{}":[{i}]"#, 59 - i))
            .collect::<std::vec::Vec<_>>()
            .join(",");
        let wide = std::format!("{{{wide}}}");
        let value = parse(wide.as_bytes(), &Limits::default()).unwrap();
        assert!(both_ways(&wide, &[]).is_none());
        let mut r = Recorder::new();
        canonical_digest(value, &mut r).unwrap();
        assert!(
            r.as_slice()
                .starts_with(b"{s\x02k0[i\x0259]s\x02k1[i\x0258]")
        );
    }

    // That the one pass and rescanning agree on any value, in any member order, is the
    // property test of `one_pass`.

    #[test]
    fn excluded_members_take_no_room_in_the_one_pass() {
        // Retry fields far larger than the one pass, around a few salient members.
        let answers: std::string::String = (0..40)
            .map(|i| std::format!(r#""q{i}":{{"action":"accept","content":{{"v":[{i}]}}}}"#))
            .collect::<std::vec::Vec<_>>()
            .join(",");
        let text = std::format!(
            r#"{{"_meta":{{"a":[1,2,3,4,5,6,7,8,9,10]}},"name":"t","arguments":{{"b":1,"a":[true]}},"inputResponses":{{{answers}}},"requestState":"s"}}"#
        );
        assert!(both_ways(&text, &[]).is_none());
        let (one_pass, rescanned) = both_ways(&text, &NON_SALIENT_PARAMS_KEYS).expect("fits");
        assert_eq!(one_pass, rescanned);
        assert_eq!(
            one_pass,
            params(Some(r#"{"arguments":{"a":[true],"b":1},"name":"t"}"#)).as_slice()
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
    fn objects_wider_than_one_pass_are_ordered_too() {
        // 26 members take several passes of the window; every order gives one encoding.
        let forward: std::string::String = (b'a'..=b'z')
            .map(|c| std::format!(r#""{}":{}"#, c as char, c))
            .collect::<std::vec::Vec<_>>()
            .join(",");
        let backward: std::string::String = (b'a'..=b'z')
            .rev()
            .map(|c| std::format!(r#""{}":{}"#, c as char, c))
            .collect::<std::vec::Vec<_>>()
            .join(",");
        let shuffled: std::string::String = [7u8, 3, 25, 0, 12, 8, 1, 19, 4, 22, 9, 15, 2]
            .iter()
            .chain(&[5u8, 11, 24, 6, 13, 20, 10, 14, 16, 17, 18, 21, 23])
            .map(|i| std::format!(r#""{}":{}"#, (b'a' + i) as char, b'a' + i))
            .collect::<std::vec::Vec<_>>()
            .join(",");
        let forward = encode(&std::format!("{{{forward}}}"));
        assert_eq!(
            forward.as_slice(),
            encode(&std::format!("{{{backward}}}")).as_slice()
        );
        assert_eq!(
            forward.as_slice(),
            encode(&std::format!("{{{shuffled}}}")).as_slice()
        );
        // Members come out in order, each once.
        let keys: std::vec::Vec<u8> = forward
            .as_slice()
            .windows(3)
            .filter(|w| w.starts_with(b"s\x01"))
            .map(|w| w[2])
            .collect();
        assert_eq!(keys, (b'a'..=b'z').collect::<std::vec::Vec<_>>());
    }

    #[test]
    fn exclusions_apply_in_every_pass() {
        let wide = r#"{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"requestState":"x","_meta":{},"inputResponses":{}}"#;
        let narrow = r#"{"k9":9,"k8":8,"k7":7,"k6":6,"k5":5,"k4":4,"k3":3,"k2":2,"k1":1}"#;
        assert_eq!(
            params(Some(wide)).as_slice(),
            params(Some(narrow)).as_slice()
        );
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
