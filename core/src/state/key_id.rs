//! Key identifiers: short, printable, and readable in the tokens they name.

use super::error::ConfigError;

/// The identifier of one key of a [`KeyRing`](super::KeyRing): 1 to [`KeyId::MAX_LEN`]
/// characters from `A-Z a-z 0-9 _ -` (the base64url alphabet, so it reads plainly in a token).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId {
    bytes: [u8; KeyId::MAX_LEN],
    len: u8,
}

impl KeyId {
    /// Longest accepted identifier, in characters.
    pub const MAX_LEN: usize = 32;

    /// Validates `id`.
    pub fn new(id: &str) -> Result<KeyId, ConfigError> {
        if id.is_empty() || id.len() > Self::MAX_LEN || !id.bytes().all(is_key_id_byte) {
            return Err(ConfigError::InvalidKeyId);
        }
        let mut bytes = [0u8; Self::MAX_LEN];
        bytes
            .get_mut(..id.len())
            .ok_or(ConfigError::InvalidKeyId)?
            .copy_from_slice(id.as_bytes());
        Ok(KeyId {
            bytes,
            len: id.len() as u8,
        })
    }

    /// The identifier's bytes (ASCII).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or_default()
    }

    /// The identifier.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

impl core::fmt::Debug for KeyId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyId({:?})", self.as_str())
    }
}

/// Whether `byte` may appear in a key id.
pub(crate) fn is_key_id_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}
