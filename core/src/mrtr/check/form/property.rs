//! One property of a form schema: which of the five kinds it is, and whether it keeps to
//! the keywords and values that kind allows.

use super::super::super::BuildError;
use super::super::util::count;
use super::keywords::{COMMON, Keyword, KeywordSet, Keywords};
use super::options::Options;
use crate::json::{Number, Object, Value};
use crate::schema::format::Format;

/// A property of the restricted flat schema, read into what a build-time check or the
/// form-only rule of answers (a multi select repeats no option) needs of it; the rest of an
/// answer is checked by [`schema`](crate::schema).
#[derive(Clone, Copy, Debug)]
pub(super) enum Property<'a> {
    /// `type: "string"` without options, `"number"`, `"integer"` or `"boolean"`.
    Scalar,
    /// `type: "string"` with `enum` or `oneOf`: one of the options.
    Single(Options<'a>),
    /// `type: "array"` of options: several distinct options.
    Multi {
        /// The options.
        options: Options<'a>,
        /// `minItems` (0 when absent).
        min_items: u64,
    },
}

impl<'a> Property<'a> {
    /// Reads a property schema, refusing anything outside the subset. Linear in the schema:
    /// this is what [`super::check_content`] relies on for every answer.
    pub(super) fn read(schema: Value<'a>) -> Result<Self, BuildError> {
        let o = schema
            .as_object()
            .ok_or(BuildError::new("form property must be an object"))?;
        let o = Keywords::read(o);
        let kind = o
            .get(Keyword::Type)
            .ok_or(BuildError::new("form property needs a type"))?
            .as_str()
            .ok_or(BuildError::new(
                "form property type must be a single string",
            ))?;
        if !annotations_ok(&o) {
            return Err(BuildError::new(
                "form property title and description must be strings",
            ));
        }
        if kind.eq_str("string") {
            if o.contains(Keyword::Enum) || o.contains(Keyword::OneOf) {
                single(&o)
            } else {
                text(&o)
            }
        } else if kind.eq_str("number") {
            numeric(&o, false)
        } else if kind.eq_str("integer") {
            numeric(&o, true)
        } else if kind.eq_str("boolean") {
            boolean(&o)
        } else if kind.eq_str("array") {
            multi(&o)
        } else if kind.eq_str("object") {
            Err(BuildError::new(
                "form properties cannot be nested objects (the schema is flat)",
            ))
        } else {
            Err(BuildError::new(
                "form property type must be string, number, integer, boolean or array",
            ))
        }
    }

    /// Reads a property schema as [`read`](Self::read) does, and also checks what only needs
    /// checking once, when the schema is built: options are unique, a multi select's
    /// `minItems` can be met, and a `default` satisfies the property.
    pub(super) fn check(schema: Value<'a>) -> Result<Self, BuildError> {
        let property = Self::read(schema)?;
        match property {
            Property::Single(options) | Property::Multi { options, .. }
                if !options.all_unique() =>
            {
                return Err(BuildError::new("form select options must be unique"));
            }
            Property::Multi {
                options, min_items, ..
            } if min_items > options.count() as u64 => {
                return Err(BuildError::new(
                    "form multi select minItems exceeds the number of options",
                ));
            }
            _ => {}
        }
        if let Some(default) = schema.get("default") {
            // Checked as an answer would be.
            if !super::accepts(schema, default) {
                return Err(BuildError::new(
                    "form property default does not satisfy the property",
                ));
            }
        }
        Ok(property)
    }
}

/// `type: "string"`: `minLength`, `maxLength`, `format`.
fn text(o: &Keywords<'_>) -> Result<Property<'static>, BuildError> {
    if o.contains(Keyword::EnumNames) {
        return Err(BuildError::new("form enumNames needs enum"));
    }
    if !o.only(COMMON.and(&[Keyword::MinLength, Keyword::MaxLength, Keyword::Format])) {
        return Err(BuildError::new(
            "form string property has an unsupported keyword \
             (allowed: type, title, description, minLength, maxLength, format, default)",
        ));
    }
    let min_len = match o.get(Keyword::MinLength) {
        None => 0,
        Some(v) => count(v).ok_or(BuildError::new(
            "form string minLength must be a non-negative integer",
        ))?,
    };
    let max_len = match o.get(Keyword::MaxLength) {
        None => u64::MAX,
        Some(v) => count(v).ok_or(BuildError::new(
            "form string maxLength must be a non-negative integer",
        ))?,
    };
    if min_len > max_len {
        return Err(BuildError::new("form string minLength exceeds maxLength"));
    }
    let known = o
        .get(Keyword::Format)
        .is_none_or(|v| v.as_str().and_then(Format::from_name).is_some());
    if !known {
        return Err(BuildError::new(
            "form string format must be email, uri, date or date-time",
        ));
    }
    Ok(Property::Scalar)
}

/// `type: "number"` or `"integer"`: `minimum`, `maximum`.
fn numeric<'a>(o: &Keywords<'a>, integer: bool) -> Result<Property<'a>, BuildError> {
    if !o.only(COMMON.and(&[Keyword::Minimum, Keyword::Maximum])) {
        return Err(BuildError::new(
            "form number property has an unsupported keyword \
             (allowed: type, title, description, minimum, maximum, default)",
        ));
    }
    let bound = |key: Keyword| -> Result<Option<Number<'a>>, BuildError> {
        let Some(v) = o.get(key) else {
            return Ok(None);
        };
        let n = v
            .as_number()
            .ok_or(BuildError::new("form number bounds must be numbers"))?;
        if integer && !n.is_integral() {
            return Err(BuildError::new("form integer bounds must be integers"));
        }
        Ok(Some(n))
    };
    let minimum = bound(Keyword::Minimum)?;
    let maximum = bound(Keyword::Maximum)?;
    if let (Some(min), Some(max)) = (minimum, maximum) {
        if min.cmp_value(&max).is_gt() {
            return Err(BuildError::new("form number minimum exceeds maximum"));
        }
    }
    Ok(Property::Scalar)
}

/// `type: "boolean"`.
fn boolean(o: &Keywords<'_>) -> Result<Property<'static>, BuildError> {
    if !o.only(COMMON) {
        return Err(BuildError::new(
            "form boolean property has an unsupported keyword \
             (allowed: type, title, description, default)",
        ));
    }
    Ok(Property::Scalar)
}

/// `type: "string"` with `enum` (and legacy `enumNames`) or a titled `oneOf`.
fn single<'a>(o: &Keywords<'a>) -> Result<Property<'a>, BuildError> {
    if !o.only(COMMON.and(&[Keyword::Enum, Keyword::EnumNames, Keyword::OneOf])) {
        return Err(BuildError::new(
            "form single select has an unsupported keyword \
             (allowed: type, title, description, enum, enumNames, oneOf, default)",
        ));
    }
    match (o.get(Keyword::Enum), o.get(Keyword::OneOf)) {
        (Some(_), Some(_)) => Err(BuildError::new(
            "form single select takes enum or oneOf, not both",
        )),
        (Some(values), None) => {
            let options = Options::plain(values)?;
            if let Some(names) = o.get(Keyword::EnumNames) {
                let names_ok = names.as_array().is_some_and(|names| {
                    names.iter().all(|n| n.as_str().is_some()) && names.len() == options.count()
                });
                if !names_ok {
                    return Err(BuildError::new(
                        "form enumNames must be strings, one per enum value",
                    ));
                }
            }
            Ok(Property::Single(options))
        }
        (None, Some(titled)) => {
            if o.contains(Keyword::EnumNames) {
                return Err(BuildError::new("form enumNames needs enum"));
            }
            Ok(Property::Single(Options::titled(titled)?))
        }
        (None, None) => Err(BuildError::new("form single select needs enum or oneOf")),
    }
}

/// `type: "array"`: `items` of options, `minItems`, `maxItems`.
fn multi<'a>(o: &Keywords<'a>) -> Result<Property<'a>, BuildError> {
    if !o.only(COMMON.and(&[Keyword::Items, Keyword::MinItems, Keyword::MaxItems])) {
        return Err(BuildError::new(
            "form multi select has an unsupported keyword \
             (allowed: type, title, description, items, minItems, maxItems, default)",
        ));
    }
    let items = o
        .get(Keyword::Items)
        .ok_or(BuildError::new("form multi select needs items"))?
        .as_object()
        .ok_or(BuildError::new("form multi select items must be an object"))?;
    let options = multi_items(items)?;
    let min_items = match o.get(Keyword::MinItems) {
        None => 0,
        Some(v) => count(v).ok_or(BuildError::new(
            "form multi select minItems must be a non-negative integer",
        ))?,
    };
    let max_items = match o.get(Keyword::MaxItems) {
        None => u64::MAX,
        Some(v) => count(v).ok_or(BuildError::new(
            "form multi select maxItems must be a non-negative integer",
        ))?,
    };
    if min_items > max_items {
        return Err(BuildError::new(
            "form multi select minItems exceeds maxItems",
        ));
    }
    Ok(Property::Multi { options, min_items })
}

/// A multi select's `items`: `{"type": "string", "enum": [...]}`, or a titled
/// `{"anyOf": [{const, title}...]}` (where a `type: "string"` is tolerated too).
fn multi_items(items: Object<'_>) -> Result<Options<'_>, BuildError> {
    let items = Keywords::read(items);
    let string_type = match items.get(Keyword::Type) {
        None => false,
        Some(t) if t.as_str().is_some_and(|t| t.eq_str("string")) => true,
        Some(_) => {
            return Err(BuildError::new(
                "form multi select items must have type \"string\"",
            ));
        }
    };
    if let Some(titled) = items.get(Keyword::AnyOf) {
        if !items.only(KeywordSet::of(&[Keyword::Type, Keyword::AnyOf])) {
            return Err(BuildError::new(
                "form multi select items have an unsupported keyword \
                 (allowed: type and enum, or anyOf)",
            ));
        }
        return Options::titled(titled);
    }
    if !items.only(KeywordSet::of(&[Keyword::Type, Keyword::Enum])) {
        return Err(BuildError::new(
            "form multi select items have an unsupported keyword \
             (allowed: type and enum, or anyOf)",
        ));
    }
    let values = items.get(Keyword::Enum).ok_or(BuildError::new(
        "form multi select items need enum or anyOf",
    ))?;
    if !string_type {
        return Err(BuildError::new(
            "form multi select items must have type \"string\"",
        ));
    }
    Options::plain(values)
}

/// Whether an optional `title` and `description` are strings (every kind allows both).
fn annotations_ok(o: &Keywords<'_>) -> bool {
    let opt_str = |k| o.get(k).is_none_or(|v| v.as_str().is_some());
    opt_str(Keyword::Title) && opt_str(Keyword::Description)
}
