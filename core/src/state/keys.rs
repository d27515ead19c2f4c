//! Exactly one of a single secret or a key ring.

use super::error::ConfigError;
use super::keyring::KeyRing;
use super::secret::Secret;

/// The keys that seal and open state: a single secret or a key ring, never both and never
/// neither.
///
/// Tokens move between the two: a token sealed with `Secret(s)` opens with any ring that
/// holds `s` under any id, and a ring token whose key is `s` opens with `Secret(s)`, so moving
/// from a single secret to a ring needs no coordinated switch.
#[derive(Clone, Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "no heap to box into; options are built once and kept for the server's life"
)]
pub enum Keys {
    /// One secret; its tokens carry no key id.
    Secret(Secret),
    /// Named keys; tokens carry the id of the first, the one that sealed them.
    Ring(KeyRing),
}

impl Keys {
    /// A single secret (see [`Secret::new`]).
    pub fn secret(bytes: &[u8]) -> Result<Keys, ConfigError> {
        Secret::new(bytes).map(Keys::Secret)
    }

    /// A key ring (see [`KeyRing::new`]).
    pub fn ring<S: AsRef<[u8]>>(keys: &[(&str, S)]) -> Result<Keys, ConfigError> {
        KeyRing::new(keys).map(Keys::Ring)
    }
}

impl From<Secret> for Keys {
    fn from(secret: Secret) -> Keys {
        Keys::Secret(secret)
    }
}

impl From<KeyRing> for Keys {
    fn from(ring: KeyRing) -> Keys {
        Keys::Ring(ring)
    }
}
