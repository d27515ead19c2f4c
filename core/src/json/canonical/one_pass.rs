//! The canonical digest of a small value in one pass: the encoding is written in document
//! order into a bounded buffer, each object's members are put in key order inside that
//! buffer when the object closes (nothing to do when they came in order), and the sink gets
//! the whole encoding in one update. Values that do not fit the buffer are left to the
//! general emitters of [`canonical`](super), which produce the same bytes.

use super::encoding::{CANONICAL_MAX_DEPTH, DigestSink, TooDeep, compare_keys};
use crate::json::skip::{bytes_equal, next_hit, skip_value, skip_ws};
use crate::json::string::JsonStr;
use core::cmp::Ordering;

/// Bytes of encoding the pass can hold: request params of a few hundred bytes fit.
const ENCODED: usize = 512;

/// Members of the objects open at once (an object's members and those of the objects it is
/// inside of) the pass can keep track of.
const MEMBERS: usize = 32;

/// A member of an open object: where its key is in the text, and where its encoding (key
/// then value) starts and ends in the buffer.
#[derive(Clone, Copy, Default)]
struct Member {
    key: (u16, u16),
    start: u16,
    end: u16,
}

/// Why the pass stopped.
enum Stop {
    /// Deeper than [`CANONICAL_MAX_DEPTH`].
    TooDeep,
    /// Too large for the buffer or the member table, or text the pass does not expect.
    Unfit,
}

/// Feeds the canonical encoding of the value `text` (minus its top-level members named in
/// `excluded`) into `sink` if it fits the pass; `None` when it does not, and then the sink
/// has received nothing. An excluded member whose value is one of the `known` values (whole
/// values inside `text`, as a parse returned them) is stepped over by its length instead of
/// being walked.
#[inline(never)]
pub(super) fn canonical_digest_small<S: DigestSink + ?Sized>(
    text: &[u8],
    excluded: &[&str],
    known: &[&[u8]],
    sink: &mut S,
) -> Option<Result<(), TooDeep>> {
    if u16::try_from(text.len()).is_err() {
        return None;
    }
    let mut pass = Pass {
        text,
        out: [0; ENCODED],
        len: 0,
        members: [Member::default(); MEMBERS],
        open: 0,
        known,
        swapped: false,
    };
    match pass.value(0, 0, excluded) {
        Ok(end) if end == text.len() => {
            sink.update(pass.encoding());
            Some(Ok(()))
        }
        Err(Stop::TooDeep) => Some(Err(TooDeep)),
        Ok(_) | Err(Stop::Unfit) => None,
    }
}

struct Pass<'a, 'k> {
    text: &'a [u8],
    out: [u8; ENCODED],
    len: usize,
    members: [Member; MEMBERS],
    /// Members in use: those of the objects open now.
    open: usize,
    /// Values of excluded members already located in `text`.
    known: &'k [&'k [u8]],
    /// The root is an object of two members out of key order, left in text order: see
    /// [`Pass::encoding`].
    swapped: bool,
}

impl<'a> Pass<'a, '_> {
    /// Encodes the value at `i` (inside containers `depth` deep) and returns its end.
    fn value(&mut self, i: usize, depth: u16, excluded: &[&str]) -> Result<usize, Stop> {
        match self.text.get(i) {
            Some(b'{') => self.object(i, enter(depth)?, excluded),
            Some(b'[') => self.array(i, enter(depth)?),
            _ => self.scalar(i),
        }
    }

    /// [`value`](Self::value) for a member or an item: strings and literals, most of them,
    /// are encoded in the caller's frame rather than in a call of the recursion.
    #[inline(always)]
    fn inner_value(&mut self, i: usize, depth: u16) -> Result<usize, Stop> {
        match self.text.get(i) {
            Some(b'{' | b'[') => self.value(i, depth, &[]),
            _ => self.scalar(i),
        }
    }

    /// Encodes the string or literal at `i` and returns its end.
    #[inline(always)]
    fn scalar(&mut self, i: usize) -> Result<usize, Stop> {
        let text = self.text;
        match text.get(i) {
            Some(b'"') => {
                let (end, escaped) = string_end(text, i + 1).ok_or(Stop::Unfit)?;
                self.string(i + 1, end - 1, escaped)?;
                Ok(end)
            }
            Some(&first) => {
                // A literal or a number: up to the next delimiter, as the scanner left it.
                let mut end = i;
                let mut integer = true;
                while let Some(&c) = text.get(end) {
                    match c {
                        b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t' => break,
                        b'.' | b'e' | b'E' => integer = false,
                        _ => {}
                    }
                    end += 1;
                }
                match first {
                    b'n' | b't' | b'f' => self.byte(first)?,
                    _ => {
                        self.header(if integer { b'i' } else { b'd' }, end - i)?;
                        self.text_bytes(i, end)?;
                    }
                }
                Ok(end)
            }
            None => Err(Stop::Unfit),
        }
    }

    /// Encodes the object at `i` (itself at `depth`), its members in key order.
    fn object(&mut self, i: usize, depth: u16, excluded: &[&str]) -> Result<usize, Stop> {
        let text = self.text;
        self.byte(b'{')?;
        let first = self.open;
        let mut in_order = true;
        let mut j = ws(text, i + 1);
        if text.get(j) == Some(&b'}') {
            self.byte(b'}')?;
            return Ok(j + 1);
        }
        loop {
            if text.get(j) != Some(&b'"') {
                return Err(Stop::Unfit);
            }
            let (key_end, escaped) = string_end(text, j + 1).ok_or(Stop::Unfit)?;
            let span = (j + 1, key_end - 1);
            let raw = text.get(span.0..span.1).unwrap_or_default();
            let colon = ws(text, key_end);
            if text.get(colon) != Some(&b':') {
                return Err(Stop::Unfit);
            }
            let at = ws(text, colon + 1);
            let key = JsonStr::from_validated(raw);
            let end = if !excluded.is_empty() && is_excluded(raw, escaped, excluded) {
                match self.known_end(at) {
                    Some(end) => end,
                    None => skip_value(text, at).ok_or(Stop::Unfit)?,
                }
            } else {
                if in_order && self.open > first {
                    let previous = self.members.get(self.open - 1).map(|m| self.key(m.key));
                    in_order = previous.is_some_and(|p| compare_keys(p, key) == Ordering::Less);
                }
                let index = self.open;
                let member = Member {
                    key: (narrow(span.0)?, narrow(span.1)?),
                    start: narrow(self.len)?,
                    end: 0,
                };
                *self.members.get_mut(index).ok_or(Stop::Unfit)? = member;
                self.open += 1;
                self.string(span.0, span.1, escaped)?;
                let end = self.inner_value(at, depth)?;
                // Within the buffer: every write checked it.
                if let Some(member) = self.members.get_mut(index) {
                    member.end = self.len as u16;
                }
                end
            };
            j = ws(text, end);
            match text.get(j) {
                Some(b',') => j = ws(text, j + 1),
                Some(b'}') => {
                    let root_pair = first == 0
                        && self.open == 2
                        && self.members.first().is_some_and(|m| m.start == 1);
                    if root_pair && !in_order {
                        // A tool call's `name` and `arguments`, most often: see `encoding`.
                        self.swapped = true;
                    } else if !in_order {
                        self.order(first);
                    }
                    self.open = first;
                    self.byte(b'}')?;
                    return Ok(j + 1);
                }
                _ => return Err(Stop::Unfit),
            }
        }
    }

    /// The whole encoding, once the pass is done. A root object of two members out of key
    /// order (`{` A B `}`) was left so: rather than rotating the larger part of the buffer,
    /// A is copied past B over the closing brace, an opening brace is put just before B,
    /// and the encoding is `{` B A `}` from there. Without room for the copy, the members
    /// are rotated as any other object's.
    fn encoding(&mut self) -> &[u8] {
        if self.swapped {
            let b = self.members.get(1).map_or(0, |m| usize::from(m.start));
            let close = self.len.saturating_sub(1);
            // `{` B A `}` runs from just before B to one past A's copy.
            let end = close + b;
            if b >= 2 && b < close && end <= ENCODED {
                self.out.copy_within(1..b, close);
                if let Some(open) = self.out.get_mut(b - 1) {
                    *open = b'{';
                }
                if let Some(last) = self.out.get_mut(end - 1) {
                    *last = b'}';
                }
                return self.out.get(b - 1..end).unwrap_or_default();
            }
            // The two members' encodings end before the closing brace.
            self.len = close;
            self.open = 2;
            self.order(0);
            self.open = 0;
            self.len = close + 1;
        }
        self.out.get(..self.len).unwrap_or_default()
    }

    /// Puts the members from `first` on (the open object's, whose encodings run to the end
    /// of the buffer) in key order. The members are sorted in the table, their encodings
    /// copied in that order into the free part of the buffer and the whole moved back: each
    /// byte moves twice. Without that much room, [`rotate_in_order`](Self::rotate_in_order).
    fn order(&mut self, first: usize) {
        let Some(from) = self.members.get(first).map(|m| usize::from(m.start)) else {
            return;
        };
        let size = self.len.saturating_sub(from);
        if self.len + size > ENCODED {
            return self.rotate_in_order(first);
        }
        let text = self.text;
        let Some(members) = self.members.get_mut(first..self.open) else {
            return;
        };
        for i in 1..members.len() {
            let mut place = i;
            while place > 0 {
                let (Some(before), Some(moving)) = (members.get(place - 1), members.get(place))
                else {
                    break;
                };
                if compare_keys(key_in(text, before.key), key_in(text, moving.key))
                    != Ordering::Greater
                {
                    break;
                }
                members.swap(place - 1, place);
                place -= 1;
            }
        }
        let mut to = self.len;
        for member in members.iter() {
            let (start, end) = (usize::from(member.start), usize::from(member.end));
            if end > start && to + (end - start) <= ENCODED {
                copy_up(&mut self.out, start, end, to);
                to += end - start;
            }
        }
        if to - self.len == size {
            self.out.copy_within(self.len..to, from);
        }
    }

    /// [`order`](Self::order) in place: an insertion sort that rotates each member's
    /// encoding into its place.
    fn rotate_in_order(&mut self, first: usize) {
        for i in first + 1..self.open {
            let Some(&moving) = self.members.get(i) else {
                return;
            };
            let key = self.key(moving.key);
            let mut place = i;
            while place > first {
                let before = self.members.get(place - 1).map(|m| self.key(m.key));
                if before.is_some_and(|k| compare_keys(k, key) == Ordering::Greater) {
                    place -= 1;
                } else {
                    break;
                }
            }
            if place == i {
                continue;
            }
            let end = self
                .members
                .get(i + 1)
                .filter(|_| i + 1 < self.open)
                .map_or(self.len, |m| usize::from(m.start));
            let Some(target) = self.members.get(place).map(|m| m.start) else {
                return;
            };
            // Member i's encoding goes before member place's; those in between move up.
            let moved = end.saturating_sub(usize::from(moving.start));
            if let Some(bytes) = self.out.get_mut(usize::from(target)..end) {
                bytes.rotate_right(moved);
            }
            if let Some(members) = self.members.get_mut(place..=i) {
                for member in members.iter_mut() {
                    member.start = member.start.saturating_add(moved as u16);
                }
                members.rotate_right(1);
                if let Some(member) = members.first_mut() {
                    member.start = target;
                }
            }
        }
    }

    /// Encodes the array at `i` (itself at `depth`), its items in order.
    fn array(&mut self, i: usize, depth: u16) -> Result<usize, Stop> {
        let text = self.text;
        self.byte(b'[')?;
        let mut j = ws(text, i + 1);
        if text.get(j) == Some(&b']') {
            self.byte(b']')?;
            return Ok(j + 1);
        }
        loop {
            let end = self.inner_value(j, depth)?;
            j = ws(text, end);
            match text.get(j) {
                Some(b',') => j = ws(text, j + 1),
                Some(b']') => {
                    self.byte(b']')?;
                    return Ok(j + 1);
                }
                _ => return Err(Stop::Unfit),
            }
        }
    }

    /// The end of the value at `at` if it is one of the known values: the very bytes of the
    /// text there (the same address), so its length is its extent.
    fn known_end(&self, at: usize) -> Option<usize> {
        let here = self.text.get(at..)?;
        self.known
            .iter()
            .find(|value| value.as_ptr() == here.as_ptr() && value.len() <= here.len())
            .map(|value| at + value.len())
    }

    fn key(&self, span: (u16, u16)) -> JsonStr<'a> {
        key_in(self.text, span)
    }

    #[inline(always)]
    fn byte(&mut self, byte: u8) -> Result<(), Stop> {
        *self.out.get_mut(self.len).ok_or(Stop::Unfit)? = byte;
        self.len += 1;
        Ok(())
    }

    /// Copies `text[start..end]`. Short runs (most keys and numbers) are copied as a fixed
    /// 16 bytes when the text and the buffer both have them, the bytes past `end` being
    /// overwritten by what comes next: two moves instead of a call to copy.
    #[inline(always)]
    fn text_bytes(&mut self, start: usize, end: usize) -> Result<(), Stop> {
        let len = end.saturating_sub(start);
        let to = self.len + len;
        let short = (len <= 16).then(|| {
            let from = self.text.get(start..)?.first_chunk::<16>()?;
            let into = self.out.get_mut(self.len..)?.first_chunk_mut::<16>()?;
            *into = *from;
            Some(())
        });
        if short.flatten().is_none() {
            let from = self.text.get(start..end).ok_or(Stop::Unfit)?;
            self.out
                .get_mut(self.len..to)
                .ok_or(Stop::Unfit)?
                .copy_from_slice(from);
        }
        if to > ENCODED {
            return Err(Stop::Unfit);
        }
        self.len = to;
        Ok(())
    }

    /// A tag and a length (unsigned LEB128).
    #[inline(always)]
    fn header(&mut self, tag: u8, len: usize) -> Result<(), Stop> {
        // Most lengths take one byte: tag and length in one store.
        if let (Ok(short @ 0..0x80), Some(into)) =
            (u8::try_from(len), self.out.get_mut(self.len..self.len + 2))
        {
            into.copy_from_slice(&[tag, short]);
            self.len += 2;
            return Ok(());
        }
        self.byte(tag)?;
        let mut rest = len as u64;
        loop {
            let low = (rest & 0x7f) as u8;
            rest >>= 7;
            if rest == 0 {
                return self.byte(low);
            }
            self.byte(low | 0x80)?;
        }
    }

    /// A string as its decoded text, from its escaped text `text[start..end]` (which holds
    /// a backslash only if `escaped`).
    #[inline(always)]
    fn string(&mut self, start: usize, end: usize, escaped: bool) -> Result<(), Stop> {
        if !escaped {
            // Validated UTF-8 without escapes is its own decoded text.
            self.header(b's', end.saturating_sub(start))?;
            return self.text_bytes(start, end);
        }
        self.escaped_string(start, end)
    }

    /// [`string`](Self::string) for a string with escapes (out of line: rare).
    #[inline(never)]
    fn escaped_string(&mut self, start: usize, end: usize) -> Result<(), Stop> {
        let text = JsonStr::from_validated(self.text.get(start..end).unwrap_or_default());
        self.header(b's', text.decoded_len())?;
        let mut utf8 = [0u8; 4];
        for c in text.chars() {
            for &byte in c.encode_utf8(&mut utf8).as_bytes() {
                self.byte(byte)?;
            }
        }
        Ok(())
    }
}

/// Copies `out[start..end]` to `to`, at or past the end of the encoding. Most members'
/// encodings are short: copied as a fixed 16 bytes when the buffer has them, the bytes
/// past the copy being free, rather than by a call to copy.
#[inline(always)]
fn copy_up(out: &mut [u8; ENCODED], start: usize, end: usize, to: usize) {
    if end - start <= 16 {
        if let Some(&chunk) = out.get(start..).and_then(|s| s.first_chunk::<16>()) {
            if let Some(into) = out.get_mut(to..).and_then(|s| s.first_chunk_mut()) {
                *into = chunk;
                return;
            }
        }
    }
    out.copy_within(start..end, to);
}

/// Index of the first non-whitespace byte at or after `i`: one comparison in compact text,
/// where every byte looked at is above the space.
#[inline(always)]
fn ws(text: &[u8], i: usize) -> usize {
    match text.get(i) {
        Some(&byte) if byte > b' ' => i,
        _ => skip_ws(text, i),
    }
}

/// Whether the key `raw` (holding a backslash only if `escaped`) is one of `excluded`:
/// without escapes it is its own decoded text, compared as bytes.
#[inline(never)]
fn is_excluded(raw: &[u8], escaped: bool, excluded: &[&str]) -> bool {
    if escaped {
        let key = JsonStr::from_validated(raw);
        return excluded.iter().any(|name| key.eq_str(name));
    }
    excluded.iter().any(|name| raw == name.as_bytes())
}

/// The key of a member whose key spans `text[start..end]`.
fn key_in(text: &[u8], (start, end): (u16, u16)) -> JsonStr<'_> {
    JsonStr::from_validated(
        text.get(usize::from(start)..usize::from(end))
            .unwrap_or_default(),
    )
}

fn enter(depth: u16) -> Result<u16, Stop> {
    let depth = depth + 1;
    if depth > CANONICAL_MAX_DEPTH {
        Err(Stop::TooDeep)
    } else {
        Ok(depth)
    }
}

fn narrow(i: usize) -> Result<u16, Stop> {
    u16::try_from(i).map_err(|_| Stop::Unfit)
}

/// Index just past the closing quote of the string whose contents start at `j`, and whether
/// it holds an escape: one look at each byte for both.
#[inline(always)]
fn string_end(text: &[u8], mut j: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        j = next_hit(text, j, |word| {
            bytes_equal(word, b'"') | bytes_equal(word, b'\\')
        });
        match text.get(j)? {
            b'"' => return Some((j + 1, escaped)),
            b'\\' => {
                escaped = true;
                j += 2;
            }
            _ => j += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::{NON_SALIENT_PARAMS_KEYS, rescanned};
    use super::*;
    use crate::json::{Limits, parse};
    use std::string::String;
    use std::vec::Vec;

    /// The one pass's encoding of `text`, `None` when it does not fit.
    fn one_pass(text: &str, excluded: &[&str]) -> Option<Result<Vec<u8>, TooDeep>> {
        let value = parse(text.as_bytes(), &Limits::default()).expect(text);
        let mut bytes = Vec::new();
        let mut sink = |b: &[u8]| bytes.extend_from_slice(b);
        let done = canonical_digest_small(value.raw(), excluded, &[], &mut sink)?;
        Some(done.map(|()| bytes))
    }

    fn reference(text: &str, excluded: &[&str]) -> Vec<u8> {
        let value = parse(text.as_bytes(), &Limits::default()).expect(text);
        rescanned(value, excluded).expect("not too deep")
    }

    #[test]
    fn members_out_of_order_at_every_level_are_put_in_order() {
        let texts = [
            // As clients write tool calls: name before arguments, fields in form order.
            r#"{"name":"book_trip","arguments":{"destination":"Lisbon","dates":{"to":"2026-10-07","from":"2026-10-01"},"travellers":[{"name":"Ana","age":34},{"name":"Rui","age":36}],"budget":2500.0,"preferences":{"window":true,"meal":"vegetarian","notes":"a note longer than sixteen bytes"}}}"#,
            r#"{"requestState":"s1.x","name":"x","_meta":{"k":1},"arguments":{"_meta":2,"b":[],"a":{}}}"#,
            r#"{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"q":10}"#,
            r#"{"b":[1,{"z":null,"y":[true,false]}],"a":{},"\u0061b":"x\ny","é":1.0,"ab\u0000":-0}"#,
            r#"[{"b":1,"a":2},[{"d":{"f":1,"e":2},"c":3}],"\u00e9\ud83d\ude00"]"#,
            r#"  {  "b" : 1 ,  "a" : [ 1 , 2 ]  }  "#,
            // Excluded names written with escapes are excluded all the same.
            r#"{"b":1,"_m\u0065ta":{},"request\u0053tate":"s","a":2}"#,
            "1e5",
            r#""plain""#,
            "[]",
            "{}",
        ];
        for text in texts {
            for excluded in [&[][..], &NON_SALIENT_PARAMS_KEYS[..]] {
                let encoded = one_pass(text.trim(), excluded)
                    .expect("fits")
                    .expect("shallow");
                assert_eq!(encoded, reference(text.trim(), excluded), "{text}");
            }
        }
    }

    #[test]
    fn values_too_large_for_the_pass_are_left_whole_to_the_general_emitters() {
        let long = "x".repeat(ENCODED);
        let wide: Vec<String> = (0..MEMBERS + 1)
            .map(|i| std::format!(r#""k{i}":0"#))
            .collect();
        let wide = std::format!("{{{}}}", wide.join(","));
        let sorted = std::format!(r#"{{"a":"{long}"}}"#);
        let unsorted = std::format!(r#"{{"b":1,"a":"{long}"}}"#);
        for text in [&sorted, &unsorted, &wide] {
            let value = parse(text.as_bytes(), &Limits::default()).unwrap();
            let mut calls = 0;
            let mut sink = |_: &[u8]| calls += 1;
            assert!(canonical_digest_small(value.raw(), &[], &[], &mut sink).is_none());
            assert_eq!(calls, 0, "the sink saw nothing");
        }
        // Excluded members take no room: a long token next to small arguments fits.
        let retry = std::format!(r#"{{"name":"x","requestState":"{long}","arguments":{{}}}}"#);
        assert!(one_pass(&retry, &NON_SALIENT_PARAMS_KEYS).is_some());
        // Members of closed objects free their entries for the next ones.
        let many: Vec<String> = (0..MEMBERS + 8)
            .map(|i| std::format!(r#"{{"k{i}":0}}"#))
            .collect();
        let many = std::format!("[{}]", many.join(","));
        assert_eq!(
            one_pass(&many, &[]).expect("fits").unwrap(),
            reference(&many, &[])
        );
    }

    #[test]
    fn a_root_pair_out_of_order_is_encoded_swapped_with_or_without_room_to_copy() {
        let big = "y".repeat(280);
        for text in [
            std::format!(r#"{{"name":"x","arguments":{{"b":"{big}","a":1}}}}"#),
            // The first member is too long to copy past the second: rotated instead.
            std::format!(r#"{{"b":"{big}","a":1}}"#),
            std::format!(r#"{{"b":1,"a":"{big}"}}"#),
            r#"{"b":1,"a":2}"#.into(),
            r#"{"a":1,"b":2}"#.into(),
            r#"{"_meta":{},"b":1,"a":2,"requestState":"s"}"#.into(),
        ] {
            for excluded in [&[][..], &NON_SALIENT_PARAMS_KEYS[..]] {
                let encoded = one_pass(&text, excluded).expect("fits").unwrap();
                assert_eq!(encoded, reference(&text, excluded), "{text}");
            }
        }
    }

    #[test]
    fn known_values_of_excluded_members_are_stepped_over_with_the_same_result() {
        let text = r#"{"_meta":{"a":[1,{"b":"}"}]},"name":"x","requestState":"s2.t\"ok","inputResponses":{"k":{"action":"accept"}},"arguments":{"requestState":1}}"#;
        let value = parse(text.as_bytes(), &Limits::default()).unwrap();
        let object = value.as_object().unwrap();
        let field = |name| object.get(name).unwrap().raw();
        let copy = std::vec::Vec::from(field("_meta"));
        let encode = |known: &[&[u8]]| {
            let mut bytes = Vec::new();
            let mut sink = |b: &[u8]| bytes.extend_from_slice(b);
            let done =
                canonical_digest_small(value.raw(), &NON_SALIENT_PARAMS_KEYS, known, &mut sink);
            assert_eq!(done, Some(Ok(())));
            bytes
        };
        let reference = reference(text, &NON_SALIENT_PARAMS_KEYS);
        // The located values, some of them, and slices that are no excluded member's value
        // (equal bytes elsewhere, a kept member's value, a piece of it) give the same bytes.
        let name = field("name");
        for known in [
            &[
                field("_meta"),
                field("requestState"),
                field("inputResponses"),
            ][..],
            &[field("requestState")],
            &[&copy[..], name, &name[..1]],
            &[],
        ] {
            assert_eq!(encode(known), reference);
        }
    }

    #[test]
    fn refuses_values_deeper_than_the_bound() {
        let depth = usize::from(CANONICAL_MAX_DEPTH);
        let deep = std::format!("{}{}", "[".repeat(depth + 1), "]".repeat(depth + 1));
        let limits = Limits {
            max_depth: 200,
            ..Limits::default()
        };
        let value = parse(deep.as_bytes(), &limits).expect("within the parse bound");
        let mut sink = |_: &[u8]| {};
        assert_eq!(
            canonical_digest_small(value.raw(), &[], &[], &mut sink),
            Some(Err(TooDeep))
        );
        let fine = std::format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let value = parse(fine.as_bytes(), &limits).unwrap();
        assert_eq!(
            canonical_digest_small(value.raw(), &[], &[], &mut sink),
            Some(Ok(()))
        );
    }

    #[test]
    fn total_on_any_bytes() {
        for junk in [
            &b""[..],
            b"{",
            b"{\"a\"",
            b"{\"a\":",
            b"{\"b\":1,\"a\":",
            b"[1,",
            b"\"",
            b"\"\\",
            b"}",
            b"{\"b\":1,\"a\":2,}",
            b"nul",
        ] {
            let mut sink = |_: &[u8]| {};
            let _ = canonical_digest_small(junk, &NON_SALIENT_PARAMS_KEYS, &[], &mut sink);
        }
    }

    /// Writes `value` as JSON text with each object's members in an order drawn from `seed`.
    fn write_shuffled(value: &serde_json::Value, seed: u64, out: &mut String) {
        use serde_json::Value as J;
        match value {
            J::Object(map) => {
                let mut members: Vec<_> = map.iter().collect();
                members.sort_by_key(|(k, _)| {
                    k.bytes().fold(seed, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
                    })
                });
                out.push('{');
                for (n, (k, v)) in members.into_iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(k).unwrap());
                    out.push(':');
                    write_shuffled(v, seed, out);
                }
                out.push('}');
            }
            J::Array(items) => {
                out.push('[');
                for (n, v) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    write_shuffled(v, seed, out);
                }
                out.push(']');
            }
            other => out.push_str(&serde_json::to_string(other).unwrap()),
        }
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value as J;
        let key = prop_oneof![
            "[a-d]{1,2}",
            Just("_meta".into()),
            Just("requestState".into()),
            Just("inputResponses".into()),
            "\\PC{0,3}",
        ];
        let leaf = prop_oneof![
            Just(J::Null),
            any::<bool>().prop_map(J::Bool),
            any::<i64>().prop_map(J::from),
            (-1e6f64..1e6).prop_map(J::from),
            "\\PC{0,24}".prop_map(J::String),
        ];
        leaf.prop_recursive(4, 48, 8, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..8).prop_map(J::Array),
                proptest::collection::btree_map(key.clone(), inner, 0..8)
                    .prop_map(|m| J::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

        /// Whatever order the members come in, the one pass gives the reference encoding
        /// whenever the value fits it.
        #[test]
        fn agrees_with_the_rescanning_emitter_in_any_member_order(
            value in any_json(),
            seed in proptest::prelude::any::<u64>(),
        ) {
            let mut text = String::new();
            write_shuffled(&value, seed, &mut text);
            for excluded in [&[][..], &NON_SALIENT_PARAMS_KEYS[..]] {
                if let Some(encoded) = one_pass(&text, excluded) {
                    proptest::prop_assert_eq!(encoded.unwrap(), reference(&text, excluded), "{}", text);
                }
            }
        }
    }
}
