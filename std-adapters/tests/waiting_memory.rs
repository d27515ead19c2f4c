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
use std::time::{Duration, Instant};

mod legacy_peer;
use legacy_peer::{
    exchange, open_session, preview, resident, start_http, start_stdio, start_waiting_call,
};

const MIB: u64 = 1 << 20;
/// The bound the server's resident memory stays under at every point of a burst.
const MOST_RESIDENT: u64 = 64 * MIB;
/// How far above its start the server may stay once a burst's sessions have ended.
const GIVEN_BACK_SLACK: u64 = 4 * MIB;
/// How long the server has to give a burst's memory back: it trims a quarter of a second
/// after the burst subsides, once the burst's connections have closed.
const GIVE_BACK_WITHIN: Duration = Duration::from_secs(10);

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

/// The server's resident memory once it is back within [`GIVEN_BACK_SLACK`] of `start`, or
/// when [`GIVE_BACK_WITHIN`] has passed: read every 20 ms, since the trim runs on its own
/// thread after the burst's connections close.
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
            (peak, settled(pid, start))
        })
        .collect();
    Bursts { start, rounds }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / MIB as f64
}

#[test]
fn a_thousand_waiting_legacy_http_requests_stay_small_and_their_memory_is_given_back() {
    let Bursts { start, rounds } = bursts(&[]);
    for (round, &(peak, after)) in rounds.iter().enumerate() {
        assert!(
            peak <= MOST_RESIDENT,
            "round {round}: {:.1} MiB resident with a thousand requests waiting (start {:.1})",
            mib(peak),
            mib(start)
        );
        // glibc keeps freed memory below live allocations; the server trims it after a burst.
        assert!(
            after <= start + GIVEN_BACK_SLACK,
            "round {round}: {:.1} MiB resident {GIVE_BACK_WITHIN:?} after the sessions ended, \
             from {:.1} MiB",
            mib(after),
            mib(start)
        );
    }
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
            after <= start + GIVEN_BACK_SLACK,
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
        waiting <= echoed + STDIO_WAITING_SLACK && waiting <= MOST_RESIDENT,
        "{:.1} MiB resident with every slot waiting, {:.1} MiB before they waited (start {:.1})",
        mib(waiting),
        mib(echoed),
        mib(start)
    );
    // The client cancels every call: the slots are free again (a new call is served), and
    // what they held is gone with them.
    for id in 1..=64 {
        writeln!(
            stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
        )
        .unwrap();
    }
    let echo = r#"{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}"#;
    writeln!(stdin, "{echo}").unwrap();
    loop {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the server ended early");
        if line.contains(r#""id":"after""#) {
            assert!(
                line.contains(r#""result""#),
                "a free slot served it: {line}"
            );
            break;
        }
    }
    let after = resident(pid);
    assert!(
        after <= echoed + STDIO_WAITING_SLACK,
        "{:.1} MiB resident after the calls were cancelled, {:.1} MiB before they waited",
        mib(after),
        mib(echoed)
    );
}

/// Open `subscriptions/listen` streams in the burst below; under the test process's usual
/// limit of 1,024 open files.
const LISTENERS: usize = 512;

/// Opens a 2026-07-28 `subscriptions/listen` stream and reads until it is acknowledged: the
/// connection, kept open.
fn listen(addr: SocketAddr, id: usize) -> std::net::TcpStream {
    use std::io::Read;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":"listen-{id}","method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let mut stream = std::net::TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    while !seen
        .windows(b"subscriptions/acknowledged".len())
        .any(|w| w == b"subscriptions/acknowledged")
    {
        let n = stream.read(&mut chunk).expect("reads");
        assert!(
            n > 0,
            "the stream ended: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&chunk[..n]);
    }
    stream
}

/// What an open listen stream costs, for the limits table of `docs/deploy.md`: its
/// connection, task and filter; events are written in buffers of their own size.
#[test]
fn open_listen_streams_stay_small() {
    let (child, addr) = start_http(&[]);
    let pid = child.0.id();
    drop(listen(addr, 0));
    let start = resident(pid);
    let streams: Vec<_> = (1..=LISTENERS).map(|id| listen(addr, id)).collect();
    let open = resident(pid);
    let each = open.saturating_sub(start) / LISTENERS as u64;
    eprintln!(
        "{LISTENERS} listen streams: {:.1} -> {:.1} MiB, {} B each",
        mib(start),
        mib(open),
        each
    );
    assert!(
        open <= MOST_RESIDENT,
        "{:.1} MiB with {LISTENERS} listen streams",
        mib(open)
    );
    // Tens of kilobytes each, not a buffer of the largest message (1 MiB): hyper's read and
    // write buffers of the open connection (8 KiB each, the floor of any HTTP/1.1 connection
    // it serves), the stream's task and filter. Measured: about 24 KiB.
    assert!(each <= 32 * 1024, "{each} B per listen stream");
    drop(streams);
}
