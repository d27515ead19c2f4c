//! Moving over JSON text quickly: whitespace, strings and whole values, eight bytes at a time
//! where that pays.
//!
//! The skippers assume text the scanner has validated, but stay total on any bytes: on
//! something unexpected they stop (`None`), they never panic. The word helpers are shared
//! with the scanner, which uses them on untrusted bytes to find the next byte of interest.

pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` below `n` (`n` at most `0x80`). Bits above the
/// lowest one may be false positives (a borrow runs upwards); the lowest one is always exact,
/// which is all the callers use.
#[inline(always)]
pub(crate) const fn bytes_below(word: u64, n: u8) -> u64 {
    word.wrapping_sub(ONES * n as u64) & !word & HIGHS
}

/// The high bit of each byte of `word` equal to `byte` (the lowest one exact, as above).
#[inline(always)]
pub(crate) const fn bytes_equal(word: u64, byte: u8) -> u64 {
    bytes_below(word ^ (ONES * byte as u64), 1)
}

/// The high bit of each byte of `word` that a string body cannot hold as it is: a quote, a
/// backslash, a control character or a non-ASCII byte (the lowest one exact, as above).
///
/// One subtraction per kind of byte and the word itself, masked once: below the first such
/// byte no subtraction borrows, so that byte is flagged exactly.
#[inline(always)]
pub(crate) const fn string_stops(word: u64) -> u64 {
    let quote = (word ^ (ONES * b'"' as u64)).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * b'\\' as u64)).wrapping_sub(ONES);
    let control = word.wrapping_sub(ONES * 0x20);
    (quote | backslash | control | word) & HIGHS
}

/// The eight bytes at `b[j..]`, little-endian, when that many remain.
#[inline(always)]
pub(crate) fn word_at(b: &[u8], j: usize) -> Option<u64> {
    let chunk = b.get(j..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*chunk))
}

/// Index of the first byte at or after `j` that `hits` flags in its word, or of the first of
/// the last fewer-than-eight bytes (which the caller then looks at one by one).
#[inline(always)]
pub(crate) fn next_hit(b: &[u8], mut j: usize, hits: impl Fn(u64) -> u64) -> usize {
    while let Some(word) = word_at(b, j) {
        let found = hits(word);
        if found != 0 {
            return j + (found.trailing_zeros() / 8) as usize;
        }
        j += 8;
    }
    j
}

/// Whether `b` holds a backslash (eight bytes at a time; keys and names are short, and a
/// call to `memchr` costs more than they do).
#[inline]
pub(crate) fn has_backslash(b: &[u8]) -> bool {
    let Some(last) = b.len().checked_sub(8) else {
        // Fewer than eight: looked at in place (`contains` would call `memchr`).
        for &c in b {
            if c == b'\\' {
                return true;
            }
        }
        return false;
    };
    let mut j = 0;
    while j < last {
        if word_at(b, j).is_some_and(|word| bytes_equal(word, b'\\') != 0) {
            return true;
        }
        j += 8;
    }
    // The last eight bytes, overlapping words already looked at.
    word_at(b, last).is_some_and(|word| bytes_equal(word, b'\\') != 0)
}

/// Whether `a` and `b` hold the same bytes, compared eight at a time in place: keys and
/// names are short, and a call to `memcmp` costs more than they do.
#[inline]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let Some(last) = a.len().checked_sub(8) else {
        return same_short_bytes(a, b);
    };
    let mut j = 0;
    while j < last {
        if word_at(a, j) != word_at(b, j) {
            return false;
        }
        j += 8;
    }
    // The last eight bytes, overlapping words already compared.
    word_at(a, last) == word_at(b, last)
}

/// [`same_bytes`] for fewer than eight bytes of equal length: two overlapping four-byte
/// words from four bytes up, else the first, middle and last bytes (which cover all of
/// them), without a loop.
#[inline(always)]
fn same_short_bytes(a: &[u8], b: &[u8]) -> bool {
    let quad = |s: &[u8], j: usize| s.get(j..).and_then(|s| s.first_chunk::<4>()).copied();
    match a.len().checked_sub(4) {
        Some(last) => quad(a, 0) == quad(b, 0) && quad(a, last) == quad(b, last),
        None => {
            let mid = a.len() / 2;
            a.first() == b.first() && a.get(mid) == b.get(mid) && a.last() == b.last()
        }
    }
}

/// Index of the first backslash at or after `from`, eight bytes at a time.
#[inline]
pub(crate) fn find_backslash(b: &[u8], from: usize) -> Option<usize> {
    let mut j = next_hit(b, from, |word| bytes_equal(word, b'\\'));
    while let Some(&c) = b.get(j) {
        if c == b'\\' {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// Whether `byte` is JSON whitespace.
#[inline(always)]
pub(crate) const fn is_ws(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\r' | b'\t')
}

/// Index of the first non-whitespace byte at or after `i`.
#[inline]
pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&byte) = b.get(i) {
        if !is_ws(byte) {
            break;
        }
        i += 1;
    }
    i
}

/// A quote or a backslash.
#[inline(always)]
fn string_special(word: u64) -> u64 {
    bytes_equal(word, b'"') | bytes_equal(word, b'\\')
}

/// Index just past the string whose opening quote is at `i`, eight bytes at a time to the
/// next quote or backslash.
pub(crate) fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    skip_string_body(b, i + 1)
}

/// Index just past the validated value starting at `i` (iterative: no recursion).
pub(crate) fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => skip_container(b, i),
        _ => {
            let mut j = i;
            while let Some(&c) = b.get(j) {
                if matches!(c, b',' | b'}' | b']') || is_ws(c) {
                    break;
                }
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// What a byte means to [`skip_container`]: 0 nothing, 1 a quote, 2 an opening bracket,
/// 3 a closing one.
static STRUCTURE: [u8; 256] = {
    let mut classes = [0u8; 256];
    classes[b'"' as usize] = 1;
    classes[b'{' as usize] = 2;
    classes[b'[' as usize] = 2;
    classes[b'}' as usize] = 3;
    classes[b']' as usize] = 3;
    classes
};

/// Index just past the validated array or object whose opening bracket is at `i`.
///
/// Byte by byte between strings (where JSON text is dense, a table lookup a byte beats
/// looking for the next bracket a word at a time), strings eight bytes at a time.
fn skip_container(b: &[u8], i: usize) -> Option<usize> {
    let mut depth: usize = 0;
    let mut j = i;
    while let Some(&byte) = b.get(j) {
        j += 1;
        match STRUCTURE.get(usize::from(byte)).copied().unwrap_or(0) {
            0 => {}
            1 => j = skip_string_body(b, j)?,
            2 => depth += 1,
            _ => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j);
                }
            }
        }
    }
    None
}

/// Index just past the closing quote of a string whose contents start at `j`.
fn skip_string_body(b: &[u8], mut j: usize) -> Option<usize> {
    loop {
        j = next_hit(b, j, string_special);
        match b.get(j)? {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_masks_find_the_first_byte_exactly() {
        // Every position, with bytes that make the subtraction borrow before and after it.
        for at in 0..8 {
            for byte in [0u8, 0x1f, b'"', b'\\', 0x80, 0xff] {
                let mut chunk = [b'a'; 8];
                chunk[at] = byte;
                for later in at + 1..8 {
                    chunk[later] = [0u8, 0x01, 0xff, b'"'][later % 4];
                }
                let word = u64::from_le_bytes(chunk);
                let mask = bytes_below(word, 0x20)
                    | (word & HIGHS)
                    | bytes_equal(word, b'"')
                    | bytes_equal(word, b'\\');
                assert_eq!((mask.trailing_zeros() / 8) as usize, at, "{chunk:?}");
                let stops = string_stops(word);
                assert_eq!((stops.trailing_zeros() / 8) as usize, at, "{chunk:?}");
            }
        }
        for byte in 0..=255u8 {
            let word = u64::from_le_bytes([byte; 8]);
            let stops = !(0x20..0x80).contains(&byte) || byte == b'"' || byte == b'\\';
            assert_eq!(string_stops(word) != 0, stops, "{byte}");
            // Alone after plain bytes, at every position.
            for at in 0..8 {
                let mut chunk = [b'a'; 8];
                chunk[at] = byte;
                let found = string_stops(u64::from_le_bytes(chunk));
                let first = (found.trailing_zeros() / 8) as usize;
                assert_eq!(first, if stops { at } else { 8 }, "{byte} at {at}");
            }
            assert_eq!(bytes_below(word, 0x20) != 0, byte < 0x20, "{byte}");
            assert_eq!(bytes_equal(word, b'"') != 0, byte == b'"', "{byte}");
        }
    }

    #[test]
    fn has_backslash_looks_at_every_byte() {
        for len in 0..40 {
            let plain = [b'a'; 40];
            assert!(!has_backslash(&plain[..len]));
            for at in 0..len {
                let mut b = plain;
                b[at] = b'\\';
                assert!(has_backslash(&b[..len]), "{len} {at}");
            }
        }
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let text = b"io.modelcontextprotocol/protocolVersion";
        for len in 0..=text.len() {
            let a = &text[..len];
            assert!(same_bytes(a, a));
            for at in 0..len {
                let mut b = [0u8; 64];
                b[..len].copy_from_slice(a);
                b[at] ^= 0x20;
                assert!(!same_bytes(a, &b[..len]), "{len} {at}");
            }
            if len > 0 {
                assert!(!same_bytes(a, &text[..len - 1]));
            }
        }
    }

    #[test]
    fn skippers_are_total() {
        for junk in [
            &b""[..],
            b"\"",
            b"\"\\",
            b"[",
            b"{\"a\"",
            b"]",
            b"}}}}}}}}}}",
            b"[\"]]]]]]]]]]]]]]",
        ] {
            for i in 0..=junk.len() + 1 {
                let _ = skip_value(junk, i);
                let _ = skip_string(junk, i);
                let _ = skip_ws(junk, i);
            }
        }
        assert_eq!(skip_value(b"[\"]\"]", 0), Some(5));
        assert_eq!(skip_value(b"{\"a\\\"]\":[1,{}]}  ", 0), Some(15));
        assert_eq!(skip_value(b"12345678901234567890,", 0), Some(20));
    }
}
