//! The preference flow of the seed's example 20: every test of the shared suite
//! (`mrtr_preferences/suite.rs`) run on each boundary by one harness:
//!
//! - `direct` (`mrtr_preferences/direct.rs`): the `preferences` example's typed flows
//!   in-process, plus the tests that need in-process control of the round (its clock, its
//!   principal);
//! - `bytes` (`mrtr_preferences/bytes.rs`): the byte-level flow in-process through the core's
//!   synchronous round, plus the middleware tests;
//! - `stdio` and `http`: the `preferences` example binary (`--stdio`, `--http 127.0.0.1:0`),
//!   one process per server a test starts. The example seals with a random secret per
//!   process, so where a test chooses the keys its servers are
//!   `mrtr-fixture-server --app preferences` with those keys (the same flow code, the
//!   fixtures' identity).
//!
//! And one test across transports: state sealed over stdio opens over HTTP.

#[path = "mrtr_preferences/suite.rs"]
mod suite;

#[path = "mrtr_preferences/bytes.rs"]
mod bytes;
#[path = "mrtr_preferences/direct.rs"]
mod direct;

use serde_json::json;
use snodo_tests::boundary::{StateKeys, Target, Transport, example_target, fixture_server_command};
use snodo_tests::harness::server_info;
use snodo_tests::mrtr_fixture::{SECRET, accept, form_caps, retry, send, state_of};
use suite::{FAMILIES, asks_color, asks_style, expect, expect_final, style_retry, teal_matte};

fn spawned(transport: Transport) -> Target {
    example_target(env!("CARGO_BIN_EXE_mrtr-fixture-server"), transport)
}

mod stdio {
    crate::suite::preference_tests!(super::spawned(snodo_tests::boundary::Transport::Stdio));
}

mod http {
    crate::suite::preference_tests!(super::spawned(snodo_tests::boundary::Transport::Http));
}

/// A server of the preference flow over `transport`, sealing with the suite's secret.
fn sharing_the_secret(transport: Transport) -> Box<dyn snodo_tests::boundary::Boundary> {
    let keys = StateKeys::Secret(SECRET);
    let program = env!("CARGO_BIN_EXE_mrtr-fixture-server");
    transport.spawn(
        fixture_server_command(program, "preferences", &keys, transport),
        server_info(),
    )
}

/// Sealed state belongs to no transport: legs served alternately over stdio and HTTP by
/// processes that share a secret go on where the last one stopped.
#[test]
fn state_sealed_over_stdio_opens_over_http_and_back() {
    let info = server_info();
    for family in FAMILIES {
        let mut stdio = sharing_the_secret(Transport::Stdio);
        let mut http = sharing_the_secret(Transport::Http);
        let leg1 = stdio.round(&send(1, family.method(), family.params(), form_caps()));
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        let colour = Some(json!({"color": accept(json!({"color": "teal"}))}));
        let leg2 = http.round(&send(
            2,
            family.method(),
            retry(family.params(), Some(&s1), colour),
            form_caps(),
        ));
        let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
        let leg3 = stdio.round(&style_retry(3, family, family.params(), &s2));
        expect_final(&info, family, leg3, 3, teal_matte());
    }
}
