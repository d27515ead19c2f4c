//! Where a key ring is read from: a file, or an environment variable holding the same text.

use std::fmt;
use std::path::PathBuf;

use super::ring_text::{RingText, RingTextError};

/// Where the key ring comes from. Read at start and again on every reload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyRingSource {
    /// A file in the key-ring format (readable by the server only: `chmod 600`).
    File(PathBuf),
    /// An environment variable holding the key-ring text (entries separated by newlines or
    /// `;`). The environment of a running process does not change, so a reload reads the
    /// same ring; use a file to rotate without a restart.
    Env(String),
}

impl fmt::Display for KeyRingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyRingSource::File(path) => write!(f, "key-ring file {}", path.display()),
            KeyRingSource::Env(name) => write!(f, "environment variable {name}"),
        }
    }
}

/// A key ring that could not be read: where from and why (never a secret).
#[derive(Debug)]
pub struct KeyRingError {
    /// Where the ring was read from.
    pub source: KeyRingSource,
    /// What went wrong.
    pub problem: KeyRingProblem,
}

/// Why a key ring could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum KeyRingProblem {
    /// The file could not be read.
    Io(std::io::Error),
    /// The environment variable is unset or not Unicode.
    NoVariable,
    /// The text is not a valid key ring.
    Text(RingTextError),
}

impl fmt::Display for KeyRingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            KeyRingProblem::Io(e) => write!(f, "{}: cannot read it: {e}", self.source),
            KeyRingProblem::NoVariable => write!(f, "{} is not set", self.source),
            KeyRingProblem::Text(e) => write!(f, "{}, {e}", self.source),
        }
    }
}

impl std::error::Error for KeyRingError {}

impl KeyRingSource {
    /// Reads and checks the ring.
    pub fn read(&self) -> Result<RingText, KeyRingError> {
        let fail = |problem| KeyRingError {
            source: self.clone(),
            problem,
        };
        let text = match self {
            KeyRingSource::File(path) => {
                std::fs::read_to_string(path).map_err(|e| fail(KeyRingProblem::Io(e)))?
            }
            KeyRingSource::Env(name) => {
                std::env::var(name).map_err(|_| fail(KeyRingProblem::NoVariable))?
            }
        };
        let text = zeroize::Zeroizing::new(text);
        RingText::parse(&text).map_err(|e| fail(KeyRingProblem::Text(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_named() {
        let source = KeyRingSource::File(PathBuf::from("/nonexistent/snodo/keys"));
        let message = source.read().unwrap_err().to_string();
        assert!(
            message.starts_with("key-ring file /nonexistent/snodo/keys: cannot read it"),
            "{message}"
        );
    }

    #[test]
    fn a_bad_line_is_named_with_its_file() {
        let path = std::env::temp_dir().join(format!("snodo-ring-{}", std::process::id()));
        std::fs::write(
            &path,
            "a AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\nb c2hvcnQ=\n",
        )
        .unwrap();
        let message = KeyRingSource::File(path.clone())
            .read()
            .unwrap_err()
            .to_string();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            message,
            format!(
                "key-ring file {}, line 2: the secret is 5 bytes; at least 32 random bytes are needed",
                path.display()
            )
        );
    }
}
