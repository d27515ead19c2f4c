//! The preference flow in-process: every test of the shared suite against the `preferences`
//! example's typed flows (`snodo_tests::mrtr_fixture::typed_preferences_server`, its
//! `flows.rs` with the fixtures' identity) through the asynchronous round, as the stdio and
//! HTTP boundaries serve it, with its handler runs counted; plus the tests that need
//! in-process control of the round:
//!
//! - expiry and a clock that went back: the round's time is chosen per round, which a served
//!   process (reading the system clock) does not allow;
//! - binding to the principal: a round's principal is chosen per round, and stdio is always
//!   anonymous.
//!
//! The byte-level flow (`examples/preferences_bytes/`) and the middleware around it are
//! tested in `bytes.rs`.

use crate::suite::{
    FAMILIES, Family, asks_color, asks_style, expect, expect_final, first_two_legs, style_retry,
    teal_matte,
};
use serde_json::json;
use snodo_core::server::Round;
use snodo_std::typed::TypedApp;
use snodo_tests::boundary::{Boundary, Counted, Direct, HANDLER_RUNS, StateKeys, Target};
use snodo_tests::harness::{NOW, server_info};
use snodo_tests::mrtr_fixture::{
    accept, form_caps, invalid_state, retry, round_as, round_at, round_later, send, state_of,
    typed_preferences_server,
};

/// The typed preference flows in-process, sealing with `keys` (its own: the suite's secret).
fn preferences(keys: &StateKeys) -> Direct<Counted<TypedApp>> {
    Direct::new(typed_preferences_server(keys), server_info())
        .counting(HANDLER_RUNS, Counted::handler_runs)
}

fn direct() -> Target {
    Target::new("direct", |keys| Box::new(preferences(keys)))
}

crate::suite::preference_tests!(direct());

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
    expect(round_at(server, &leg2(3), NOW), &invalid_state(3));
    expect(round_as(server, &leg2(4), "alice"), &asks_style(&info, 4));
    // Anonymity is not an empty identity, nor the reverse.
    let anonymous = round_at(
        server,
        &send(5, family.method(), family.params(), form_caps()),
        NOW,
    );
    let s5 = state_of(&expect(anonymous, &asks_color(&info, 5)));
    let leg6 = send(
        6,
        family.method(),
        retry(family.params(), Some(&s5), colour()),
        form_caps(),
    );
    expect(round_as(server, &leg6, ""), &invalid_state(6));
    expect(round_at(server, &leg6, NOW), &asks_style(&info, 6));
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
