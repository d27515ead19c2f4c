//! Opening arbitrary tokens against arbitrary params: never panics, never opens without the
//! key; and a token the target seals itself opens, and stops opening when any byte changes.
//!
//! Input layout: one mode byte (principal, keys, TTL, which byte to change), eight bytes of
//! `now` (little-endian), two bytes of params length, the params JSON, then the token bytes
//! (which are also tried as data to seal).
#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, Ttl, open, seal,
};

const KEY_A: [u8; 32] = [0x11; 32];
const KEY_B: [u8; 40] = [0x22; 40];

fn options(mode: u8) -> StateOptions {
    let keys = match (mode >> 1) & 3 {
        0 => Keys::secret(&KEY_A),
        1 => Keys::ring(&[("a", &KEY_A[..])]),
        2 => Keys::ring(&[("b", &KEY_B[..]), ("a", &KEY_A[..])]),
        _ => Keys::ring(&[("b", &KEY_B[..])]),
    };
    let ttl = Ttl::from_secs(u64::from(mode >> 3) * 28 + 1).unwrap_or_default();
    StateOptions::new(keys.expect("valid fuzz keys")).with_ttl(ttl)
}

fuzz_target!(|input: &[u8]| {
    let Some((&mode, rest)) = input.split_first() else {
        return;
    };
    let Some((now, rest)) = rest.split_first_chunk::<8>() else {
        return;
    };
    let now = u64::from_le_bytes(*now);
    let Some((len, rest)) = rest.split_first_chunk::<2>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes(*len)).min(rest.len());
    let (params, token) = rest.split_at(len);

    let params = parse(params, &Limits::DEVICE).ok();
    let principal = if mode & 1 == 0 {
        Principal::Anonymous
    } else {
        Principal::Id("fuzz")
    };
    let binding = Binding::new("tools/call", params, principal);
    let options = options(mode);
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];

    // Nobody without the key produces a token that opens.
    assert!(
        open(token, &binding, &options, now, &mut scratch).is_err(),
        "a token not produced by seal opened"
    );

    // A token sealed here opens with the same data, and any single changed byte breaks it.
    let mut out = [0u8; MAX_TOKEN_LEN];
    let Ok(n) = seal(token, &binding, &options, now, &mut out) else {
        return;
    };
    let sealed = &out[..n];
    let data = parse(token, &Limits::HOST).expect("sealed data is JSON");
    let opened = open(sealed, &binding, &options, now, &mut scratch).expect("own token opens");
    assert_eq!(opened.raw(), data.raw());

    let mut changed = [0u8; MAX_TOKEN_LEN];
    changed[..n].copy_from_slice(sealed);
    let at = (usize::from(mode) * 131 + token.len()) % n;
    changed[at] = changed[at].wrapping_add(1 + mode % 255);
    assert!(
        open(&changed[..n], &binding, &options, now, &mut scratch).is_err(),
        "a changed token opened"
    );
});
