//! The JSON scanner's verdict against serde_json's on the same bytes.
//!
//! Whenever we accept, serde_json must accept too and see the same value, and re-parsing our
//! `Writer::value` re-emission must give that value again. Whenever we refuse for a reason
//! serde_json shares (syntax, UTF-8, depth), serde_json must refuse too. The documented
//! differences are allowed and nothing more:
//!
//! - we refuse duplicate keys (serde_json keeps the last), integer parts of more than 64
//!   digits and number literals of more than 128 bytes (serde_json accepts them);
//! - serde_json refuses numbers beyond `f64`'s range (`1e400`) and nesting deeper than 127,
//!   which we accept (our limit here is 128).
//!
//! Accepted values also go through the schema validator (as schema and instance at once), to
//! prove it never panics on arbitrary schemas.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value as Serde;
use snodo_core::json::{JsonError, Kind, Limits, Value, Writer, parse};
use snodo_core::schema;

const LIMITS: Limits = Limits {
    max_size: 1 << 30,
    max_depth: 128,
    max_members: u16::MAX,
};

/// serde_json's own nesting limit: a 128th level is refused.
const SERDE_MAX_DEPTH: usize = 127;

fuzz_target!(|data: &[u8]| {
    let ours = parse(data, &LIMITS);
    let theirs = serde_json::from_slice::<Serde>(data);
    match (ours, theirs) {
        (Ok(value), Ok(expected)) => {
            assert!(
                same(value, &expected),
                "views differ from serde_json: {value:?}"
            );
            check_reemission(value, &expected);
            exercise_validator(value);
        }
        (Ok(value), Err(err)) => {
            let message = err.to_string();
            let allowed = message.starts_with("number out of range")
                || (message.starts_with("recursion limit exceeded")
                    && depth(value.raw()) > SERDE_MAX_DEPTH);
            assert!(
                allowed,
                "we accept, serde_json refuses ({message}): {value:?}"
            );
            check_reemission_parses(value);
            exercise_validator(value);
        }
        // Our stricter rules (the size and member limits are beyond any fuzz input).
        (
            Err(
                JsonError::DuplicateKey
                | JsonError::NumberTooLong
                | JsonError::TooManyMembers
                | JsonError::TooLarge,
            ),
            _,
        ) => {}
        (
            Err(err @ (JsonError::Syntax { .. } | JsonError::InvalidUtf8 | JsonError::TooDeep)),
            Ok(v),
        ) => {
            panic!("we refuse ({err:?}), serde_json accepts: {v}");
        }
        (Err(_), Err(_)) => {}
    }
});

/// Whether our lazy view and serde_json's tree hold the same JSON value.
fn same(ours: Value<'_>, theirs: &Serde) -> bool {
    match theirs {
        Serde::Null => ours.is_null(),
        Serde::Bool(b) => ours.as_bool() == Some(*b),
        Serde::String(s) => ours.as_str().is_some_and(|o| {
            o.eq_str(s) && o.chars().eq(s.chars()) && o.char_count() == s.chars().count()
        }),
        Serde::Number(n) => {
            let Some(number) = ours.as_number() else {
                return false;
            };
            if let Some(i) = n.as_i64() {
                if number.is_integer_literal() {
                    return number.as_i64() == Some(i);
                }
            }
            if let Some(u) = n.as_u64() {
                if number.is_integer_literal() {
                    return number.as_u64() == Some(u);
                }
            }
            // serde_json's default float parsing may be an ulp off; ours is exact.
            match (number.as_f64(), n.as_f64()) {
                (Some(a), Some(b)) => close(a, b),
                _ => false,
            }
        }
        Serde::Array(items) => {
            let Some(array) = ours.as_array() else {
                return false;
            };
            array.len() == items.len() && array.iter().zip(items).all(|(o, t)| same(o, t))
        }
        Serde::Object(members) => {
            let Some(object) = ours.as_object() else {
                return false;
            };
            // Keys are unique on our side (duplicates are refused), so equal counts and
            // every member matching make the two equal.
            object.len() == members.len()
                && object.iter().all(|(key, value)| {
                    let mut buf = vec![0u8; key.decoded_len()];
                    let Some(name) = key.decode_into(&mut buf) else {
                        return false;
                    };
                    members.get(name).is_some_and(|t| same(value, t))
                        && object.get(name) == Some(value)
                })
        }
    }
}

/// Equal, or a couple of units in the last place apart (same sign).
fn close(a: f64, b: f64) -> bool {
    a == b
        || (a.is_sign_negative() == b.is_sign_negative() && a.to_bits().abs_diff(b.to_bits()) <= 2)
}

/// Writes `value` with `Writer::value`, growing the buffer when told how much is needed.
fn reemit(value: Value<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; value.raw().len() / 2];
    let required = {
        let mut w = Writer::new(&mut buf);
        w.value(value);
        match w.finish() {
            Ok(len) => len,
            Err(too_small) => too_small.required,
        }
    };
    if required > buf.len() {
        buf = vec![0u8; required];
        let mut w = Writer::new(&mut buf);
        w.value(value);
        assert_eq!(
            w.finish(),
            Ok(required),
            "the size reported as needed did not fit"
        );
    }
    buf.truncate(required);
    assert!(buf.is_ascii(), "writer output is not ASCII");
    buf
}

/// Our re-emission reads back, by us and by serde_json, as the same value.
fn check_reemission(value: Value<'_>, expected: &Serde) {
    let out = reemit(value);
    let again: Serde = serde_json::from_slice(&out).expect("serde_json refuses our re-emission");
    assert_eq!(&again, expected, "re-emission changed the value");
    let ours = parse(&out, &LIMITS).expect("we refuse our own re-emission");
    assert!(same(ours, expected));
}

/// For values serde_json cannot hold: our re-emission at least reads back as the same text
/// shape by us.
fn check_reemission_parses(value: Value<'_>) {
    let out = reemit(value);
    let again = parse(&out, &LIMITS).expect("we refuse our own re-emission");
    assert_eq!(again.kind(), value.kind());
}

/// Nesting depth of validated JSON text (the root container is depth 1).
fn depth(raw: &[u8]) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for &b in raw {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The validator must never panic, whatever the schema: the value as its own schema, and
/// `{"schema": S, "instance": I}` as S applied to I.
fn exercise_validator(value: Value<'_>) {
    let options = schema::Options {
        max_depth: 24,
        max_steps: 20_000,
        // Formats asserted (as for form answers) on every other input.
        assert_formats: value.raw().len() % 2 == 0,
    };
    let run = |s: Value<'_>, i: Value<'_>| {
        if let Err(v) = schema::validate_with(s, i, &options) {
            let text = v.to_string();
            assert!(!text.is_empty());
            let _ = v.path().segments().count();
        }
        if let Err(v) = schema::check_schema(s, &options) {
            let _ = v.to_string();
        }
    };
    run(value, value);
    if value.kind() == Kind::Object {
        if let (Some(s), Some(i)) = (value.get("schema"), value.get("instance")) {
            run(s, i);
        }
    }
}
