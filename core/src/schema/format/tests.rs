use super::*;
use crate::json::{Limits, parse};

/// The string in the JSON text `text` (so escapes go through the decoder).
fn js(text: &str) -> JsonStr<'_> {
    parse(text.as_bytes(), &Limits::default())
        .unwrap()
        .as_str()
        .unwrap()
}

#[test]
fn emails() {
    for good in [
        "a@b.c",
        "octocat@github.com",
        "first.last+tag@mail.example.co.uk",
        "ünïcode@exämple.org",
        "x@1.2",
    ] {
        assert!(is_email(good), "{good}");
    }
    for bad in [
        "",
        "@",
        "a@",
        "@b.c",
        "a@b",
        "a@@b.c",
        "a@b@c.d",
        "a b@c.d",
        "a@b .c",
        "a@b.c ",
        " a@b.c",
        "a@b.c\n",
        "a\u{7}@b.c",
        "a@.b",
        "a@b.",
        "a@b..c",
        "a.b.c",
        "a@\u{a0}b.c",
    ] {
        assert!(!is_email(bad), "{bad:?}");
    }
}

#[test]
fn uris() {
    for good in [
        "https://example.com",
        "urn:isbn:0451450523",
        "mailto:a@b.c",
        "file:///tmp/x",
        "a:b",
        "svn+ssh://host/repo",
        "x-y.z:1",
        "HTTP://EXAMPLE.COM",
    ] {
        assert!(is_uri(good), "{good}");
    }
    for bad in [
        "",
        ":",
        "a:",
        "1a:b",
        "+a:b",
        "example.com",
        "/relative/path",
        "a_b:c",
        "https://exa mple.com",
        "https://example.com\t",
        "https://example.com/\u{0}",
        "é:x",
    ] {
        assert!(!is_uri(bad), "{bad:?}");
    }
}

#[test]
fn dates() {
    for good in [
        "2024-01-31",
        "2024-02-29",
        "2000-02-29",
        "2023-02-28",
        "2023-04-30",
        "0000-01-01",
        "9999-12-31",
    ] {
        assert!(is_date(good), "{good}");
    }
    for bad in [
        "",
        "2023-02-29",
        "1900-02-29",
        "2100-02-29",
        "2023-04-31",
        "2023-13-01",
        "2023-00-10",
        "2023-01-00",
        "2023-01-32",
        "2023-1-01",
        "23-01-01",
        "2023/01/01",
        "2023-01-01T00:00:00Z",
        "2023-01-01 ",
        "２０２３-01-01",
        "abcd-ef-gh",
    ] {
        assert!(!is_date(bad), "{bad:?}");
    }
}

#[test]
fn date_times() {
    for good in [
        "2024-02-29T12:34:56Z",
        "2024-02-29t12:34:56z",
        "1985-04-12T23:20:50.52Z",
        "1996-12-19T16:39:57-08:00",
        "1990-12-31T23:59:60Z",
        "1937-01-01T12:00:27.87+00:20",
        "2024-01-01T00:00:00.000000001+23:59",
    ] {
        assert!(is_date_time(good), "{good}");
    }
    for bad in [
        "",
        "2024-02-29",
        "2024-02-29T12:34Z",
        "2024-02-29T12:34:56",
        "2024-02-29 12:34:56Z",
        "2023-02-29T12:34:56Z",
        "2024-02-29T24:00:00Z",
        "2024-02-29T12:60:00Z",
        "2024-02-29T12:00:61Z",
        "2024-02-29T12:00:00.Z",
        "2024-02-29T12:00:00+24:00",
        "2024-02-29T12:00:00+01:60",
        "2024-02-29T12:00:00+0100",
        "2024-02-29T12:00:00+01",
        "2024-02-29T12:00:00ZZ",
        "2024-02-29T12:00:00Z ",
        "2024-02-29T12:00:00.5",
        "2024-02-29T1:00:00Z",
    ] {
        assert!(!is_date_time(bad), "{bad:?}");
    }
}

#[test]
fn json_strings_are_decoded_before_checking() {
    assert!(is_email(js(r#""a\u0040b.c""#)));
    assert!(!is_email(js(r#""a\u0020@b.c""#)));
    assert!(is_uri(js(r#""https:\/\/example.com""#)));
    assert!(is_date(js(r#""2024\u002d02-29""#)));
    assert!(is_date_time(js(r#""2024-02-29\u005412:00:00Z""#)));
    assert!(!is_date_time(js(r#""2024-02-29T12:00:00Z\n""#)));
}

#[test]
fn format_names() {
    for f in Format::ALL {
        assert_eq!(Format::from_name(f.name()), Some(f));
    }
    assert_eq!(
        Format::from_name(js(r#""date\u002dtime""#)),
        Some(Format::DateTime)
    );
    assert_eq!(Format::from_name("Email"), None);
    assert_eq!(Format::from_name("ipv4"), None);
    assert_eq!(Format::from_name(""), None);
    assert!(Format::Email.check("a@b.c"));
    assert!(Format::Uri.check("a:b"));
    assert!(Format::Date.check("2020-02-29"));
    assert!(Format::DateTime.check("2020-02-29T00:00:00Z"));
    assert!(!Format::Date.check("2020-02-30"));
}
