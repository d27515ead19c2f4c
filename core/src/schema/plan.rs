//! A schema read once: where the recognised keywords of its root object and of the root's
//! property schemas are, so that validating a value against the same schema text again
//! skips reading them (most of a small tool call's validation is that reading: the root's
//! `properties` object is passed over member by member on every call).
//!
//! A plan holds offsets into the schema text, never references, so it can be kept between
//! rounds (a server keeps one per tool, see [`validate_prepared`](super::validate_prepared));
//! it is only ever applied to the text it was made from, which the holder guarantees, and
//! every offset is bounds-checked when used. Keywords whose values are small (`type`, the
//! counts, `uniqueItems`) are kept as their values already read, the others as where their
//! text is; both are replayed in the order read into the same [`Keywords`] reading fills,
//! without checking again what reading checked (numeric bounds are not parsed again, the
//! names of `required` not looked at), so a planned validation reaches the same verdict,
//! message and budget as an unplanned one at less cost.

use crate::json::{Object, Value, range_in};

use super::keywords::{ExclusiveFlags, Keyword, Keywords, typed_word};
use super::lookup::{PropertyTable, TABLE_WORDS};

/// Schema objects a plan covers: the root and its first property schemas.
const OBJECTS: usize = 8;

/// Keywords a plan holds, over all its objects.
const ENTRIES: usize = 32;

// Where things are in a plan's words: a header (the text's length, the object and keyword
// counts; whether the root's property table is kept), two words per object (its span; its
// first keyword and keyword count), one per keyword (its value: typed, or its span), the keyword ids
// four to a word, and the root's property table.
const HEADER: usize = 0;
const HAS_TABLE: usize = 1;
const OBJECTS_AT: usize = 2;
const VALUES_AT: usize = OBJECTS_AT + 2 * OBJECTS;
const IDS_AT: usize = VALUES_AT + ENTRIES;
const TABLE_AT: usize = IDS_AT + ENTRIES / 4;

/// Size of a plan in words.
pub(crate) const PLAN_WORDS: usize = TABLE_AT + TABLE_WORDS;

/// See the module documentation. Kept as plain words ([`PLAN_WORDS`], about 300 bytes), so
/// that a holder can store it in atomics and hand it back without converting it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    words: [u32; PLAN_WORDS],
}

impl Plan {
    /// A plan of nothing (it covers no object), to be filled.
    pub(crate) const EMPTY: Plan = Plan {
        words: [0; PLAN_WORDS],
    };

    /// Reads `schema` (an object of at most 65 535 bytes of text, whose keywords are well
    /// formed) into a plan; `None` for anything else, which is then validated unplanned.
    pub(crate) fn compile(schema: Value<'_>) -> Option<Plan> {
        let text = schema.raw();
        let mut plan = Plan {
            words: [0; PLAN_WORDS],
        };
        plan.set_counts(u16::try_from(text.len()).ok()?, 0, 0);
        let mut k = Keywords::default();
        if !plan.add(text, schema.as_object()?, &mut k) {
            return None;
        }
        if let (Some(table), Some(slot)) = (k.object.property_table, plan.words.get_mut(TABLE_AT..))
        {
            slot.copy_from_slice(&table.to_words());
            plan.set(HAS_TABLE, 1);
        }
        for (_, sub) in k.object.properties.into_iter().flatten() {
            if usize::from(plan.counts().1) == OBJECTS {
                break;
            }
            if let Some(object) = sub.as_object() {
                // An object that does not fit or is malformed is read on use, as without a plan.
                plan.add(text, object, &mut Keywords::default());
            }
        }
        Some(plan)
    }

    /// The plan whose words these are (as [`Plan::words`] gave them).
    #[cfg(test)]
    pub(crate) fn from_words(words: [u32; PLAN_WORDS]) -> Plan {
        Plan { words }
    }

    /// The words, to fill in place (a holder copying a kept plan out).
    #[cfg_attr(
        not(all(
            feature = "schema-plans",
            target_has_atomic = "ptr",
            target_has_atomic = "32",
            target_has_atomic = "64"
        )),
        allow(dead_code, reason = "see `PLAN_WORDS`")
    )]
    pub(crate) fn words_mut(&mut self) -> &mut [u32; PLAN_WORDS] {
        &mut self.words
    }

    /// The words to keep.
    #[cfg_attr(
        not(all(
            feature = "schema-plans",
            target_has_atomic = "ptr",
            target_has_atomic = "32",
            target_has_atomic = "64"
        )),
        allow(dead_code, reason = "see `PLAN_WORDS`")
    )]
    pub(crate) fn words(&self) -> &[u32; PLAN_WORDS] {
        &self.words
    }

    fn get(&self, at: usize) -> u32 {
        self.words.get(at).copied().unwrap_or(0)
    }

    fn set(&mut self, at: usize, word: u32) {
        if let Some(slot) = self.words.get_mut(at) {
            *slot = word;
        }
    }

    /// The text's length, the objects and the keywords held.
    fn counts(&self) -> (u16, u8, u8) {
        let [len_low, len_high, objects, entries] = self.get(HEADER).to_le_bytes();
        (u16::from_le_bytes([len_low, len_high]), objects, entries)
    }

    fn set_counts(&mut self, text_len: u16, objects: u8, entries: u8) {
        let [low, high] = text_len.to_le_bytes();
        self.set(HEADER, u32::from_le_bytes([low, high, objects, entries]));
    }

    /// Reads `object` into `k` and adds it with its keywords; `false` (and the plan as it
    /// was) when it is malformed or does not fit.
    fn add<'a>(&mut self, text: &'a [u8], object: Object<'a>, k: &mut Keywords<'a>) -> bool {
        let (text_len, objects, first) = self.counts();
        let Some(span) = offsets(text, object.as_value().raw()) else {
            return false;
        };
        if usize::from(objects) >= OBJECTS {
            return false;
        }
        let mut count: u8 = 0;
        let mut fits = true;
        let read = k.read_noting(object, &mut |keyword, value| {
            let index = usize::from(first) + usize::from(count);
            let word = if keyword.is_typed() {
                typed_word(keyword, value)
            } else {
                offsets(text, value.raw())
            };
            match word {
                Some(word) if index < ENTRIES => {
                    self.set(VALUES_AT + index, word);
                    let id_word = IDS_AT + index / 4;
                    let mut ids = self.get(id_word).to_le_bytes();
                    if let Some(id) = ids.get_mut(index % 4) {
                        *id = keyword as u8;
                    }
                    self.set(id_word, u32::from_le_bytes(ids));
                    count += 1;
                }
                _ => fits = false,
            }
        });
        if read.is_err() || !fits {
            return false;
        }
        let at = OBJECTS_AT + 2 * usize::from(objects);
        self.set(at, span);
        self.set(at + 1, pack(u16::from(first), u16::from(count)));
        self.set_counts(text_len, objects + 1, first + count);
        true
    }

    /// The keywords held for the schema object `object` (a slice of `text`, the schema this
    /// plan was compiled from), when the plan covers it: the object's index in the plan, and
    /// each keyword in the order read with its word (its value for a typed keyword, see
    /// [`Keyword::is_typed`], else where its text is, see [`value`]). `None` for a keyword
    /// id the plan cannot have written.
    pub(crate) fn entries(&self, text: &[u8], object: &[u8]) -> Option<(usize, Entries<'_>)> {
        let (text_len, objects, _) = self.counts();
        if text.len() != usize::from(text_len) {
            return None;
        }
        let span = offsets(text, object)?;
        let index = (0..usize::from(objects).min(OBJECTS))
            .find(|i| self.get(OBJECTS_AT + 2 * i) == span)?;
        let [first, count] = unpack(self.get(OBJECTS_AT + 2 * index + 1)).map(usize::from);
        Some((
            index,
            Entries {
                plan: self,
                next: first,
                end: (first + count).min(ENTRIES),
            },
        ))
    }

    /// Fills `k` with the keywords of the schema object `object` (a slice of `text`, the
    /// schema this plan was compiled from) when the plan covers it; `false` otherwise, `k`
    /// then holding nothing useful. `k` must come as [`Keywords::default`] made it (the
    /// validator's fresh frame): clearing 500 bytes again cost a tenth of the replay.
    pub(crate) fn keywords<'a>(
        &self,
        text: &'a [u8],
        object: &'a [u8],
        k: &mut Keywords<'a>,
    ) -> bool {
        let Some((index, entries)) = self.entries(text, object) else {
            return false;
        };
        let mut flags = ExclusiveFlags::default();
        for (keyword, word) in entries {
            let Some(keyword) = keyword else {
                return false;
            };
            let restored = if keyword.is_typed() {
                k.restore_word(keyword, word)
            } else {
                value(text, word).is_some_and(|value| k.restore(keyword, value, &mut flags))
            };
            if !restored {
                return false;
            }
        }
        k.finish(flags);
        if index == 0 && k.object.properties.is_some() {
            k.object.property_table = self.property_table();
        }
        true
    }

    /// The table of the root's `properties` (the plan's object 0), when it was kept.
    pub(crate) fn property_table(&self) -> Option<PropertyTable> {
        if self.get(HAS_TABLE) == 0 {
            return None;
        }
        let table = self.words.get(TABLE_AT..).and_then(|w| w.try_into().ok());
        table.and_then(PropertyTable::from_words)
    }
}

/// The keywords of one schema object in a plan (see [`Plan::entries`]).
pub(crate) struct Entries<'p> {
    plan: &'p Plan,
    next: usize,
    end: usize,
}

impl Iterator for Entries<'_> {
    type Item = (Option<Keyword>, u32);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let entry = self.next;
        self.next += 1;
        let word = self.plan.get(VALUES_AT + entry);
        let ids = self.plan.get(IDS_AT + entry / 4).to_le_bytes();
        let keyword = ids.get(entry % 4).copied().and_then(Keyword::from_id);
        Some((keyword, word))
    }
}

/// The text of a keyword's value that a plan keeps as where it is (`word`), in `text`.
pub(crate) fn value(text: &[u8], word: u32) -> Option<Value<'_>> {
    let [start, len] = unpack(word).map(usize::from);
    text.get(start..start + len).map(Value::from_validated)
}

/// Where `inner` (a slice of `text`) starts in it and its length, packed in a word, if both
/// fit 16 bits.
fn offsets(text: &[u8], inner: &[u8]) -> Option<u32> {
    let range = range_in(text, inner)?;
    Some(pack(
        u16::try_from(range.start).ok()?,
        u16::try_from(range.len()).ok()?,
    ))
}

fn pack(low: u16, high: u16) -> u32 {
    u32::from(low) | u32::from(high) << 16
}

fn unpack(word: u32) -> [u16; 2] {
    [word as u16, (word >> 16) as u16]
}
