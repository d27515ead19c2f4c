//! Lazy, zero-copy views over JSON the scanner has validated.
//!
//! A [`Value`] is the exact text of one value. Looking inside it re-reads that text; nothing
//! is decoded or copied until asked for. The walking helpers here assume validated input but
//! stay total on any bytes: on something unexpected they stop, they never panic.

use super::decimal::{Decimal, compare_literals};
use super::skip::{skip_string, skip_value, skip_ws};
use super::string::JsonStr;

/// What kind of JSON value a [`Value`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Kind {
    /// `null`
    Null,
    /// `true` or `false`
    Bool,
    /// A number literal.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A view of one validated JSON value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Value<'a> {
    raw: &'a [u8],
}

impl core::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match core::str::from_utf8(self.raw) {
            Ok(text) => write!(f, "Value({text})"),
            Err(_) => write!(f, "Value({:?})", self.raw),
        }
    }
}

impl<'a> Value<'a> {
    pub(crate) fn from_validated(raw: &'a [u8]) -> Self {
        Value { raw }
    }

    /// The exact bytes of this value as they appeared in the input.
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The kind of this value.
    pub fn kind(&self) -> Kind {
        match self.raw.first() {
            Some(b'{') => Kind::Object,
            Some(b'[') => Kind::Array,
            Some(b'"') => Kind::String,
            Some(b't' | b'f') => Kind::Bool,
            Some(b'n') => Kind::Null,
            _ => Kind::Number,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.raw {
            b"true" => Some(true),
            b"false" => Some(false),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<JsonStr<'a>> {
        match self.raw {
            [b'"', inner @ .., b'"'] => Some(JsonStr::from_validated(inner)),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<Number<'a>> {
        // Kept as bytes: a literal the scanner accepted is ASCII, so it need not be checked
        // for UTF-8 again on every look.
        (self.kind() == Kind::Number).then_some(Number { raw: self.raw })
    }

    /// Shorthand: the value as an `i64` if it is an integer literal that fits.
    pub fn as_i64(&self) -> Option<i64> {
        // Read from the bytes: a number's text need not be checked for UTF-8 first.
        (self.kind() == Kind::Number)
            .then(|| integer_i64(self.raw))
            .flatten()
    }

    /// Shorthand: the value as a `u64` if it is an integer literal that fits.
    pub fn as_u64(&self) -> Option<u64> {
        (self.kind() == Kind::Number)
            .then(|| integer_u64(self.raw))
            .flatten()
    }

    /// Shorthand: the value as an `f64` if it is any number.
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(|n| n.as_f64())
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<Object<'a>> {
        (self.kind() == Kind::Object).then_some(Object { raw: self.raw })
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<Array<'a>> {
        (self.kind() == Kind::Array).then_some(Array { raw: self.raw })
    }

    /// The member `key` if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.as_object().and_then(|o| o.get(key))
    }
}

/// A number kept as its literal, so the integer/float distinction and every digit survive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    /// The literal's bytes (ASCII, as the scanner accepted them).
    raw: &'a [u8],
}

impl core::fmt::Debug for Number<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Number")
            .field("raw", &self.literal())
            .finish()
    }
}

impl<'a> Number<'a> {
    /// The literal exactly as written.
    pub fn literal(&self) -> &'a str {
        // Always ASCII: the scanner accepts nothing else in a number.
        core::str::from_utf8(self.raw).unwrap_or_default()
    }

    /// The literal's bytes, for readers that need no `str` (and no UTF-8 check to get one).
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.raw
    }

    /// Whether the literal has neither a fraction nor an exponent.
    pub fn is_integer_literal(&self) -> bool {
        !self.raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
    }

    /// The value as an `i64`, for an integer literal in range.
    pub fn as_i64(&self) -> Option<i64> {
        integer_i64(self.raw)
    }

    /// The value as a `u64`, for a non-negative integer literal in range.
    pub fn as_u64(&self) -> Option<u64> {
        integer_u64(self.raw)
    }

    /// The value as an `f64` (finite; huge literals saturate to infinity and are refused).
    pub fn as_f64(&self) -> Option<f64> {
        self.literal().parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// Whether the value is mathematically an integer (`2`, `2.0`, `2e0` and `1e400` all
    /// are). Decided on the digits, so it needs no floating point.
    pub fn is_integral(&self) -> bool {
        self.is_integer_literal() || Decimal::parse(self.raw).is_some_and(|d| d.is_integral())
    }

    /// The value in fixed point: times `10^decimals`, rounded half away from zero, if that
    /// fits an `i64` (`23.0005` with 3 decimals is `23001`; `3.0` with 0 is `3`). Exact, and
    /// without floating point, which a microcontroller may not have.
    ///
    /// ```
    /// # use snodo_core::json::{Limits, parse};
    /// let n = parse(b"-1.2345", &Limits::default()).unwrap().as_number().unwrap();
    /// assert_eq!(n.to_fixed(3), Some(-1235));
    /// assert_eq!(n.to_fixed(30), None);
    /// ```
    pub fn to_fixed(&self, decimals: u32) -> Option<i64> {
        Decimal::parse(self.raw)?.scaled_i64(decimals)
    }

    /// Orders two numbers by value, exactly (`1.0 == 1`, `1e2 == 100`, and
    /// `9007199254740993 > 9007199254740992`, which `f64` would call equal).
    pub fn cmp_value(&self, other: &Number<'_>) -> core::cmp::Ordering {
        // Both literals passed the scanner, so both parse; equal is the unreachable fallback.
        compare_literals(self.raw, other.raw).unwrap_or(core::cmp::Ordering::Equal)
    }
}

/// The integer a literal of only decimal digits spells, if it fits a `u64` (anything else,
/// a fraction, an exponent or a sign, is `None`). Ids and counts are read with this: it is
/// a few instructions a digit, where `str::parse` first checks the text for UTF-8 and signs.
fn integer_u64(literal: &[u8]) -> Option<u64> {
    if literal.is_empty() {
        return None;
    }
    let mut n: u64 = 0;
    for &d in literal {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

/// The integer an integer literal (digits, after an optional minus) spells, if it fits an
/// `i64`.
fn integer_i64(literal: &[u8]) -> Option<i64> {
    match literal.split_first() {
        Some((b'-', digits)) => {
            let magnitude = integer_u64(digits)?;
            0i64.checked_sub_unsigned(magnitude)
        }
        _ => i64::try_from(integer_u64(literal)?).ok(),
    }
}

/// A view of a validated object.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Object<'a> {
    raw: &'a [u8],
}

impl core::fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        Value::from_validated(self.raw).fmt(f)
    }
}

impl<'a> Object<'a> {
    /// `{}`.
    pub const EMPTY: Object<'static> = Object { raw: b"{}" };

    /// The members in document order.
    pub fn iter(&self) -> Members<'a> {
        Members {
            b: self.raw,
            i: 1,
            done: false,
        }
    }

    /// The value of `key`, comparing after unescaping.
    pub fn get(&self, key: &str) -> Option<Value<'a>> {
        self.iter().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// This object as a [`Value`].
    pub fn as_value(&self) -> Value<'a> {
        Value::from_validated(self.raw)
    }
}

impl<'a> IntoIterator for Object<'a> {
    type Item = (JsonStr<'a>, Value<'a>);
    type IntoIter = Members<'a>;
    fn into_iter(self) -> Members<'a> {
        self.iter()
    }
}

/// Iterator over an object's members.
#[derive(Clone, Debug)]
pub struct Members<'a> {
    b: &'a [u8],
    i: usize,
    done: bool,
}

impl<'a> Members<'a> {
    /// Where the next member starts, in bytes from the object's opening brace (the object's
    /// length once every member has been read).
    pub(crate) fn offset(&self) -> usize {
        if self.done { self.b.len() } else { self.i }
    }

    /// Where the walk stands, in bytes from the object's opening brace: just past the
    /// closing brace once the last member has been read.
    pub(crate) fn position(&self) -> usize {
        self.i
    }

    /// The next member, its value's end found by `skip` (given the key, the text and where
    /// the value starts) instead of by skipping it: for a caller that walks the value anyway.
    pub(crate) fn next_with(
        &mut self,
        skip: impl FnOnce(JsonStr<'a>, &'a [u8], usize) -> Option<usize>,
    ) -> Option<(JsonStr<'a>, Value<'a>)> {
        if self.done {
            return None;
        }
        let step = (|| {
            let i = skip_ws(self.b, self.i);
            if self.b.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = skip_string(self.b, i)?;
            let key = JsonStr::from_validated(self.b.get(i + 1..key_end - 1)?);
            let colon = skip_ws(self.b, key_end);
            if self.b.get(colon) != Some(&b':') {
                return None;
            }
            let v_start = skip_ws(self.b, colon + 1);
            let v_end = skip(key, self.b, v_start)?;
            let value = Value::from_validated(self.b.get(v_start..v_end)?);
            let after = skip_ws(self.b, v_end);
            self.i = after + 1;
            if self.b.get(after) != Some(&b',') {
                self.done = true;
            }
            Some((key, value))
        })();
        if step.is_none() {
            self.done = true;
        }
        step
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (JsonStr<'a>, Value<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.next_with(|_, b, start| skip_value(b, start))
    }
}

/// A view of a validated array.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Array<'a> {
    raw: &'a [u8],
}

impl core::fmt::Debug for Array<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        Value::from_validated(self.raw).fmt(f)
    }
}

impl<'a> Array<'a> {
    /// The items in order.
    pub fn iter(&self) -> Items<'a> {
        Items {
            b: self.raw,
            i: 1,
            done: false,
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether the array has no items.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// The item at `index`.
    pub fn get(&self, index: usize) -> Option<Value<'a>> {
        self.iter().nth(index)
    }

    /// This array as a [`Value`].
    pub fn as_value(&self) -> Value<'a> {
        Value::from_validated(self.raw)
    }
}

impl<'a> IntoIterator for Array<'a> {
    type Item = Value<'a>;
    type IntoIter = Items<'a>;
    fn into_iter(self) -> Items<'a> {
        self.iter()
    }
}

/// Iterator over an array's items.
#[derive(Clone, Debug)]
pub struct Items<'a> {
    b: &'a [u8],
    i: usize,
    done: bool,
}

impl<'a> Iterator for Items<'a> {
    type Item = Value<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let start = skip_ws(self.b, self.i);
        let step = match self.b.get(start) {
            None | Some(b']') => None,
            Some(_) => skip_value(self.b, start).and_then(|end| {
                let value = Value::from_validated(self.b.get(start..end)?);
                let after = skip_ws(self.b, end);
                self.i = after + 1;
                if self.b.get(after) != Some(&b',') {
                    self.done = true;
                }
                Some(value)
            }),
        };
        if step.is_none() {
            self.done = true;
        }
        step
    }
}

/// Walks the keys of a validated object prefix (used by the scanner's duplicate check).
pub(crate) struct PrefixMembers<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> PrefixMembers<'a> {
    pub(crate) fn new(object: &'a [u8]) -> Self {
        PrefixMembers { b: object, i: 1 }
    }

    pub(crate) fn next_key(&mut self) -> Option<JsonStr<'a>> {
        let i = skip_ws(self.b, self.i);
        if self.b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = skip_string(self.b, i)?;
        let key = JsonStr::from_validated(self.b.get(i + 1..key_end - 1)?);
        let colon = skip_ws(self.b, key_end);
        if self.b.get(colon) == Some(&b':') {
            let v_start = skip_ws(self.b, colon + 1);
            let after = skip_ws(self.b, skip_value(self.b, v_start)?);
            self.i = after + 1;
        } else {
            // The key being checked: nothing follows it yet.
            self.i = self.b.len();
        }
        Some(key)
    }
}
