//! What a failed validation reports: why ([`Reason`]) and where ([`Path`]).

use core::fmt;

use crate::json::{Array, JsonStr, Kind, Number, Value};

use super::format::Format;
use super::lookup::span;
use super::types::TypeSet;

/// Why a value does not satisfy its schema, or why the schema could not be applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason<'a> {
    /// `type`: the value is of none of these types.
    Type {
        /// The types the schema allows.
        expected: TypeSet,
    },
    /// `enum`: the value equals none of these.
    Enum {
        /// The schema's `enum` array.
        allowed: Array<'a>,
    },
    /// `const`: the value differs from this one.
    Const {
        /// The schema's `const` value.
        expected: Value<'a>,
    },
    /// `minimum` (`>=`) or `exclusiveMinimum` (`>`).
    Minimum {
        /// The bound as written in the schema.
        limit: Number<'a>,
        /// Whether the bound itself is excluded.
        exclusive: bool,
    },
    /// `maximum` (`<=`) or `exclusiveMaximum` (`<`).
    Maximum {
        /// The bound as written in the schema.
        limit: Number<'a>,
        /// Whether the bound itself is excluded.
        exclusive: bool,
    },
    /// `minLength`, in Unicode code points.
    MinLength {
        /// The least number of characters allowed.
        limit: u64,
    },
    /// `maxLength`, in Unicode code points.
    MaxLength {
        /// The most characters allowed.
        limit: u64,
    },
    /// `minItems`.
    MinItems {
        /// The least number of items allowed.
        limit: u64,
    },
    /// `maxItems`.
    MaxItems {
        /// The most items allowed.
        limit: u64,
    },
    /// `uniqueItems`: two items are equal.
    UniqueItems,
    /// `format`, asserted ([`Options::assert_formats`](super::Options::assert_formats)):
    /// the string is not of the format.
    Format {
        /// The format it must have.
        format: Format,
    },
    /// `minProperties`.
    MinProperties {
        /// The least number of members allowed.
        limit: u64,
    },
    /// `maxProperties`.
    MaxProperties {
        /// The most members allowed.
        limit: u64,
    },
    /// `required`: this member is missing (the [`Path`] ends with its name).
    Required {
        /// The missing member's name, from the schema.
        name: JsonStr<'a>,
    },
    /// `additionalProperties: false`, or the schema `false`: no value is allowed here.
    NotAllowed,
    /// `anyOf`: the value matches none of the alternatives.
    AnyOf,
    /// `oneOf`: the value matches none of the alternatives.
    OneOfNone,
    /// `oneOf`: the value matches more than one alternative.
    OneOfSeveral,
    /// `not`: the value matches the negated schema.
    Not,
    /// The schema is malformed: `keyword` has a value of the wrong type, or (when `keyword`
    /// is empty) a schema is neither an object nor a boolean.
    BadSchema {
        /// The offending keyword, or `""` for the schema itself.
        keyword: &'static str,
    },
    /// A `$ref` that is not a local JSON pointer (`#`, `#/$defs/NAME`, ...). Nothing is ever
    /// fetched.
    UnsupportedRef {
        /// The reference as written.
        reference: JsonStr<'a>,
    },
    /// A local `$ref` that points at nothing in the root schema.
    UnresolvedRef {
        /// The reference as written.
        reference: JsonStr<'a>,
    },
    /// Schemas nested (or `$ref`s followed) deeper than [`super::Options::max_depth`].
    TooDeep,
    /// Evaluation took more than [`super::Options::max_steps`] steps.
    TooComplex,
}

impl Reason<'_> {
    /// Whether this is a problem of the schema (or of the validator's bounds) rather than of
    /// the value: an application bug, not a caller's mistake.
    pub fn is_schema_error(&self) -> bool {
        matches!(
            self,
            Reason::BadSchema { .. }
                | Reason::UnsupportedRef { .. }
                | Reason::UnresolvedRef { .. }
                | Reason::TooDeep
                | Reason::TooComplex
        )
    }
}

/// Values longer than this are not quoted in messages.
const QUOTE_MAX: usize = 80;

/// Writes a scalar value's literal (ASCII-only values with no line breaks).
fn quotable(v: Value<'_>) -> bool {
    !matches!(v.kind(), Kind::Object | Kind::Array)
        && v.raw().len() <= QUOTE_MAX
        && v.raw().iter().all(|b| (0x20..0x7f).contains(b))
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn write_text(f: &mut fmt::Formatter<'_>, s: JsonStr<'_>) -> fmt::Result {
    for c in s.chars() {
        fmt::Write::write_char(f, c)?;
    }
    Ok(())
}

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reason::Type { expected } => write!(f, "must be {expected}"),
            Reason::Enum { allowed } => {
                let short = allowed.as_value().raw().len() <= QUOTE_MAX
                    && !allowed.is_empty()
                    && allowed.iter().all(quotable);
                if !short {
                    return f.write_str("must be one of the allowed values");
                }
                f.write_str("must be one of ")?;
                for (i, item) in allowed.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(core::str::from_utf8(item.raw()).unwrap_or("?"))?;
                }
                Ok(())
            }
            Reason::Const { expected } => {
                if quotable(expected) {
                    f.write_str("must be ")?;
                    f.write_str(core::str::from_utf8(expected.raw()).unwrap_or("?"))
                } else {
                    f.write_str("must equal the constant value")
                }
            }
            Reason::Minimum { limit, exclusive } => {
                let op = if exclusive { ">" } else { ">=" };
                write!(f, "must be {op} {}", limit.literal())
            }
            Reason::Maximum { limit, exclusive } => {
                let op = if exclusive { "<" } else { "<=" };
                write!(f, "must be {op} {}", limit.literal())
            }
            Reason::MinLength { limit } => {
                write!(
                    f,
                    "must be at least {limit} character{} long",
                    plural(limit)
                )
            }
            Reason::MaxLength { limit } => {
                write!(f, "must be at most {limit} character{} long", plural(limit))
            }
            Reason::MinItems { limit } => {
                write!(f, "must have at least {limit} item{}", plural(limit))
            }
            Reason::MaxItems { limit } => {
                write!(f, "must have at most {limit} item{}", plural(limit))
            }
            Reason::UniqueItems => f.write_str("must not contain duplicate items"),
            Reason::Format { format } => write!(f, "must be a valid {}", format.name()),
            Reason::MinProperties { limit } => {
                write!(f, "must have at least {limit} member{}", plural(limit))
            }
            Reason::MaxProperties { limit } => {
                write!(f, "must have at most {limit} member{}", plural(limit))
            }
            Reason::Required { .. } => f.write_str("is required"),
            Reason::NotAllowed => f.write_str("is not allowed"),
            Reason::AnyOf => f.write_str("must match at least one of the allowed schemas"),
            Reason::OneOfNone => {
                f.write_str("must match exactly one schema of oneOf, matched none")
            }
            Reason::OneOfSeveral => {
                f.write_str("must match exactly one schema of oneOf, matched several")
            }
            Reason::Not => f.write_str("must not match the schema of not"),
            Reason::BadSchema { keyword: "" } => {
                f.write_str("a schema is neither an object nor a boolean")
            }
            Reason::BadSchema { keyword } => write!(f, "keyword \"{keyword}\" is malformed"),
            Reason::UnsupportedRef { reference } => {
                f.write_str("unsupported $ref \"")?;
                write_text(f, reference)?;
                f.write_str("\"")
            }
            Reason::UnresolvedRef { reference } => {
                f.write_str("$ref \"")?;
                write_text(f, reference)?;
                f.write_str("\" does not resolve")
            }
            Reason::TooDeep => f.write_str("nested too deeply"),
            Reason::TooComplex => f.write_str("too costly to evaluate"),
        }
    }
}

/// A failed validation: the [`Reason`] and the value it is about.
///
/// `Display` writes a short message meant for a tool error result, e.g.
/// `argument "count": must be >= 1`, `argument "name": is required`,
/// `argument "tags"[2]: must be string`, `arguments: must be object`, or, for a problem of the
/// schema itself, `invalid schema: unsupported $ref "https://example.com/s.json"`. Compose
/// [`Violation::path`] and [`Violation::reason`] for other wordings (structured output, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violation<'a> {
    reason: Reason<'a>,
    root: Value<'a>,
    at: Value<'a>,
}

impl<'a> Violation<'a> {
    pub(crate) fn new(reason: Reason<'a>, root: Value<'a>, at: Value<'a>) -> Self {
        Violation { reason, root, at }
    }

    /// Why validation failed.
    pub fn reason(&self) -> Reason<'a> {
        self.reason
    }

    /// The offending value (for [`Reason::Required`], the object that lacks the member).
    pub fn value(&self) -> Value<'a> {
        self.at
    }

    /// Where the offending value sits: in the instance for [`validate`](fn@super::validate), in the schema
    /// for [`super::check_schema`].
    pub fn path(&self) -> Path<'a> {
        let then = match self.reason {
            Reason::Required { name } => Some(name),
            _ => None,
        };
        Path {
            root: self.root,
            at: self.at,
            then,
        }
    }

    /// Shorthand for `self.reason().is_schema_error()`.
    pub fn is_schema_error(&self) -> bool {
        self.reason.is_schema_error()
    }
}

impl fmt::Display for Violation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_schema_error() {
            return write!(f, "invalid schema: {}", self.reason);
        }
        let path = self.path();
        if path.is_root() {
            write!(f, "arguments: {}", self.reason)
        } else {
            write!(f, "argument {path}: {}", self.reason)
        }
    }
}

/// One step from a container to a value inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment<'a> {
    /// An object member, by name.
    Key(JsonStr<'a>),
    /// An array item, by position.
    Index(usize),
}

/// Where a [`Violation`] happened, found lazily by walking from the root to the offending
/// value (no storage needed, however deep).
///
/// `Display` writes the segments as `"config"."retries"[2]` (nothing at the root).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path<'a> {
    root: Value<'a>,
    at: Value<'a>,
    then: Option<JsonStr<'a>>,
}

impl<'a> Path<'a> {
    /// The steps from the root, outermost first.
    pub fn segments(&self) -> Segments<'a> {
        Segments {
            root: self.root,
            node: Some(self.root),
            target: span(self.root, self.at),
            then: self.then,
        }
    }

    /// Whether the path has no segments.
    pub fn is_root(&self) -> bool {
        self.segments().next().is_none()
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.segments().enumerate() {
            match segment {
                Segment::Key(key) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    write!(f, "{key:?}")?;
                }
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Iterator over the [`Segment`]s of a [`Path`].
#[derive(Clone, Debug)]
pub struct Segments<'a> {
    root: Value<'a>,
    /// The value reached so far; `None` once the target is reached (or cannot be).
    node: Option<Value<'a>>,
    /// The target's byte range within the root; `None` if it is not inside it.
    target: Option<(usize, usize)>,
    /// A member name to yield after the target (the missing member of `required`).
    then: Option<JsonStr<'a>>,
}

impl<'a> Iterator for Segments<'a> {
    type Item = Segment<'a>;

    fn next(&mut self) -> Option<Segment<'a>> {
        let Some(node) = self.node else {
            return self.then.take().map(Segment::Key);
        };
        let Some((start, end)) = self.target else {
            self.node = None;
            return self.then.take().map(Segment::Key);
        };
        if span(self.root, node) == Some((start, end)) {
            self.node = None;
            return self.then.take().map(Segment::Key);
        }
        let root = self.root;
        let contains = |v: Value<'a>| span(root, v).is_some_and(|(s, e)| s <= start && end <= e);
        let found = if let Some(object) = node.as_object() {
            object
                .iter()
                .find(|&(_, v)| contains(v))
                .map(|(k, v)| (Segment::Key(k), v))
        } else if let Some(array) = node.as_array() {
            array
                .iter()
                .enumerate()
                .find(|&(_, v)| contains(v))
                .map(|(i, v)| (Segment::Index(i), v))
        } else {
            None
        };
        match found {
            Some((segment, child)) => {
                self.node = Some(child);
                Some(segment)
            }
            None => {
                // Not reachable for a violation the validator made; stop rather than guess.
                self.node = None;
                self.then = None;
                None
            }
        }
    }
}
