//! The preference flow of the seed's example 20 over Streamable HTTP: every test of the shared suite
//! (`mrtr_preferences/suite.rs`) against the `preferences` example binary (`--http 127.0.0.1:0`), one
//! process per server a test starts, one POST per message.
//!
//! The example seals with a random secret per process, so where a test chooses the keys (the
//! same secret in fresh processes, another secret, a key ring, none) its servers are
//! `mrtr-fixture-server --app preferences` with those keys: the same flow code, the fixtures'
//! identity. Tests that need in-process control of the round (its clock, its principal,
//! middleware) are direct-only (`mrtr_preferences_direct.rs`).

#[path = "mrtr_preferences/suite.rs"]
mod suite;

use serde_json::{Value, json};
use snodo_tests::boundary::{
    StateKeys, Target, Transport, example_command, fixture_server_command,
};
use snodo_tests::harness::server_info;
use snodo_tests::mrtr_fixture::{SECRET, accept, form_caps, retry, send, state_of};
use suite::{FAMILIES, asks_color, asks_style, expect, expect_final, style_retry, teal_matte};

const TRANSPORT: Transport = Transport::Http;

/// The example's `serverInfo`; its version is the workspace version, as is this crate's.
fn example_info() -> Value {
    json!({
        "name": "snodo-preferences",
        "title": "Snodo preferences example",
        "version": env!("CARGO_PKG_VERSION")
    })
}

fn target() -> Target {
    Target::new("http", |keys| match keys {
        StateKeys::Own => TRANSPORT.spawn(example_command(TRANSPORT), example_info()),
        keys => TRANSPORT.spawn(
            fixture_server_command(
                env!("CARGO_BIN_EXE_mrtr-fixture-server"),
                "preferences",
                keys,
                TRANSPORT,
            ),
            server_info(),
        ),
    })
}

suite::preference_tests!(target());

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
