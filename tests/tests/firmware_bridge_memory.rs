//! What bridged requests waiting on the serial bridge's HTTP side cost: the burst of
//! `std-adapters/tests/waiting_memory.rs` against `snodo-bridge --http` in front of the host
//! device. Legacy (2025-11-25) sessions each start `set_relay` calls, whose confirmation the
//! bridge asks the client for; the client reads the `elicitation/create` and drops the
//! connection (no cancellation in that revision), so the requests keep waiting in the bridge;
//! then every session is deleted, and again. The bridge's resident memory, with the
//! allocator's default settings, stays small while they wait and comes back after.
#![cfg(target_os = "linux")]

mod firmware_common;

use std::time::{Duration, Instant};

use firmware_common::*;
use serde_json::json;

const MIB: u64 = 1 << 20;
/// The bound the bridge's resident memory stays under at every point.
const MOST_RESIDENT: u64 = 64 * MIB;
/// How far above its start the bridge may stay once a burst's sessions have ended.
const GIVEN_BACK_SLACK: u64 = 4 * MIB;
/// How long the bridge has to give a burst's memory back (it trims a moment after a burst).
const GIVE_BACK_WITHIN: Duration = Duration::from_secs(10);

const SESSIONS: usize = 65;
const CALLS_PER_SESSION: u64 = 16;
const ROUNDS: usize = 3;

/// Opens a legacy session: its id.
fn open_session(bridge: &HttpBridge) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "burst", "version": "1.0"},
    }});
    let opened = bridge.legacy("POST", Some(&init), None);
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        bridge
            .legacy("POST", Some(&initialized), Some(&session))
            .status,
        202
    );
    session
}

/// Starts a `set_relay` call and drops its connection once the confirmation is asked:
/// whether the call now waits (one beyond the bridge's limits is refused).
fn start_waiting_call(bridge: &HttpBridge, session: &str, id: u64) -> bool {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "set_relay", "arguments": {"channel": id % 2, "on": true},
    }});
    let mut stream = bridge.legacy("POST", Some(&call), Some(session));
    stream.status == 200
        && stream
            .next_message()
            .is_some_and(|m| m["method"] == "elicitation/create")
}

/// The bridge's resident memory once back within [`GIVEN_BACK_SLACK`] of `start`, or when
/// [`GIVE_BACK_WITHIN`] has passed (read every 20 ms: the trim runs on its own thread).
fn settled(pid: u32, start: u64) -> u64 {
    let deadline = Instant::now() + GIVE_BACK_WITHIN;
    loop {
        let now = resident(pid);
        if now <= start + GIVEN_BACK_SLACK || Instant::now() >= deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_thousand_requests_waiting_on_the_http_bridge_stay_small_and_their_memory_is_given_back() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let bridge = HttpBridge::start(&pty, "line");
    let pid = bridge.child.id();

    // Warm: the code a burst runs is resident before the start is read.
    let warm = open_session(&bridge);
    assert!(start_waiting_call(&bridge, &warm, 1));
    assert_eq!(bridge.legacy("DELETE", None, Some(&warm)).status, 200);
    let start = resident(pid);

    for round in 0..ROUNDS {
        let sessions: Vec<String> = (0..SESSIONS).map(|_| open_session(&bridge)).collect();
        let mut waiting = 0;
        let mut peak = 0;
        for session in &sessions {
            for id in 1..=CALLS_PER_SESSION {
                waiting += usize::from(start_waiting_call(&bridge, session, id));
            }
            peak = peak.max(resident(pid));
        }
        // 1,040 started; the bridge runs at most 1,024 at once.
        assert!(waiting >= 1000, "round {round}: only {waiting} waited");
        assert!(
            peak <= MOST_RESIDENT,
            "round {round}: {} KiB resident with {waiting} requests waiting (start {} KiB)",
            peak / 1024,
            start / 1024
        );
        for session in &sessions {
            assert_eq!(bridge.legacy("DELETE", None, Some(session)).status, 200);
        }
        let after = settled(pid, start);
        assert!(
            after <= start + GIVEN_BACK_SLACK,
            "round {round}: {} KiB resident {GIVE_BACK_WITHIN:?} after the sessions ended, \
             from {} KiB (peak {} KiB)",
            after / 1024,
            start / 1024,
            peak / 1024
        );
        eprintln!(
            "round {round}: {waiting} waiting, start {} KiB, peak {} KiB, after {} KiB",
            start / 1024,
            peak / 1024,
            after / 1024
        );
    }
    stop(&mut device);
}
