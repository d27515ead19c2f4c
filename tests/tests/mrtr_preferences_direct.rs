//! The preference flow of the seed's example 20, core in-process: every test of the shared
//! suite (`mrtr_preferences/suite.rs`) against the example application's own flow code
//! (`snodo_tests::mrtr_fixture::Preferences`), plus the tests that need in-process control of
//! the round and stay here:
//!
//! - expiry and a clock that went back: the round's time is chosen per round, which a served
//!   process (reading the system clock) does not allow;
//! - binding to the principal: a round's principal is chosen per round, and stdio is always
//!   anonymous;
//! - middleware: the guard wraps the application in-process, refuses by principal and counts
//!   its calls, which only the in-process test can read.

#[path = "mrtr_preferences/suite.rs"]
mod suite;

use serde_json::{Value, json};
use snodo_core::server::{Layered, Round, Server};
use snodo_tests::boundary::{Boundary, Direct, HANDLER_RUNS, StateKeys, Target, leak};
use snodo_tests::harness::{NOW, round, server_info};
use snodo_tests::mrtr_fixture::{
    Guard, Preferences, accept, config, form_caps, invalid_state, retry, round_as, round_at,
    round_later, send, state_of, state_options,
};
use suite::{
    FAMILIES, Family, asks_color, asks_style, expect, expect_final, first_two_legs, style_retry,
    teal_matte,
};

/// The preference application in-process, sealing with `keys` (its own: the suite's secret).
fn preferences(keys: &StateKeys) -> Direct<Preferences> {
    let config = match keys {
        StateKeys::Own => config(leak(state_options())),
        StateKeys::None => snodo_tests::fixture::config(),
        keys => config(leak(keys.options().expect("keys"))),
    };
    Direct::new(
        Server::new(config, Preferences::new()).expect("valid definitions"),
        server_info(),
    )
    .counting(HANDLER_RUNS, Preferences::handler_runs)
}

fn direct() -> Target {
    Target::new("direct", |keys| Box::new(preferences(keys)))
}

suite::preference_tests!(direct());

// ---------------------------------------------------------------------------------------
// Expired state (the round's clock)
// ---------------------------------------------------------------------------------------

#[test]
fn expired_and_future_state_is_refused() {
    for family in FAMILIES {
        let mut b = preferences(&StateKeys::Own);
        let info = server_info();
        let (_, s2) = first_two_legs(&mut b, family);
        let server = b.server();
        // Expiry is exclusive: valid for 299 seconds after issue, refused at 300.
        let reply = round_later(server, &style_retry(3, family, family.params(), &s2), 299);
        expect_final(&info, family, reply, 3, teal_matte());
        for (id, later) in [(4, 300), (5, 301), (6, 100_000)] {
            let reply = round_later(
                server,
                &style_retry(id, family, family.params(), &s2),
                later,
            );
            expect(reply, &invalid_state(id));
        }
        // Issued in the future (a clock that went back).
        let earlier = Round::anonymous(NOW.now - 1);
        let reply = round_at(
            server,
            &style_retry(7, family, family.params(), &s2),
            earlier,
        );
        expect(reply, &invalid_state(7));
    }
}

// ---------------------------------------------------------------------------------------
// The principal
// ---------------------------------------------------------------------------------------

#[test]
fn state_is_bound_to_the_principal() {
    let b = preferences(&StateKeys::Own);
    let server = b.server();
    let info = server_info();
    let family = Family::Tool;
    let leg1 = round_as(
        server,
        &send(1, family.method(), family.params(), form_caps()),
        "alice",
    );
    let s1 = state_of(&expect(leg1, &asks_color(&info, 1)));
    let colour = || Some(json!({"color": accept(json!({"color": "teal"}))}));
    let leg2 = |id: i64| {
        send(
            id,
            family.method(),
            retry(family.params(), Some(&s1), colour()),
            form_caps(),
        )
    };
    // Another principal, and anonymity, are refused; alice goes on.
    expect(round_as(server, &leg2(2), "bob"), &invalid_state(2));
    expect(round(server, &leg2(3)), &invalid_state(3));
    expect(round_as(server, &leg2(4), "alice"), &asks_style(&info, 4));
    // Anonymity is not an empty identity, nor the reverse.
    let anonymous = round(
        server,
        &send(5, family.method(), family.params(), form_caps()),
    );
    let s5 = state_of(&expect(anonymous, &asks_color(&info, 5)));
    let leg6 = send(
        6,
        family.method(),
        retry(family.params(), Some(&s5), colour()),
        form_caps(),
    );
    expect(round_as(server, &leg6, ""), &invalid_state(6));
    expect(round(server, &leg6), &asks_style(&info, 6));
}

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

/// The direct boundary reports what the process boundaries cannot: the round's fixed time and
/// the handler runs.
#[test]
fn the_direct_boundary_sees_the_clock_and_the_handlers() {
    let mut b = preferences(&StateKeys::Own);
    assert_eq!(b.fixed_time(), Some(NOW.now));
    assert_eq!(b.counter(HANDLER_RUNS), Some(0));
    first_two_legs(&mut b, Family::Tool);
    assert_eq!(b.counter(HANDLER_RUNS), Some(2));
    assert_eq!(b.counter("no such counter"), None);
}
