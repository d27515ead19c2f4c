//! The token MAC: HMAC-SHA256 under a domain label, over the binding and the token text.

use super::secret::Secret;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// Domain label absorbed first by every token MAC (at keying time, see [`Secret::new`]).
pub(crate) const MAC_LABEL: &[u8] = b"snodo/request-state/v1/mac\0";

/// Bytes of a MAC.
pub(crate) const MAC_LEN: usize = 32;

/// The MAC of a token: HMAC-SHA256(secret, label ‖ binding hash ‖ signed text), where the
/// signed text is the token up to its last `.`.
pub(crate) fn token_mac(secret: &Secret, binding: &[u8; 32], signed: &[u8]) -> [u8; MAC_LEN] {
    let mut mac = secret.mac();
    mac.update(binding);
    mac.update(signed);
    mac.finalize().into_bytes().into()
}

/// Whether `tag` is the MAC of the token under `secret`, compared in constant time.
pub(crate) fn verify_token_mac(
    secret: &Secret,
    binding: &[u8; 32],
    signed: &[u8],
    tag: &[u8],
) -> bool {
    let mut mac = secret.mac();
    mac.update(binding);
    mac.update(signed);
    mac.verify_slice(tag).is_ok()
}

/// One HMAC-SHA256 of `message` under `key`, keyed from scratch, with nothing else around it.
///
/// Not used for sealing; it is the floor the sealed-state benchmark measures seal and open
/// against (sealing clones a state keyed once instead of keying per call).
pub fn bare_hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut mac = match HmacSha256::new_from_slice(key) {
        Ok(mac) => mac,
        // HMAC accepts keys of every length.
        Err(_) => return [0; 32],
    };
    mac.update(message);
    mac.finalize().into_bytes().into()
}
