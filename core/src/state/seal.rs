//! Sealing: data plus binding plus expiry into a token.

use super::base64url::Base64Writer;
use super::binding::Binding;
use super::error::SealError;
use super::keys::KeySet;
use super::options::StateOptions;
use super::prefix::{BindingPrefix, binding_mac, sealing_key};
use super::token::{
    DATA_LIMITS, MAX_DATA_LEN, PAYLOAD_DATA, PAYLOAD_END, PAYLOAD_EXP, PAYLOAD_IAT, TOKEN_PREFIX,
    decimal, token_len,
};
use crate::json::parse;

/// Seals `data_json` (JSON text the handler wrote, at most [`MAX_DATA_LEN`] bytes) into a
/// token bound to `binding`, issued at `now` (Unix seconds, from the round) and expiring at
/// `now` plus the TTL of `options`. Writes the token into `out` and returns its length.
///
/// Seals with the single secret, or with the first key of a ring (whose id the token then
/// names). A buffer of [`MAX_TOKEN_LEN`](super::MAX_TOKEN_LEN) bytes always suffices; a
/// smaller one that does not fit this token is [`SealError::BufferTooSmall`] with the exact
/// size needed, and nothing useful is written.
pub fn seal(
    data_json: &[u8],
    binding: &Binding<'_>,
    options: &StateOptions<impl KeySet + ?Sized>,
    now: u64,
    out: &mut [u8],
) -> Result<usize, SealError> {
    seal_continuing(data_json, binding, None, options, now, out)
}

/// [`seal`], continuing from `prefix` (made with `options` for `binding`) when given rather
/// than absorbing the binding again.
pub(crate) fn seal_continuing(
    data_json: &[u8],
    binding: &Binding<'_>,
    prefix: Option<&BindingPrefix>,
    options: &StateOptions<impl KeySet + ?Sized>,
    now: u64,
    out: &mut [u8],
) -> Result<usize, SealError> {
    if data_json.len() > MAX_DATA_LEN {
        return Err(SealError::DataTooLarge);
    }
    let data = parse(data_json, &DATA_LIMITS)
        .map_err(SealError::InvalidData)?
        .raw();
    let exp = now
        .checked_add(options.ttl().as_secs())
        .ok_or(SealError::TimeOutOfRange)?;
    let (key_id, secret) = sealing_key(options);

    // The framed key id and the payload's head, gathered first: the MAC and the encoder are
    // each called three times, not seven.
    let mut head = Head::new();
    let mut digits = [0u8; 20];
    head.push(&(key_id.len() as u64).to_be_bytes());
    head.push(key_id);
    let payload_from = head.len;
    head.push(PAYLOAD_IAT);
    head.push(decimal(now, &mut digits));
    head.push(PAYLOAD_EXP);
    head.push(decimal(exp, &mut digits));
    head.push(PAYLOAD_DATA);
    let payload_head = head.as_bytes().get(payload_from..).unwrap_or_default();

    let payload_len = payload_head.len() + data.len() + PAYLOAD_END.len();
    let required = token_len(key_id.len(), payload_len);
    let Some(out) = out.get_mut(..required) else {
        return Err(SealError::BufferTooSmall { required });
    };
    // The MAC absorbs the binding, the key id and then the payload as it is encoded.
    let mut mac = binding_mac(binding, prefix, secret, options).ok_or(SealError::ParamsTooDeep)?;

    // s2.<key id>.
    let header_len = TOKEN_PREFIX.len() + key_id.len() + 1;
    let (header, rest) = out.split_at_mut(header_len.min(required));
    let (prefix, id_dot) = header.split_at_mut(TOKEN_PREFIX.len().min(header_len));
    prefix.copy_from_slice(TOKEN_PREFIX.as_bytes());
    let (id, dot) = id_dot.split_at_mut(key_id.len().min(id_dot.len()));
    id.copy_from_slice(key_id);
    dot.fill(b'.');

    // <payload>
    mac.update(head.as_bytes());
    let mut payload = Base64Writer::new(rest);
    payload.push(payload_head);
    for piece in [data, PAYLOAD_END] {
        mac.update(piece);
        payload.push(piece);
    }
    let signed_len = header_len
        + payload
            .finish()
            .ok_or(SealError::BufferTooSmall { required })?;

    // .<mac>
    let tag = mac.finish();
    let (_, tail) = out.split_at_mut(signed_len.min(required));
    let Some((dot, mac_text)) = tail.split_first_mut() else {
        return Err(SealError::BufferTooSmall { required });
    };
    *dot = b'.';
    let mut mac = Base64Writer::new(mac_text);
    mac.push(&tag);
    let mac_len = mac.finish().ok_or(SealError::BufferTooSmall { required })?;
    Ok(signed_len + 1 + mac_len)
}

/// What the MAC absorbs between the binding and the data: the key id framed by its length
/// (at most 40 bytes), then the payload up to its data, `{"iat":<digits>,"exp":<digits>,"data":`
/// (at most 62 bytes: two times of at most 20 digits).
struct Head {
    bytes: [u8; 104],
    len: usize,
}

impl Head {
    fn new() -> Self {
        Head {
            bytes: [0; 104],
            len: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, piece: &[u8]) {
        let end = self.len + piece.len();
        if let Some(into) = self.bytes.get_mut(self.len..end) {
            into.copy_from_slice(piece);
            self.len = end;
        }
    }

    fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}
