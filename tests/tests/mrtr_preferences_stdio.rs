//! The preference flow of the seed's example 20 over stdio: every test of the shared suite
//! (`mrtr_preferences/suite.rs`) against the `preferences` example binary (`--stdio`), one
//! process per server a test starts, reused across its rounds.
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

const TRANSPORT: Transport = Transport::Stdio;

/// The example's `serverInfo`; its version is the workspace version, as is this crate's.
fn example_info() -> Value {
    json!({
        "name": "snodo-preferences",
        "title": "Snodo preferences example",
        "version": env!("CARGO_PKG_VERSION")
    })
}

fn target() -> Target {
    Target::new("stdio", |keys| match keys {
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
