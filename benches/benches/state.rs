//! Sealed request state: seal and open of a 200-byte data payload bound to a 300-byte params
//! object, next to one bare HMAC-SHA256 over the same token bytes (keyed from scratch) as
//! the floor. The issue's goal is each at most 3x the floor; compare the figures of one run.

use criterion::{Criterion, criterion_group, criterion_main};
use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, bare_hmac_sha256,
    open, seal,
};
use std::hint::black_box;

const KEY_NEW: [u8; 32] = [0x6b; 32];
const KEY_OLD: [u8; 32] = [0x3c; 32];
const NOW: u64 = 1_800_000_000;

/// Pads the last string of `prefix … suffix` so the whole text is `len` bytes.
fn sized(prefix: &str, suffix: &str, len: usize) -> String {
    let pad = len - prefix.len() - suffix.len();
    format!("{prefix}{}{suffix}", "x".repeat(pad))
}

fn bench_state(c: &mut Criterion) {
    let params = sized(
        r#"{"name":"book_trip","arguments":{"destination":"Lisbon","dates":{"from":"2026-10-01","to":"2026-10-07"},"travellers":[{"name":"Ana","age":34},{"name":"Rui","age":36}],"budget":2500.0,"preferences":{"window":true,"meal":"vegetarian","notes":""#,
        r#""}}}"#,
        300,
    );
    let data = sized(
        r#"{"step":2,"answers":{"seat":"14A","meal":"vegetarian"},"quote":{"total":2412.5,"currency":"EUR"},"note":""#,
        r#""}"#,
        200,
    );
    assert_eq!((params.len(), data.len()), (300, 200));

    let options = StateOptions::new(
        Keys::ring(&[("2026-10", KEY_NEW), ("2026-09", KEY_OLD)]).expect("valid ring"),
    );
    let params_view = parse(params.as_bytes(), &Limits::default()).expect("params");
    let binding = Binding::new("tools/call", Some(params_view), Principal::Id("user-42"));

    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(data.as_bytes(), &binding, &options, NOW, &mut out).expect("seal");
    let token = out[..n].to_vec();

    // The retry as a client sends it: the same params plus the token as requestState.
    let retry = format!(
        r#"{},"requestState":"{}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}"#,
        &params[..params.len() - 1],
        std::str::from_utf8(&token).expect("ascii token"),
    );
    let retry_view = parse(retry.as_bytes(), &Limits::default()).expect("retry params");
    let retry_binding = Binding::new("tools/call", Some(retry_view), Principal::Id("user-42"));
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    assert!(open(&token, &retry_binding, &options, NOW + 1, &mut scratch).is_ok());

    println!(
        "token {} bytes, params {} bytes, retry params {} bytes, data {} bytes",
        token.len(),
        params.len(),
        retry.len(),
        data.len()
    );

    let mut group = c.benchmark_group("state");
    group.bench_function("hmac_floor", |b| {
        b.iter(|| bare_hmac_sha256(black_box(&KEY_NEW), black_box(&token)))
    });
    group.bench_function("seal", |b| {
        b.iter(|| {
            seal(
                black_box(data.as_bytes()),
                black_box(&binding),
                &options,
                black_box(NOW),
                &mut out,
            )
        })
    });
    group.bench_function("open", |b| {
        b.iter(|| {
            open(
                black_box(&token),
                black_box(&binding),
                &options,
                black_box(NOW + 1),
                &mut scratch,
            )
            .is_ok()
        })
    });
    group.bench_function("open_retry_params", |b| {
        b.iter(|| {
            open(
                black_box(&token),
                black_box(&retry_binding),
                &options,
                black_box(NOW + 1),
                &mut scratch,
            )
            .is_ok()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_state);
criterion_main!(benches);
