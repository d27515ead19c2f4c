//! The restricted flat schema of form elicitation, and the content of an `accept` answer.
//!
//! The spec limits a form's `requestedSchema` to "flat objects with primitive properties
//! only" so that any client can render it as a simple form. The seed goes one step further
//! and rejects every keyword outside that subset, so a schema a client could not render, or
//! would render differently from what the server validates, fails when it is built:
//!
//! ```json
//! {"type": "object", "properties": {...}, "required": [...]}
//! ```
//!
//! with an optional `$schema` string, `title` and `description`, and each property one of:
//!
//! | kind            | keywords besides `title`, `description`, `default`                        |
//! |-----------------|---------------------------------------------------------------------------|
//! | string          | `type: "string"`, `minLength`, `maxLength`, `format` (email, uri, date, date-time) |
//! | number, integer | `type: "number"`/`"integer"`, `minimum`, `maximum`                        |
//! | boolean         | `type: "boolean"`                                                         |
//! | single select   | `type: "string"` and either `enum` (with legacy `enumNames`) or titled `oneOf` of `{const, title}` |
//! | multi select    | `type: "array"`, `items` (`{type: "string", enum}` or titled `{anyOf}`), `minItems`, `maxItems` |
//!
//! Lengths and item counts are non-negative integers with the minimum not above the maximum;
//! integer bounds are integral; option values are non-empty lists of unique strings; a
//! `default` must itself satisfy its property; `required` names declared properties once
//! each. [`check_content`] then validates an `accept` answer against such a schema, with the
//! validator tool arguments get: this module only restricts which keywords a form may use.

mod keywords;
mod options;
mod property;

use super::super::BuildError;
use super::util::{only_keys, opt_str};
use crate::json::{JsonStr, Object, Value, range_in};
use crate::schema::{Options as SchemaOptions, validate_with};
use property::Property;

/// Checks that `schema` is a form `requestedSchema` of the restricted flat subset, naming the
/// first problem found.
pub fn check_schema(schema: Value<'_>) -> Result<(), BuildError> {
    let o = schema
        .as_object()
        .ok_or(BuildError::new("form schema must be an object"))?;
    if !only_keys(
        o,
        &[
            "$schema",
            "type",
            "title",
            "description",
            "properties",
            "required",
        ],
    ) {
        return Err(BuildError::new(
            "form schema has an unsupported keyword \
             (allowed: $schema, type, title, description, properties, required)",
        ));
    }
    if !o
        .get("type")
        .is_some_and(|t| t.as_str().is_some_and(|t| t.eq_str("object")))
    {
        return Err(BuildError::new("form schema type must be \"object\""));
    }
    if !opt_str(o, "$schema") {
        return Err(BuildError::new("form schema $schema must be a string"));
    }
    if !opt_str(o, "title") || !opt_str(o, "description") {
        return Err(BuildError::new(
            "form schema title and description must be strings",
        ));
    }
    let properties = o
        .get("properties")
        .ok_or(BuildError::new("form schema needs properties"))?
        .as_object()
        .ok_or(BuildError::new("form schema properties must be an object"))?;
    for (_, property) in properties {
        Property::check(property)?;
    }
    if let Some(required) = o.get("required") {
        let required = required.as_array().ok_or(BuildError::new(
            "form schema required must be an array of strings",
        ))?;
        for (i, name) in required.iter().enumerate() {
            let name = name.as_str().ok_or(BuildError::new(
                "form schema required must be an array of strings",
            ))?;
            if lookup(properties, name).is_none() {
                return Err(BuildError::new(
                    "form schema required names an undeclared property",
                ));
            }
            let repeated = required
                .iter()
                .take(i)
                .any(|earlier| earlier.as_str() == Some(name));
            if repeated {
                return Err(BuildError::new(
                    "form schema required names a property twice",
                ));
            }
        }
    }
    Ok(())
}

/// Whether `content`, the `content` of an `accept` answer, satisfies `schema`, a schema that
/// passed [`check_schema`].
///
/// `content` must be an object, holding every required property; each declared property it
/// holds is validated against that property's schema by [`schema`](crate::schema) itself,
/// with formats asserted ([`schema::Options::FORM`](SchemaOptions::FORM)): the same
/// keyword code and the same exact decimal comparisons as a tool's arguments get, so no
/// answer passes one and fails the other. The one rule a form adds is that a multi select
/// names each option at most once (the spec's multi select has no `uniqueItems`, yet a
/// choice of options is a set). Keys the schema does not declare are ignored, as JSON
/// Schema has it: the handler reads only the properties it asked for.
///
/// Total on any input: a schema that would not pass [`check_schema`] gives `false` or a
/// verdict of no particular meaning, never a panic. The work is bounded by the validator's
/// budget for each property, plus at most the number of options squared for a multi select.
pub fn check_content(schema: Value<'_>, content: Value<'_>) -> bool {
    // `properties` and `required`, found in one walk of the schema.
    let (mut properties, mut required) = (None, None);
    for (key, value) in schema.as_object().into_iter().flatten() {
        if key.eq_str("properties") {
            properties = value.as_object();
        } else if key.eq_str("required") {
            required = Some(value);
        }
    }
    let Some(properties) = properties else {
        return false;
    };
    let Some(content) = content.as_object() else {
        return false;
    };
    if properties_accept(properties, content).is_none() {
        return false;
    }
    match required {
        None => true,
        Some(required) => required.as_array().is_some_and(|names| {
            names.iter().all(|name| {
                name.as_str()
                    .is_some_and(|name| lookup(content, name).is_some())
            })
        }),
    }
}

/// Whether each declared property `content` holds satisfies it: then `Some` of the set of
/// those held (bit `i` for the `i`-th property, the first 32 of them).
fn properties_accept(properties: Object<'_>, content: Object<'_>) -> Option<u32> {
    let mut held = 0;
    for (i, (name, property)) in properties.into_iter().enumerate() {
        if let Some(value) = lookup(content, name) {
            if !accepts(property, value) {
                return None;
            }
            held |= 1u32.checked_shl(i as u32).unwrap_or(0);
        }
    }
    Some(held)
}

/// Whether `value` satisfies `property`, one property schema of a form.
fn accepts(property: Value<'_>, value: Value<'_>) -> bool {
    let repeats = || {
        value
            .as_array()
            .is_some_and(|items| match Property::read(property) {
                Ok(Property::Multi { options, .. }) => !options.none_repeated(items),
                _ => false,
            })
    };
    validate_with(property, value, &SchemaOptions::FORM).is_ok() && !repeats()
}

/// What checking an answer needs of a schema that passed [`check_schema`], found once when
/// it was checked: where its `properties` lie in its text and which of them are required,
/// so that an answer is checked without walking the schema's top level or its `required`
/// list again. Eight bytes: it sits in every form elicitation, on a device's stack too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FormShape {
    /// `properties`' value: its start and end in the schema's text (both 0 in
    /// [`FormShape::NONE`]).
    properties: (u16, u16),
    /// Bit `i` set: the `i`-th property is required.
    required: u32,
}

impl FormShape {
    /// No shape taken: answers are checked by [`check_content`].
    pub(crate) const NONE: FormShape = FormShape {
        properties: (0, 0),
        required: 0,
    };

    /// The shape of `schema` (checked by [`check_schema`]); [`FormShape::NONE`] for a schema
    /// of more than 32 properties or of more than 64 KiB.
    pub(crate) fn of(schema: Value<'_>) -> FormShape {
        Self::taken(schema).unwrap_or(Self::NONE)
    }

    fn taken(schema: Value<'_>) -> Option<FormShape> {
        let o = schema.as_object()?;
        let properties = o.get("properties")?;
        let names = properties.as_object()?;
        if names.iter().count() > 32 {
            return None;
        }
        let mut required = 0;
        if let Some(list) = o.get("required") {
            for name in list.as_array()?.iter() {
                let name = name.as_str()?;
                let i = Iterator::position(&mut names.iter(), |(key, _)| key == name)?;
                required |= 1u32.checked_shl(i as u32)?;
            }
        }
        let at = range_in(schema.raw(), properties.raw())?;
        Some(FormShape {
            properties: (u16::try_from(at.start).ok()?, u16::try_from(at.end).ok()?),
            required,
        })
    }

    /// Whether `content` satisfies `schema`, the schema this shape was taken of, as
    /// [`check_content`] decides.
    pub(crate) fn check_content(self, schema: Value<'_>, content: Value<'_>) -> bool {
        if self == Self::NONE {
            return check_content(schema, content);
        }
        let (start, end) = (
            usize::from(self.properties.0),
            usize::from(self.properties.1),
        );
        let properties = schema.raw().get(start..end).map(Value::from_validated);
        let (Some(properties), Some(content)) =
            (properties.and_then(|p| p.as_object()), content.as_object())
        else {
            return false;
        };
        properties_accept(properties, content).is_some_and(|held| self.required & !held == 0)
    }
}

/// The member of `o` named `name`, comparing decoded text (either side may use escapes).
fn lookup<'a>(o: Object<'a>, name: JsonStr<'_>) -> Option<Value<'a>> {
    o.iter()
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

#[cfg(test)]
mod tests;
