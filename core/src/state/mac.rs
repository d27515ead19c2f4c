//! The token MAC: HMAC-SHA256 under a domain label per token version.
//!
//! The bottom of the state module's key handling: [`Secret`](super::Secret) holds a
//! [`TokenKey`] and decides what is an acceptable secret; this file only knows HMAC.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Domain label absorbed first by the MAC of an `s1.` token.
const MAC_LABEL_V1: &[u8] = b"snodo/request-state/v1/mac\0";

/// Domain label absorbed first by the MAC of an `s2.` token.
const MAC_LABEL_V2: &[u8] = b"snodo/request-state/v2/mac\0";

/// Bytes of a MAC.
pub(crate) const MAC_LEN: usize = 32;

/// HMAC-SHA256 keyed once: each MAC clones this state instead of hashing the key pads
/// again.
#[derive(Clone)]
pub(crate) struct TokenKey {
    keyed: HmacSha256,
}

impl TokenKey {
    /// Keys HMAC-SHA256 with `bytes` (`None` only if the `hmac` crate refused the key
    /// length, which it does for none).
    pub(crate) fn new(bytes: &[u8]) -> Option<TokenKey> {
        let keyed = HmacSha256::new_from_slice(bytes).ok()?;
        Some(TokenKey { keyed })
    }

    /// The MAC of an `s1.` token: HMAC-SHA256(key, label ‖ binding hash ‖ signed text),
    /// where the signed text is the token up to its last `.`. Only verified: sealing writes
    /// `s2.` tokens.
    pub(crate) fn verify_v1(&self, binding: &[u8; 32], signed: &[u8], tag: &[u8]) -> bool {
        let mut mac = self.mac(MAC_LABEL_V1);
        mac.update(binding);
        mac.update(signed);
        mac.verify(tag)
    }

    /// A MAC of an `s2.` token, its label absorbed: the caller adds the framed binding, the
    /// framed key id and the decoded payload (see the [`state`](super) module).
    pub(crate) fn v2(&self) -> TokenMac {
        self.mac(MAC_LABEL_V2)
    }

    fn mac(&self, label: &[u8]) -> TokenMac {
        let mut mac = self.keyed.clone();
        mac.update(label);
        TokenMac(mac)
    }
}

/// One token MAC being computed.
#[derive(Clone)]
pub(crate) struct TokenMac(HmacSha256);

impl TokenMac {
    /// Absorbs the next bytes.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The MAC.
    pub(crate) fn finish(self) -> [u8; MAC_LEN] {
        self.0.finalize().into_bytes().into()
    }

    /// Whether `tag` is the MAC, compared in constant time.
    pub(crate) fn verify(self, tag: &[u8]) -> bool {
        self.0.verify_slice(tag).is_ok()
    }
}

// The keyed state is as good as the key to whoever reads it; the `zeroize` features of
// `hmac` and `sha2` wipe it (two SHA-256 cores, each wiped by its own `Drop`) when a key or
// any clone of it is dropped: fail to build if those features go.
const _: fn() = || {
    fn wiped_on_drop<T: hmac::digest::zeroize::ZeroizeOnDrop>() {}
    wiped_on_drop::<sha2::block_api::Sha256VarCore>();
};

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
