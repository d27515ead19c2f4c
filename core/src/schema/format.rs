//! Syntactic checks of the four string formats a form elicitation may name, which the
//! validator asserts when [`Options::assert_formats`](super::Options::assert_formats) is set.
//!
//! These are deliberately simple, documented checks of shape, not full RFC validation and
//! certainly not service validation (an address that passes may not receive mail, a URI that
//! passes may not resolve). They exist so that an accepted form answer has the shape its
//! schema promised, and so that a schema's `default` does too:
//!
//! - [`is_email`]: exactly one `@`; a non-empty local part; a domain of dot-separated
//!   non-empty labels with at least one dot (`a@b.c`); no whitespace or control characters.
//!   Quoted local parts, comments and address literals are not recognised.
//! - [`is_uri`]: an RFC 3986 scheme `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, then `:`,
//!   then at least one more character; no whitespace or control characters. The rest of the
//!   generic syntax (authority, percent-encoding) is not checked.
//! - [`is_date`]: RFC 3339 `full-date` `YYYY-MM-DD` with a month of 01–12 and a day that
//!   exists in that month, leap years included (Gregorian rules, years 0000–9999).
//! - [`is_date_time`]: RFC 3339 `date-time`: a full date, `T`, `HH:MM:SS` (hour 00–23, minute
//!   00–59, second 00–60 to admit a leap second, which is not checked against the leap second
//!   table), an optional fraction `.` followed by digits, then `Z` or a `+HH:MM`/`-HH:MM`
//!   offset. As RFC 3339 allows, `t` and `z` may be lower case.
//!
//! Each check reads text through [`Text`], so it works on a `&str` and on a [`JsonStr`]
//! straight from a parsed document (escapes decoded on the fly, nothing copied).

use crate::json::{Chars, JsonStr};

/// Text a format check can read one decoded character at a time.
pub trait Text: Copy {
    /// The characters of the text.
    type Chars: Iterator<Item = char>;
    /// Iterates over the decoded characters.
    fn text_chars(self) -> Self::Chars;
}

impl<'a> Text for &'a str {
    type Chars = core::str::Chars<'a>;
    fn text_chars(self) -> Self::Chars {
        self.chars()
    }
}

impl<'a> Text for JsonStr<'a> {
    type Chars = Chars<'a>;
    fn text_chars(self) -> Self::Chars {
        self.chars()
    }
}

/// A `format` a form string property may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Format {
    /// `email`, checked by [`is_email`].
    Email,
    /// `uri`, checked by [`is_uri`].
    Uri,
    /// `date`, checked by [`is_date`].
    Date,
    /// `date-time`, checked by [`is_date_time`].
    DateTime,
}

impl Format {
    /// Every format, in the order the spec lists them.
    pub const ALL: [Format; 4] = [Format::Email, Format::Uri, Format::Date, Format::DateTime];

    /// The format's name as it appears in a schema.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    /// The format named `name`, if it is one of the four.
    pub fn from_name<T: Text>(name: T) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| name.text_chars().eq(f.name().chars()))
    }

    /// Whether `s` has the shape this format describes.
    pub fn check<T: Text>(self, s: T) -> bool {
        match self {
            Format::Email => is_email(s),
            Format::Uri => is_uri(s),
            Format::Date => is_date(s),
            Format::DateTime => is_date_time(s),
        }
    }
}

/// Whitespace and control characters never appear in any of the formats.
fn is_blank(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// `local@domain`: one `@`, a non-empty local part, a domain of non-empty dot-separated
/// labels with at least one dot, and no whitespace or control characters anywhere.
pub fn is_email<T: Text>(s: T) -> bool {
    let mut local_len = 0usize;
    let mut seen_at = false;
    // In the domain: its length, whether a dot occurred, and the previous character.
    let mut domain_len = 0usize;
    let mut dotted = false;
    let mut prev = '@';
    for c in s.text_chars() {
        if is_blank(c) {
            return false;
        }
        if !seen_at {
            if c == '@' {
                seen_at = true;
            } else {
                local_len += 1;
            }
            continue;
        }
        match c {
            '@' => return false,
            // A dot may not start the domain nor follow another dot.
            '.' if prev == '@' || prev == '.' => return false,
            '.' => dotted = true,
            _ => {}
        }
        domain_len += 1;
        prev = c;
    }
    seen_at && local_len > 0 && domain_len > 0 && dotted && prev != '.'
}

/// `scheme:rest` with an RFC 3986 scheme, a non-empty rest, and no whitespace or control
/// characters.
pub fn is_uri<T: Text>(s: T) -> bool {
    let mut chars = s.text_chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphabetic()) {
        return false;
    }
    loop {
        match chars.next() {
            Some(':') => break,
            Some(c) if c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.') => {}
            _ => return false,
        }
    }
    let mut rest = 0usize;
    for c in chars {
        if is_blank(c) {
            return false;
        }
        rest += 1;
    }
    rest > 0
}

/// `YYYY-MM-DD` naming a day that exists.
pub fn is_date<T: Text>(s: T) -> bool {
    let mut chars = s.text_chars();
    full_date(&mut chars).is_some() && chars.next().is_none()
}

/// `YYYY-MM-DD` `T` `HH:MM:SS` [`.` digits] (`Z` / `±HH:MM`).
pub fn is_date_time<T: Text>(s: T) -> bool {
    let mut chars = s.text_chars();
    date_time(&mut chars).is_some() && chars.next().is_none()
}

fn date_time(chars: &mut impl Iterator<Item = char>) -> Option<()> {
    full_date(chars)?;
    if !matches!(chars.next()?, 'T' | 't') {
        return None;
    }
    hour_minute(chars)?;
    expect(chars, ':')?;
    if digits(chars, 2)? > 60 {
        return None;
    }
    let mut next = chars.next()?;
    if next == '.' {
        // At least one digit, then whatever follows the digits is the offset.
        digits(chars, 1)?;
        next = chars.next()?;
        while next.is_ascii_digit() {
            next = chars.next()?;
        }
    }
    match next {
        'Z' | 'z' => Some(()),
        '+' | '-' => hour_minute(chars),
        _ => None,
    }
}

/// `YYYY-MM-DD` with a real month and day.
fn full_date(chars: &mut impl Iterator<Item = char>) -> Option<()> {
    let year = digits(chars, 4)?;
    expect(chars, '-')?;
    let month = digits(chars, 2)?;
    expect(chars, '-')?;
    let day = digits(chars, 2)?;
    let valid = (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month);
    valid.then_some(())
}

/// `HH:MM` with hour 00–23 and minute 00–59 (a time's start, and a numeric offset).
fn hour_minute(chars: &mut impl Iterator<Item = char>) -> Option<()> {
    let hour = digits(chars, 2)?;
    expect(chars, ':')?;
    let minute = digits(chars, 2)?;
    (hour <= 23 && minute <= 59).then_some(())
}

/// Days in `month` (1–12) of the Gregorian `year`.
fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Gregorian leap years: every fourth year, except centuries not divisible by 400.
fn is_leap_year(year: u32) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Exactly `n` ASCII digits (n ≤ 4 here) as a number.
fn digits(chars: &mut impl Iterator<Item = char>, n: usize) -> Option<u32> {
    let mut value = 0u32;
    for _ in 0..n {
        let digit = chars.next()?.to_digit(10)?;
        value = value * 10 + digit;
    }
    Some(value)
}

fn expect(chars: &mut impl Iterator<Item = char>, want: char) -> Option<()> {
    (chars.next()? == want).then_some(())
}

#[cfg(test)]
mod tests;
