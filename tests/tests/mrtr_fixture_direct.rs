//! MRTR rules the preference flow does not reach, core in-process: every test of the shared
//! suite (`mrtr_fixture/suite.rs`) against the MRTR fixture application
//! (`snodo_tests::mrtr_fixture::MrtrFixture`), with its handler runs and argument leaks
//! counted, plus the one test that stays here:
//!
//! - middleware answering by itself: the middleware wraps the application in-process, and the
//!   claim that the handler never runs is read from the in-process counter.

#[path = "mrtr_fixture/suite.rs"]
mod suite;

use serde_json::json;
use snodo_core::server::{Layered, Server};
use snodo_tests::boundary::{Direct, HANDLER_RUNS, StateKeys, Target, leak};
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
    Direct::new(
        Server::new(config, MrtrFixture::new()).expect("valid definitions"),
        server_info(),
    )
    .counting(HANDLER_RUNS, MrtrFixture::handler_runs)
    .counting(ARGUMENT_LEAKS, MrtrFixture::argument_leaks)
}

fn direct() -> Target {
    Target::new("direct", |keys| Box::new(fixture(keys)))
}

suite::fixture_tests!(direct());

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
