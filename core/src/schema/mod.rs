//! Validation of tool arguments (and structured output) against a JSON Schema, without a heap.
//!
//! [`validate`](fn@validate) applies a schema — a tool's `inputSchema`, say — to a value. Both are
//! [`Value`] views of already-scanned JSON, and both may come from untrusted places: nothing
//! here panics, recursion is bounded by [`Options::max_depth`], and total work by
//! [`Options::max_steps`], so even a schema whose `$ref`s form a cycle terminates (with
//! [`Reason::TooDeep`] or [`Reason::TooComplex`]).
//!
//! ```
//! use snodo_core::json::{Limits, parse};
//! use snodo_core::schema::validate;
//!
//! let schema = parse(br#"{"type":"object","properties":{"count":{"type":"integer","minimum":1}},
//!                        "required":["count"]}"#, &Limits::HOST).unwrap();
//! let args = parse(br#"{"count":0}"#, &Limits::HOST).unwrap();
//! let violation = validate(schema, args).unwrap_err();
//! assert_eq!(format!("{violation}"), r#"argument "count": must be >= 1"#);
//! ```
//!
//! # Supported keywords
//!
//! - `type` (a name or an array of names; `"integer"` accepts any integral number, `2.0`
//!   included), `enum` and `const` (JSON equality: object member order is irrelevant, numbers
//!   compare by exact numeric value, strings after unescaping);
//! - `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or the draft 4
//!   booleans), compared exactly on the decimal literals, never through `f64`;
//! - `minLength`, `maxLength` (in Unicode code points);
//! - `format`, an annotation unless [`Options::assert_formats`] is set; then `email`, `uri`,
//!   `date` and `date-time` are checked as [`format`](mod@format) describes (any other name
//!   still accepts);
//! - `items` (a schema; an array of positional schemas as in older drafts), `prefixItems`,
//!   `minItems`, `maxItems`, `uniqueItems`;
//! - `properties`, `required`, `additionalProperties` (`false` or a schema),
//!   `minProperties`, `maxProperties`;
//! - `allOf`, `anyOf`, `oneOf`, `not`, and the boolean schemas `true` and `false`;
//! - `$ref` to a local JSON pointer in the root schema (`#`, `#/$defs/NAME`,
//!   `#/definitions/NAME`, any `#/…` path, `~0`/`~1` escapes; not percent-encoding). Any
//!   other reference is [`Reason::UnsupportedRef`]; nothing is ever fetched. Keywords next to
//!   `$ref` apply too, as in 2020-12.
//!
//! Every other keyword (`pattern`, `multipleOf`, `patternProperties`, `if`, …) is
//! ignored, which means it accepts. A keyword of the wrong type (`"minimum": "1"`) is
//! [`Reason::BadSchema`]; a schema's problems are found when the value reaches them, or all
//! at once, up front, by [`check_schema`].
//!
//! # Costs
//!
//! No memory beyond the stack: each level of [`Options::max_depth`] costs a few frames, the
//! largest holding the keywords of the schema object being applied (about 500 bytes on a
//! 64-bit target, collected in one pass over that object, with the positions of up to ten
//! `properties`). Below the outermost array whose items share an object schema, the
//! keywords of the six schema objects read last are kept (about 3 KiB more, paid only by a
//! validation that reaches such an array), so that the items' schema and those of their
//! properties are read once, not once per item. Work is bounded by [`Options::max_steps`],
//! which counts schema applications and the bytes rescanned to apply them.

pub mod format;
mod keywords;
mod lookup;
mod noted;
mod plan;
mod pointer;
mod types;
mod validate;
mod violation;

pub(crate) use noted::NotedMembers;
// Plans are kept only where the holder's atomics exist (see `server::plans`).
#[cfg(all(
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
))]
pub(crate) use plan::PLAN_WORDS;
pub(crate) use plan::Plan;
pub use types::TypeSet;
pub use violation::{Path, Reason, Segment, Segments, Violation};

use crate::json::Value;
use validate::Validator;

/// Bounds on one validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Options {
    /// How deep schemas may nest (and `$ref`s be followed) while being applied; also bounds
    /// the nesting `enum`, `const` and `uniqueItems` compare.
    pub max_depth: u16,
    /// How much work one validation may do, in steps: a step is one schema application or
    /// value comparison, plus one for every 64 bytes of JSON scanned to apply it (views are
    /// lazy, so finding a member or resolving a `$ref` rescans text).
    pub max_steps: u32,
    /// Whether `format` is an assertion (the formats [`format::Format`] names; any other is
    /// still ignored) rather than an annotation. Off by default, as JSON Schema 2020-12 has
    /// it; form answers are checked with it on ([`Options::FORM`]).
    pub assert_formats: bool,
}

impl Options {
    /// Depth 32 and 2^20 steps (at most about 64 MiB scanned): room for any reasonable tool
    /// schema applied to a megabyte of arguments, while a schema built to blow up
    /// exponentially stops after some milliseconds.
    pub const DEFAULT: Options = Options {
        max_depth: 32,
        max_steps: 1 << 20,
        assert_formats: false,
    };

    /// [`Options::DEFAULT`] with formats asserted: how a form answer is checked against the
    /// form's `requestedSchema`.
    pub const FORM: Options = Options {
        assert_formats: true,
        ..Options::DEFAULT
    };
}

impl Default for Options {
    fn default() -> Self {
        Options::DEFAULT
    }
}

/// Validates `instance` against `schema` with [`Options::DEFAULT`].
///
/// `Err` is the first violation found, checked in a fixed keyword order; its `Display` is a
/// message for a tool error result, and [`Violation::is_schema_error`] tells a faulty schema
/// from a faulty value.
pub fn validate<'a>(schema: Value<'a>, instance: Value<'a>) -> Result<(), Violation<'a>> {
    validate_with(schema, instance, &Options::DEFAULT)
}

/// Validates `instance` against `schema` within `options`.
pub fn validate_with<'a>(
    schema: Value<'a>,
    instance: Value<'a>,
    options: &Options,
) -> Result<(), Violation<'a>> {
    Validator::new(schema, instance, options).node(None, schema, instance, 0)
}

/// [`validate`](fn@validate) with what was read before: the keywords `plan` read from `schema` (see
/// [`Plan`]), and the members of `instance` (or of an object in it) noted while it was
/// scanned (see [`NotedMembers`]). The same outcome, without reading either again.
pub(crate) fn validate_prepared<'a>(
    schema: Value<'a>,
    plan: Option<&Plan>,
    instance: Value<'a>,
    noted: Option<&NotedMembers<'a>>,
) -> Result<(), Violation<'a>> {
    Validator::new(schema, instance, &Options::DEFAULT)
        .with_plan(plan)
        .with_noted(noted)
        .node(None, schema, instance, 0)
}

/// Checks a schema on its own: every subschema is an object or a boolean, every recognised
/// keyword has a value of the right type, and every `$ref` is local and resolves. Meant for
/// registration time, so that a tool with a broken `inputSchema` is caught before any call.
/// The [`Violation::path`] of an error leads into the schema.
pub fn check_schema<'a>(schema: Value<'a>, options: &Options) -> Result<(), Violation<'a>> {
    Validator::new(schema, schema, options).check(schema, 0)
}

#[cfg(test)]
mod tests;
