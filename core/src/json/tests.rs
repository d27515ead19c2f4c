use super::*;

fn ok(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::default()).expect(text)
}

fn err(text: &str) -> JsonError {
    parse(text.as_bytes(), &Limits::default()).expect_err(text)
}

#[test]
fn accepts_documents_and_views_them() {
    let v = ok(r#" {"a": [1, 2.5, "x\u00e9"], "b": {"c": null, "d": true}} "#);
    let a = v.get("a").unwrap().as_array().unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a.get(0).unwrap().as_i64(), Some(1));
    assert_eq!(a.get(1).unwrap().as_f64(), Some(2.5));
    assert!(a.get(2).unwrap().as_str().unwrap().eq_str("xé"));
    assert!(v.get("b").unwrap().get("c").unwrap().is_null());
    assert_eq!(v.get("b").unwrap().get("d").unwrap().as_bool(), Some(true));
    assert!(v.get("zz").is_none());
}

#[test]
fn rejects_duplicate_keys_even_when_escaped_differently() {
    assert_eq!(err(r#"{"a":1,"a":2}"#), JsonError::DuplicateKey);
    assert_eq!(err(r#"{"a":1,"\u0061":2}"#), JsonError::DuplicateKey);
    assert_eq!(
        err(r#"{"x":{"a":1,"b":{"a":1},"a":3}}"#),
        JsonError::DuplicateKey
    );
    ok(r#"{"a":{"a":1},"b":{"a":2}}"#);
    // Keys the scanner's filter cannot tell apart (one length, first and last byte) are
    // compared in full: distinct ones pass, a repeat after them is still refused.
    ok(r#"{"abc":1,"axc":2,"a\u0079c":3}"#);
    assert_eq!(
        err(r#"{"abc":1,"axc":2,"a\u0062c":3}"#),
        JsonError::DuplicateKey
    );
}

#[test]
fn rejects_depth_beyond_the_limit() {
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(parse(b"[[[1]]]", &limits).is_ok());
    assert_eq!(parse(b"[[[[1]]]]", &limits), Err(JsonError::TooDeep));
    assert_eq!(
        parse(br#"{"a":{"b":{"c":{}}}}"#, &limits),
        Err(JsonError::TooDeep)
    );
}

#[test]
fn rejects_oversized_documents_and_long_numbers() {
    let limits = Limits {
        max_size: 4,
        ..Limits::default()
    };
    assert_eq!(parse(b"12345", &limits), Err(JsonError::TooLarge));
    let digits64 = "1".repeat(64);
    ok(&digits64);
    assert_eq!(err(&"1".repeat(65)), JsonError::NumberTooLong);
}

#[test]
fn rejects_invalid_utf8_and_bad_escapes() {
    assert_eq!(
        parse(b"\"\xff\"", &Limits::default()),
        Err(JsonError::InvalidUtf8)
    );
    assert!(matches!(err(r#""\ud800""#), JsonError::Syntax { .. }));
    assert!(matches!(err(r#""\udc00""#), JsonError::Syntax { .. }));
    assert!(matches!(err("\"a\u{1}\""), JsonError::Syntax { .. }));
    assert!(ok(r#""\ud83d\ude00""#).as_str().unwrap().eq_str("😀"));
}

#[test]
fn text_equals_a_str_only_as_decoded() {
    let text = |json: &'static str| ok(json).as_str().unwrap();
    // As long as the str, with the same bytes: equal only when neither holds a backslash.
    assert!(text(r#""2.0""#).eq_str("2.0"));
    assert!(!text(r#""\b""#).eq_str("\\b"));
    assert!(text(r#""\b""#).eq_str("\u{8}"));
    // Longer than the str: equal only through escapes.
    assert!(text(r#""\u0032.0""#).eq_str("2.0"));
    assert!(!text(r#""2.00""#).eq_str("2.0"));
    assert!(text(r#""a\\b""#).eq_str("a\\b"));
    // Shorter: never.
    assert!(!text(r#""2.""#).eq_str("2.0"));
}

#[test]
fn rejects_malformed_syntax() {
    for bad in [
        "",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "1.",
        "-",
        "1e",
        "tru",
        "[1 2]",
        "{1:2}",
        "1 2",
        "nul",
    ] {
        assert!(matches!(err(bad), JsonError::Syntax { .. }), "{bad}");
    }
}

#[test]
fn numbers_keep_their_literal_kind() {
    let n = ok("1.0").as_number().unwrap();
    assert!(!n.is_integer_literal());
    assert!(n.is_integral());
    assert_eq!(n.as_i64(), None);
    assert_eq!(ok("-42").as_i64(), Some(-42));
    assert_eq!(ok("18446744073709551615").as_u64(), Some(u64::MAX));
    assert_eq!(ok("18446744073709551616").as_u64(), None);
}

#[test]
fn writer_escapes_to_ascii_and_reports_needed_size() {
    let mut buf = [0u8; 64];
    let mut w = Writer::new(&mut buf);
    w.object(|o| {
        o.str("k", "a\"é\n😀").i64("n", -7).bool("t", true);
        o.array("l", |a| {
            a.str("x");
            a.item().null();
        });
    });
    let n = w.finish().unwrap();
    let text = core::str::from_utf8(&buf[..n]).unwrap();
    assert_eq!(
        text,
        r#"{"k":"a\"\u00e9\n\ud83d\ude00","n":-7,"t":true,"l":["x",null]}"#
    );
    let back = ok(text);
    assert!(back.get("k").unwrap().as_str().unwrap().eq_str("a\"é\n😀"));

    let mut small = [0u8; 4];
    let mut w = Writer::new(&mut small);
    w.str("hello");
    assert_eq!(w.finish(), Err(BufferTooSmall { required: 7 }));
}

#[test]
fn writer_reemits_non_ascii_values() {
    let v = ok(r#"{"é":["ü",1]}"#);
    let mut buf = [0u8; 64];
    let mut w = Writer::new(&mut buf);
    w.value(v);
    let n = w.finish().unwrap();
    assert_eq!(&buf[..n], br#"{"\u00e9":["\u00fc",1]}"#);
}

proptest::proptest! {
    /// Strings of any characters, with escapes at any offset from the word boundaries the
    /// writer scans by, are written as ASCII JSON that reads back as the same text.
    #[test]
    fn written_strings_read_back_as_themselves(
        s in "[a-z\"\\\\\u{0}-\u{1f}é😀\u{7f}]{0,40}",
        pad in 0usize..9,
    ) {
        let text = std::format!("{}{s}", "p".repeat(pad));
        let mut buf = [0u8; 512];
        let mut w = Writer::new(&mut buf);
        w.str(&text);
        let n = w.finish().unwrap();
        proptest::prop_assert!(buf[..n].is_ascii());
        let back: std::string::String = serde_json::from_slice(&buf[..n]).unwrap();
        proptest::prop_assert_eq!(back, text);
    }
}

proptest::proptest! {
    /// The length JSON Schema counts is the number of characters, with or without escapes.
    #[test]
    fn char_count_counts_characters(s in "[a-zé😀ü\"\\\\\u{1}\u{7ff}\u{800}\u{ffff}]{0,40}") {
        let json = serde_json::to_string(&s).unwrap();
        let value = ok(&json);
        let text = value.as_str().unwrap();
        proptest::prop_assert_eq!(text.char_count(), s.chars().count());
    }
}

proptest::proptest! {
    /// Integer literals read as `str::parse` reads them, at and past the edges of the types.
    #[test]
    fn integers_read_as_std_parses_them(n in proptest::num::i128::ANY, shift in 0u32..128) {
        let n = n >> shift;
        let literal = std::format!("{n}");
        let value = ok(&literal);
        proptest::prop_assert_eq!(value.as_i64(), literal.parse::<i64>().ok());
        proptest::prop_assert_eq!(value.as_u64(), literal.parse::<u64>().ok());
        let number = value.as_number().unwrap();
        proptest::prop_assert_eq!(number.as_i64(), literal.parse::<i64>().ok());
        proptest::prop_assert_eq!(number.as_u64(), literal.parse::<u64>().ok());
    }
}

#[test]
fn integer_edges_and_non_integers() {
    for literal in [
        "0",
        "-0",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "1.0",
        "1e2",
        "-1",
        "25",
    ] {
        let value = ok(literal);
        assert_eq!(value.as_i64(), literal.parse::<i64>().ok(), "{literal}");
        assert_eq!(value.as_u64(), literal.parse::<u64>().ok(), "{literal}");
    }
    assert_eq!(ok("\"7\"").as_i64(), None);
}

proptest::proptest! {
    /// The same, when every non-ASCII character is a `\u` escape (surrogate pairs included),
    /// as this crate's writer spells them.
    #[test]
    fn char_count_counts_unicode_escapes(s in "[a-zé😀ü\"\\\\\u{1}\u{7ff}\u{800}\u{ffff}\u{10000}-\u{10ffff}]{0,40}") {
        let mut buf = [0u8; 1024];
        let mut w = Writer::new(&mut buf);
        w.str(&s);
        let n = w.finish().unwrap();
        let value = ok(core::str::from_utf8(&buf[..n]).unwrap());
        proptest::prop_assert_eq!(value.as_str().unwrap().char_count(), s.chars().count());
    }
}

#[test]
fn char_count_reads_escapes_in_either_case() {
    for (json, chars) in [
        (r#""\uD83D\uDE00""#, 1),
        (r#""\ud83d\ude00x""#, 2),
        (r#""\u00E9\n\"\\\/""#, 5),
        (r#""a\uDBFF\uDFFFé""#, 3),
        (r#""""#, 0),
    ] {
        assert_eq!(ok(json).as_str().unwrap().char_count(), chars, "{json}");
    }
}
