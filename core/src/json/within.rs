//! Where a slice of a text lies in it: how parts found by a scan are kept as offsets (small,
//! `Copy`, free of the text's lifetime) and viewed again later without another scan.

use core::ops::Range;

/// The range of `whole` that `part` is, when `part` is a slice of `whole` (the same
/// memory, so the same bytes); `None` for a slice of anything else.
#[inline]
pub(crate) fn range_in(whole: &[u8], part: &[u8]) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len()).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_slice_of_the_text_has_a_range_in_it() {
        let text = b"{\"a\":[1,2]}";
        assert_eq!(range_in(text, &text[5..10]), Some(5..10));
        assert_eq!(range_in(text, &text[..0]), Some(0..0));
        assert_eq!(range_in(&text[..5], &text[4..7]), None);
        assert_eq!(range_in(&text[5..], &text[..6]), None);
        let copy = *text;
        assert_eq!(range_in(text, &copy[5..10]), None);
    }
}
