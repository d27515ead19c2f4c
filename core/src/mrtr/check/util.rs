//! Small predicates the checks share: optional members of a given kind, and counts.

use crate::json::{Decimal, Object, Value, compare_literals};

/// Whether `v` is present and a string.
pub(super) fn is_str(v: Option<Value<'_>>) -> bool {
    v.is_some_and(|v| v.as_str().is_some())
}

/// Whether `key` is absent from `o` or a string.
pub(super) fn opt_str(o: Object<'_>, key: &str) -> bool {
    o.get(key).is_none_or(|v| v.as_str().is_some())
}

/// Whether `key` is absent from `o` or an object.
pub(super) fn opt_object(o: Object<'_>, key: &str) -> bool {
    o.get(key).is_none_or(|v| v.as_object().is_some())
}

/// Whether `key` is absent from `o` or a boolean.
pub(super) fn opt_bool(o: Object<'_>, key: &str) -> bool {
    o.get(key).is_none_or(|v| v.as_bool().is_some())
}

/// Whether `v` is a string equal to one of `names`.
pub(super) fn is_one_of(v: Value<'_>, names: &[&str]) -> bool {
    v.as_str()
        .is_some_and(|s| names.iter().any(|name| s.eq_str(name)))
}

/// Whether every member of `o` is named in `allowed` (for schemas that refuse the rest).
pub(super) fn only_keys(o: Object<'_>, allowed: &[&str]) -> bool {
    o.iter()
        .all(|(key, _)| allowed.iter().any(|name| key.eq_str(name)))
}

/// Whether `v` is a number from 0 to 1 inclusive (a priority), compared exactly.
pub(super) fn in_unit_interval(v: Value<'_>) -> bool {
    v.as_number().is_some_and(|n| {
        let b = n.bytes();
        compare_literals(b, b"0").is_some_and(|o| o.is_ge())
            && compare_literals(b, b"1").is_some_and(|o| o.is_le())
    })
}

/// A non-negative integral number (`3`, `3.0` and `3e0` alike), as a count. Integers beyond
/// `u64` saturate: no string or array that fits in memory is that long anyway.
pub(super) fn count(v: Value<'_>) -> Option<u64> {
    let n = v.as_number()?;
    n.as_u64()
        .or_else(|| Decimal::parse(n.bytes())?.to_u64_saturating())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    fn v(text: &str) -> Value<'_> {
        parse(text.as_bytes(), &Limits::default()).unwrap()
    }

    #[test]
    fn counts_are_non_negative_integers() {
        assert_eq!(count(v("0")), Some(0));
        assert_eq!(count(v("-0")), Some(0));
        assert_eq!(count(v("7")), Some(7));
        assert_eq!(count(v("7.0")), Some(7));
        assert_eq!(count(v("7e0")), Some(7));
        assert_eq!(count(v("1e2")), Some(100));
        assert_eq!(count(v("99999999999999999999999")), Some(u64::MAX));
        assert_eq!(count(v("1e400")), Some(u64::MAX));
        assert_eq!(count(v("-1")), None);
        assert_eq!(count(v("-99999999999999999999999")), None);
        assert_eq!(count(v("1.5")), None);
        assert_eq!(count(v("\"1\"")), None);
        assert_eq!(count(v("null")), None);
    }

    #[test]
    fn unit_interval() {
        for yes in ["0", "-0", "0.5", "1", "1.0", "10e-1", "0e5"] {
            assert!(in_unit_interval(v(yes)), "{yes}");
        }
        for no in [
            "-0.0001",
            "1.0000000000000000001",
            "2",
            "1e400",
            "\"0.5\"",
            "null",
        ] {
            assert!(!in_unit_interval(v(no)), "{no}");
        }
    }

    #[test]
    fn optional_members() {
        let o = v(r#"{"s":"x","o":{},"b":true,"n":1}"#).as_object().unwrap();
        assert!(opt_str(o, "s") && opt_str(o, "missing") && !opt_str(o, "n"));
        assert!(opt_object(o, "o") && opt_object(o, "missing") && !opt_object(o, "s"));
        assert!(opt_bool(o, "b") && opt_bool(o, "missing") && !opt_bool(o, "n"));
        assert!(is_str(o.get("s")) && !is_str(o.get("n")) && !is_str(None));
        assert!(only_keys(o, &["s", "o", "b", "n", "x"]));
        assert!(!only_keys(o, &["s", "o", "b"]));
        assert!(is_one_of(v(r#""b""#), &["a", "b"]));
        assert!(is_one_of(v(r#""\u0062""#), &["a", "b"]));
        assert!(!is_one_of(v(r#""c""#), &["a", "b"]));
        assert!(!is_one_of(v("1"), &["a", "b"]));
    }
}
