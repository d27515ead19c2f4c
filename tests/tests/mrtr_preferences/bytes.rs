//! The byte-level preference flow (`std-adapters/examples/preferences_bytes/`, the
//! documented second example for firmware-like code), core in-process: every test of the
//! shared suite against its flow code
//! (`snodo_tests::mrtr_fixture::Preferences`, which counts its handler runs) through the
//! core's synchronous round (the firmware path), plus the
//! middleware tests: the guard wraps the synchronous application in-process
//! ([`Layered`]), refuses by principal and counts its calls, which only an in-process test
//! can read.

use crate::suite::{
    FAMILIES, asks_color, asks_style, expect, expect_final, style_retry, teal_matte,
};
use serde_json::{Value, json};
use snodo_core::server::{Layered, Server};
use snodo_tests::boundary::{Direct, HANDLER_RUNS, StateKeys, Target, leak};
use snodo_tests::harness::server_info;
use snodo_tests::mrtr_fixture::{
    Guard, Preferences, accept, config, form_caps, invalid_state, retry, round_as, send, state_of,
    state_options,
};

/// The byte-level preference application in-process, sealing with `keys` (its own: the
/// suite's secret).
fn preferences(keys: &StateKeys) -> Direct<Preferences> {
    let config = match keys {
        StateKeys::Own => config(leak(state_options())),
        StateKeys::None => snodo_tests::fixture::config(),
        keys => config(leak(keys.options().expect("keys"))),
    };
    Direct::sync(
        Server::new(config, Preferences::new()).expect("valid definitions"),
        server_info(),
    )
    .counting(HANDLER_RUNS, Preferences::handler_runs)
}

fn bytes() -> Target {
    Target::new("direct", |keys| Box::new(preferences(keys)))
}

crate::suite::preference_tests!(bytes());

// ---------------------------------------------------------------------------------------
// Middleware
// ---------------------------------------------------------------------------------------

fn guarded(opts: &snodo_core::state::StateOptions) -> Server<'_, Layered<Guard, Preferences>> {
    Server::new(
        config(opts),
        Layered::new(Guard::refusing("mallory"), Preferences::new()),
    )
    .expect("valid definitions")
}

fn forbidden(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": 4003, "message": "Forbidden"}})
}

#[test]
fn middleware_runs_on_every_leg() {
    let info = server_info();
    for family in FAMILIES {
        let opts = state_options();
        let server = guarded(&opts);
        let leg1 = round_as(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
            "alice",
        );
        let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
        assert_eq!(server.app().middleware.calls(), 1);
        let leg2 = round_as(
            &server,
            &send(
                2,
                family.method(),
                retry(
                    family.params(),
                    Some(&s1),
                    Some(json!({"color": accept(json!({"color": "teal"}))})),
                ),
                form_caps(),
            ),
            "alice",
        );
        let s2 = state_of(&expect(leg2, &asks_style(&info, 2)));
        assert_eq!(server.app().middleware.calls(), 2);
        let leg3 = round_as(
            &server,
            &style_retry(3, family, family.params(), &s2),
            "alice",
        );
        expect_final(&info, family, leg3, 3, teal_matte());
        assert_eq!(server.app().middleware.calls(), 3);
        assert_eq!(server.app().inner.handler_runs(), 3);
    }
}

#[test]
fn middleware_refuses_a_principal_on_first_calls_and_retries() {
    let info = server_info();
    for family in FAMILIES {
        let opts = state_options();
        let server = guarded(&opts);
        // A first call.
        let reply = round_as(
            &server,
            &send(1, family.method(), family.params(), form_caps()),
            "mallory",
        );
        expect(reply, &forbidden(1));
        // A retry carrying alice's genuine state: the guard refuses before the handler.
        let leg1 = round_as(
            &server,
            &send(2, family.method(), family.params(), form_caps()),
            "alice",
        );
        let s1 = state_of(&expect(leg1, &asks_color(&info, 2)));
        let retry_leg = send(
            3,
            family.method(),
            retry(
                family.params(),
                Some(&s1),
                Some(json!({"color": accept(json!({"color": "teal"}))})),
            ),
            form_caps(),
        );
        expect(round_as(&server, &retry_leg, "mallory"), &forbidden(3));
        assert_eq!(
            server.app().inner.handler_runs(),
            1,
            "only alice's call ran"
        );
        // Someone the guard admits still cannot use alice's state.
        expect(round_as(&server, &retry_leg, "eve"), &invalid_state(3));
        assert_eq!(server.app().middleware.calls(), 4);
    }
}

#[test]
fn lists_and_discover_never_reach_middleware() {
    let opts = state_options();
    let server = guarded(&opts);
    for (id, method) in [
        (1, "tools/list"),
        (2, "resources/list"),
        (3, "prompts/list"),
        (4, "server/discover"),
    ] {
        let reply = round_as(
            &server,
            &send(id, method, json!({}), form_caps()),
            "mallory",
        )
        .expect("a reply");
        assert_eq!(reply["result"]["resultType"], json!("complete"), "{reply}");
    }
    assert_eq!(server.app().middleware.calls(), 0);
}
