//! The two token versions, each against a MAC computed here from the format the `state`
//! module documents (not by the code under test): `seal` writes `s2.` tokens, and `open`
//! still opens `s1.` tokens, so a token in flight across a deploy keeps working.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, InvalidState, KeySet, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions,
    open, seal,
};

const KEY: [u8; 32] = [0x42; 32];
const NOW: u64 = 1_780_000_000;
const PARAMS: &str = r#"{"name":"t","arguments":{"n":1}}"#;
const DATA: &str = r#"{"x":1}"#;

/// The canonical encoding of [`PARAMS`], written out by hand: members in key order, each
/// string as `s`, its length and its text, the integer as `i`, its length and its literal.
const CANONICAL_PARAMS: &[u8] = b"{s\x09arguments{s\x01ni\x011}s\x04names\x01t}";

/// `tools/call` framed by its length, then the anonymous principal.
fn framed_method_and_principal() -> Vec<u8> {
    let mut bytes = 10u64.to_be_bytes().to_vec();
    bytes.extend_from_slice(b"tools/call");
    bytes.push(b'a');
    bytes
}

fn payload(iat: u64) -> String {
    format!(r#"{{"iat":{iat},"exp":{},"data":{DATA}}}"#, iat + 300)
}

fn hmac(parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&KEY).unwrap();
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().to_vec()
}

/// An `s1.` token as the previous release sealed it: HMAC over a label, the SHA-256 binding
/// hash and the token text before the MAC.
fn v1_token(key_id: &str) -> String {
    let mut binding = Sha256::new();
    binding.update(b"snodo/request-state/v1/binding\0");
    binding.update(framed_method_and_principal());
    binding.update(CANONICAL_PARAMS);
    let binding = binding.finalize();
    let signed = format!("s1.{key_id}.{}", URL_SAFE_NO_PAD.encode(payload(NOW)));
    let mac = hmac(&[b"snodo/request-state/v1/mac\0", &binding, signed.as_bytes()]);
    format!("{signed}.{}", URL_SAFE_NO_PAD.encode(mac))
}

fn binding(params: &str) -> Binding<'_> {
    let params = parse(params.as_bytes(), &Limits::default()).unwrap();
    Binding::new("tools/call", Some(params), Principal::Anonymous)
}

fn open_text(
    token: &str,
    params: &str,
    options: &StateOptions<impl KeySet>,
) -> Result<String, InvalidState> {
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    open(
        token.as_bytes(),
        &binding(params),
        options,
        NOW + 1,
        &mut scratch,
    )
    .map(|data| String::from_utf8(data.raw().to_vec()).unwrap())
}

#[test]
fn seal_writes_s2_tokens_whose_mac_covers_the_framed_binding_key_id_and_payload() {
    let options = StateOptions::new(Keys::ring(&[("k1", KEY)]).unwrap());
    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(DATA.as_bytes(), &binding(PARAMS), &options, NOW, &mut out).unwrap();
    let payload = payload(NOW);
    let mac = hmac(&[
        b"snodo/request-state/v2/mac\0",
        &framed_method_and_principal(),
        CANONICAL_PARAMS,
        &2u64.to_be_bytes(),
        b"k1",
        payload.as_bytes(),
    ]);
    let expected = format!(
        "s2.k1.{}.{}",
        URL_SAFE_NO_PAD.encode(&payload),
        URL_SAFE_NO_PAD.encode(mac)
    );
    assert_eq!(std::str::from_utf8(&out[..n]).unwrap(), expected);
    assert_eq!(open_text(&expected, PARAMS, &options).as_deref(), Ok(DATA));
}

#[test]
fn s1_tokens_of_the_previous_release_still_open() {
    let single = StateOptions::new(Keys::secret(&KEY).unwrap());
    let ring = StateOptions::new(Keys::ring(&[("k2", [7; 32]), ("k1", KEY)]).unwrap());
    // Without a key id: the single secret, or any key of a ring.
    let token = v1_token("");
    assert_eq!(open_text(&token, PARAMS, &single).as_deref(), Ok(DATA));
    assert_eq!(open_text(&token, PARAMS, &ring).as_deref(), Ok(DATA));
    // With a key id: the ring key it names (and a single secret, whatever the id).
    let token = v1_token("k1");
    assert_eq!(open_text(&token, PARAMS, &ring).as_deref(), Ok(DATA));
    assert_eq!(open_text(&token, PARAMS, &single).as_deref(), Ok(DATA));
    // Still bound: other params do not open it.
    let other = r#"{"name":"t","arguments":{"n":2}}"#;
    assert_eq!(open_text(&token, other, &ring), Err(InvalidState));
}

#[test]
fn a_token_relabelled_as_the_other_version_does_not_open() {
    let options = StateOptions::new(Keys::secret(&KEY).unwrap());
    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(DATA.as_bytes(), &binding(PARAMS), &options, NOW, &mut out).unwrap();
    let v2 = std::str::from_utf8(&out[..n]).unwrap().to_owned();
    let v1 = v1_token("");
    assert_eq!(open_text(&v2, PARAMS, &options).as_deref(), Ok(DATA));
    assert_eq!(open_text(&v1, PARAMS, &options).as_deref(), Ok(DATA));
    for relabelled in [v2.replacen("s2.", "s1.", 1), v1.replacen("s1.", "s2.", 1)] {
        assert_eq!(open_text(&relabelled, PARAMS, &options), Err(InvalidState));
    }
    for unknown in [v2.replacen("s2.", "s3.", 1), v2.replacen("s2.", "s0.", 1)] {
        assert_eq!(open_text(&unknown, PARAMS, &options), Err(InvalidState));
    }
}
