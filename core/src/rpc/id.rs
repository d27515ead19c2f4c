//! Request ids.

use crate::json::{JsonStr, Value, Writer};

/// A request id: a string of at most [`Id::MAX_STR_LEN`] bytes or a 64-bit integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id<'a> {
    /// An integer id.
    Num(i64),
    /// A string id, still escaped as it arrived.
    Str(JsonStr<'a>),
}

impl<'a> Id<'a> {
    /// Longest string id accepted, in bytes of its decoded text.
    pub const MAX_STR_LEN: usize = 256;

    /// Reads an id, or `None` when the value is not an acceptable id.
    pub fn from_value(v: Value<'a>) -> Option<Self> {
        if let Some(s) = v.as_str() {
            return (s.decoded_len() <= Self::MAX_STR_LEN).then_some(Id::Str(s));
        }
        v.as_i64().map(Id::Num)
    }

    /// Writes the id as JSON.
    pub fn write(&self, w: &mut Writer<'_>) {
        match self {
            Id::Num(n) => {
                w.i64(*n);
            }
            Id::Str(s) => {
                w.json_str(*s);
            }
        }
    }
}
