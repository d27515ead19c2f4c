//! MRTR rules the preference flow does not reach, over stdio: every test of the shared suite
//! (`mrtr_fixture/suite.rs`) against `mrtr-fixture-server --stdio`, one process per server a
//! test starts, reused across its rounds; with a random secret per process unless the test
//! chooses the keys. Middleware answering by itself is direct-only
//! (`mrtr_fixture_direct.rs`).

#[path = "mrtr_fixture/suite.rs"]
mod suite;

use snodo_tests::boundary::{Target, Transport, fixture_server_command};
use snodo_tests::harness::server_info;

const TRANSPORT: Transport = Transport::Stdio;

fn target() -> Target {
    Target::new("stdio", |keys| {
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
