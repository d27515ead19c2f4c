//! What waiting legacy requests cost, measured on the `preferences` example as a process
//! (its resident memory from `/proc/PID/status`, the allocator's default settings).
//!
//! The burst is a hostile client's: legacy (2025-11-25) sessions each start calls that ask
//! the client a question, read the `elicitation/create`, and drop the connection — which in
//! that revision is no cancellation, so every call keeps waiting — then the sessions are
//! deleted, and again. A waiting request holds its state and answers, not a reply buffer of
//! the largest message, so the server stays small and gives the memory back.
#![cfg(target_os = "linux")]

use std::io::{BufRead, Write};
use std::net::SocketAddr;

mod legacy_peer;
use legacy_peer::{
    exchange, open_session, preview, resident, start_http, start_stdio, start_waiting_call,
};

const MIB: u64 = 1 << 20;
/// The bound the server's resident memory stays under at every point of a burst.
const MOST_RESIDENT: u64 = 64 * MIB;
/// How much what stays after the sessions end may differ from round to round.
const SETTLED_SLACK: u64 = 8 * MIB;

/// What 64 waiting stdio requests may add: a few kilobytes each.
const STDIO_WAITING_SLACK: u64 = 2 * MIB;

const SESSIONS: usize = 65;
const CALLS_PER_SESSION: usize = 16;
const ROUNDS: usize = 3;

/// One burst: every session opened, its calls left waiting, then every session deleted.
/// The resident memory while they wait and the calls that wait.
fn burst(addr: SocketAddr, pid: u32) -> (u64, usize) {
    let sessions: Vec<String> = (0..SESSIONS).map(|_| open_session(addr)).collect();
    let mut waiting = 0;
    let mut peak = 0;
    for session in &sessions {
        for call in 0..CALLS_PER_SESSION {
            waiting += usize::from(start_waiting_call(addr, session, call + 1));
        }
        peak = peak.max(resident(pid));
    }
    for session in &sessions {
        let deleted = exchange(addr, "DELETE", Some(session), "");
        assert!(deleted.starts_with("HTTP/1.1 2"), "{deleted}");
    }
    (peak, waiting)
}

/// What [`ROUNDS`] bursts did to a server started with `env`.
struct Bursts {
    /// Resident after a warm-up call, before the first burst.
    start: u64,
    /// Each round's peak while its requests waited, and what stayed after its sessions ended.
    rounds: Vec<(u64, u64)>,
}

fn bursts(env: &[(&str, &str)]) -> Bursts {
    let (child, addr) = start_http(env);
    let pid = child.0.id();
    // Warm: the code a burst runs is resident before the start is read.
    let warm = open_session(addr);
    assert!(start_waiting_call(addr, &warm, 1));
    exchange(addr, "DELETE", Some(&warm), "");
    let start = resident(pid);
    let rounds = (0..ROUNDS)
        .map(|round| {
            let (peak, waiting) = burst(addr, pid);
            // 1,040 started; the endpoint runs at most 1,024 at once (`max_running`).
            assert!(
                waiting >= 1000,
                "round {round}: only {waiting} calls waited, the burst did not happen"
            );
            (peak, resident(pid))
        })
        .collect();
    Bursts { start, rounds }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

#[test]
fn a_thousand_waiting_legacy_http_requests_stay_small_and_do_not_pile_up() {
    let Bursts { start, rounds } = bursts(&[]);
    for (round, &(peak, _)) in rounds.iter().enumerate() {
        assert!(
            peak <= MOST_RESIDENT,
            "round {round}: {:.1} MiB resident with a thousand requests waiting (start {:.1})",
            mib(peak),
            mib(start)
        );
    }
    // glibc keeps freed memory in its arenas for the next burst: what stays must not grow
    // from round to round.
    let (first, last) = (rounds[0].1, rounds[ROUNDS - 1].1);
    assert!(
        last <= first + SETTLED_SLACK,
        "{:.1} MiB after the first round's sessions ended, {:.1} MiB after the last",
        mib(first),
        mib(last)
    );
}

/// An allocator that hands freed memory back at once: jemalloc with no decay.
const RETURNING_ALLOCATOR: &str = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

#[test]
fn every_byte_a_waiting_request_held_is_freed_when_its_session_ends() {
    if !std::path::Path::new(RETURNING_ALLOCATOR).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{RETURNING_ALLOCATOR} is missing: scripts/test-all.sh installs libjemalloc2"
        );
        eprintln!("skipped: {RETURNING_ALLOCATOR} is missing (apt-get install libjemalloc2)");
        return;
    }
    let Bursts { start, rounds } = bursts(&[
        ("LD_PRELOAD", RETURNING_ALLOCATOR),
        ("MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0"),
    ]);
    for (round, &(peak, after)) in rounds.iter().enumerate() {
        assert!(peak <= MOST_RESIDENT, "round {round}: {:.1} MiB", mib(peak));
        assert!(
            after <= start + SETTLED_SLACK / 2,
            "round {round}: {:.1} MiB resident after the sessions ended, from {:.1} MiB",
            mib(after),
            mib(start)
        );
    }
}

#[test]
fn every_stdio_slot_waiting_after_large_echoes_stays_small() {
    let (child, mut stdin, mut stdout) = start_stdio(true);
    let pid = child.0.id();
    let start = resident(pid);
    // Large replies first: each slot's reply buffer has been written nearly whole.
    let text = "x".repeat(900 * 1024);
    for id in 0..8 {
        let echo = format!(
            r#"{{"jsonrpc":"2.0","id":"echo-{id}","method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
        );
        writeln!(stdin, "{echo}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(
            line.contains(&format!(r#""id":"echo-{id}""#)),
            "an echo reply"
        );
    }
    let echoed = resident(pid);
    // Then every slot (64 by default) waits for an answer.
    for id in 1..=64 {
        writeln!(stdin, "{}", preview(id)).unwrap();
    }
    let mut asked = 0;
    while asked < 64 {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the server ended early");
        asked += usize::from(line.contains(r#""method":"elicitation/create""#));
    }
    let waiting = resident(pid);
    assert!(
        waiting <= echoed + STDIO_WAITING_SLACK,
        "{:.1} MiB resident with every slot waiting, {:.1} MiB before they waited (start {:.1})",
        mib(waiting),
        mib(echoed),
        mib(start)
    );
}
