//! What sealing and opening are configured with.

use super::keys::Keys;
use super::ttl::Ttl;

/// Keys and TTL for sealing and opening state, built and validated at configuration time.
///
/// Use the same options on the first round (to seal) and on the retry (to open). The
/// principal is not an option: it comes with every request, in the [`Binding`](super::Binding).
#[derive(Clone, Debug)]
pub struct StateOptions {
    keys: Keys,
    ttl: Ttl,
}

impl StateOptions {
    /// Options with these keys and the default TTL (300 seconds).
    pub fn new(keys: impl Into<Keys>) -> StateOptions {
        StateOptions {
            keys: keys.into(),
            ttl: Ttl::DEFAULT,
        }
    }

    /// The same options with another TTL.
    pub fn with_ttl(self, ttl: Ttl) -> StateOptions {
        StateOptions { ttl, ..self }
    }

    /// The keys.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// The TTL.
    pub fn ttl(&self) -> Ttl {
        self.ttl
    }
}
