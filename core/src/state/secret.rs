//! One HMAC-SHA256 secret, keyed once at configuration time.

use super::error::ConfigError;
use super::mac::{HmacSha256, MAC_LABEL};
use hmac::{KeyInit, Mac};

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
    keyed: HmacSha256,
}

impl Secret {
    /// Shortest accepted secret, in bytes.
    pub const MIN_LEN: usize = 32;

    /// Keys HMAC-SHA256 with `bytes`, refusing secrets shorter than [`Secret::MIN_LEN`].
    pub fn new(bytes: &[u8]) -> Result<Secret, ConfigError> {
        if bytes.len() < Self::MIN_LEN {
            return Err(ConfigError::SecretTooShort);
        }
        let mut keyed =
            HmacSha256::new_from_slice(bytes).map_err(|_| ConfigError::SecretTooShort)?;
        keyed.update(MAC_LABEL);
        Ok(Secret { keyed })
    }

    /// A fresh MAC computation under this key, its domain label already absorbed.
    pub(crate) fn mac(&self) -> HmacSha256 {
        self.keyed.clone()
    }
}

// The wiping above is the dependencies' doing (the keyed state is two SHA-256 cores, each
// wiped by its own `Drop`): fail to build if their features go.
const _: fn() = || {
    fn wiped_on_drop<T: hmac::digest::zeroize::ZeroizeOnDrop>() {}
    wiped_on_drop::<sha2::block_api::Sha256VarCore>();
};

impl core::fmt::Debug for Secret {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Secret(..)")
    }
}
