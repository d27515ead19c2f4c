//! Sealed request state: HMAC-SHA256 tokens bound to the request they continue.
//!
//! A handler that returns `input_required` and needs partial answers on the retry puts them
//! in a token with [`seal`](fn@seal); the client echoes the token as `requestState`, and the handler
//! gets the data back with [`open`](fn@open). The server keeps nothing between rounds.
//!
//! ```
//! use snodo_core::json::{Limits, parse};
//! use snodo_core::state::{Binding, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, open, seal};
//!
//! let options = StateOptions::new(Keys::ring(&[("2026-10", [7u8; 32])]).unwrap());
//! let params = parse(br#"{"name":"preview","arguments":{"n":1}}"#, &Limits::default()).unwrap();
//! let binding = Binding::new("tools/call", Some(params), Principal::Id("alice"));
//!
//! let mut token = [0u8; MAX_TOKEN_LEN];
//! let len = seal(br#"{"color":"red"}"#, &binding, &options, 1_000, &mut token).unwrap();
//!
//! // The retry: same method, principal and arguments, plus the retry fields.
//! let retry = parse(br#"{"arguments":{"n":1},"name":"preview","requestState":"..."}"#, &Limits::default()).unwrap();
//! let binding = Binding::new("tools/call", Some(retry), Principal::Id("alice"));
//! let mut scratch = [0u8; OPEN_SCRATCH_LEN];
//! let data = open(&token[..len], &binding, &options, 1_010, &mut scratch).unwrap();
//! assert!(data.get("color").unwrap().as_str().unwrap().eq_str("red"));
//! ```
//!
//! # What a token is bound to
//!
//! The MAC covers the data, the issue and expiry times, and a [`Binding`]: the request
//! method, the params minus only the top-level `_meta`, `requestState` and `inputResponses`
//! (in canonical form: key order ignored, array order and number kind kept), and the
//! [`Principal`]. The JSON-RPC id is not bound.
//!
//! # Keys
//!
//! [`Keys`] is exactly one of a single [`Secret`] or a [`KeyRing`] of 1 to 8 named secrets;
//! invalid configuration ([`ConfigError`]) is refused when the keys are built.
//! [`StateOptions`] holds any [`KeySet`]: `Keys`, or a `Secret` or `KeyRing` alone (a lone
//! secret takes about 160 bytes where `Keys` keeps room for a whole ring). A ring seals
//! with its first key and opens with the key a token names. The rotation recipe for a cluster
//! is in `docs/state.md`.
//!
//! # Token format
//!
//! ```text
//! s2.<key id>.<payload>.<mac>
//! ```
//!
//! - `s2.` is the version prefix ([`TOKEN_PREFIX`]);
//! - `<key id>` names the ring key that sealed the token, and is empty for a token sealed
//!   with a single secret;
//! - `<payload>` is base64url without padding of the JSON text
//!   `{"iat":<issued at>,"exp":<expires at>,"data":<data>}` (Unix seconds; the data exactly
//!   as the handler wrote it, surrounding whitespace trimmed): readable, not encrypted;
//! - `<mac>` is base64url without padding of the 32-byte HMAC-SHA256, under the key, of a
//!   domain label, the method and the principal (each framed by its length), the canonical
//!   salient params, the framed key id and the decoded payload.
//!
//! Tokens of the previous version, `s1.`, still open: their MAC covers a label, a SHA-256
//! hash of the binding and the token text before the last `.` (`docs/state.md` spells out
//! both). `s2.` absorbs the binding into the MAC and covers the payload's bytes rather than
//! their base64 text: three SHA-256 blocks fewer for 200 bytes of data bound to 300 bytes of
//! params.
//!
//! The key id is authenticated along with the rest. Opening with a ring looks the id up; a
//! token without an id is tried against each key of the ring (at most
//! [`KeyRing::CAPACITY`] MACs, each digesting the params again). Opening with a single
//! secret verifies against it whatever the id says.
//!
//! # Failures
//!
//! Every reason a token does not open is the same [`InvalidState`], which a server answers
//! with JSON-RPC -32602 and a fixed message. Sealing fails only for the application's own
//! mistakes ([`SealError`]).
//!
//! # Bounds
//!
//! Data at most [`MAX_DATA_LEN`] (2048) bytes; tokens at most [`MAX_TOKEN_LEN`] (2895)
//! bytes; opening decodes into a caller's scratch buffer: [`OPEN_SCRATCH_LEN`] (2111) bytes
//! open any token, [`open_scratch_len`] sizes one for a server that seals less.

mod base64url;
mod binding;
mod error;
mod key_id;
mod keyring;
mod keys;
mod mac;
mod open;
mod options;
mod prefix;
mod seal;
mod secret;
mod token;
mod ttl;

pub use binding::{Binding, Principal};
pub use error::{ConfigError, InvalidState, SealError};
pub use key_id::KeyId;
pub use keyring::KeyRing;
pub use keys::{KeySet, Keys};
pub use mac::bare_hmac_sha256;
pub use open::open;
pub(crate) use open::open_continuing;
pub use options::StateOptions;
pub(crate) use prefix::BindingPrefix;
pub use seal::seal;
pub(crate) use seal::seal_continuing;
pub use secret::Secret;
pub use token::{
    DATA_LIMITS, MAX_DATA_LEN, MAX_PAYLOAD_LEN, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, TOKEN_PREFIX,
    open_scratch_len,
};
pub use ttl::Ttl;
