//! The seed's three-step key rotation, played on a two-node cluster behind a load balancer
//! where one node is always a step ahead of the other.
//!
//! Configurations: step 0 `[a]` (before), step 1 `[a, b]`, step 2 `[b, a]`, step 3 `[b]`.
//! At every moment of the rollout one node runs step `n` and the other step `n + 1`; each
//! must open what the other seals, in both directions. Finally, dropping `a` (step 3, after
//! waiting out the TTL) rejects every token sealed with `a`.

use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, InvalidState, Keys, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, StateOptions, Ttl,
    open, seal,
};

const A: [u8; 48] = [0xaa; 48];
const B: [u8; 40] = [0xbb; 40];
const T0: u64 = 1_790_000_000;
const PARAMS: &str = r#"{"name":"transfer","arguments":{"to":"acct-7","amount":12.5}}"#;

fn step(n: usize) -> StateOptions {
    let keys = match n {
        0 => Keys::ring(&[("a", &A[..])]),
        1 => Keys::ring(&[("a", &A[..]), ("b", &B[..])]),
        2 => Keys::ring(&[("b", &B[..]), ("a", &A[..])]),
        3 => Keys::ring(&[("b", &B[..])]),
        _ => unreachable!(),
    };
    StateOptions::new(keys.unwrap()).with_ttl(Ttl::MAX)
}

/// A node of the cluster: its current configuration.
struct Node {
    name: &'static str,
    options: StateOptions,
}

impl Node {
    fn seal(&self, data: &str, now: u64) -> Vec<u8> {
        let params = parse(PARAMS.as_bytes(), &Limits::default()).unwrap();
        let binding = Binding::new("tools/call", Some(params), Principal::Id("ops"));
        let mut out = [0u8; MAX_TOKEN_LEN];
        let n = seal(data.as_bytes(), &binding, &self.options, now, &mut out).unwrap();
        out[..n].to_vec()
    }

    fn open(&self, token: &[u8], now: u64) -> Result<String, InvalidState> {
        // The retry carries the token in params, which the binding leaves out.
        let retry = format!(
            r#"{{"arguments":{{"amount":12.5,"to":"acct-7"}},"name":"transfer","requestState":"{}"}}"#,
            std::str::from_utf8(token).unwrap()
        );
        let params = parse(retry.as_bytes(), &Limits::default()).unwrap();
        let binding = Binding::new("tools/call", Some(params), Principal::Id("ops"));
        let mut scratch = [0u8; OPEN_SCRATCH_LEN];
        open(token, &binding, &self.options, now, &mut scratch)
            .map(|v| String::from_utf8(v.raw().to_vec()).unwrap())
    }
}

fn key_id(token: &[u8]) -> &str {
    std::str::from_utf8(token)
        .unwrap()
        .split('.')
        .nth(1)
        .unwrap()
}

#[test]
fn each_node_opens_what_the_other_seals_at_every_step_in_both_directions() {
    let mut now = T0;
    for ahead in 1..=3 {
        let behind = Node {
            name: "behind",
            options: step(ahead - 1),
        };
        let front = Node {
            name: "ahead",
            options: step(ahead),
        };
        for (sealer, opener) in [(&front, &behind), (&behind, &front)] {
            let data = format!(r#"{{"sealed_by":"{}","step":{ahead}}}"#, sealer.name);
            let token = sealer.seal(&data, now);
            assert_eq!(
                opener.open(&token, now + 1).as_deref(),
                Ok(data.as_str()),
                "step {ahead}: {} sealed with key {}, {} could not open",
                sealer.name,
                key_id(&token),
                opener.name
            );
            // And the sealer opens its own token too.
            assert!(sealer.open(&token, now + 1).is_ok());
        }
        // Step 3 may only start once step-1 tokens have expired: the rollout waits at least
        // the largest TTL between deploying step 2 everywhere and starting step 3.
        now += if ahead == 2 { 901 } else { 60 };
    }
}

#[test]
fn the_sealing_key_moves_from_a_to_b_at_step_2() {
    let ids: Vec<String> = (0..=3)
        .map(|n| {
            let node = Node {
                name: "n",
                options: step(n),
            };
            key_id(&node.seal("{}", T0)).to_string()
        })
        .collect();
    assert_eq!(ids, ["a", "a", "b", "b"]);
}

#[test]
fn dropping_a_rejects_tokens_sealed_with_a() {
    let step1 = Node {
        name: "step 1",
        options: step(1),
    };
    let step2 = Node {
        name: "step 2",
        options: step(2),
    };
    let step3 = Node {
        name: "step 3",
        options: step(3),
    };
    let with_a = step1.seal(r#"{"k":"a"}"#, T0);
    assert_eq!(key_id(&with_a), "a");
    // Still valid under step 2, within its TTL.
    assert!(step2.open(&with_a, T0 + 10).is_ok());
    // Step 3 has dropped a: the token is refused even though it has not expired.
    assert_eq!(step3.open(&with_a, T0 + 10), Err(InvalidState));
    // Tokens sealed with b keep working after the drop.
    let with_b = step2.seal(r#"{"k":"b"}"#, T0);
    assert_eq!(step3.open(&with_b, T0 + 10).as_deref(), Ok(r#"{"k":"b"}"#));
}
