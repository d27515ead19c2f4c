//! The token format and its size bounds (documented on the [`state`](super) module).

use super::key_id::{KeyId, is_key_id_byte};
use super::mac::MAC_LEN;
use crate::json::Limits;

/// The version prefix of the tokens [`seal`](fn@super::seal) writes. [`open`](fn@super::open) also
/// reads tokens of the previous version, `s1.`.
pub const TOKEN_PREFIX: &str = "s2.";

/// The prefix of the previous token version, still opened.
const TOKEN_PREFIX_V1: &str = "s1.";

/// Which token version a token is: what its MAC covers (see the [`state`](super) module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// `s1.`: the MAC covers a hash of the binding and the token text.
    V1,
    /// `s2.`: the MAC covers the framed binding, the key id and the decoded payload.
    V2,
}

/// Largest state data accepted by [`seal`](fn@super::seal), in bytes of JSON text.
pub const MAX_DATA_LEN: usize = 2048;

/// Bounds the data is parsed with at sealing (its size bound is [`MAX_DATA_LEN`]).
pub const DATA_LIMITS: Limits = Limits {
    max_size: MAX_DATA_LEN,
    max_depth: 32,
    max_members: 256,
};

/// Longest payload: the data and its fixed JSON wrapper with two 20-digit times.
pub const MAX_PAYLOAD_LEN: usize = open_scratch_len(MAX_DATA_LEN);

/// Size of a scratch buffer [`open`](fn@super::open) can decode any token's payload into.
pub const OPEN_SCRATCH_LEN: usize = open_scratch_len(MAX_DATA_LEN);

/// Size of a scratch buffer that opens every token whose data is at most `max_data_len`
/// bytes: the data plus the payload's wrapper and two 20-digit times.
///
/// A server that only ever seals small data (a device sealing a stage name and a few
/// numbers) opens its own tokens with a scratch of this size instead of
/// [`OPEN_SCRATCH_LEN`]; a longer token does not open, which is right, since it cannot be
/// one this server sealed.
pub const fn open_scratch_len(max_data_len: usize) -> usize {
    max_data_len + PAYLOAD_WRAPPER_LEN + 2 * 20
}

/// Longest token [`seal`](fn@super::seal) writes and [`open`](fn@super::open) reads: 2895 bytes
/// (with a 32-character key id and 2048 bytes of data). Anything longer does not open.
pub const MAX_TOKEN_LEN: usize = token_len(KeyId::MAX_LEN, MAX_PAYLOAD_LEN);

/// The payload pieces around the times and the data.
pub(crate) const PAYLOAD_IAT: &[u8] = b"{\"iat\":";
pub(crate) const PAYLOAD_EXP: &[u8] = b",\"exp\":";
pub(crate) const PAYLOAD_DATA: &[u8] = b",\"data\":";
pub(crate) const PAYLOAD_END: &[u8] = b"}";
const _: () = assert!(TOKEN_PREFIX.len() == TOKEN_PREFIX_V1.len());
const PAYLOAD_WRAPPER_LEN: usize =
    PAYLOAD_IAT.len() + PAYLOAD_EXP.len() + PAYLOAD_DATA.len() + PAYLOAD_END.len();

/// Characters of base64url without padding for `n` bytes.
pub(crate) const fn base64_len(n: usize) -> usize {
    n / 3 * 4
        + match n % 3 {
            0 => 0,
            1 => 2,
            _ => 3,
        }
}

/// Characters of the base64url MAC.
pub(crate) const MAC_TEXT_LEN: usize = base64_len(MAC_LEN);

/// Length of a token with a key id of `id_len` characters and a payload of `payload_len`
/// bytes.
pub(crate) const fn token_len(id_len: usize, payload_len: usize) -> usize {
    TOKEN_PREFIX.len() + id_len + 1 + base64_len(payload_len) + 1 + MAC_TEXT_LEN
}

/// The two digits of each number below 100, in order.
const DIGIT_PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// Writes `n` in decimal into `buf` and returns the digits: two digits a division, since
/// each division waits for the one before (the times of every seal are ten digits).
pub(crate) fn decimal(n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let mut n = n;
    let mut put = |i: usize, pair: u64, len: usize| {
        let at = pair as usize * 2 + 2 - len;
        if let (Some(into), Some(from)) = (buf.get_mut(i..i + len), DIGIT_PAIRS.get(at..at + 2)) {
            into.copy_from_slice(from.get(..len).unwrap_or_default());
        }
    };
    while n >= 100 {
        i -= 2;
        put(i, n % 100, 2);
        n /= 100;
    }
    // Each length spelled out: a copy of a constant length is a move, not a call.
    if n >= 10 {
        i -= 2;
        put(i, n, 2);
    } else {
        i -= 1;
        put(i, n, 1);
    }
    buf.get(i..).unwrap_or_default()
}

#[cfg(test)]
mod decimal_tests {
    extern crate std;

    use super::decimal;
    use std::string::ToString;

    #[test]
    fn decimal_writes_every_number_as_rust_does() {
        let mut buf = [0u8; 20];
        let mut numbers = std::vec![
            0,
            1,
            9,
            10,
            11,
            99,
            100,
            101,
            999,
            1000,
            u64::MAX,
            u64::MAX - 1
        ];
        numbers.extend((0..64).map(|k| 1u64 << k));
        numbers.extend((1..20).map(|k| 10u64.pow(k) - 1));
        numbers.extend((1..20).map(|k| 10u64.pow(k)));
        numbers.push(1_800_000_000);
        for n in numbers {
            assert_eq!(decimal(n, &mut buf), n.to_string().as_bytes(), "{n}");
        }
    }
}

/// The parts of a token, located but not yet verified.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TokenParts<'t> {
    /// The version its prefix names.
    pub(crate) version: Version,
    /// The key id; empty for a token sealed with a single secret.
    pub(crate) key_id: &'t [u8],
    /// The base64url payload.
    pub(crate) payload: &'t [u8],
    /// The text the MAC covers: everything before the last `.`.
    pub(crate) signed: &'t [u8],
    /// The base64url MAC.
    pub(crate) mac: &'t [u8],
}

impl<'t> TokenParts<'t> {
    /// Splits a token, checking only its shape and bounds (never panics).
    pub(crate) fn split(token: &'t [u8]) -> Option<TokenParts<'t>> {
        if token.len() > MAX_TOKEN_LEN {
            return None;
        }
        let (version, rest) = match token.strip_prefix(TOKEN_PREFIX.as_bytes()) {
            Some(rest) => (Version::V2, rest),
            None => (Version::V1, token.strip_prefix(TOKEN_PREFIX_V1.as_bytes())?),
        };
        let id_end = rest.iter().position(|&b| b == b'.')?;
        let key_id = rest.get(..id_end)?;
        if key_id.len() > KeyId::MAX_LEN || !key_id.iter().all(|&b| is_key_id_byte(b)) {
            return None;
        }
        let signed_len = token.len().checked_sub(MAC_TEXT_LEN + 1)?;
        let signed = token.get(..signed_len)?;
        if token.get(signed_len) != Some(&b'.') {
            return None;
        }
        let mac = token.get(signed_len + 1..)?;
        let payload = signed.get(TOKEN_PREFIX.len() + id_end + 1..)?;
        // A `.` inside the payload is not looked for: it is no base64url character, so such
        // a payload fails its MAC (a sealer never writes one) and its decoding.
        if payload.is_empty() || payload.len() > base64_len(MAX_PAYLOAD_LEN) {
            return None;
        }
        Some(TokenParts {
            version,
            key_id,
            payload,
            signed,
            mac,
        })
    }
}
