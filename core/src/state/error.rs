//! The three ways sealed state can fail: bad configuration, a seal that cannot be made, and a
//! token that does not open.

use crate::json::JsonError;
use core::fmt;

/// A token did not open. Deliberately carries nothing: tampering, an unknown or removed key,
/// expiry, a token from another principal, method or arguments, and an oversize token are all
/// this same value, so a caller learns nothing about which check failed.
///
/// A server answers it with JSON-RPC error [`InvalidState::CODE`] and the fixed message
/// [`InvalidState::MESSAGE`], with no `data` and no echo of the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct InvalidState;

impl InvalidState {
    /// The JSON-RPC error code for invalid request state (invalid params).
    pub const CODE: i32 = -32602;
    /// The fixed error message.
    pub const MESSAGE: &'static str = "Invalid request state";
}

impl fmt::Display for InvalidState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(Self::MESSAGE)
    }
}

impl core::error::Error for InvalidState {}

/// Why state could not be sealed. These are the application's or the server's mistakes, never
/// the client's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SealError {
    /// The data is longer than [`MAX_DATA_LEN`](super::MAX_DATA_LEN) bytes.
    DataTooLarge,
    /// The data is not a JSON document within [`DATA_LIMITS`](super::DATA_LIMITS).
    InvalidData(JsonError),
    /// The request params nest deeper than the canonical digest descends.
    ParamsTooDeep,
    /// `now` plus the TTL does not fit in a `u64`.
    TimeOutOfRange,
    /// The output buffer is too small; `required` bytes are enough for this token (and
    /// [`MAX_TOKEN_LEN`](super::MAX_TOKEN_LEN) for any).
    BufferTooSmall {
        /// Length of the token that would have been written.
        required: usize,
    },
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SealError::DataTooLarge => f.write_str("state data too large"),
            SealError::InvalidData(_) => f.write_str("state data is not valid JSON"),
            SealError::ParamsTooDeep => f.write_str("request params nested too deeply"),
            SealError::TimeOutOfRange => f.write_str("expiry time out of range"),
            SealError::BufferTooSmall { required } => {
                write!(f, "token buffer too small: {required} bytes needed")
            }
        }
    }
}

impl core::error::Error for SealError {}

/// Invalid state configuration: refused when the keys or the TTL are built, never at request
/// time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConfigError {
    /// A secret shorter than [`Secret::MIN_LEN`](super::Secret::MIN_LEN) bytes.
    SecretTooShort,
    /// A key ring with no keys.
    NoKeys,
    /// A key ring with more than [`KeyRing::CAPACITY`](super::KeyRing::CAPACITY) keys.
    TooManyKeys,
    /// A key id that is empty, longer than [`KeyId::MAX_LEN`](super::KeyId::MAX_LEN), or has a
    /// character outside `A-Z a-z 0-9 _ -`.
    InvalidKeyId,
    /// Two keys of one ring with the same id.
    DuplicateKeyId,
    /// A TTL outside [`Ttl::MIN_SECS`](super::Ttl::MIN_SECS)..=[`Ttl::MAX_SECS`](super::Ttl::MAX_SECS).
    TtlOutOfRange,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigError::SecretTooShort => "secret shorter than 32 bytes",
            ConfigError::NoKeys => "key ring has no keys",
            ConfigError::TooManyKeys => "key ring has more than 8 keys",
            ConfigError::InvalidKeyId => "key id must be 1 to 32 characters from A-Za-z0-9_-",
            ConfigError::DuplicateKeyId => "key ids must be unique",
            ConfigError::TtlOutOfRange => "TTL must be 1 to 900 seconds",
        })
    }
}

impl core::error::Error for ConfigError {}
