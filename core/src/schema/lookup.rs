//! Finding things inside a value while knowing how many bytes that took, so that the
//! validator's budget reflects the real work of rescanning lazily viewed JSON.

use crate::json::{JsonStr, Members, Object, Value, range_in, same_bytes, skip_value};

/// Byte range of `inner` within `outer`, when `inner` is a slice of it.
pub(crate) fn span(outer: Value<'_>, inner: Value<'_>) -> Option<(usize, usize)> {
    let range = range_in(outer.raw(), inner.raw())?;
    Some((range.start, range.end))
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

/// [`find_member`] over the members of `object` noted while it was scanned: the same member
/// and the same bytes reported, with nothing scanned.
pub(crate) fn find_noted<'a>(
    object: Value<'a>,
    noted: &[(JsonStr<'a>, Value<'a>)],
    key: JsonStr<'_>,
) -> (Option<Value<'a>>, usize) {
    for &(name, value) in noted {
        if same_name(name.raw(), key) {
            let scanned = span(object, value).map_or(object.raw().len(), |(_, end)| end);
            return (Some(value), scanned);
        }
    }
    (None, object.raw().len())
}

/// The members of an object in document order: those noted while it was scanned when there
/// are (see [`NotedMembers`](super::noted::NotedMembers)), else found by walking its text.
pub(crate) enum MemberWalk<'a, 'n> {
    Noted(core::slice::Iter<'n, (JsonStr<'a>, Value<'a>)>),
    Walked(Members<'a>),
}

impl<'a, 'n> MemberWalk<'a, 'n> {
    pub(crate) fn new(object: Object<'a>, noted: Option<&'n [(JsonStr<'a>, Value<'a>)]>) -> Self {
        match noted {
            Some(noted) => MemberWalk::Noted(noted.iter()),
            None => MemberWalk::Walked(object.iter()),
        }
    }
}

impl<'a> Iterator for MemberWalk<'a, '_> {
    type Item = (JsonStr<'a>, Value<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            MemberWalk::Noted(noted) => noted.next().copied(),
            MemberWalk::Walked(members) => members.next(),
        }
    }
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

/// Most members a [`PropertyTable`] holds.
const TABLE_CAPACITY: usize = 10;

/// Words of a [`PropertyTable`] in a plan: two per entry, one for the length, two for the
/// first bytes.
pub(crate) const TABLE_WORDS: usize = 2 * TABLE_CAPACITY + 3;

/// Where the length is in a table's words; the first bytes follow it.
const LEN_WORD: usize = 2 * TABLE_CAPACITY;

/// Where the members of a small `properties` object are, found once when the keywords of
/// its schema are read, so that looking a property up scans nothing (an object's members
/// each validate against a lookup, and the items of an array share one table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PropertyTable {
    /// Key start and end, value start and end, in bytes from the object's opening brace.
    entries: [[u16; 4]; TABLE_CAPACITY],
    len: u8,
    /// Bit `b % 64` for the first byte `b` of every key, or every bit when a key is empty
    /// or starts with an escape: a name starting with a byte none has (an argument the
    /// schema does not declare, say) is known absent without comparing it to each.
    firsts: u64,
}

impl PropertyTable {
    /// Walks the value that starts at `text[start]` and returns the index just past it, and,
    /// when it is an object of at most [`TABLE_CAPACITY`] members short enough for 16-bit
    /// offsets, its table (a walk member by member costs about what skipping it does).
    pub(crate) fn walk(text: &[u8], start: usize) -> Option<(Option<Self>, usize)> {
        let rest = text.get(start..)?;
        let Some(object) = Value::from_validated(rest).as_object() else {
            return Some((None, start + skip_value(rest, 0)?));
        };
        let offset = |part: &[u8]| {
            let at = range_in(rest, part)?;
            Some([u16::try_from(at.start).ok()?, u16::try_from(at.end).ok()?])
        };
        let mut table = Some(PropertyTable {
            entries: [[0; 4]; TABLE_CAPACITY],
            len: 0,
            firsts: 0,
        });
        let mut members = object.iter();
        let mut walked = false;
        for (key, value) in members.by_ref() {
            walked = true;
            if let Some(t) = table.as_mut() {
                let entry = match (offset(key.raw()), offset(value.raw())) {
                    (Some([ks, ke]), Some([vs, ve])) => Some([ks, ke, vs, ve]),
                    _ => None,
                };
                match (entry, t.entries.get_mut(usize::from(t.len))) {
                    (Some(entry), Some(slot)) => {
                        *slot = entry;
                        t.len += 1;
                        t.firsts |= first_byte_bit(key.raw().first().copied());
                    }
                    _ => table = None,
                }
            }
        }
        // After the last member, the walk stands just past the closing brace.
        let end = if walked {
            members.position()
        } else {
            skip_value(rest, 0)?
        };
        Some((table, start.checked_add(end)?))
    }

    /// The table as words for a [`Plan`](super::plan::Plan): each entry's four offsets
    /// packed in two words, then the length.
    pub(crate) fn to_words(self) -> [u32; TABLE_WORDS] {
        let mut words = [0u32; TABLE_WORDS];
        for (pair, entry) in words.chunks_exact_mut(2).zip(&self.entries) {
            let [ks, ke, vs, ve] = entry.map(u32::from);
            pair.copy_from_slice(&[ks | ke << 16, vs | ve << 16]);
        }
        if let Some([len, low, high]) = words.get_mut(LEN_WORD..).and_then(|w| w.first_chunk_mut())
        {
            *len = u32::from(self.len);
            [*low, *high] = [self.firsts as u32, (self.firsts >> 32) as u32];
        }
        words
    }

    /// The table [`PropertyTable::to_words`] wrote (`None` for words it cannot have written).
    pub(crate) fn from_words(words: &[u32; TABLE_WORDS]) -> Option<Self> {
        let [len, low, high] = *words.get(LEN_WORD..)?.first_chunk()?;
        let len = u8::try_from(len).ok()?;
        if usize::from(len) > TABLE_CAPACITY {
            return None;
        }
        let mut entries = [[0u16; 4]; TABLE_CAPACITY];
        let held = entries.iter_mut().take(usize::from(len));
        for (entry, pair) in held.zip(words.chunks_exact(2)) {
            let half = |word: u32, high: bool| (if high { word >> 16 } else { word }) as u16;
            let (key, value) = (pair.first()?, pair.get(1)?);
            *entry = [
                half(*key, false),
                half(*key, true),
                half(*value, false),
                half(*value, true),
            ];
        }
        Some(PropertyTable {
            entries,
            len,
            firsts: u64::from(low) | u64::from(high) << 32,
        })
    }

    /// The member of `object` (the object this table was made from) named `key`, and the
    /// bytes [`find_member`] would have scanned for it.
    pub(crate) fn find<'a>(
        &self,
        object: Object<'a>,
        key: JsonStr<'_>,
    ) -> (Option<Value<'a>>, usize) {
        let raw = object.as_value().raw();
        if self.firsts & first_byte_bit(key.raw().first().copied()) == 0 {
            return (None, raw.len());
        }
        for &[key_start, key_end, value_start, value_end] in self
            .entries
            .get(..usize::from(self.len))
            .unwrap_or_default()
        {
            let name = raw.get(usize::from(key_start)..usize::from(key_end));
            if name.is_some_and(|name| same_name(name, key)) {
                let value = raw.get(usize::from(value_start)..usize::from(value_end));
                return match value {
                    Some(value) => (Some(Value::from_validated(value)), usize::from(value_end)),
                    None => (None, raw.len()),
                };
            }
        }
        (None, raw.len())
    }
}

/// The bit of [`PropertyTable::firsts`] for a key starting with `first`.
fn first_byte_bit(first: Option<u8>) -> u64 {
    match first {
        Some(byte) if byte != b'\\' => 1 << (byte % 64),
        _ => u64::MAX,
    }
}

/// Whether the escaped name `a` decodes as `b` does: equal bytes do, names that start with
/// different bytes (neither an escape) do not, and only what is left is decoded. Inline,
/// because the first two decide nearly every lookup for less than a call costs.
#[inline(always)]
fn same_name(a: &[u8], b: JsonStr<'_>) -> bool {
    same_bytes(a, b.raw()) || (!first_bytes_differ(a, b.raw()) && JsonStr::from_validated(a) == b)
}

/// Whether two escaped names certainly decode differently because they start with different
/// bytes, neither an escape: most names in a lookup differ there, and a call to compare them
/// costs more than looking.
#[inline]
fn first_bytes_differ(a: &[u8], b: &[u8]) -> bool {
    matches!((a.first(), b.first()), (Some(&x), Some(&y)) if x != y && x != b'\\' && y != b'\\')
}

/// Looks properties up in a `properties` object: through its table when it has one, else
/// with a [`MemberCursor`].
pub(crate) enum Declarations<'a> {
    Table(Object<'a>, PropertyTable),
    Cursor(MemberCursor<'a>),
}

impl<'a> Declarations<'a> {
    pub(crate) fn new(properties: Object<'a>, table: Option<PropertyTable>) -> Self {
        match table {
            Some(table) => Declarations::Table(properties, table),
            None => Declarations::Cursor(MemberCursor::new(properties)),
        }
    }

    /// The schema declared for `key`, and the bytes [`find_member`] would have scanned.
    pub(crate) fn find(&mut self, key: JsonStr<'_>) -> (Option<Value<'a>>, usize) {
        match self {
            Declarations::Table(object, table) => table.find(*object, key),
            Declarations::Cursor(cursor) => cursor.find(key),
        }
    }
}
