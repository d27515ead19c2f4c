//! A request's binding absorbed into the `s2.` MAC once, for both ends of a retry round.
//!
//! A retry opens the token it carries and usually seals the next one, both bound to the same
//! method, salient params and principal: the canonical pass over the params (about 40 % of a
//! seal) would run twice. A [`BindingPrefix`] is the MAC state after the label and the framed
//! binding, under the key sealing uses; opening with that key and sealing both continue from
//! a clone of it. The MAC absorbs the same bytes either way, so the tokens are unchanged.

use super::binding::Binding;
use super::keys::{KeySet, KeysView};
use super::mac::TokenMac;
use super::options::StateOptions;
use super::secret::Secret;

/// The `s2.` MAC of one request's binding under the sealing key of the options it was made
/// with, label and framed binding absorbed.
#[derive(Clone)]
#[cfg_attr(not(feature = "retry-prefix"), allow(dead_code))]
pub(crate) struct BindingPrefix {
    mac: TokenMac,
}

#[cfg_attr(not(feature = "retry-prefix"), allow(dead_code))]
impl BindingPrefix {
    /// Absorbs `binding` under the key `options` seals with, stepping over the `known`
    /// values of the params' left-out members (see [`Binding::frame_known`]); `None` when
    /// the params nest too deep to frame (opening and sealing then fail on their own).
    pub(crate) fn new(
        binding: &Binding<'_>,
        known: &[&[u8]],
        options: &StateOptions<impl KeySet + ?Sized>,
    ) -> Option<BindingPrefix> {
        let mac = absorbed(binding, known, sealing_secret(options))?;
        Some(BindingPrefix { mac })
    }
}

/// The `s2.` MAC under `secret` with its label and the framed `binding` absorbed: a clone of
/// `prefix` if it was made (with `options`, for `binding`) under `secret`, else absorbed now;
/// `None` when the params nest too deep to frame.
pub(crate) fn binding_mac(
    binding: &Binding<'_>,
    prefix: Option<&BindingPrefix>,
    secret: &Secret,
    options: &StateOptions<impl KeySet + ?Sized>,
) -> Option<TokenMac> {
    match prefix {
        Some(prefix) if core::ptr::eq(secret, sealing_secret(options)) => Some(prefix.mac.clone()),
        _ => absorbed(binding, &[], secret),
    }
}

/// The `s2.` MAC under `secret` with its label and the framed `binding` absorbed (`known`
/// as for [`Binding::frame_known`]).
fn absorbed(binding: &Binding<'_>, known: &[&[u8]], secret: &Secret) -> Option<TokenMac> {
    let mut mac = secret.key().v2();
    binding
        .frame_known(known, &mut |bytes: &[u8]| mac.update(bytes))
        .ok()?;
    Some(mac)
}

impl core::fmt::Debug for BindingPrefix {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("BindingPrefix(..)")
    }
}

/// The secret [`seal`](super::seal()) uses: the single secret, or a ring's first key.
pub(crate) fn sealing_secret(options: &StateOptions<impl KeySet + ?Sized>) -> &Secret {
    sealing_key(options).1
}

/// The key id and secret [`seal`](super::seal()) uses.
pub(crate) fn sealing_key(options: &StateOptions<impl KeySet + ?Sized>) -> (&[u8], &Secret) {
    match options.view() {
        KeysView::Secret(secret) => (b"", secret),
        KeysView::Ring(ring) => {
            let (id, secret) = ring.primary();
            (id.as_bytes(), secret)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};
    use crate::state::{
        Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, open, open_continuing, seal,
        seal_continuing,
    };

    const NOW: u64 = 1_790_000_000;
    const PARAMS: &[u8] =
        br#"{"name":"t","arguments":{"b":[1,2.5],"a":"x"},"requestState":"s2.."}"#;

    /// Seals `{"k":1}` with `seal`, and with `seal_continuing` from a prefix made with
    /// `made_with`: the token bytes are the same, and both open either way.
    fn same_token(options: &StateOptions, made_with: &StateOptions) {
        let params = parse(PARAMS, &Limits::default()).unwrap();
        let binding = Binding::new("tools/call", Some(params), Principal::Id("alice"));
        let prefix = BindingPrefix::new(&binding, &[], made_with).unwrap();
        let (mut plain, mut continued) = ([0u8; MAX_TOKEN_LEN], [0u8; MAX_TOKEN_LEN]);
        let n = seal(br#"{"k":1}"#, &binding, options, NOW, &mut plain).unwrap();
        let m = seal_continuing(
            br#"{"k":1}"#,
            &binding,
            Some(&prefix),
            options,
            NOW,
            &mut continued,
        )
        .unwrap();
        assert_eq!(plain[..n], continued[..m]);
        let mut scratch = [0u8; OPEN_SCRATCH_LEN];
        assert!(open(&plain[..n], &binding, options, NOW, &mut scratch).is_ok());
        let opened = open_continuing(
            &plain[..n],
            &binding,
            Some(&prefix),
            options,
            NOW,
            &mut scratch,
        );
        assert!(opened.is_ok());
    }

    #[test]
    fn sealing_from_the_prefix_writes_the_token_seal_writes() {
        let secret = StateOptions::new(Keys::secret(&[7; 32]).unwrap());
        let ring = StateOptions::new(Keys::ring(&[("a", [1; 32]), ("b", [2; 32])]).unwrap());
        same_token(&secret, &secret);
        same_token(&ring, &ring);
        // A prefix absorbed under other options' key is not used.
        let other = StateOptions::new(Keys::secret(&[7; 32]).unwrap());
        same_token(&secret, &other);
    }
}
