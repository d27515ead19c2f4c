//! JSON for untrusted input without a heap: a validating scanner, lazy views and a writer.
//!
//! [`parse`] checks a whole document once — size, depth, UTF-8, number bounds, duplicate
//! keys — and returns a [`Value`] view. Views borrow the input and decode only on demand.
//! [`Writer`] writes ASCII JSON into a caller-owned buffer.

mod canonical;
mod decimal;
mod scan;
mod skip;
mod string;
mod value;
mod within;
mod write;

pub use canonical::*;
pub(crate) use decimal::{Decimal, compare_literals, small_integer};
pub use scan::{JsonError, Limits, parse};
pub(crate) use scan::{Key, Unseen, Visitor, parse_visiting, view_accepted};
pub(crate) use skip::{same_bytes, skip_value};
pub use string::{Chars, JsonStr};
pub use value::{Array, Items, Kind, Members, Number, Object, Value};
pub(crate) use within::range_in;
pub use write::{ArrayWriter, BufferTooSmall, JsonNumber, ObjectWriter, Writer};

#[cfg(test)]
mod tests;
