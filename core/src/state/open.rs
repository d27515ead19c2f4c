//! Opening: a token checked against the current request, the keys and the clock.

use super::base64url::decode;
use super::binding::Binding;
use super::error::InvalidState;
use super::keys::{KeySet, KeysView};
use super::mac::{MAC_LEN, TokenMac};
use super::options::StateOptions;
use super::prefix::{BindingPrefix, binding_mac};
use super::secret::Secret;
use super::token::{PAYLOAD_DATA, PAYLOAD_END, PAYLOAD_EXP, PAYLOAD_IAT, TokenParts, Version};
use crate::json::Value;

/// Opens `token` for the request described by `binding` at `now` (Unix seconds, from the
/// round) and returns the sealed data, a JSON view decoded into `scratch`.
///
/// The token opens only if all of these hold; otherwise the result is the one
/// [`InvalidState`], whichever failed:
///
/// - it is at most [`MAX_TOKEN_LEN`](super::MAX_TOKEN_LEN) bytes and well formed;
/// - its MAC verifies (in constant time) under the single secret, whatever key id the token
///   names; or, with a ring, under the key the token names (an unknown id fails), or under
///   any key of the ring when the token names none;
/// - it was sealed for the same method, salient params and principal;
/// - it was issued at or before `now` and expires after `now` (expiry is exclusive);
/// - its lifetime (expiry minus issue time) is at most the TTL of `options`;
/// - its payload fits `scratch`: [`OPEN_SCRATCH_LEN`](super::OPEN_SCRATCH_LEN) bytes fit
///   every token, and [`open_scratch_len`](super::open_scratch_len) sizes a smaller scratch
///   for a server whose own data is smaller.
pub fn open<'s>(
    token: &[u8],
    binding: &Binding<'_>,
    options: &StateOptions<impl KeySet + ?Sized>,
    now: u64,
    scratch: &'s mut [u8],
) -> Result<Value<'s>, InvalidState> {
    open_continuing(token, binding, None, options, now, scratch)
}

/// [`open`], continuing from `prefix` (made with `options` for `binding`) when given and the
/// token names the sealing key, rather than absorbing the binding again.
pub(crate) fn open_continuing<'s>(
    token: &[u8],
    binding: &Binding<'_>,
    prefix: Option<&BindingPrefix>,
    options: &StateOptions<impl KeySet + ?Sized>,
    now: u64,
    scratch: &'s mut [u8],
) -> Result<Value<'s>, InvalidState> {
    let parts = TokenParts::split(token).ok_or_else(|| refused(MALFORMED))?;
    let mut tag = [0u8; MAC_LEN];
    if decode(parts.mac, &mut tag) != Some(MAC_LEN) {
        return Err(refused(MALFORMED));
    }
    let payload = match parts.version {
        Version::V1 => {
            let binding = binding
                .hash()
                .map_err(|_| refused("the request's params nest too deep to bind"))?;
            let verifies = |secret: &Secret| secret.key().verify_v1(&binding, parts.signed, &tag);
            any_key(options, parts.key_id, &verifies).map_err(refused)?;
            decode_payload(parts.payload, scratch)?
        }
        Version::V2 => {
            // The MAC covers the decoded payload, so it is decoded (not read) first.
            let payload = decode_payload(parts.payload, scratch)?;
            let verifies = |secret: &Secret| {
                let mac = binding_mac(binding, prefix, secret, options);
                mac.is_some_and(|mac| verify_v2(mac, parts.key_id, payload, &tag))
            };
            any_key(options, parts.key_id, &verifies).map_err(refused)?;
            payload
        }
    };

    // Authentic from here on: the payload is our own writing, in the fixed layout `seal`
    // wrote and with data `seal` validated, so it is read by that layout, not parsed again.
    let (iat, exp, data) = read_payload(payload).ok_or_else(|| refused(MALFORMED))?;
    let lifetime = exp.checked_sub(iat).ok_or_else(|| refused(MALFORMED))?;
    if now >= exp {
        return Err(refused("expired"));
    }
    if iat > now {
        return Err(refused("issued after now (the clocks disagree)"));
    }
    if lifetime > options.ttl().as_secs() {
        return Err(refused("its lifetime is longer than this server's TTL"));
    }
    Ok(data)
}

/// Why a well-formed token did not open when its MAC does not verify: it was tampered with,
/// sealed under another key, or for another method, arguments or principal (the MAC covers
/// all of them, so which one cannot be told).
const BAD_MAC: &str = "bad MAC (tampered, another key, or another method, arguments or principal)";
/// A token that is not one this code writes (or is too long).
const MALFORMED: &str = "malformed";

/// The one refusal, its reason logged for the operator at debug level; the client learns
/// nothing of it (see [`InvalidState`]). Never the token, never a secret.
#[cold]
fn refused(reason: &'static str) -> InvalidState {
    crate::log::debug!("request state did not open: {}", reason);
    InvalidState
}

/// Whether `verifies` holds for the single secret (whatever key id the token names), for
/// the ring key the token names, or, for a token naming none, for any key of the ring.
fn any_key(
    options: &StateOptions<impl KeySet + ?Sized>,
    key_id: &[u8],
    verifies: &dyn Fn(&Secret) -> bool,
) -> Result<(), &'static str> {
    let verified = match options.view() {
        KeysView::Secret(secret) => verifies(secret),
        KeysView::Ring(ring) if key_id.is_empty() => {
            ring.entries().any(|(_, secret)| verifies(secret))
        }
        KeysView::Ring(ring) => match ring.find(key_id) {
            Some(secret) => verifies(secret),
            None => return Err("unknown key id (removed from the ring, or never in it)"),
        },
    };
    if verified { Ok(()) } else { Err(BAD_MAC) }
}

/// Whether `tag` is the MAC of an `s2.` token, given its MAC with the framed binding absorbed
/// (see [`binding_mac`]): over that, the framed key id and the decoded payload. (A ring
/// opening a token without a key id runs this once per key, at most
/// [`KeyRing::CAPACITY`](super::KeyRing::CAPACITY) times.)
fn verify_v2(mut mac: TokenMac, key_id: &[u8], payload: &[u8], tag: &[u8]) -> bool {
    mac.update(&(key_id.len() as u64).to_be_bytes());
    mac.update(key_id);
    mac.update(payload);
    mac.verify(tag)
}

/// Decodes the base64url payload into `scratch`.
fn decode_payload<'s>(text: &[u8], scratch: &'s mut [u8]) -> Result<&'s [u8], InvalidState> {
    let len = decode(text, scratch).ok_or_else(|| refused(MALFORMED))?;
    scratch.get(..len).ok_or_else(|| refused(MALFORMED))
}

/// Splits `{"iat":<digits>,"exp":<digits>,"data":<data>}` into its parts.
fn read_payload(payload: &[u8]) -> Option<(u64, u64, Value<'_>)> {
    let rest = payload.strip_prefix(PAYLOAD_IAT)?;
    let (iat, rest) = read_u64(rest)?;
    let rest = rest.strip_prefix(PAYLOAD_EXP)?;
    let (exp, rest) = read_u64(rest)?;
    let data = rest.strip_prefix(PAYLOAD_DATA)?.strip_suffix(PAYLOAD_END)?;
    if data.is_empty() {
        return None;
    }
    Some((iat, exp, Value::from_validated(data)))
}

/// Reads a decimal `u64` from the start of `text`, returning it and the rest.
fn read_u64(text: &[u8]) -> Option<(u64, &[u8])> {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let (number, rest) = text.split_at(digits);
    let mut value: u64 = 0;
    for &d in number {
        value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some((value, rest))
}
