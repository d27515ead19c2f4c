//! Small text helpers: formatting into fixed buffers, fixed-point numbers, argument reading.

use core::fmt;

use snodo_core::json::{Value, Writer};
use snodo_core::server::Error;

/// Formats into a fixed buffer; fails (rather than truncating) when the text does not fit.
#[derive(Debug)]
pub struct FixedText<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> FixedText<'b> {
    /// Formats `args` into `buf`.
    pub fn format(buf: &'b mut [u8], args: fmt::Arguments<'_>) -> Result<&'b str, Error> {
        let mut text = FixedText { buf, len: 0 };
        fmt::write(&mut text, args).map_err(|_| Error::internal("a message does not fit"))?;
        let FixedText { buf, len } = text;
        core::str::from_utf8(&buf[..len]).map_err(|_| Error::internal("a message is not UTF-8"))
    }
}

impl fmt::Write for FixedText<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// A value in thousandths, shown with three decimals (`23125` as `23.125`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Milli(pub i64);

impl fmt::Display for Milli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let abs = self.0.unsigned_abs();
        let sign = if self.0 < 0 { "-" } else { "" };
        write!(f, "{sign}{}.{:03}", abs / 1000, abs % 1000)
    }
}

/// Writes milli-units as a JSON number with three decimals.
pub fn write_milli(w: &mut Writer<'_>, milli: i64) {
    let abs = milli.unsigned_abs();
    if milli < 0 {
        w.raw(b"-");
    }
    w.u64(abs / 1000);
    let frac = abs % 1000;
    w.raw(&[
        b'.',
        b'0' + (frac / 100) as u8,
        b'0' + (frac / 10 % 10) as u8,
        b'0' + (frac % 10) as u8,
    ]);
}

/// Largest magnitude accepted for a value given in units (a reference reading).
pub const MAX_UNITS: i64 = 1_000_000;

/// A JSON number as thousandths, rounded half away from zero; `None` beyond
/// ±[`MAX_UNITS`].
pub fn milli_of(value: Value<'_>) -> Option<i64> {
    value
        .as_number()?
        .to_fixed(3)
        .filter(|milli| milli.unsigned_abs() <= MAX_UNITS.unsigned_abs() * 1000)
}

/// An integer argument in `0..=max`. The schema admitted it, and JSON Schema counts `1.0` as
/// an integer, so integral non-integer literals (`1.0`, `1e0`) are accepted too.
pub fn small_int(value: Option<Value<'_>>, max: u8) -> Option<u8> {
    let number = value?.as_number()?;
    if !number.is_integral() {
        return None;
    }
    let n = number.to_fixed(0)?;
    u8::try_from(n).ok().filter(|&n| n <= max)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use snodo_core::json::{Limits, parse};

    #[test]
    fn milli_units_are_written_with_three_decimals() {
        for (milli, text) in [
            (23125, "23.125"),
            (0, "0.000"),
            (-500, "-0.500"),
            (3300, "3.300"),
            (i64::from(i32::MIN), "-2147483.648"),
        ] {
            let mut buf = [0u8; 32];
            let mut w = Writer::new(&mut buf);
            write_milli(&mut w, milli);
            let n = w.finish().unwrap();
            assert_eq!(&buf[..n], text.as_bytes());
            assert_eq!(std::format!("{}", Milli(milli)), text);
        }
    }

    #[test]
    fn numbers_become_thousandths() {
        for (text, milli) in [
            ("23", Some(23_000)),
            ("23.0004", Some(23_000)),
            ("23.0005", Some(23_001)),
            ("-0.125", Some(-125)),
            ("1e3", Some(1_000_000)),
            ("-1e6", Some(-1_000_000_000)),
            ("1000001", None),
            ("1000000.1", None),
            ("1e300", None),
            ("1e-300", Some(0)),
        ] {
            let value = parse(text.as_bytes(), &Limits::DEVICE).unwrap();
            assert_eq!(milli_of(value), milli, "{text}");
        }
    }

    #[test]
    fn small_integers_accept_integral_spellings() {
        for (text, want) in [
            ("3", Some(3)),
            ("3.0", Some(3)),
            ("3e0", Some(3)),
            ("30e-1", Some(3)),
            ("16", Some(16)),
            ("17", None),
            ("3.5", None),
            ("-1", None),
            ("1e400", None),
        ] {
            let value = parse(text.as_bytes(), &Limits::DEVICE).unwrap();
            assert_eq!(small_int(Some(value), 16), want, "{text}");
        }
    }

    #[test]
    fn fixed_text_refuses_to_truncate() {
        let mut buf = [0u8; 8];
        assert_eq!(
            FixedText::format(&mut buf, format_args!("{}", 1234)).unwrap(),
            "1234"
        );
        assert!(FixedText::format(&mut buf, format_args!("{}", "123456789")).is_err());
    }
}
