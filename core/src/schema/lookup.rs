//! Finding things inside a value while knowing how many bytes that took, so that the
//! validator's budget reflects the real work of rescanning lazily viewed JSON.

use crate::json::{JsonStr, Object, Value};

/// Byte range of `inner` within `outer`, when `inner` is a slice of it.
pub(crate) fn span(outer: Value<'_>, inner: Value<'_>) -> Option<(usize, usize)> {
    let (outer, inner) = (outer.raw(), inner.raw());
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    let end = start.checked_add(inner.len())?;
    (end <= outer.len()).then_some((start, end))
}

/// The first member of `object` whose key satisfies `wanted`, and how many bytes of the
/// object were scanned to find it (all of them when it is absent).
pub(crate) fn find_member<'a>(
    object: Object<'a>,
    mut wanted: impl FnMut(JsonStr<'a>) -> bool,
) -> (Option<Value<'a>>, usize) {
    let whole = object.as_value();
    for (key, value) in object {
        if wanted(key) {
            let scanned = span(whole, value).map_or(whole.raw().len(), |(_, end)| end);
            return (Some(value), scanned);
        }
    }
    (None, whole.raw().len())
}
