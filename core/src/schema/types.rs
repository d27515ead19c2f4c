//! The set of JSON Schema type names a `type` keyword allows.

use crate::json::{Kind, Value};

use crate::json::Decimal;

/// A set of JSON Schema types (`"null"`, `"boolean"`, `"object"`, `"array"`, `"number"`,
/// `"string"`, `"integer"`), as named by a `type` keyword.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TypeSet(u8);

/// Names in the order they are listed in messages.
const NAMES: [(&str, u8); 7] = [
    ("object", TypeSet::OBJECT.0),
    ("array", TypeSet::ARRAY.0),
    ("string", TypeSet::STRING.0),
    ("number", TypeSet::NUMBER.0),
    ("integer", TypeSet::INTEGER.0),
    ("boolean", TypeSet::BOOLEAN.0),
    ("null", TypeSet::NULL.0),
];

impl TypeSet {
    /// `"null"`
    pub const NULL: TypeSet = TypeSet(1);
    /// `"boolean"`
    pub const BOOLEAN: TypeSet = TypeSet(1 << 1);
    /// `"object"`
    pub const OBJECT: TypeSet = TypeSet(1 << 2);
    /// `"array"`
    pub const ARRAY: TypeSet = TypeSet(1 << 3);
    /// `"number"` (any number, integral or not)
    pub const NUMBER: TypeSet = TypeSet(1 << 4);
    /// `"string"`
    pub const STRING: TypeSet = TypeSet(1 << 5);
    /// `"integer"` (any number whose value is integral, so `2.0` too)
    pub const INTEGER: TypeSet = TypeSet(1 << 6);

    /// The type with this JSON Schema name.
    pub fn from_name(name: &str) -> Option<TypeSet> {
        Self::from_name_bytes(name.as_bytes())
    }

    /// [`TypeSet::from_name`] of UTF-8 bytes.
    pub(crate) fn from_name_bytes(name: &[u8]) -> Option<TypeSet> {
        Some(match name {
            b"object" => TypeSet::OBJECT,
            b"array" => TypeSet::ARRAY,
            b"string" => TypeSet::STRING,
            b"number" => TypeSet::NUMBER,
            b"integer" => TypeSet::INTEGER,
            b"boolean" => TypeSet::BOOLEAN,
            b"null" => TypeSet::NULL,
            _ => return None,
        })
    }

    /// The set as bits, for a [`Plan`](super::plan::Plan) to keep.
    pub(crate) const fn bits(self) -> u8 {
        self.0
    }

    /// The non-empty set [`TypeSet::bits`] gave; `None` for bits it cannot have given.
    pub(crate) fn from_bits(bits: u8) -> Option<TypeSet> {
        let known = NAMES.iter().fold(0, |all, (_, bit)| all | bit);
        (bits != 0 && bits & !known == 0).then_some(TypeSet(bits))
    }

    /// The union of two sets.
    pub const fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// Whether every type of `other` is in this set.
    pub const fn contains(self, other: TypeSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `value` is of one of these types.
    pub fn accepts(self, value: Value<'_>) -> bool {
        let wanted = match value.kind() {
            Kind::Null => TypeSet::NULL,
            Kind::Bool => TypeSet::BOOLEAN,
            Kind::Object => TypeSet::OBJECT,
            Kind::Array => TypeSet::ARRAY,
            Kind::String => TypeSet::STRING,
            Kind::Number => {
                if self.contains(TypeSet::NUMBER) {
                    return true;
                }
                // A literal without a fraction or exponent is integral without parsing it.
                return self.contains(TypeSet::INTEGER)
                    && value.as_number().is_some_and(|n| {
                        n.is_integer_literal()
                            || Decimal::parse(n.bytes()).is_some_and(|d| d.is_integral())
                    });
            }
        };
        self.contains(wanted)
    }

    /// The names in this set, in a fixed order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        NAMES
            .iter()
            .filter(move |(_, bits)| self.0 & bits != 0)
            .map(|&(name, _)| name)
    }
}

impl core::fmt::Debug for TypeSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

impl core::fmt::Display for TypeSet {
    /// `integer`, `string or null`, `object, array or null`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let count = self.names().count();
        for (i, name) in self.names().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == count { " or " } else { ", " })?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}
