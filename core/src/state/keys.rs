//! Exactly one of a single secret or a key ring, and the [`KeySet`] every form of keys is.

use super::error::ConfigError;
use super::keyring::KeyRing;
use super::secret::Secret;

/// The keys that seal and open state: a single secret or a key ring, never both and never
/// neither.
///
/// Tokens move between the two: a token sealed with `Secret(s)` opens with any ring that
/// holds `s` under any id, and a ring token whose key is `s` opens with `Secret(s)`, so moving
/// from a single secret to a ring needs no coordinated switch.
///
/// `Keys` always has room for a whole ring ([`KeyRing::CAPACITY`] keys, about 1.5 KiB). A
/// server that is configured with one secret and nothing else (a device keyed at boot) can
/// hold just that [`Secret`] instead: [`StateOptions`](super::StateOptions) takes any
/// [`KeySet`].
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

/// What state can be sealed and opened with: [`Keys`], or a [`Secret`] or a [`KeyRing`]
/// alone, which take only their own room. Implemented by those three only.
pub trait KeySet: sealed::Sealed + Sync + core::fmt::Debug {}

impl KeySet for Keys {}
impl KeySet for Secret {}
impl KeySet for KeyRing {}

/// The keys as sealing and opening see them, whatever form holds them.
pub(crate) use sealed::KeysView;

mod sealed {
    use super::{KeyRing, Keys, Secret};

    /// A borrowed [`Keys`].
    #[derive(Clone, Copy, Debug)]
    pub enum KeysView<'k> {
        Secret(&'k Secret),
        Ring(&'k KeyRing),
    }

    /// Keeps [`KeySet`](super::KeySet) to this crate's key types.
    pub trait Sealed {
        fn view(&self) -> KeysView<'_>;
    }

    impl Sealed for Keys {
        fn view(&self) -> KeysView<'_> {
            match self {
                Keys::Secret(secret) => KeysView::Secret(secret),
                Keys::Ring(ring) => KeysView::Ring(ring),
            }
        }
    }

    impl Sealed for Secret {
        fn view(&self) -> KeysView<'_> {
            KeysView::Secret(self)
        }
    }

    impl Sealed for KeyRing {
        fn view(&self) -> KeysView<'_> {
            KeysView::Ring(self)
        }
    }
}
