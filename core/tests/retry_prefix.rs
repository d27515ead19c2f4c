//! A retry round seals the same token whichever way its binding reaches the MAC.
//!
//! With the `retry-prefix` feature, `Server::handle` absorbs a retry's binding into the MAC
//! once and both the open of its `requestState` and the seal of the next continue from it.
//! Each round here runs through `Server::handle` and through the async driver,
//! `Server::drive` (with or without the feature), and the token
//! it writes is compared, byte for byte, with the public `seal` of the same data for the
//! same request at the same time: that `seal` absorbs the binding itself, and
//! `token_versions.rs` pins it to the documented format.

use snodo_core::json::{Limits, parse};
use snodo_core::server::{
    Call, Config, Done, Error, Handled, Handler, Registry, Round, Runner, Server, Tool, ToolCall,
    ToolReply,
};
use snodo_core::state::{
    Binding, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, seal,
};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

const NOW: u64 = 1_790_000_000;
const TOOLS: &[Tool<'static>] = &[Tool::new("count")];
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
/// The arguments, in an order other than the canonical one.
const ARGUMENTS: &str = r#""arguments":{"z":[1,2.5,"x"],"a":{"k":true}}"#;

/// Opens the state (if any) and seals `{"n":<one more>}`.
#[derive(Debug)]
struct Counter;

impl Registry for Counter {
    fn tools(&self) -> &[Tool<'_>] {
        TOOLS
    }
}

impl Handler for Counter {
    fn call_tool<'o>(&self, call: &ToolCall<'_>, reply: ToolReply<'o>) -> Result<Done<'o>, Error> {
        let mut scratch = [0u8; OPEN_SCRATCH_LEN];
        let n = match call.open_state(&mut scratch)? {
            Some(state) => state.get("n").and_then(|n| n.as_u64()).unwrap_or(0),
            None => 0,
        };
        let data = format!(r#"{{"n":{}}}"#, n + 1);
        reply.input_required().seal(data.as_bytes())
    }
}

fn request(state: Option<&str>) -> String {
    let retry = state.map_or(String::new(), |s| format!(r#","requestState":"{s}""#));
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":"count",{ARGUMENTS}{retry}}}}}"#
    )
}

/// The `requestState` a reply carries.
fn token_in(reply: &str) -> String {
    let start = reply.find(r#""requestState":""#).expect(reply) + r#""requestState":""#.len();
    let len = reply[start..].find('"').unwrap();
    reply[start..start + len].to_string()
}

/// Runs the handler at once, as an adapter's runner does (without its own timers).
struct Inline;

impl Runner for Inline {
    fn run<'o>(
        &'o mut self,
        call: &'o Call<'o>,
        out: &'o mut [u8],
    ) -> impl Future<Output = Option<Result<Done<'o>, Error>>> + 'o {
        let Call::Tool(c) = call else {
            panic!("only tools here")
        };
        std::future::ready(Some(Counter.call_tool(c, c.reply(out, None))))
    }
}

/// Which of the core's round drivers runs a round.
#[derive(Clone, Copy, Debug)]
enum Driver {
    Handle,
    Drive,
}

/// One round through the server: the token it sealed.
fn round(
    server: &Server<'_, Counter>,
    driver: Driver,
    principal: Principal<'_>,
    state: Option<&str>,
) -> String {
    let mut out = vec![0u8; 8192];
    let text = request(state);
    let round = Round {
        now: NOW,
        principal,
    };
    let handled = match driver {
        Driver::Handle => server.handle(text.as_bytes(), round, &mut out, None),
        Driver::Drive => {
            let mut runner = Inline;
            let driving = server.drive(text.as_bytes(), round, &mut out, &mut runner);
            match pin!(driving).poll(&mut Context::from_waker(Waker::noop())) {
                Poll::Ready(Some(handled)) => handled,
                other => panic!("{other:?}"),
            }
        }
    };
    match handled {
        Ok(Handled::Reply(n)) => token_in(std::str::from_utf8(&out[..n]).unwrap()),
        other => panic!("{other:?}"),
    }
}

/// The token the public `seal` writes for `data` bound to the request `state` continues.
fn sealed(
    options: &StateOptions,
    principal: Principal<'_>,
    state: Option<&str>,
    data: &str,
) -> String {
    let text = request(state);
    let message = parse(text.as_bytes(), &Limits::default()).unwrap();
    let params = message.get("params").unwrap();
    let binding = Binding::new("tools/call", Some(params), principal);
    let mut out = [0u8; MAX_TOKEN_LEN];
    let n = seal(data.as_bytes(), &binding, options, NOW, &mut out).unwrap();
    String::from_utf8(out[..n].to_vec()).unwrap()
}

/// Three rounds (first call, two retries), each token compared with the public `seal`'s.
fn rounds_seal_as_seal_does(options: &StateOptions, principal: Principal<'_>) {
    let server = Server::new(Config::new("t", "1").with_state(options), Counter).unwrap();
    for driver in [Driver::Handle, Driver::Drive] {
        let mut state: Option<String> = None;
        for n in 1..=3 {
            let token = round(&server, driver, principal, state.as_deref());
            let data = format!(r#"{{"n":{n}}}"#);
            let expected = sealed(options, principal, state.as_deref(), &data);
            assert_eq!(token, expected, "{driver:?}, round {n}");
            state = Some(token);
        }
    }
}

#[test]
fn a_single_secret_seals_the_same_tokens() {
    let options = StateOptions::new(Keys::secret(&[0x42; 32]).unwrap());
    rounds_seal_as_seal_does(&options, Principal::Anonymous);
    rounds_seal_as_seal_does(&options, Principal::Id("alice"));
}

#[test]
fn a_ring_seals_the_same_tokens() {
    let options =
        StateOptions::new(Keys::ring(&[("a", &[0xaa; 32][..]), ("b", &[0xbb; 40][..])]).unwrap());
    rounds_seal_as_seal_does(&options, Principal::Id("alice"));
}

/// A retry whose token names a key other than the sealing one still opens (the binding
/// absorbed under the sealing key does not fit it), and the next token is sealed as usual.
#[test]
fn a_token_of_the_second_ring_key_opens_and_the_next_is_sealed_with_the_first() {
    let before = StateOptions::new(Keys::ring(&[("b", &[0xbb; 40][..])]).unwrap());
    let after =
        StateOptions::new(Keys::ring(&[("a", &[0xaa; 32][..]), ("b", &[0xbb; 40][..])]).unwrap());
    let old = sealed(&before, Principal::Anonymous, None, r#"{"n":4}"#);
    assert!(old.starts_with("s2.b."));
    let server = Server::new(Config::new("t", "1").with_state(&after), Counter).unwrap();
    for driver in [Driver::Handle, Driver::Drive] {
        let token = round(&server, driver, Principal::Anonymous, Some(&old));
        assert!(token.starts_with("s2.a."), "{token}");
        let expected = sealed(&after, Principal::Anonymous, Some(&old), r#"{"n":5}"#);
        assert_eq!(token, expected, "{driver:?}");
    }
}
