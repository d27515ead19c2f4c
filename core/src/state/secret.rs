//! One HMAC-SHA256 secret, keyed once at configuration time.

use super::error::ConfigError;
use super::mac::TokenKey;

/// A secret for sealing state: at least [`Secret::MIN_LEN`] bytes, ideally from a
/// cryptographically secure random source and shared by every node that must open the
/// tokens.
///
/// The HMAC key schedule (hashing the key pads) runs once here; each seal or open clones the
/// keyed state instead of keying again. The raw bytes are not kept, and the keyed state —
/// as good as the key to whoever reads it — is wiped when a `Secret` or any of those clones
/// is dropped (the `zeroize` features of `hmac` and `sha2`).
#[derive(Clone)]
pub struct Secret {
    key: TokenKey,
}

impl Secret {
    /// Shortest accepted secret, in bytes.
    pub const MIN_LEN: usize = 32;

    /// Keys HMAC-SHA256 with `bytes`, refusing secrets shorter than [`Secret::MIN_LEN`].
    pub fn new(bytes: &[u8]) -> Result<Secret, ConfigError> {
        if bytes.len() < Self::MIN_LEN {
            return Err(ConfigError::SecretTooShort);
        }
        let key = TokenKey::new(bytes).ok_or(ConfigError::SecretTooShort)?;
        Ok(Secret { key })
    }

    /// The keyed MAC this secret signs and verifies tokens with.
    pub(crate) fn key(&self) -> &TokenKey {
        &self.key
    }
}

impl core::fmt::Debug for Secret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Secret(..)")
    }
}
