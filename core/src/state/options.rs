//! What sealing and opening are configured with.

use super::keys::{KeySet, Keys, KeysView};
use super::ttl::Ttl;

/// Keys and TTL for sealing and opening state, built and validated at configuration time.
///
/// Use the same options on the first round (to seal) and on the retry (to open). The
/// principal is not an option: it comes with every request, in the [`Binding`](super::Binding).
///
/// The keys are any [`KeySet`]: [`Keys`] (the default, chosen at run time), or a lone
/// [`Secret`](super::Secret) or [`KeyRing`](super::KeyRing). A
/// `StateOptions<Secret>` is about 160 bytes where `StateOptions<Keys>` keeps room for a
/// whole ring (about 1.5 KiB), which matters on a device. A server's
/// [`Config`](crate::server::Config) takes any of them.
#[derive(Clone, Debug)]
pub struct StateOptions<K: ?Sized = Keys> {
    ttl: Ttl,
    keys: K,
}

impl<K: KeySet> StateOptions<K> {
    /// Options with these keys and the default TTL (300 seconds).
    pub fn new(keys: K) -> StateOptions<K> {
        StateOptions {
            ttl: Ttl::DEFAULT,
            keys,
        }
    }

    /// The same options with another TTL.
    pub fn with_ttl(self, ttl: Ttl) -> StateOptions<K> {
        StateOptions { ttl, ..self }
    }
}

impl<K: KeySet + ?Sized> StateOptions<K> {
    /// The keys.
    pub fn keys(&self) -> &K {
        &self.keys
    }

    /// The TTL.
    pub fn ttl(&self) -> Ttl {
        self.ttl
    }

    /// The keys as sealing and opening use them.
    pub(crate) fn view(&self) -> KeysView<'_> {
        self.keys.view()
    }
}
