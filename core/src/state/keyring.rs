//! Key rings: several named secrets, so keys can be rotated without a coordinated switch.

use super::error::ConfigError;
use super::key_id::KeyId;
use super::secret::Secret;

/// One to [`KeyRing::CAPACITY`] named secrets. The first seals; any of them opens the tokens
/// that name it.
///
/// Held inline (no heap): each key costs one keyed HMAC-SHA256 state plus its id, a few
/// hundred bytes.
#[derive(Clone)]
pub struct KeyRing {
    primary: (KeyId, Secret),
    others: [Option<(KeyId, Secret)>; KeyRing::CAPACITY - 1],
}

impl KeyRing {
    /// Most keys in one ring.
    pub const CAPACITY: usize = 8;

    /// Builds a ring from `(id, secret)` pairs, the sealing key first.
    ///
    /// Refuses an empty list, more than [`KeyRing::CAPACITY`] keys, an invalid or repeated
    /// id, and a secret shorter than [`Secret::MIN_LEN`].
    pub fn new<S: AsRef<[u8]>>(keys: &[(&str, S)]) -> Result<KeyRing, ConfigError> {
        let Some(((first_id, first_secret), rest)) = keys.split_first() else {
            return Err(ConfigError::NoKeys);
        };
        if keys.len() > Self::CAPACITY {
            return Err(ConfigError::TooManyKeys);
        }
        let mut ring = KeyRing {
            primary: (KeyId::new(first_id)?, Secret::new(first_secret.as_ref())?),
            others: [const { None }; KeyRing::CAPACITY - 1],
        };
        for ((id, secret), slot) in rest.iter().zip(ring.others.iter_mut()) {
            let id = KeyId::new(id)?;
            let secret = Secret::new(secret.as_ref())?;
            *slot = Some((id, secret));
        }
        if ring.has_duplicate_ids() {
            return Err(ConfigError::DuplicateKeyId);
        }
        Ok(ring)
    }

    fn has_duplicate_ids(&self) -> bool {
        let mut ids = self.ids();
        while let Some(id) = ids.next() {
            if ids.clone().any(|other| other == id) {
                return true;
            }
        }
        false
    }

    /// Number of keys (at least one).
    pub fn len(&self) -> usize {
        self.entries().count()
    }

    /// Always `false`: a ring holds at least one key.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The key ids, sealing key first.
    pub fn ids(&self) -> impl Iterator<Item = &KeyId> + Clone + '_ {
        self.entries().map(|(id, _)| id)
    }

    /// The id and secret that seal.
    pub(crate) fn primary(&self) -> (&KeyId, &Secret) {
        (&self.primary.0, &self.primary.1)
    }

    /// The secret named `id`, if the ring holds it.
    pub(crate) fn find(&self, id: &[u8]) -> Option<&Secret> {
        self.entries()
            .find(|(known, _)| known.as_bytes() == id)
            .map(|(_, secret)| secret)
    }

    /// Every key in order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&KeyId, &Secret)> + Clone + '_ {
        core::iter::once(self.primary()).chain(
            self.others
                .iter()
                .flatten()
                .map(|(id, secret)| (id, secret)),
        )
    }
}

impl core::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("KeyRing").field(&IdList(self)).finish()
    }
}

struct IdList<'r>(&'r KeyRing);

impl core::fmt::Debug for IdList<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list()
            .entries(self.0.ids().map(KeyId::as_str))
            .finish()
    }
}
