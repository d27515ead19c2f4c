//! Exact comparison of JSON number literals by numeric value.
//!
//! Going through `f64` would make `9007199254740993` equal to `9007199254740992` and would
//! lose literals beyond `f64`'s range, so literals are compared as decimals instead: the
//! significant digits (no leading or trailing zeros) and the power of ten of the first one.
//! Nothing is allocated; the digits stay slices of the literal.

use core::cmp::Ordering;

/// Exponents are clamped to this magnitude, far beyond anything a literal of at most
/// [`crate::json::Limits::MAX_NUMBER_LEN`] bytes can mean in practice, so that adding the
/// position of the decimal point can never overflow.
const EXP_CLAMP: i64 = 1 << 60;

/// A number literal as `0.DIGITS × 10^exp` with `DIGITS = head ++ tail`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decimal<'a> {
    negative: bool,
    /// First part of the significant digits; starts with a non-zero digit unless empty.
    head: &'a [u8],
    /// Second part of the significant digits; never ends with a zero.
    tail: &'a [u8],
    /// Power of ten of the digit just before the first significant digit.
    exp: i64,
}

/// Compares two number literals by value (`None` if either is not one). Integers of at
/// most [`SMALL_DIGITS`] digits, most bounds and arguments, are compared as `i64`s without
/// building [`Decimal`]s.
pub(crate) fn compare_literals(a: &[u8], b: &[u8]) -> Option<Ordering> {
    match (small_integer(a), small_integer(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => compare_decimals(a, b),
    }
}

/// [`compare_literals`] through [`Decimal`]s, out of line so that the integer path stays
/// small.
#[inline(never)]
fn compare_decimals(a: &[u8], b: &[u8]) -> Option<Ordering> {
    Some(Decimal::parse(a)?.compare(&Decimal::parse(b)?))
}

/// Most digits of an integer [`compare_literals`] reads as an `i64` (10¹⁸ − 1 fits).
const SMALL_DIGITS: usize = 18;

/// `literal` as an `i64`, if it is an optional minus and 1 to [`SMALL_DIGITS`] digits.
#[inline]
pub(crate) fn small_integer(literal: &[u8]) -> Option<i64> {
    let (negative, digits) = match literal.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, literal),
    };
    if digits.is_empty() || digits.len() > SMALL_DIGITS {
        return None;
    }
    let mut n: i64 = 0;
    for &digit in digits {
        if !digit.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(digit - b'0');
    }
    Some(if negative { -n } else { n })
}

impl<'a> Decimal<'a> {
    /// Reads a JSON number literal; `None` if it is not one.
    pub(crate) fn parse(literal: &'a [u8]) -> Option<Self> {
        let bytes = literal;
        let (negative, rest) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let (int, rest) = split_digits(rest);
        if int.is_empty() {
            return None;
        }
        let (frac, rest) = match rest.split_first() {
            Some((b'.', after)) => {
                let (frac, rest) = split_digits(after);
                if frac.is_empty() {
                    return None;
                }
                (frac, rest)
            }
            _ => (&rest[..0], rest),
        };
        let exp10 = match rest.split_first() {
            None => 0,
            Some((b'e' | b'E', after)) => parse_exponent(after)?,
            Some(_) => return None,
        };

        let int_sig = strip_leading_zeros(int);
        let (head, mut tail, point) = if int_sig.is_empty() {
            let frac_sig = strip_leading_zeros(frac);
            let zeros = frac.len() - frac_sig.len();
            (frac_sig, &frac[..0], -(zeros as i64))
        } else {
            (int_sig, frac, int_sig.len() as i64)
        };
        tail = strip_trailing_zeros(tail);
        let head = if tail.is_empty() {
            strip_trailing_zeros(head)
        } else {
            head
        };
        let zero = head.is_empty() && tail.is_empty();
        Some(Decimal {
            negative: negative && !zero,
            head,
            tail,
            exp: if zero { 0 } else { exp10.saturating_add(point) },
        })
    }

    fn is_zero(&self) -> bool {
        self.head.is_empty() && self.tail.is_empty()
    }

    fn signum(&self) -> i8 {
        match (self.is_zero(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    fn digit_count(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn digits(&self) -> impl Iterator<Item = u8> + 'a {
        self.head.iter().chain(self.tail.iter()).copied()
    }

    /// Whether the value is mathematically an integer (`2`, `2.0`, `20e-1` and `1e400` are).
    pub(crate) fn is_integral(&self) -> bool {
        self.is_zero() || self.exp >= self.digit_count() as i64
    }

    /// The value as a `u64` when it is a non-negative integer; values above `u64::MAX`
    /// saturate (they are used as lengths and counts, which can never get that far).
    pub(crate) fn to_u64_saturating(self) -> Option<u64> {
        if self.negative || !self.is_integral() {
            return None;
        }
        if self.is_zero() {
            return Some(0);
        }
        if self.exp > 20 {
            return Some(u64::MAX);
        }
        let mut value: u64 = 0;
        let mut digits = self.digits();
        for _ in 0..self.exp {
            let digit = u64::from(digits.next().map_or(0, |d| d.wrapping_sub(b'0')));
            value = match value.checked_mul(10).and_then(|v| v.checked_add(digit)) {
                Some(v) => v,
                None => return Some(u64::MAX),
            };
        }
        Some(value)
    }

    /// The value times `10^decimals`, rounded half away from zero (fixed point: `23.0005`
    /// with 3 decimals is `23001`), if that fits an `i64`. Exact: no `f64` in between.
    pub(crate) fn scaled_i64(self, decimals: u32) -> Option<i64> {
        if self.is_zero() {
            return Some(0);
        }
        // The value scaled is 0.DIGITS × 10^point: `point` digits before the decimal point.
        let point = self.exp.checked_add(i64::from(decimals))?;
        if point > 19 {
            return None;
        }
        let point = usize::try_from(point.max(0)).unwrap_or(0);
        let mut magnitude: u64 = 0;
        let mut digits = self.digits();
        for _ in 0..point {
            let digit = u64::from(digits.next().map_or(0, |d| d.wrapping_sub(b'0')));
            magnitude = magnitude.checked_mul(10)?.checked_add(digit)?;
        }
        // The rounding digit is the one after the point. A negative `point` means the scaled
        // value is below 0.1, which rounds to 0 (and the next digit is not the rounding one).
        let round_up = self.exp.saturating_add(i64::from(decimals)) >= 0
            && digits.next().is_some_and(|d| d >= b'5');
        if round_up {
            magnitude = magnitude.checked_add(1)?;
        }
        if self.negative {
            0i64.checked_sub_unsigned(magnitude)
        } else {
            i64::try_from(magnitude).ok()
        }
    }

    /// Total order by numeric value (`-0 == 0`, `1.0 == 1`, `1e2 == 100`).
    pub(crate) fn compare(&self, other: &Decimal<'_>) -> Ordering {
        let (a, b) = (self.signum(), other.signum());
        if a != b {
            return a.cmp(&b);
        }
        if a == 0 {
            return Ordering::Equal;
        }
        let magnitude = self
            .exp
            .cmp(&other.exp)
            .then_with(|| self.digits().cmp(other.digits()));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

fn split_digits(bytes: &[u8]) -> (&[u8], &[u8]) {
    let end = bytes
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len());
    bytes.split_at(end)
}

fn strip_leading_zeros(digits: &[u8]) -> &[u8] {
    let start = digits
        .iter()
        .position(|&d| d != b'0')
        .unwrap_or(digits.len());
    &digits[start..]
}

fn strip_trailing_zeros(digits: &[u8]) -> &[u8] {
    let end = digits.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
    &digits[..end]
}

/// The exponent after `e`, clamped to `±EXP_CLAMP`; `None` if malformed.
fn parse_exponent(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value: i64 = 0;
    for &d in digits {
        value = value
            .saturating_mul(10)
            .saturating_add(i64::from(d - b'0'))
            .min(EXP_CLAMP);
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Decimal<'_> {
        Decimal::parse(text.as_bytes()).expect(text)
    }

    fn cmp(a: &str, b: &str) -> Ordering {
        d(a).compare(&d(b))
    }

    #[test]
    fn equal_values_with_different_spellings() {
        for (a, b) in [
            ("0", "-0"),
            ("0", "0.000e99"),
            ("1", "1.0"),
            ("1", "10e-1"),
            ("100", "1e2"),
            ("100", "1E+2"),
            ("0.5", "5e-1"),
            ("-12.340", "-1234e-2"),
            ("120", "12e1"),
        ] {
            assert_eq!(cmp(a, b), Ordering::Equal, "{a} vs {b}");
        }
    }

    #[test]
    fn orders_by_value_exactly() {
        for (a, b) in [
            ("-1", "0"),
            ("-2", "-1"),
            ("0", "0.0001"),
            ("0.12", "0.123"),
            ("9007199254740992", "9007199254740993"),
            ("1e400", "1e401"),
            ("-1e401", "-1e400"),
            ("1e-400", "2e-400"),
            ("99", "100"),
            ("-100", "-99"),
            ("1e1152921504606846976", "2e1152921504606846976"),
        ] {
            assert_eq!(cmp(a, b), Ordering::Less, "{a} < {b}");
            assert_eq!(cmp(b, a), Ordering::Greater, "{b} > {a}");
        }
    }

    #[test]
    fn integral_and_u64() {
        for yes in ["0", "-0", "2", "2.0", "20e-1", "1e400", "-3", "1.5e1"] {
            assert!(d(yes).is_integral(), "{yes}");
        }
        for no in ["0.5", "2.1", "1e-1", "15e-1", "-0.25"] {
            assert!(!d(no).is_integral(), "{no}");
        }
        assert_eq!(d("3").to_u64_saturating(), Some(3));
        assert_eq!(d("3.0").to_u64_saturating(), Some(3));
        assert_eq!(d("120").to_u64_saturating(), Some(120));
        assert_eq!(d("0e5").to_u64_saturating(), Some(0));
        assert_eq!(d("1e30").to_u64_saturating(), Some(u64::MAX));
        assert_eq!(
            d("18446744073709551616").to_u64_saturating(),
            Some(u64::MAX)
        );
        assert_eq!(d("-1").to_u64_saturating(), None);
        assert_eq!(d("1.5").to_u64_saturating(), None);
    }

    #[test]
    fn fixed_point() {
        for (text, decimals, want) in [
            ("23", 3, Some(23_000)),
            ("23.0004", 3, Some(23_000)),
            ("23.0005", 3, Some(23_001)),
            ("-23.0005", 3, Some(-23_001)),
            ("-0.125", 3, Some(-125)),
            ("1e3", 3, Some(1_000_000)),
            ("0.0004", 3, Some(0)),
            ("0.0005", 3, Some(1)),
            ("0.00005", 3, Some(0)),
            ("4e-1", 0, Some(0)),
            ("5e-1", 0, Some(1)),
            ("-5e-1", 0, Some(-1)),
            ("1e-400", 3, Some(0)),
            ("0", 3, Some(0)),
            ("-0.0", 3, Some(0)),
            ("3.0", 0, Some(3)),
            ("9223372036854775807", 0, Some(i64::MAX)),
            ("-9223372036854775808", 0, Some(i64::MIN)),
            ("9223372036854775808", 0, None),
            ("9223372036854775807.5", 0, None),
            ("1e300", 3, None),
            ("1e19", 0, None),
        ] {
            assert_eq!(d(text).scaled_i64(decimals), want, "{text} × 10^{decimals}");
        }
    }

    #[test]
    fn refuses_non_literals() {
        for bad in ["", "-", "1.", ".5", "1e", "1e+", "abc", "1x", "--1"] {
            assert!(Decimal::parse(bad.as_bytes()).is_none(), "{bad}");
        }
    }

    #[test]
    fn literal_comparison_agrees_with_decimals() {
        // Small integers on both sides, one side past the `i64` fast path, and non-integers.
        let literals = [
            "0",
            "-0",
            "7",
            "-7",
            "100",
            "1e2",
            "99.5",
            "999999999999999999",
            "1000000000000000000",
            "-999999999999999999",
            "-1000000000000000000",
            "9223372036854775807",
            "9223372036854775808",
            "0.5",
            "-1",
        ];
        for a in literals {
            for b in literals {
                assert_eq!(
                    compare_literals(a.as_bytes(), b.as_bytes()),
                    Some(cmp(a, b)),
                    "{a} vs {b}"
                );
            }
        }
        assert_eq!(compare_literals(b"1", b"x"), None);
        assert_eq!(compare_literals(b"-", b"1"), None);
    }
}
