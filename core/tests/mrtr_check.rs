//! The mrtr checks through the public API: form schemas and answers, formats, URLs, sampling,
//! roots and elicitation results, with property tests against independent reference rules.

use proptest::prelude::*;
use snodo_core::json::{Limits, Value, parse};
use snodo_core::mrtr::Action;
use snodo_core::mrtr::check::{elicit_result, form, roots, sampling, url};
use snodo_core::protocol::ClientCapabilities;
use snodo_core::schema::format;

fn v(text: &str) -> Value<'_> {
    parse(text.as_bytes(), &Limits::default()).unwrap()
}

/// `s` as a JSON string literal with every character written as a `\u` escape (surrogate
/// pairs beyond the BMP), so the checks must decode to count and compare.
fn escaped(s: &str) -> String {
    let mut out = String::from("\"");
    for unit in s.encode_utf16() {
        out.push_str(&format!("\\u{unit:04x}"));
    }
    out.push('"');
    out
}

fn plain(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

// --- the preference flow's form, end to end ---

#[test]
fn the_preference_form() {
    let schema = v(
        r#"{"type":"object","properties":{"color":{"type":"string","minLength":1}},
        "required":["color"]}"#,
    );
    assert_eq!(form::check_schema(schema), Ok(()));
    let answer = v(r#"{"action":"accept","content":{"color":"teal"}}"#);
    let (action, content) = elicit_result::read(answer).unwrap();
    assert_eq!(action, Action::Accept);
    assert!(form::check_content(schema, content.unwrap().as_value()));
    let empty = v(r#"{"action":"accept","content":{"color":""}}"#);
    let (_, content) = elicit_result::read(empty).unwrap();
    assert!(!form::check_content(schema, content.unwrap().as_value()));
    let declined = v(r#"{"action":"decline"}"#);
    assert_eq!(elicit_result::read(declined), Some((Action::Decline, None)));
    assert_eq!(Action::Decline.name(), "decline");
}

#[test]
fn build_errors_name_the_problem() {
    let err = form::check_schema(v(
        r#"{"type":"object","properties":{"a":{"type":"string","pattern":"x"}}}"#,
    ))
    .unwrap_err();
    assert!(err.reason.contains("unsupported keyword"), "{err}");
    let err = url::check_elicitation_url("https://user@example.com/").unwrap_err();
    assert!(err.reason.contains("user info"), "{err}");
    let err = sampling::check_params(v(r#"{"messages":[],"maxTokens":1}"#)).unwrap_err();
    assert!(err.reason.contains("messages"), "{err}");
    assert_eq!(
        sampling::check_params(v(
            r#"{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":1,
                "tools":[{"name":"t","inputSchema":{"type":"object"}}],"includeContext":"allServers"}"#
        )),
        Ok(ClientCapabilities::SAMPLING
            .union(ClientCapabilities::SAMPLING_TOOLS)
            .union(ClientCapabilities::SAMPLING_CONTEXT))
    );
    assert!(sampling::check_result(v(
        r#"{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}"#
    )));
    assert!(roots::check_result(v(r#"{"roots":[{"uri":"file:///w"}]}"#)));
    assert!(!roots::check_result(v(
        r#"{"roots":[{"uri":"https://w"}]}"#
    )));
}

// --- dates against an independent calendar ---

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A date exists when it survives the round trip through a day count.
fn date_exists(y: i64, m: i64, d: i64) -> bool {
    (1..=12).contains(&m)
        && (1..=31).contains(&d)
        && civil_from_days(days_from_civil(y, m, d)) == (y, m, d)
}

proptest! {
    #[test]
    fn dates_match_the_calendar(y in 0i64..=9999, m in 0i64..=13, d in 0i64..=32) {
        let text = format!("{y:04}-{m:02}-{d:02}");
        let expected = date_exists(y, m, d);
        prop_assert_eq!(format::is_date(text.as_str()), expected, "{}", text);
        let date_time = format!("{text}T12:30:00Z");
        prop_assert_eq!(format::is_date_time(date_time.as_str()), expected);
        // Through the JSON decoder too, with every character escaped.
        let json = escaped(&text);
        let s = v(&json).as_str().unwrap();
        prop_assert_eq!(format::is_date(s), expected);
        prop_assert_eq!(format::Format::Date.check(s), expected);
    }

    #[test]
    fn times_match_their_ranges(
        h in 0u32..=25, mi in 0u32..=61, s in 0u32..=61,
        frac in proptest::option::of("[0-9]{1,12}"),
        offset in prop_oneof![
            Just("Z".to_string()),
            (any::<bool>(), 0u32..=25, 0u32..=61)
                .prop_map(|(neg, oh, om)| format!("{}{oh:02}:{om:02}", if neg { '-' } else { '+' })),
        ],
    ) {
        let fraction = frac.map(|f| format!(".{f}")).unwrap_or_default();
        let text = format!("2024-02-29T{h:02}:{mi:02}:{s:02}{fraction}{offset}");
        let offset_ok = offset == "Z" || {
            let oh: u32 = offset[1..3].parse().unwrap();
            let om: u32 = offset[4..6].parse().unwrap();
            oh <= 23 && om <= 59
        };
        let expected = h <= 23 && mi <= 59 && s <= 60 && offset_ok;
        prop_assert_eq!(format::is_date_time(text.as_str()), expected, "{}", text);
    }

    /// Lengths are code points, whatever the escapes, for every bound.
    #[test]
    fn string_lengths_count_code_points(
        s in "\\PC{0,12}",
        min in 0u64..8,
        extra in 0u64..8,
        escape in any::<bool>(),
    ) {
        let max = min + extra;
        let schema_text = format!(
            r#"{{"type":"object","properties":{{"p":{{"type":"string","minLength":{min},"maxLength":{max}}}}}}}"#
        );
        let schema = v(&schema_text);
        prop_assert_eq!(form::check_schema(schema), Ok(()));
        let literal = if escape { escaped(&s) } else { plain(&s) };
        let content_text = format!(r#"{{"p":{literal}}}"#);
        let n = s.chars().count() as u64;
        prop_assert_eq!(form::check_content(schema, v(&content_text)), min <= n && n <= max);
    }

    /// A multi select accepts exactly the sequences of distinct options within its bounds.
    #[test]
    fn multi_select_matches_its_rules(
        picks in proptest::collection::vec(0usize..6, 0..8),
        min in 0u64..4,
        extra in 0u64..4,
        titled in any::<bool>(),
    ) {
        // Options a..d; picks of 4 and 5 name strangers.
        let names = ["a", "b", "c", "d", "e", "f"];
        let max = min + extra;
        let items = if titled {
            r#"{"anyOf":[{"const":"a","title":"A"},{"const":"b","title":"B"},
                {"const":"c","title":"C"},{"const":"d","title":"D"}]}"#
        } else {
            r#"{"type":"string","enum":["a","b","c","d"]}"#
        };
        let schema_text = format!(
            r#"{{"type":"object","properties":{{"p":{{"type":"array","items":{items},
                "minItems":{min},"maxItems":{max}}}}}}}"#
        );
        let schema = v(&schema_text);
        prop_assert_eq!(form::check_schema(schema), Ok(()));
        let chosen: Vec<&str> = picks.iter().map(|&i| names[i]).collect();
        let content_text = format!(r#"{{"p":{}}}"#, serde_json::to_string(&chosen).unwrap());
        let distinct = chosen.iter().enumerate().all(|(i, c)| !chosen[..i].contains(c));
        let members = picks.iter().all(|&i| i < 4);
        let n = chosen.len() as u64;
        let expected = distinct && members && min <= n && n <= max;
        prop_assert_eq!(form::check_content(schema, v(&content_text)), expected);
    }

    /// A default is accepted by check_schema exactly when it would be accepted as an answer.
    #[test]
    fn defaults_agree_with_answers(
        property in prop_oneof![
            Just(r#"{"type":"string","minLength":1,"maxLength":3}"#),
            Just(r#"{"type":"string","format":"date"}"#),
            Just(r#"{"type":"string","format":"email"}"#),
            Just(r#"{"type":"number","minimum":-1,"maximum":1.5}"#),
            Just(r#"{"type":"integer","minimum":0}"#),
            Just(r#"{"type":"boolean"}"#),
            Just(r#"{"type":"string","enum":["x","yy"]}"#),
            Just(r#"{"type":"string","oneOf":[{"const":"x","title":"X"}]}"#),
            Just(r#"{"type":"array","maxItems":1,"items":{"type":"string","enum":["x","yy"]}}"#),
        ],
        value in prop_oneof![
            Just("null"), Just("true"), Just("0"), Just("1"), Just("-1"), Just("1.5"),
            Just("2.0"), Just("-3"), Just(r#""""#), Just(r#""x""#), Just(r#""yy""#),
            Just(r#""abcd""#), Just(r#""2024-02-29""#), Just(r#""a@b.c""#), Just("[]"),
            Just(r#"["x"]"#), Just(r#"["x","yy"]"#), Just(r#"["x","x"]"#), Just("{}"),
        ],
    ) {
        let bare = format!(r#"{{"type":"object","properties":{{"p":{property}}}}}"#);
        prop_assert_eq!(form::check_schema(v(&bare)), Ok(()));
        let answer = format!(r#"{{"p":{value}}}"#);
        let accepted = form::check_content(v(&bare), v(&answer));
        let with_default = format!(
            "{},\"default\":{value}}}",
            property.strip_suffix('}').unwrap()
        );
        let schema_text = format!(r#"{{"type":"object","properties":{{"p":{with_default}}}}}"#);
        prop_assert_eq!(form::check_schema(v(&schema_text)).is_ok(), accepted);
    }

    /// Every check is total on arbitrary JSON.
    #[test]
    fn checks_never_panic(a in json(), b in json()) {
        let (a, b) = (a.to_string(), b.to_string());
        let (a, b) = (v(&a), v(&b));
        let _ = form::check_schema(a);
        let _ = form::check_content(a, b);
        let pair = format!(r#"{{"type":"object","properties":{{"p":{}}}}}"#, String::from_utf8_lossy(a.raw()));
        if let Ok(schema) = parse(pair.as_bytes(), &Limits::default()) {
            if form::check_schema(schema).is_ok() {
                let _ = form::check_content(schema, b);
            }
        }
        let _ = sampling::check_params(a);
        let _ = sampling::check_result(a);
        let _ = roots::check_result(a);
        let _ = elicit_result::read(a);
        if let Some(s) = a.as_str() {
            for f in format::Format::ALL {
                let _ = f.check(s);
            }
            let mut buf = vec![0u8; s.decoded_len()];
            if let Some(text) = s.decode_into(&mut buf) {
                let _ = url::check_elicitation_url(text);
            }
        }
    }

    #[test]
    fn urls_never_panic(s in "\\PC{0,40}") {
        let _ = url::check_elicitation_url(&s);
        let _ = format::is_uri(s.as_str());
        let _ = format::is_email(s.as_str());
    }

    /// Any accepted URL is http(s), has no user info, and nothing a URI may not hold.
    #[test]
    fn accepted_urls_are_http_navigation(
        scheme in "(?i:https?|ftp|javascript)",
        host in "[a-z0-9.@:\\[\\]-]{0,12}",
        rest in "[/?#a-z%0-9 @\\\\]{0,12}",
    ) {
        let text = format!("{scheme}://{host}{rest}");
        if url::check_elicitation_url(&text).is_ok() {
            let lower = text.to_ascii_lowercase();
            prop_assert!(lower.starts_with("http://") || lower.starts_with("https://"));
            let authority = text.split("//").nth(1).unwrap();
            let authority = authority.split(['/', '?', '#']).next().unwrap();
            prop_assert!(!authority.contains('@'));
            prop_assert!(!authority.is_empty() && !authority.starts_with(':'));
            prop_assert!(!text.contains(' ') && !text.contains('\\'));
        }
    }
}

/// Arbitrary JSON, biased towards the keys and values the checks look at.
fn json() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value as J;
    let key = prop_oneof![
        Just("type"),
        Just("properties"),
        Just("required"),
        Just("enum"),
        Just("oneOf"),
        Just("anyOf"),
        Just("items"),
        Just("const"),
        Just("title"),
        Just("default"),
        Just("minLength"),
        Just("maxLength"),
        Just("format"),
        Just("minimum"),
        Just("maximum"),
        Just("minItems"),
        Just("maxItems"),
        Just("enumNames"),
        Just("messages"),
        Just("role"),
        Just("content"),
        Just("text"),
        Just("maxTokens"),
        Just("tools"),
        Just("toolChoice"),
        Just("roots"),
        Just("uri"),
        Just("action"),
        Just("model"),
        Just("p"),
    ]
    .prop_map(str::to_string);
    let leaf = prop_oneof![
        Just(J::Null),
        any::<bool>().prop_map(J::Bool),
        any::<i32>().prop_map(J::from),
        (-1e3f64..1e3).prop_map(J::from),
        prop_oneof![
            Just("object"),
            Just("string"),
            Just("number"),
            Just("integer"),
            Just("boolean"),
            Just("array"),
            Just("email"),
            Just("date"),
            Just("uri"),
            Just("date-time"),
            Just("user"),
            Just("assistant"),
            Just("text"),
            Just("tool_use"),
            Just("tool_result"),
            Just("accept"),
            Just("decline"),
            Just("file:///x"),
            Just("p"),
            Just("a@b.c"),
        ]
        .prop_map(|s| J::String(s.to_string())),
        "\\PC{0,6}".prop_map(J::String),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(J::Array),
            proptest::collection::btree_map(key.clone(), inner, 0..6)
                .prop_map(|m| J::Object(m.into_iter().collect())),
        ]
    })
}
