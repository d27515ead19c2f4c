//! Arbitrary form schemas and answers through the mrtr checks, plus the sampling, roots and
//! elicitation-result checks on arbitrary JSON.
//!
//! The input is split at its first `0xFF` byte (which never occurs in UTF-8, so never inside
//! JSON) into a schema document and a content document; without one, the whole input is both.
//! Never a panic, and:
//! - `check_content` runs only on schemas `check_schema` accepted, and when it accepts, the
//!   content is an object that holds every required property;
//! - every verdict is the same on the documents re-emitted by `Writer::value` (ASCII, with
//!   every non-ASCII character escaped), so escapes never change a decision;
//! - `sampling::check_params` always asks for `sampling`, and for `sampling.tools` whenever
//!   `tools` or `toolChoice` is present;
//! - `elicit_result::read` hands back content only for `accept`, and only an object.
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_core::json::{Limits, Value, Writer, parse};
use snodo_core::mrtr::Action;
use snodo_core::mrtr::check::{elicit_result, form, roots, sampling, url};
use snodo_core::protocol::ClientCapabilities;
use snodo_core::schema::format;

const LIMITS: Limits = Limits {
    max_size: 1 << 20,
    max_depth: 32,
    max_members: 256,
};

/// For re-emitted documents, which escaping may make up to six times longer.
const LIMITS_AGAIN: Limits = Limits {
    max_size: 6 << 20,
    ..LIMITS
};

fuzz_target!(|data: &[u8]| {
    let (schema_bytes, content_bytes) = match data.iter().position(|&b| b == 0xFF) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    let schema = parse(schema_bytes, &LIMITS).ok();
    let content = parse(content_bytes, &LIMITS).ok();

    if let Some(schema) = schema {
        let schema_text = reemit(schema);
        let schema_again = parse(&schema_text, &LIMITS_AGAIN).expect("re-emitted schema parses");
        let verdict = form::check_schema(schema);
        assert_eq!(
            verdict,
            form::check_schema(schema_again),
            "escapes changed the schema verdict"
        );
        if verdict.is_ok() {
            if let Some(content) = content {
                let accepted = form::check_content(schema, content);
                let content_text = reemit(content);
                let content_again =
                    parse(&content_text, &LIMITS_AGAIN).expect("re-emitted content parses");
                assert_eq!(
                    accepted,
                    form::check_content(schema_again, content_again),
                    "escapes changed the content verdict"
                );
                if accepted {
                    check_required_present(schema, content);
                }
            }
        } else if let Err(e) = verdict {
            assert!(!e.reason.is_empty());
        }
    }

    for value in [schema, content].into_iter().flatten() {
        other_checks(value);
    }
});

/// An accepted content is an object holding every name in `required`.
fn check_required_present(schema: Value<'_>, content: Value<'_>) {
    let object = content.as_object().expect("accepted content is an object");
    if let Some(required) = schema.get("required").and_then(|r| r.as_array()) {
        for name in required {
            let name = name.as_str().expect("required names are strings");
            assert!(
                object.iter().any(|(key, _)| key == name),
                "a required property is missing from accepted content"
            );
        }
    }
}

/// The sampling, roots, elicitation-result, format and URL checks on any value.
fn other_checks(value: Value<'_>) {
    match sampling::check_params(value) {
        Ok(needs) => {
            assert!(needs.contains(ClientCapabilities::SAMPLING));
            if value.get("tools").is_some() || value.get("toolChoice").is_some() {
                assert!(needs.contains(ClientCapabilities::SAMPLING_TOOLS));
            }
            assert!(!needs.contains(ClientCapabilities::ROOTS));
        }
        Err(e) => assert!(!e.reason.is_empty()),
    }
    if sampling::check_result(value) {
        assert!(value.get("model").and_then(|m| m.as_str()).is_some());
    }
    if roots::check_result(value) {
        assert!(value.get("roots").and_then(|r| r.as_array()).is_some());
    }
    if let Some((action, content)) = elicit_result::read(value) {
        assert!(content.is_none() || action == Action::Accept);
        assert!(value.get("action").is_some());
    }
    if let Some(s) = value.as_str() {
        for f in format::Format::ALL {
            let _ = f.check(s);
        }
        let mut buf = vec![0u8; s.decoded_len()];
        if let Some(text) = s.decode_into(&mut buf) {
            if url::check_elicitation_url(text).is_ok() {
                assert!(text.is_ascii());
            }
        }
    }
}

/// `value` written again by `Writer::value`, growing the buffer when told how much is needed.
fn reemit(value: Value<'_>) -> Vec<u8> {
    let mut buf = vec![0u8; value.raw().len() + 16];
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
        assert_eq!(w.finish(), Ok(required));
    }
    buf.truncate(required);
    buf
}
