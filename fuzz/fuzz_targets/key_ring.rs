//! Key-ring text (`SNODO_KEY_RING`, a key-ring file) as an operator, or an attacker who can
//! write the file, might give it: arbitrary text.
//!
//! Never a panic, and:
//! - an accepted ring has 1 to `KeyRing::CAPACITY` distinct ids of the key-id grammar, keys
//!   the core accepts, and the fingerprint of the same ring written on one line with `;`;
//! - a refusal names a place inside the text and never repeats a secret of it (beyond the
//!   ids it may name).
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_core::state::{KeyId, KeyRing};
use snodo_std::keys::{Place, RingText, RingTextError};

/// The entries as the format defines them: per line, before any `#`, split at `;`.
fn entries(text: &str) -> Vec<Vec<&str>> {
    text.lines()
        .flat_map(|line| line.split('#').next().unwrap_or("").split(';'))
        .map(|entry| entry.split_whitespace().collect::<Vec<_>>())
        .filter(|fields| !fields.is_empty())
        .collect()
}

fn place(error: &RingTextError) -> Option<Place> {
    match error {
        RingTextError::TooMany(at)
        | RingTextError::Malformed(at)
        | RingTextError::BadId(at)
        | RingTextError::DuplicateId(at, _)
        | RingTextError::NotBase64(at)
        | RingTextError::Weak(at, _) => Some(*at),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    match RingText::parse(text) {
        Ok(ring) => {
            let ids: Vec<&str> = ring.ids().collect();
            assert!((1..=KeyRing::CAPACITY).contains(&ids.len()));
            for (i, id) in ids.iter().enumerate() {
                assert!(KeyId::new(id).is_ok(), "{id:?}");
                assert!(!ids[..i].contains(id), "{id:?} twice");
            }
            let _ = ring.keys();
            let one_line: Vec<String> = entries(text).iter().map(|e| e.join(" ")).collect();
            let again = RingText::parse(&one_line.join(";")).expect("the same ring on one line");
            assert_eq!(again.fingerprint(), ring.fingerprint());
        }
        Err(error) => {
            if let Some(at) = place(&error) {
                assert!((1..=text.lines().count()).contains(&at.line), "{at:?}");
            }
            let message = error.to_string();
            let all = entries(text);
            let ids: Vec<&str> = all.iter().map(|e| e[0]).collect();
            // The words every message is made of: a "secret" that is one of them proves nothing.
            let at = Place {
                line: 1,
                entry: Some(1),
            };
            let vocabulary: String = [
                RingTextError::Empty,
                RingTextError::TooMany(at),
                RingTextError::Malformed(at),
                RingTextError::BadId(at),
                RingTextError::NotBase64(at),
                RingTextError::Weak(at, 1),
            ]
            .iter()
            .map(|e| e.to_string())
            .collect();
            // A refusal may name an id; a "secret" that is part of an id proves nothing either.
            let in_an_id = |secret: &str| ids.iter().any(|id| id.contains(secret));
            for secret in all.iter().filter_map(|e| e.get(1)) {
                if secret.len() >= 8 && !in_an_id(secret) && !vocabulary.contains(secret) {
                    assert!(!message.contains(secret), "{message:?} shows a secret");
                }
            }
        }
    }
});
