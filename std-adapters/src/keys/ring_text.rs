//! The key-ring text format: one `<key id> <base64 secret>` entry per line (or per `;`), the
//! first entry sealing; blank lines and `#` comments ignored.
//!
//! Errors name where the problem is and never the secret.

use std::fmt;

use base64::Engine as _;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use snodo_core::state::{KeyId, KeyRing, Keys, Secret};
use zeroize::Zeroizing;

/// Standard base64 (`openssl rand -base64 32`), with or without the trailing `=`.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A parsed key ring: ids in order (the first seals) and their secrets, which are wiped when
/// dropped.
pub struct RingText {
    entries: Vec<(String, Zeroizing<Vec<u8>>)>,
}

impl fmt::Debug for RingText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RingText")
            .field("ids", &self.ids().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Where in the text a problem is: `line` (1-based) and, when a line holds several
/// `;`-separated entries, which one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Line, from 1.
    pub line: usize,
    /// Entry within the line, from 1, when the line holds more than one.
    pub entry: Option<usize>,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}", self.line)?;
        if let Some(entry) = self.entry {
            write!(f, ", entry {entry}")?;
        }
        Ok(())
    }
}

/// What is wrong with key-ring text. Never carries secret bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RingTextError {
    /// No entry at all.
    Empty,
    /// More than [`KeyRing::CAPACITY`] entries.
    TooMany(Place),
    /// An entry that is not `<key id> <base64 secret>`.
    Malformed(Place),
    /// A key id outside 1 to 32 characters of `A-Z a-z 0-9 _ -`.
    BadId(Place),
    /// A key id given twice.
    DuplicateId(Place, String),
    /// A secret that is not base64.
    NotBase64(Place),
    /// A secret shorter than [`Secret::MIN_LEN`] bytes (its length).
    Weak(Place, usize),
}

impl fmt::Display for RingTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RingTextError::Empty => {
                f.write_str("no key: give at least one `<key id> <base64 secret>` line")
            }
            RingTextError::TooMany(at) => {
                write!(f, "{at}: more than {} keys", KeyRing::CAPACITY)
            }
            RingTextError::Malformed(at) => {
                write!(f, "{at}: expected `<key id> <base64 secret>`")
            }
            RingTextError::BadId(at) => write!(
                f,
                "{at}: a key id is 1 to {} characters of A-Z a-z 0-9 _ -",
                KeyId::MAX_LEN
            ),
            RingTextError::DuplicateId(at, id) => write!(f, "{at}: key id `{id}` given twice"),
            RingTextError::NotBase64(at) => write!(f, "{at}: the secret is not base64"),
            RingTextError::Weak(at, len) => write!(
                f,
                "{at}: the secret is {len} bytes; at least {} random bytes are needed",
                Secret::MIN_LEN
            ),
        }
    }
}

impl std::error::Error for RingTextError {}

impl RingText {
    /// Parses and checks `text`: every problem the core would refuse is found here, with its
    /// place.
    pub fn parse(text: &str) -> Result<RingText, RingTextError> {
        let mut entries: Vec<(String, Zeroizing<Vec<u8>>)> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("");
            let pieces: Vec<&str> = content
                .split(';')
                .map(str::trim)
                .filter(|piece| !piece.is_empty())
                .collect();
            let several = pieces.len() > 1;
            for (n, piece) in pieces.into_iter().enumerate() {
                let at = Place {
                    line: index + 1,
                    entry: several.then_some(n + 1),
                };
                let entry = parse_entry(piece, at)?;
                if entries.iter().any(|(id, _)| *id == entry.0) {
                    return Err(RingTextError::DuplicateId(at, entry.0));
                }
                if entries.len() == KeyRing::CAPACITY {
                    return Err(RingTextError::TooMany(at));
                }
                entries.push(entry);
            }
        }
        if entries.is_empty() {
            return Err(RingTextError::Empty);
        }
        Ok(RingText { entries })
    }

    /// The key ids, the sealing one first.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(id, _)| id.as_str())
    }

    /// The ring as the core keys it.
    pub fn keys(&self) -> Keys {
        let pairs: Vec<(&str, &[u8])> = self
            .entries
            .iter()
            .map(|(id, secret)| (id.as_str(), secret.as_slice()))
            .collect();
        Keys::ring(&pairs).unwrap_or_else(|_| unreachable!("every entry was checked by parse"))
    }

    /// A digest of the ids and secrets in order: equal rings, equal fingerprints. Lets a
    /// reload recognise a ring it has keyed before without keeping the secrets.
    pub fn fingerprint(&self) -> [u8; 32] {
        use sha2::Digest as _;
        let mut hash = sha2::Sha256::new();
        hash.update(b"snodo key ring v1\0");
        for (id, secret) in &self.entries {
            hash.update((id.len() as u64).to_be_bytes());
            hash.update(id.as_bytes());
            hash.update((secret.len() as u64).to_be_bytes());
            hash.update(secret.as_slice());
        }
        hash.finalize().into()
    }
}

fn parse_entry(piece: &str, at: Place) -> Result<(String, Zeroizing<Vec<u8>>), RingTextError> {
    let mut fields = piece.split_whitespace();
    let (Some(id), Some(secret), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(RingTextError::Malformed(at));
    };
    KeyId::new(id).map_err(|_| RingTextError::BadId(at))?;
    let secret = Zeroizing::new(
        BASE64
            .decode(secret)
            .map_err(|_| RingTextError::NotBase64(at))?,
    );
    if secret.len() < Secret::MIN_LEN {
        return Err(RingTextError::Weak(at, secret.len()));
    }
    Ok((id.to_owned(), secret))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 32 bytes of 0x01, base64.
    const ONES: &str = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=";
    /// 32 bytes of 0x02, base64 without padding.
    const TWOS: &str = "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI";

    fn at(line: usize) -> Place {
        Place { line, entry: None }
    }

    #[test]
    fn lines_comments_and_blank_lines() {
        let text = format!("# rotated 2026-10\n\n2026-10 {ONES}\n  2026-09\t{TWOS}  # retiring\n");
        let ring = RingText::parse(&text).unwrap();
        assert_eq!(ring.ids().collect::<Vec<_>>(), ["2026-10", "2026-09"]);
        let Keys::Ring(keys) = ring.keys() else {
            panic!("a ring")
        };
        let ids: Vec<&str> = keys.ids().map(KeyId::as_str).collect();
        assert_eq!(ids, ["2026-10", "2026-09"]);
    }

    #[test]
    fn semicolons_separate_entries_on_one_line() {
        let ring = RingText::parse(&format!("b {TWOS}; a {ONES}")).unwrap();
        assert_eq!(ring.ids().collect::<Vec<_>>(), ["b", "a"]);
    }

    #[test]
    fn every_refusal_names_its_place_and_never_the_secret() {
        let short = "c2hvcnQ="; // "short"
        let cases = [
            (String::new(), RingTextError::Empty),
            ("# nothing\n".to_owned(), RingTextError::Empty),
            (format!("a {ONES}\nb"), RingTextError::Malformed(at(2))),
            (format!("a {ONES} extra"), RingTextError::Malformed(at(1))),
            (format!("a.b {ONES}"), RingTextError::BadId(at(1))),
            (
                format!("{} {ONES}", "x".repeat(33)),
                RingTextError::BadId(at(1)),
            ),
            (
                format!("a {ONES}\n\na {TWOS}"),
                RingTextError::DuplicateId(at(3), "a".to_owned()),
            ),
            (
                format!("a {ONES}\nb not*base64"),
                RingTextError::NotBase64(at(2)),
            ),
            (
                format!("a {ONES}; b {short}"),
                RingTextError::Weak(
                    Place {
                        line: 1,
                        entry: Some(2),
                    },
                    5,
                ),
            ),
        ];
        for (text, expected) in cases {
            let refused = RingText::parse(&text).unwrap_err();
            assert_eq!(refused, expected, "for {text:?}");
            let message = refused.to_string();
            for secret in [ONES, TWOS, short, "not*base64"] {
                assert!(!message.contains(secret), "{message} echoes a secret");
            }
        }
    }

    #[test]
    fn at_most_a_ring_of_keys() {
        let text: String = (0..=KeyRing::CAPACITY)
            .map(|n| format!("k{n} {ONES}\n"))
            .collect();
        assert_eq!(
            RingText::parse(&text).unwrap_err(),
            RingTextError::TooMany(at(KeyRing::CAPACITY + 1))
        );
    }

    #[test]
    fn fingerprints_follow_ids_secrets_and_order() {
        let ab = RingText::parse(&format!("a {ONES}\nb {TWOS}")).unwrap();
        let same = RingText::parse(&format!("a {ONES}; b {TWOS}")).unwrap();
        let ba = RingText::parse(&format!("b {TWOS}\na {ONES}")).unwrap();
        let other_secret = RingText::parse(&format!("a {TWOS}\nb {TWOS}")).unwrap();
        assert_eq!(ab.fingerprint(), same.fingerprint());
        assert_ne!(ab.fingerprint(), ba.fingerprint());
        assert_ne!(ab.fingerprint(), other_secret.fingerprint());
    }

    #[test]
    fn debug_shows_ids_only() {
        let ring = RingText::parse(&format!("a {ONES}")).unwrap();
        let shown = format!("{ring:?}");
        assert!(shown.contains("\"a\"") && !shown.contains(ONES), "{shown}");
    }
}
