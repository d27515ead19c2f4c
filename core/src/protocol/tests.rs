use super::*;
use crate::json::{Limits, Writer, parse};

fn params(text: &str) -> crate::json::Object<'_> {
    parse(text.as_bytes(), &Limits::default())
        .unwrap()
        .as_object()
        .unwrap()
}

fn caps(text: &str) -> Option<ClientCapabilities> {
    ClientCapabilities::from_value(parse(text.as_bytes(), &Limits::default()).unwrap())
}

#[test]
fn admits_a_complete_meta() {
    let p = params(
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{"roots":{}},"progressToken":"t",
        "io.modelcontextprotocol/logLevel":"info"}}"#,
    );
    let meta = admit(Some(p)).unwrap();
    assert_eq!(meta.capabilities, ClientCapabilities::ROOTS);
    assert_eq!(meta.log_level, Some(LogLevel::Info));
    assert!(meta.progress_token.is_some());
}

#[test]
fn refuses_missing_or_unsupported_fields() {
    assert!(matches!(admit(None), Err(MetaError::Invalid(_))));
    let no_caps = params(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#);
    assert!(matches!(admit(Some(no_caps)), Err(MetaError::Invalid(_))));
    let old = params(
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}"#,
    );
    assert!(
        matches!(admit(Some(old)), Err(MetaError::UnsupportedVersion(v)) if v.eq_str("2025-11-25"))
    );
    let bad_caps = params(
        r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":true}}}"#,
    );
    assert!(matches!(admit(Some(bad_caps)), Err(MetaError::Invalid(_))));
}

#[test]
fn reads_capability_bits() {
    type C = ClientCapabilities;
    assert_eq!(caps("{}"), Some(C::NONE));
    assert_eq!(caps(r#"{"elicitation":{}}"#), Some(C::ELICITATION_FORM));
    assert_eq!(
        caps(r#"{"elicitation":{"url":{}}}"#),
        Some(C::ELICITATION_URL)
    );
    assert_eq!(
        caps(
            r#"{"elicitation":{"url":{},"form":{}},"sampling":{"tools":{},"context":{}},"roots":{}}"#
        ),
        Some(
            C::ELICITATION_FORM
                .union(C::ELICITATION_URL)
                .union(C::SAMPLING)
                .union(C::SAMPLING_TOOLS)
                .union(C::SAMPLING_CONTEXT)
                .union(C::ROOTS)
        )
    );
    assert_eq!(caps(r#"{"elicitation":{"form":1}}"#), None);
    assert_eq!(caps(r#"[]"#), None);
    assert_eq!(caps(r#"{"somethingNew":{"x":1}}"#), Some(C::NONE));
}

#[test]
fn writes_required_capabilities_deterministically() {
    let mut buf = [0u8; 128];
    let mut w = Writer::new(&mut buf);
    ClientCapabilities::SAMPLING_TOOLS
        .union(ClientCapabilities::ROOTS)
        .write(&mut w);
    let n = w.finish().unwrap();
    assert_eq!(&buf[..n], br#"{"sampling":{"tools":{}},"roots":{}}"#);
}

#[test]
fn methods_are_found_by_name_escaped_or_not() {
    extern crate std;
    for (name, method) in Method::TABLE {
        let plain = std::format!("\"{name}\"");
        let escaped: std::string::String = name
            .chars()
            .map(|c| std::format!("\\u{:04x}", c as u32))
            .collect();
        let escaped = std::format!("\"{escaped}\"");
        for text in [plain, escaped] {
            let value = parse(text.as_bytes(), &Limits::default()).unwrap();
            assert_eq!(
                Method::from_name(value.as_str().unwrap()),
                Some(method),
                "{text}"
            );
        }
        // A name one longer, or cut short, is no method.
        let longer = std::format!("\"{name}x\"");
        let value = parse(longer.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(Method::from_name(value.as_str().unwrap()), None);
        let shorter = std::format!("\"{}\"", &name[..name.len() - 1]);
        let value = parse(shorter.as_bytes(), &Limits::default()).unwrap();
        assert_eq!(Method::from_name(value.as_str().unwrap()), None);
    }
}

#[test]
fn the_tasks_extension_is_read_and_written_where_it_is_declared() {
    type C = ClientCapabilities;
    let declared = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    assert_eq!(caps(declared), Some(C::TASKS));
    // Elsewhere the name means nothing: under `experimental`, or as a capability of its own.
    assert_eq!(
        caps(r#"{"experimental":{"io.modelcontextprotocol/tasks":{}}}"#),
        Some(C::NONE)
    );
    assert_eq!(
        caps(r#"{"io.modelcontextprotocol/tasks":{}}"#),
        Some(C::NONE)
    );
    assert_eq!(
        caps(r#"{"extensions":{"io.modelcontextprotocol/tasks":true}}"#),
        None
    );
    let mut out = [0u8; 96];
    let mut w = Writer::new(&mut out);
    C::TASKS.union(C::ROOTS).write(&mut w);
    let len = w.finish().unwrap();
    assert_eq!(
        &out[..len],
        br#"{"roots":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#
    );
    assert_eq!(
        C::TASKS.names().collect::<std::vec::Vec<_>>(),
        ["extensions.io.modelcontextprotocol/tasks"]
    );
}
