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

/// The high bit of each byte of `word` equal to `byte`, every one exact (no borrow or carry
/// crosses a byte).
#[inline(always)]
pub(crate) const fn bytes_equal_exact(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * byte as u64);
    let low7 = ONES * 0x7f;
    !(((x & low7) + low7) | x) & HIGHS
}

/// For a mask with (only) the high bit of some bytes set: the high bit of each byte set when
/// an odd number of bytes up to and including it were set.
#[inline(always)]
const fn prefix_parity(mask: u64) -> u64 {
    let mut p = mask;
    p ^= p << 8;
    p ^= p << 16;
    p ^= p << 32;
    p
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

/// Index just past the validated array or object whose opening bracket is at `i`.
///
/// Eight bytes at a time: the quotes of a word say which of its bytes are inside strings
/// (by the parity of the quotes up to each byte, carried from word to word), and only the
/// brackets outside strings count. A word with a backslash is read byte by byte.
fn skip_container(b: &[u8], i: usize) -> Option<usize> {
    let mut depth: usize = 0;
    // HIGHS while the previous word ended inside a string, else 0.
    let mut inside: u64 = 0;
    let mut j = i;
    loop {
        let Some(word) = word_at(b, j) else {
            return skip_container_bytes(b, j, depth, inside != 0);
        };
        if bytes_equal_exact(word, b'\\') != 0 {
            // Escapes: this word byte by byte, then on with words where that left off.
            let (next, in_string) = escaped_word(b, j, &mut depth, inside != 0)?;
            if depth == 0 {
                return Some(next);
            }
            j = next;
            inside = if in_string { HIGHS } else { 0 };
            continue;
        }
        let in_string = prefix_parity(bytes_equal_exact(word, b'"')) ^ inside;
        let folded = word | (ONES * 0x20);
        let open = bytes_equal_exact(folded, b'{') & !in_string;
        let close = bytes_equal_exact(folded, b'}') & !in_string;
        let mut brackets = open | close;
        while brackets != 0 {
            let bit = brackets & brackets.wrapping_neg();
            if open & bit != 0 {
                depth += 1;
            } else {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + (bit.trailing_zeros() / 8) as usize + 1);
                }
            }
            brackets ^= bit;
        }
        // The last byte's parity says whether the next word starts inside a string.
        inside = ((in_string as i64 >> 63) as u64) & HIGHS;
        j += 8;
    }
}

/// Reads the eight bytes at `j` one by one (inside a container, `depth` open); returns
/// where words may resume and whether that is inside a string, or the index just past the
/// container (with `depth` at zero) when it ends here.
fn escaped_word(
    b: &[u8],
    j: usize,
    depth: &mut usize,
    mut in_string: bool,
) -> Option<(usize, bool)> {
    let mut k = j;
    while k < j + 8 {
        let byte = *b.get(k)?;
        k += 1;
        if in_string {
            match byte {
                b'"' => in_string = false,
                // The escaped byte may be the first of the next word.
                b'\\' => k += 1,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => *depth += 1,
            b'}' | b']' => {
                *depth = depth.checked_sub(1)?;
                if *depth == 0 {
                    return Some((k, false));
                }
            }
            _ => {}
        }
    }
    Some((k, in_string))
}

/// [`skip_container`] for the last few bytes, one by one.
fn skip_container_bytes(
    b: &[u8],
    mut j: usize,
    mut depth: usize,
    in_string: bool,
) -> Option<usize> {
    if in_string {
        j = skip_string_body(b, j)?;
    }
    loop {
        match b.get(j)? {
            b'"' => {
                j = skip_string_body(b, j + 1)?;
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
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
            }
        }
        for byte in 0..=255u8 {
            let word = u64::from_le_bytes([byte; 8]);
            assert_eq!(bytes_below(word, 0x20) != 0, byte < 0x20, "{byte}");
            assert_eq!(bytes_equal(word, b'"') != 0, byte == b'"', "{byte}");
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
