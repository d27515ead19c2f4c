//! Finding things inside a value while knowing how many bytes that took, so that the
//! validator's budget reflects the real work of rescanning lazily viewed JSON.

use crate::json::{JsonStr, Members, Object, Value};

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

/// Finds members of one object by key, each search starting where the previous one stopped
/// and wrapping around, so that keys asked for in the object's own order (arguments written
/// in the order of their schema's `properties`, say) cost a single pass in all.
///
/// Keys are unique in validated objects, so the member found is the one [`find_member`]
/// finds, and the bytes reported as scanned are those [`find_member`] reports: the budget
/// does not depend on the order of the searches.
pub(crate) struct MemberCursor<'a> {
    object: Object<'a>,
    next: Members<'a>,
}

impl<'a> MemberCursor<'a> {
    pub(crate) fn new(object: Object<'a>) -> Self {
        MemberCursor {
            object,
            next: object.iter(),
        }
    }

    /// The member named `key`, and the bytes [`find_member`] would have scanned for it.
    pub(crate) fn find(&mut self, key: JsonStr<'_>) -> (Option<Value<'a>>, usize) {
        let whole = self.object.as_value();
        let found = |value: Value<'a>| {
            let scanned = span(whole, value).map_or(whole.raw().len(), |(_, end)| end);
            (Some(value), scanned)
        };
        let resume = self.next.offset();
        let mut members = self.next.clone();
        for (k, value) in members.by_ref() {
            if k == key {
                self.next = members;
                return found(value);
            }
        }
        let mut members = self.object.iter();
        while members.offset() < resume {
            let Some((k, value)) = members.next() else {
                break;
            };
            if k == key {
                self.next = members;
                return found(value);
            }
        }
        (None, whole.raw().len())
    }
}
