//! A whole MRTR retry round of the example's `preference_preview`, next to its floor.
//!
//! - `retry_round`: leg 2 of the preference flow through `Server::handle` — parse the request,
//!   admit it, open the sealed state of leg 1, read and validate the one form answer
//!   (`color`, a required string with `minLength: 1`), seal the new state and write the
//!   `input_required` result asking for `style`;
//! - `floor`: two bare HMAC-SHA256 over the token bytes (the state the request carries and
//!   the state the reply carries, keyed from scratch) plus `serde_json`'s `IgnoredAny` pass
//!   over the request bytes, in one iteration;
//! - `floor_hmac_x2` and `floor_ignored`: the two parts of the floor on their own;
//! - `first_round` and `final_round`: leg 1 (seals only) and leg 3 (opens only, writes the
//!   final text), for context.
//!
//! The goal (issue 12, item 4) is `retry_round` at most 3x `floor`. Figures are compared within one
//! run; nothing here asserts a time. The application is the example's own flow code
//! (`flow.rs` and `mrtr_app.rs`, included as the tests include them).

#[path = "../../std-adapters/examples/preferences_bytes/flow.rs"]
mod flow;
#[path = "../../std-adapters/examples/preferences_bytes/mrtr_app.rs"]
mod mrtr_app;

#[path = "../src/mrtr_legs.rs"]
mod mrtr_legs;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn bench_mrtr(c: &mut Criterion) {
    let legs = mrtr_legs::Legs::new();
    eprintln!(
        "retry round: {} bytes in, tokens of {} and {} bytes",
        legs.leg2.len(),
        legs.s1.len(),
        legs.s2.len()
    );

    let mut out = vec![0u8; 8192];
    let mut group = c.benchmark_group("mrtr_preference_preview");
    group.throughput(Throughput::Bytes(legs.leg2.len() as u64));
    group.bench_function("retry_round", |b| b.iter(|| legs.retry(&mut out)));
    group.bench_function("floor", |b| b.iter(|| legs.floor()));
    group.bench_function("floor_hmac_x2", |b| b.iter(|| legs.floor_hmac_x2()));
    group.bench_function("floor_ignored", |b| b.iter(|| legs.floor_ignored()));
    group.bench_function("first_round", |b| b.iter(|| legs.run(&legs.leg1, &mut out)));
    group.bench_function("final_round", |b| b.iter(|| legs.run(&legs.leg3, &mut out)));
    group.finish();
}

criterion_group!(benches, bench_mrtr);
criterion_main!(benches);
