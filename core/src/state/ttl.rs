//! Token lifetimes.

use super::error::ConfigError;

/// How long a sealed token lives: 1 to 900 seconds, 300 by default.
///
/// At sealing it sets the expiry; at opening it is the longest lifetime accepted, so a
/// smaller TTL at opening refuses tokens sealed for longer and a larger one never extends a
/// token past its own expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Ttl(u16);

impl Ttl {
    /// Shortest TTL, in seconds.
    pub const MIN_SECS: u64 = 1;
    /// Longest TTL, in seconds.
    pub const MAX_SECS: u64 = 900;
    /// The default TTL: 300 seconds.
    pub const DEFAULT: Ttl = Ttl(300);
    /// The longest TTL: 900 seconds.
    pub const MAX: Ttl = Ttl(900);

    /// A TTL of `secs` seconds, refused outside 1..=900.
    pub const fn from_secs(secs: u64) -> Result<Ttl, ConfigError> {
        if secs < Self::MIN_SECS || secs > Self::MAX_SECS {
            return Err(ConfigError::TtlOutOfRange);
        }
        Ok(Ttl(secs as u16))
    }

    /// The TTL in seconds.
    pub const fn as_secs(self) -> u64 {
        self.0 as u64
    }
}

impl Default for Ttl {
    fn default() -> Ttl {
        Ttl::DEFAULT
    }
}
