//! MRTR rules the preference flow does not reach: every test of the shared suite
//! (`mrtr_fixture/suite.rs`) run on each boundary by one harness, against the MRTR fixture
//! application (`snodo_tests::mrtr_fixture::MrtrFixture`):
//!
//! - `direct`: in-process through the core's synchronous round, with its handler runs and
//!   argument leaks counted;
//! - `stdio`: `mrtr-fixture-server --stdio`, one process per server a test starts, reused
//!   across its rounds;
//! - `http`: `mrtr-fixture-server --http 127.0.0.1:0`, one POST per message.
//!
//! Spawned servers seal with a random secret per process unless the test chooses the keys.
//! One test stays direct-only: middleware answering by itself wraps the application
//! in-process, and the claim that the handler never runs is read from the in-process counter.

#[path = "mrtr_fixture/suite.rs"]
mod suite;

use serde_json::json;
use snodo_core::server::{Layered, Server};
use snodo_tests::boundary::{
    Direct, HANDLER_RUNS, StateKeys, Target, Transport, fixture_server_target, leak,
};
use snodo_tests::harness::{round, server_info};
use snodo_tests::mrtr_fixture::{
    AsksForSampling, MrtrFixture, config, form_caps, input_required, missing_capability, send,
    state_options,
};
use suite::{ARGUMENT_LEAKS, expect, plain_sampling, tool};

/// The fixture in-process, sealing with `keys` (its own: the suite's secret).
fn fixture(keys: &StateKeys) -> Direct<MrtrFixture> {
    let config = match keys {
        StateKeys::Own => config(leak(state_options())),
        StateKeys::None => snodo_tests::fixture::config(),
        keys => config(leak(keys.options().expect("keys"))),
    };
    Direct::sync(
        Server::new(config, MrtrFixture::new()).expect("valid definitions"),
        server_info(),
    )
    .counting(HANDLER_RUNS, MrtrFixture::handler_runs)
    .counting(ARGUMENT_LEAKS, MrtrFixture::argument_leaks)
}

fn spawned(transport: Transport) -> Target {
    let program = env!("CARGO_BIN_EXE_mrtr-fixture-server");
    fixture_server_target(program, "fixture", transport)
}

mod direct {
    super::suite::fixture_tests!(snodo_tests::boundary::Target::new("direct", |keys| {
        Box::new(super::fixture(keys))
    }));
}

mod stdio {
    super::suite::fixture_tests!(super::spawned(snodo_tests::boundary::Transport::Stdio));
}

mod http {
    super::suite::fixture_tests!(super::spawned(snodo_tests::boundary::Transport::Http));
}

// ---------------------------------------------------------------------------------------
// Middleware cannot widen the capabilities
// ---------------------------------------------------------------------------------------

#[test]
fn middleware_answering_by_itself_is_admitted_against_the_request() {
    let opts = state_options();
    let server = Server::new(
        config(&opts),
        Layered::new(AsksForSampling, MrtrFixture::new()),
    )
    .expect("valid definitions");
    let params = tool("inspect", json!({}));
    expect(
        round(&server, &send(1, "tools/call", params.clone(), form_caps())),
        &missing_capability(1, json!({"sampling": {}})),
    );
    expect(
        round(
            &server,
            &send(2, "tools/call", params, json!({"sampling": {}})),
        ),
        &input_required(2, json!({"inputRequests": {"summary": plain_sampling()}})),
    );
    assert_eq!(server.app().inner.handler_runs(), 0);
}
