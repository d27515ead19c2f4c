//! MRTR rules the preference flow does not reach, over Streamable HTTP: every test of the shared suite
//! (`mrtr_fixture/suite.rs`) against `mrtr-fixture-server --http 127.0.0.1:0`, one process per server a
//! test starts, one POST per message; with a random secret per process unless the test
//! chooses the keys. Middleware answering by itself is direct-only
//! (`mrtr_fixture_direct.rs`).

#[path = "mrtr_fixture/suite.rs"]
mod suite;

use snodo_tests::boundary::{Target, Transport, fixture_server_command};
use snodo_tests::harness::server_info;

const TRANSPORT: Transport = Transport::Http;

fn target() -> Target {
    Target::new("http", |keys| {
        TRANSPORT.spawn(
            fixture_server_command(
                env!("CARGO_BIN_EXE_mrtr-fixture-server"),
                "fixture",
                keys,
                TRANSPORT,
            ),
            server_info(),
        )
    })
}

suite::fixture_tests!(target());
