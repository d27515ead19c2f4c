//! The members of a property schema (or of a multi select's `items`), found in one walk of
//! the object: reading a property looks up several keywords and checks that no others are
//! present, which would otherwise be a walk of the object for each.

use crate::json::{JsonStr, Object, Value, range_in};

/// The keywords a property schema or a multi select's `items` may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Keyword {
    Type,
    Title,
    Description,
    Default,
    Enum,
    EnumNames,
    OneOf,
    AnyOf,
    Items,
    MinLength,
    MaxLength,
    Format,
    Minimum,
    Maximum,
    MinItems,
    MaxItems,
}

/// The names of the keywords, in the order of [`Keyword`].
const NAMES: [&str; 16] = [
    "type",
    "title",
    "description",
    "default",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "items",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
];

/// A set of keywords, one bit each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KeywordSet(u16);

impl KeywordSet {
    /// The set of `keywords`.
    pub(super) const fn of(keywords: &[Keyword]) -> KeywordSet {
        let mut bits = 0;
        let mut i = 0;
        while i < keywords.len() {
            bits |= 1 << keywords[i] as u16;
            i += 1;
        }
        KeywordSet(bits)
    }

    /// This set and `keywords`.
    pub(super) const fn and(self, keywords: &[Keyword]) -> KeywordSet {
        KeywordSet(self.0 | KeywordSet::of(keywords).0)
    }
}

/// What every kind of property allows: its `type`, the annotations and a `default`.
pub(super) const COMMON: KeywordSet = KeywordSet::of(&[
    Keyword::Type,
    Keyword::Title,
    Keyword::Description,
    Keyword::Default,
]);

/// Where each keyword's value lies in the object's text: a start and a length, 8 bytes a
/// keyword rather than a 16-byte view (this sits on the stack of every answer check).
#[derive(Clone, Copy, Debug)]
pub(super) struct Keywords<'a> {
    text: &'a [u8],
    spans: [(u32, u32); NAMES.len()],
    present: KeywordSet,
    /// Whether a member that is none of the keywords is present.
    unknown: bool,
}

impl<'a> Keywords<'a> {
    /// Walks `o` once. A member name is compared by its decoded text, so an escaped keyword
    /// counts as that keyword (the parse has refused repeated names).
    pub(super) fn read(o: Object<'a>) -> Keywords<'a> {
        let text = o.as_value().raw();
        let mut keywords = Keywords {
            text,
            spans: [(0, 0); NAMES.len()],
            present: KeywordSet(0),
            unknown: false,
        };
        for (key, value) in o {
            let found = keyword_index(key);
            let span = span_in(text, value.raw());
            match (
                found,
                span,
                keywords.spans.get_mut(found.unwrap_or(NAMES.len())),
            ) {
                (Some(i), Some(span), Some(slot)) => {
                    *slot = span;
                    keywords.present.0 |= 1 << i;
                }
                _ => keywords.unknown = true,
            }
        }
        keywords
    }

    /// The value of `keyword`, if present.
    pub(super) fn get(&self, keyword: Keyword) -> Option<Value<'a>> {
        if !self.contains(keyword) {
            return None;
        }
        let &(start, len) = self.spans.get(keyword as usize)?;
        let start = usize::try_from(start).ok()?;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        self.text.get(start..end).map(Value::from_validated)
    }

    /// Whether `keyword` is present.
    pub(super) fn contains(&self, keyword: Keyword) -> bool {
        self.present.0 & (1 << keyword as u16) != 0
    }

    /// Whether every member is one of `allowed`.
    pub(super) fn only(&self, allowed: KeywordSet) -> bool {
        !self.unknown && self.present.0 & !allowed.0 == 0
    }
}

/// The index in [`NAMES`] of the keyword `key` names, if any. A name without escapes (every
/// schema a person writes) is matched on its bytes in one `match`; an escaped one is decoded
/// and compared with each name.
fn keyword_index(key: JsonStr<'_>) -> Option<usize> {
    let keyword = match key.raw() {
        b"type" => Keyword::Type,
        b"title" => Keyword::Title,
        b"description" => Keyword::Description,
        b"default" => Keyword::Default,
        b"enum" => Keyword::Enum,
        b"enumNames" => Keyword::EnumNames,
        b"oneOf" => Keyword::OneOf,
        b"anyOf" => Keyword::AnyOf,
        b"items" => Keyword::Items,
        b"minLength" => Keyword::MinLength,
        b"maxLength" => Keyword::MaxLength,
        b"format" => Keyword::Format,
        b"minimum" => Keyword::Minimum,
        b"maximum" => Keyword::Maximum,
        b"minItems" => Keyword::MinItems,
        b"maxItems" => Keyword::MaxItems,
        raw if raw.contains(&b'\\') => {
            return NAMES.iter().position(|name| key.eq_str(name));
        }
        _ => return None,
    };
    Some(keyword as usize)
}

/// Where `part`, a slice of `text`, lies in it (`None` for a slice of other text, which the
/// member walk never gives, or offsets past 32 bits).
fn span_in(text: &[u8], part: &[u8]) -> Option<(u32, u32)> {
    let range = range_in(text, part)?;
    Some((
        u32::try_from(range.start).ok()?,
        u32::try_from(range.len()).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::json::{Limits, parse};

    fn keywords(text: &str) -> Keywords<'_> {
        Keywords::read(
            parse(text.as_bytes(), &Limits::default())
                .unwrap()
                .as_object()
                .unwrap(),
        )
    }

    #[test]
    fn one_walk_finds_each_keyword_and_notes_strangers() {
        let k = keywords(r#"{"type":"string","min\u004cength":1,"format":"email"}"#);
        assert_eq!(k.get(Keyword::Type).unwrap().raw(), br#""string""#);
        assert_eq!(k.get(Keyword::MinLength).unwrap().raw(), b"1");
        assert!(k.get(Keyword::MaxLength).is_none());
        let text = KeywordSet::of(&[Keyword::Type, Keyword::MinLength, Keyword::Format]);
        assert!(k.only(text));
        assert!(!k.only(KeywordSet::of(&[Keyword::Type, Keyword::MinLength])));

        let k = keywords(r#"{"type":"string","pattern":"x"}"#);
        assert!(!k.only(text), "an unknown member is refused by every set");
        assert!(k.contains(Keyword::Type));
    }

    #[test]
    fn each_name_plain_or_escaped_is_its_keyword() {
        for (i, name) in NAMES.iter().enumerate() {
            let plain = std::format!("\"{name}\"");
            let escaped = std::format!("\"\\u{:04x}{}\"", name.as_bytes()[0], &name[1..]);
            for text in [plain, escaped] {
                let key = parse(text.as_bytes(), &Limits::default()).unwrap();
                assert_eq!(keyword_index(key.as_str().unwrap()), Some(i), "{text}");
            }
        }
        let other = parse(br#""typo""#, &Limits::default()).unwrap();
        assert_eq!(keyword_index(other.as_str().unwrap()), None);
    }

    #[test]
    fn a_value_from_other_text_has_no_span() {
        assert_eq!(span_in(b"abc", b"bc"), None);
        let text = b"abcd";
        assert_eq!(span_in(text, &text[1..3]), Some((1, 2)));
    }
}
