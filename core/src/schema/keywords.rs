//! The keywords of one schema object, read in a single pass and type-checked.
//!
//! Collecting first lets the validator check keywords in a fixed order (so the same invalid
//! value always gets the same message) while scanning the schema object only once.

use crate::json::{Array, JsonStr, Kind, Number, Object, Value, skip_value};

use super::format::Format;
use super::lookup::PropertyTable;
use super::types::TypeSet;
use crate::json::Decimal;

/// A numeric bound and whether it excludes itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bound<'a> {
    pub(crate) limit: Number<'a>,
    pub(crate) exclusive: bool,
}

/// The recognised keywords of one schema object. Unknown keywords are ignored.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Keywords<'a> {
    pub(crate) types: Option<TypeSet>,
    pub(crate) enumeration: Option<Array<'a>>,
    pub(crate) constant: Option<Value<'a>>,
    pub(crate) minimum: Option<Bound<'a>>,
    pub(crate) maximum: Option<Bound<'a>>,
    pub(crate) exclusive_minimum: Option<Number<'a>>,
    pub(crate) exclusive_maximum: Option<Number<'a>>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) unique_items: bool,
    /// `format`, when it names one the validator can assert (asserted only when
    /// [`Options::assert_formats`](super::Options::assert_formats) says so; any other name
    /// is an annotation either way). One byte, not a view: these sit in every frame.
    pub(crate) format: Option<Format>,
    /// What applies to objects, kept together so that a planned object schema can be
    /// applied from these alone (see `Validator::object_planned`).
    pub(crate) object: ObjectKeywords<'a>,
    /// A schema for every item, or (draft 4 to 2019-09) an array of positional schemas.
    pub(crate) items: Option<Value<'a>>,
    pub(crate) prefix_items: Option<Array<'a>>,
    pub(crate) all_of: Option<Array<'a>>,
    pub(crate) any_of: Option<Array<'a>>,
    pub(crate) one_of: Option<Array<'a>>,
    pub(crate) not: Option<Value<'a>>,
    pub(crate) reference: Option<JsonStr<'a>>,
    /// `$defs` and `definitions`: only walked by `check_schema`.
    pub(crate) defs: [Option<Object<'a>>; 2],
}

/// The keywords of a schema object that apply to objects.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ObjectKeywords<'a> {
    pub(crate) min_properties: Option<u64>,
    pub(crate) max_properties: Option<u64>,
    pub(crate) required: Option<Array<'a>>,
    pub(crate) properties: Option<Object<'a>>,
    /// Where the members of `properties` are, when there are few enough.
    pub(crate) property_table: Option<PropertyTable>,
    pub(crate) additional_properties: Option<Value<'a>>,
}

/// Longest keyword name recognised (`additionalProperties`), rounded up.
const KEYWORD_MAX: usize = 24;

/// A recognised keyword, as a small id (a [`Plan`](super::plan::Plan) stores these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Keyword {
    Type,
    Enum,
    Const,
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
    MinLength,
    MaxLength,
    MinItems,
    MaxItems,
    MinProperties,
    MaxProperties,
    UniqueItems,
    Required,
    Properties,
    AdditionalProperties,
    Items,
    PrefixItems,
    AllOf,
    AnyOf,
    OneOf,
    Not,
    Ref,
    Defs,
    Definitions,
    Format,
}

impl Keyword {
    /// Every keyword, indexed by its id.
    const ALL: [Keyword; 27] = [
        Keyword::Type,
        Keyword::Enum,
        Keyword::Const,
        Keyword::Minimum,
        Keyword::Maximum,
        Keyword::ExclusiveMinimum,
        Keyword::ExclusiveMaximum,
        Keyword::MinLength,
        Keyword::MaxLength,
        Keyword::MinItems,
        Keyword::MaxItems,
        Keyword::MinProperties,
        Keyword::MaxProperties,
        Keyword::UniqueItems,
        Keyword::Required,
        Keyword::Properties,
        Keyword::AdditionalProperties,
        Keyword::Items,
        Keyword::PrefixItems,
        Keyword::AllOf,
        Keyword::AnyOf,
        Keyword::OneOf,
        Keyword::Not,
        Keyword::Ref,
        Keyword::Defs,
        Keyword::Definitions,
        Keyword::Format,
    ];

    /// The keyword with this id.
    pub(crate) fn from_id(id: u8) -> Option<Keyword> {
        Self::ALL.get(usize::from(id)).copied()
    }

    /// Whether a [`Plan`](super::plan::Plan) keeps this keyword's value already read, as
    /// one word ([`typed_word`]), rather than where its text is: a replay then parses
    /// nothing for it.
    pub(crate) fn is_typed(self) -> bool {
        matches!(
            self,
            Keyword::Type
                | Keyword::MinLength
                | Keyword::MaxLength
                | Keyword::MinItems
                | Keyword::MaxItems
                | Keyword::MinProperties
                | Keyword::MaxProperties
                | Keyword::UniqueItems
        )
    }

    /// The keyword named `name` (unescaped), if it is one this validator knows.
    fn from_name(name: &[u8]) -> Option<Keyword> {
        Some(match name {
            b"type" => Keyword::Type,
            b"enum" => Keyword::Enum,
            b"const" => Keyword::Const,
            b"minimum" => Keyword::Minimum,
            b"maximum" => Keyword::Maximum,
            b"exclusiveMinimum" => Keyword::ExclusiveMinimum,
            b"exclusiveMaximum" => Keyword::ExclusiveMaximum,
            b"minLength" => Keyword::MinLength,
            b"maxLength" => Keyword::MaxLength,
            b"format" => Keyword::Format,
            b"minItems" => Keyword::MinItems,
            b"maxItems" => Keyword::MaxItems,
            b"minProperties" => Keyword::MinProperties,
            b"maxProperties" => Keyword::MaxProperties,
            b"uniqueItems" => Keyword::UniqueItems,
            b"required" => Keyword::Required,
            b"properties" => Keyword::Properties,
            b"additionalProperties" => Keyword::AdditionalProperties,
            b"items" => Keyword::Items,
            b"prefixItems" => Keyword::PrefixItems,
            b"allOf" => Keyword::AllOf,
            b"anyOf" => Keyword::AnyOf,
            b"oneOf" => Keyword::OneOf,
            b"not" => Keyword::Not,
            b"$ref" => Keyword::Ref,
            b"$defs" => Keyword::Defs,
            b"definitions" => Keyword::Definitions,
            _ => return None,
        })
    }
}

/// Draft 4 spells exclusive bounds as booleans next to `minimum`/`maximum`: they are noted
/// while the keywords are read and applied to the bounds at the end.
#[derive(Default)]
pub(crate) struct ExclusiveFlags {
    min: bool,
    max: bool,
}

impl<'a> Keywords<'a> {
    /// Reads the keywords of `schema` into `self` (whatever it held before is cleared); `Err`
    /// names the first keyword with a malformed value.
    ///
    /// Filled in place rather than returned, so that a validator frame holds one copy of the
    /// keywords (about 500 bytes) and not a second one in transit: the validator recurses
    /// through this for every schema level, which sets a device's peak stack.
    pub(crate) fn read(&mut self, schema: Object<'a>) -> Result<(), &'static str> {
        self.read_noting(schema, &mut |_, _| {})
    }

    /// [`Keywords::read`], telling `note` each recognised keyword and its value, in the
    /// order of the text, so that a [`Plan`](super::plan::Plan) can replay them.
    pub(crate) fn read_noting(
        &mut self,
        schema: Object<'a>,
        note: &mut impl FnMut(Keyword, Value<'a>),
    ) -> Result<(), &'static str> {
        *self = Keywords::default();
        let mut flags = ExclusiveFlags::default();
        let mut members = schema.iter();
        // `properties` is walked member by member as it is passed over, for its table.
        let mut table = None;
        while let Some((name, value)) = members.next_with(|name, text, start| {
            if !name.eq_str("properties") {
                return skip_value(text, start);
            }
            let (found, end) = PropertyTable::walk(text, start)?;
            table = found;
            Some(end)
        }) {
            let mut buf = [0u8; KEYWORD_MAX];
            // A name without escapes is its own text; only escaped names are decoded.
            let name = if name.has_escapes() {
                match name.decode_into(&mut buf) {
                    Some(text) => text.as_bytes(),
                    None => continue, // longer than any keyword: unknown
                }
            } else {
                name.raw()
            };
            let Some(keyword) = Keyword::from_name(name) else {
                continue;
            };
            self.set(keyword, value, &mut flags)?;
            if keyword == Keyword::Properties {
                self.object.property_table = table;
            }
            note(keyword, value);
        }
        self.finish(flags);
        Ok(())
    }

    /// Records one keyword's value, checking its type; `Err` names the keyword when it is
    /// malformed.
    pub(crate) fn set(
        &mut self,
        keyword: Keyword,
        value: Value<'a>,
        flags: &mut ExclusiveFlags,
    ) -> Result<(), &'static str> {
        let k = self;
        match keyword {
            Keyword::Type => k.types = Some(types(value).ok_or("type")?),
            Keyword::Enum => k.enumeration = Some(value.as_array().ok_or("enum")?),
            Keyword::Const => k.constant = Some(value),
            Keyword::Minimum => {
                k.minimum = Some(Bound {
                    limit: number(value).ok_or("minimum")?,
                    exclusive: false,
                });
            }
            Keyword::Maximum => {
                k.maximum = Some(Bound {
                    limit: number(value).ok_or("maximum")?,
                    exclusive: false,
                });
            }
            Keyword::ExclusiveMinimum => match value.as_bool() {
                Some(flag) => flags.min = flag,
                None => k.exclusive_minimum = Some(number(value).ok_or("exclusiveMinimum")?),
            },
            Keyword::ExclusiveMaximum => match value.as_bool() {
                Some(flag) => flags.max = flag,
                None => k.exclusive_maximum = Some(number(value).ok_or("exclusiveMaximum")?),
            },
            Keyword::MinLength => k.min_length = Some(count(value).ok_or("minLength")?),
            Keyword::MaxLength => k.max_length = Some(count(value).ok_or("maxLength")?),
            Keyword::Format => k.format = Format::from_name(value.as_str().ok_or("format")?),
            Keyword::MinItems => k.min_items = Some(count(value).ok_or("minItems")?),
            Keyword::MaxItems => k.max_items = Some(count(value).ok_or("maxItems")?),
            Keyword::MinProperties => {
                k.object.min_properties = Some(count(value).ok_or("minProperties")?);
            }
            Keyword::MaxProperties => {
                k.object.max_properties = Some(count(value).ok_or("maxProperties")?);
            }
            Keyword::UniqueItems => k.unique_items = value.as_bool().ok_or("uniqueItems")?,
            Keyword::Required => {
                let names = value.as_array().ok_or("required")?;
                if !names.iter().all(|n| n.kind() == Kind::String) {
                    return Err("required");
                }
                k.object.required = Some(names);
            }
            Keyword::Properties => {
                k.object.properties = Some(value.as_object().ok_or("properties")?)
            }
            Keyword::AdditionalProperties => {
                k.object.additional_properties =
                    Some(schema_value(value).ok_or("additionalProperties")?);
            }
            Keyword::Items => {
                if schema_value(value).is_none() && value.kind() != Kind::Array {
                    return Err("items");
                }
                k.items = Some(value);
            }
            Keyword::PrefixItems => k.prefix_items = Some(value.as_array().ok_or("prefixItems")?),
            Keyword::AllOf => k.all_of = Some(non_empty(value).ok_or("allOf")?),
            Keyword::AnyOf => k.any_of = Some(non_empty(value).ok_or("anyOf")?),
            Keyword::OneOf => k.one_of = Some(non_empty(value).ok_or("oneOf")?),
            Keyword::Not => k.not = Some(schema_value(value).ok_or("not")?),
            Keyword::Ref => k.reference = Some(value.as_str().ok_or("$ref")?),
            Keyword::Defs => k.defs[0] = Some(value.as_object().ok_or("$defs")?),
            Keyword::Definitions => k.defs[1] = Some(value.as_object().ok_or("definitions")?),
        }
        Ok(())
    }

    /// Records again a keyword whose value [`Keywords::set`] accepted before from this same
    /// text (a [`Plan`](super::plan::Plan)'s replay): what was checked then is not checked
    /// again, only what the validator uses is derived; `false` when the value is not of
    /// the kind it was, and the plan is then not used.
    pub(crate) fn restore(
        &mut self,
        keyword: Keyword,
        value: Value<'a>,
        flags: &mut ExclusiveFlags,
    ) -> bool {
        let k = self;
        match keyword {
            Keyword::Minimum | Keyword::Maximum => {
                let Some(limit) = value.as_number() else {
                    return false;
                };
                let bound = Some(Bound {
                    limit,
                    exclusive: false,
                });
                if keyword == Keyword::Minimum {
                    k.minimum = bound;
                } else {
                    k.maximum = bound;
                }
            }
            Keyword::ExclusiveMinimum | Keyword::ExclusiveMaximum => {
                let lower = keyword == Keyword::ExclusiveMinimum;
                match (value.as_bool(), value.as_number()) {
                    (Some(flag), _) if lower => flags.min = flag,
                    (Some(flag), _) => flags.max = flag,
                    (None, Some(limit)) if lower => k.exclusive_minimum = Some(limit),
                    (None, Some(limit)) => k.exclusive_maximum = Some(limit),
                    (None, None) => return false,
                }
            }
            Keyword::Required => {
                let Some(names) = value.as_array() else {
                    return false;
                };
                k.object.required = Some(names);
            }
            _ => return k.set(keyword, value, flags).is_ok(),
        }
        true
    }

    /// Records a typed keyword (see [`Keyword::is_typed`]) from the word [`typed_word`]
    /// made of its value; `false` for a word it cannot have made.
    pub(crate) fn restore_word(&mut self, keyword: Keyword, word: u32) -> bool {
        let count = Some(u64::from(word));
        let k = self;
        match keyword {
            Keyword::Type => {
                k.types = u8::try_from(word).ok().and_then(TypeSet::from_bits);
                return k.types.is_some();
            }
            Keyword::UniqueItems => k.unique_items = word != 0,
            Keyword::MinLength => k.min_length = count,
            Keyword::MaxLength => k.max_length = count,
            Keyword::MinItems => k.min_items = count,
            Keyword::MaxItems => k.max_items = count,
            Keyword::MinProperties => k.object.min_properties = count,
            Keyword::MaxProperties => k.object.max_properties = count,
            _ => return false,
        }
        true
    }

    /// Applies the draft 4 exclusive flags once every keyword has been set.
    pub(crate) fn finish(&mut self, flags: ExclusiveFlags) {
        if let Some(bound) = self.minimum.as_mut() {
            bound.exclusive = flags.min;
        }
        if let Some(bound) = self.maximum.as_mut() {
            bound.exclusive = flags.max;
        }
    }
}

/// A `type` value: one name or a non-empty array of names.
fn types(value: Value<'_>) -> Option<TypeSet> {
    if let Some(name) = value.as_str() {
        return type_name(name);
    }
    let mut set = TypeSet::default();
    for item in value.as_array()? {
        set = set.union(type_name(item.as_str()?)?);
    }
    (!set.is_empty()).then_some(set)
}

fn type_name(name: JsonStr<'_>) -> Option<TypeSet> {
    if !name.has_escapes() {
        return TypeSet::from_name_bytes(name.raw());
    }
    let mut buf = [0u8; 8];
    TypeSet::from_name(name.decode_into(&mut buf)?)
}

/// The word a [`Plan`](super::plan::Plan) keeps for the value of a typed keyword (see
/// [`Keyword::is_typed`]) that [`Keywords::set`] accepted; `None` when it does not fit one
/// (a count of 2³² or more) or the keyword is not typed.
pub(crate) fn typed_word(keyword: Keyword, value: Value<'_>) -> Option<u32> {
    match keyword {
        Keyword::Type => types(value).map(|set| u32::from(set.bits())),
        Keyword::UniqueItems => value.as_bool().map(u32::from),
        _ if keyword.is_typed() => u32::try_from(count(value)?).ok(),
        _ => None,
    }
}

fn number(value: Value<'_>) -> Option<Number<'_>> {
    value
        .as_number()
        .filter(|n| Decimal::parse(n.bytes()).is_some())
}

/// A non-negative integer (`3` or `3.0`), saturating at `u64::MAX`.
fn count(value: Value<'_>) -> Option<u64> {
    Decimal::parse(value.as_number()?.bytes())?.to_u64_saturating()
}

/// A value that can be a schema: an object or a boolean.
pub(crate) fn schema_value(value: Value<'_>) -> Option<Value<'_>> {
    matches!(value.kind(), Kind::Object | Kind::Bool).then_some(value)
}

fn non_empty(value: Value<'_>) -> Option<Array<'_>> {
    value.as_array().filter(|a| !a.is_empty())
}
