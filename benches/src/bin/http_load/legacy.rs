//! The stdio flood in a legacy session: the same work as [`crate::stdio`], for a client
//! that opens with `initialize` (2025-11-25) and answers the server's bridged requests.
//!
//! - `echo`: every `tools/call` (no `_meta` envelope) is written at once.
//! - `flow`: `preference_preview` is called once per flow; the server bridges its two
//!   questions as `elicitation/create` requests on the connection, each answered as soon as
//!   it is read, and then answers the call. A flow holds a server slot while it waits for
//!   its answers, so at most [`WINDOW`] flows are open at once (a new one starts as one
//!   completes): a client that writes more than the server's slots ahead of its answers is
//!   refused (the server is busy), by design.
//!
//! The three messages of a flow (two bridged requests, one answer) count as its three legs.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Instant;

use crate::client::{ECHO_TEXT, FLOW_RESULT, Scenario, contains, legacy_mismatch as mismatch};
use crate::server;
use crate::stdio::{Flood, write_all};

/// Flows open at once: half the stdio adapter's default slots.
const WINDOW: u64 = 32;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"http_load","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

fn echo_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    ) + "\n"
}

fn flow_body(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"preference_preview","arguments":{{"subject":"http_load"}}}}}}"#
    ) + "\n"
}

/// The answer to a bridged question: the color, then the style.
fn answer(id: &str, question: &[u8]) -> String {
    let content = if contains(question, b"Choose a color") {
        r#"{"color":"teal"}"#
    } else {
        r#"{"style":"bold"}"#
    };
    format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"action":"accept","content":{content}}}}}"#)
        + "\n"
}

/// Floods `path --stdio`, opened with `initialize`, with `units` of `scenario`.
pub fn flood(path: &Path, scenario: Scenario, units: u64) -> Result<Flood, String> {
    if !matches!(scenario, Scenario::Echo | Scenario::Flow) {
        return Err("the task scenarios run over HTTP only".to_owned());
    }
    let mut child = server::spawn(path, &["--stdio"], Stdio::piped())?;
    let pid = child.id().to_string();
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (lines, to_write) = mpsc::channel::<Vec<u8>>();
    let writer = std::thread::spawn(move || write_all(stdin, &to_write));
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    lines
        .send(INITIALIZE.as_bytes().to_vec())
        .map_err(|_| "the writer stopped")?;
    reader
        .read_until(b'\n', &mut line)
        .map_err(|e| format!("reading the handshake: {e}"))?;
    if !contains(&line, br#""protocolVersion":"2025-11-25""#) {
        return Err(format!("initialize: {}", String::from_utf8_lossy(&line)));
    }
    let cpu_before = server::cpu_time(&pid);
    let started = Instant::now();
    let mut flood = Flood::default();
    let opened = match scenario {
        Scenario::Flow => units.min(WINDOW),
        _ => units,
    };
    let body = |n: u64| match scenario {
        Scenario::Flow => flow_body(n * 4 + 1),
        _ => echo_body(n + 1),
    };
    let mut chunk = String::new();
    for n in 0..opened {
        chunk.push_str(&body(n));
        if chunk.len() > 1 << 16 {
            lines
                .send(std::mem::take(&mut chunk).into_bytes())
                .map_err(|_| "the writer stopped")?;
        }
    }
    lines
        .send(chunk.into_bytes())
        .map_err(|_| "the writer stopped")?;
    let mut next = opened;
    let expected = units * scenario.legs() as u64;
    let mut seen = vec![0u8; (units * 4 + 4) as usize];
    while flood.requests < expected {
        if !flood.read_line(&mut reader, &mut line)? {
            break;
        }
        if let Some(bridge_id) = bridged_id(&line) {
            let reply = answer(&bridge_id, &line);
            lines
                .send(reply.into_bytes())
                .map_err(|_| "the writer stopped")?;
            continue;
        }
        let Some(id) = flood.first_answer(&line, &mut seen) else {
            continue;
        };
        let text = match scenario {
            Scenario::Flow => FLOW_RESULT,
            _ => ECHO_TEXT,
        };
        match mismatch(id, &line, text) {
            Some(problem) => flood.fail(format!("{id}: {problem}")),
            None => flood.completed += 1,
        }
        if scenario == Scenario::Flow && next < units {
            lines
                .send(body(next).into_bytes())
                .map_err(|_| "the writer stopped")?;
            next += 1;
        }
    }
    flood.finish(&pid, started, cpu_before);
    drop(lines);
    let _ = writer.join();
    let _ = child.kill();
    let _ = child.wait();
    Ok(flood)
}

/// The id of a bridged `elicitation/create` request line (`"snodo-bridge-N"`).
fn bridged_id(line: &[u8]) -> Option<String> {
    if !contains(line, br#""method":"elicitation/create""#) {
        return None;
    }
    const KEY: &[u8] = br#""id":""#;
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = line[at..].iter().position(|&b| b == b'"')?;
    String::from_utf8(line[at..at + len].to_vec()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_bridged_id() {
        let asked =
            br#"{"jsonrpc":"2.0","id":"snodo-bridge-7","method":"elicitation/create","params":{}}"#;
        assert_eq!(bridged_id(asked).as_deref(), Some("snodo-bridge-7"));
        assert_eq!(bridged_id(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#), None);
    }

    #[test]
    fn a_legacy_answer_has_no_result_type() {
        let good =
            br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}"#;
        assert_eq!(mismatch(3, good, "hi"), None);
        let modern = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}}"#;
        assert!(mismatch(3, modern, "hi").is_some());
    }
}
