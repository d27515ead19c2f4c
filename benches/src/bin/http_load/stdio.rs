//! The stdio side: the server as a child process on pipes (`PATH --stdio`), flooded with
//! requests written at once, as a client that writes far ahead of the answers would.
//!
//! - `echo`: every request is written at once by a writer thread while this thread reads the
//!   answers; each id must be answered exactly once.
//! - `flow`: the first leg of every flow is written at once; each answer's sealed state goes
//!   back with the next leg's answer as soon as it is read, until every flow completed.
//!
//! Measured: the time from the first byte written to the last answer read, the server's peak
//! resident memory (`VmHWM`, read before its input is closed) and its CPU time.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::{FLOW_ANSWERS, Scenario, echo_body, echo_mismatch, flow_body, flow_mismatch};
use crate::server;

/// Lines handed to the writer thread at a time.
const CHUNK: u64 = 1_000;

/// What one stdio flood measured.
#[derive(Debug, Default)]
pub struct Flood {
    /// Units of work completed (requests for `echo`, whole flows for `flow`).
    pub completed: u64,
    /// Requests answered, all legs together.
    pub requests: u64,
    /// From the first byte written to the last answer read.
    pub elapsed: Duration,
    /// The server's peak resident memory (`VmHWM`), KiB.
    pub peak_rss_kib: Option<u64>,
    /// CPU the server used, in cores.
    pub server_cores: Option<f64>,
    /// Wrong, missing or repeated answers.
    pub errors: u64,
    /// The first of them, to show.
    pub first_error: Option<String>,
}

impl Flood {
    pub(crate) fn fail(&mut self, problem: String) {
        self.errors += 1;
        self.first_error.get_or_insert(problem);
    }

    /// Records the time since `started`, the server's peak memory and its CPU since
    /// `cpu_before`, before its input is closed.
    pub(crate) fn finish(&mut self, pid: &str, started: Instant, cpu_before: Option<Duration>) {
        self.elapsed = started.elapsed();
        self.peak_rss_kib = server::memory(pid).map(|m| m.hwm_kib);
        let cpu = server::cpu_time(pid)
            .zip(cpu_before)
            .map(|(a, b)| a.saturating_sub(b));
        self.server_cores = cpu.map(|c| c.as_secs_f64() / self.elapsed.as_secs_f64());
    }

    /// Reads the next line the server wrote into `line` and counts it; `false` at the end
    /// of its output (counted as a failure).
    pub(crate) fn read_line(
        &mut self,
        reader: &mut impl BufRead,
        line: &mut Vec<u8>,
    ) -> Result<bool, String> {
        line.clear();
        match reader.read_until(b'\n', line) {
            Ok(0) => {
                self.fail(format!(
                    "the server closed its output after {} answers",
                    self.requests
                ));
                Ok(false)
            }
            Ok(_) => {
                self.requests += 1;
                Ok(true)
            }
            Err(e) => Err(format!("reading answers: {e}")),
        }
    }

    /// The numeric id of the answer `line`, when it has one not answered before (`seen`
    /// marks them); otherwise the failure is counted.
    pub(crate) fn first_answer(&mut self, line: &[u8], seen: &mut [u8]) -> Option<u64> {
        let Some(id) = reply_id(line) else {
            self.fail(format!("no id in {}", String::from_utf8_lossy(line)));
            return None;
        };
        match seen.get_mut(id as usize) {
            Some(mark @ 0) => {
                *mark = 1;
                Some(id)
            }
            _ => {
                self.fail(format!("id {id} answered twice or never asked"));
                None
            }
        }
    }
}

/// Floods `path --stdio` with `units` of `scenario`, all written at once.
pub fn flood(path: &Path, scenario: Scenario, units: u64) -> Result<Flood, String> {
    if !matches!(scenario, Scenario::Echo | Scenario::Flow) {
        return Err("the task scenarios run over HTTP only".to_owned());
    }
    let mut child = server::spawn(path, &["--stdio"], Stdio::piped())?;
    let pid = child.id().to_string();
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    // Unbounded on purpose: the writer may block on the pipe while this thread must keep
    // reading, and at most one request per flow is ever waiting here.
    let (lines, to_write) = mpsc::channel::<Vec<u8>>();
    let writer = std::thread::spawn(move || write_all(stdin, &to_write));
    let cpu_before = server::cpu_time(&pid);
    let started = Instant::now();
    let mut flood = Flood::default();
    let first_ids = (0..units).map(|n| match scenario {
        Scenario::Flow => (n * 4 + 1, flow_body(n * 4 + 1, None)),
        _ => (n + 1, echo_body(n + 1)),
    });
    let mut chunk = Vec::new();
    for (i, (_, body)) in first_ids.enumerate() {
        chunk.extend_from_slice(body.as_bytes());
        chunk.push(b'\n');
        if (i as u64 + 1) % CHUNK == 0 {
            lines
                .send(std::mem::take(&mut chunk))
                .map_err(|_| "the writer stopped")?;
        }
    }
    if !chunk.is_empty() {
        lines.send(chunk).map_err(|_| "the writer stopped")?;
    }
    let expected = units * scenario.legs() as u64;
    let mut seen = vec![0u8; (units * 4 + 4) as usize];
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    while flood.requests < expected {
        if !flood.read_line(&mut reader, &mut line)? {
            break;
        }
        let Some(id) = flood.first_answer(&line, &mut seen) else {
            continue;
        };
        match scenario {
            Scenario::Echo | Scenario::TaskCreate | Scenario::TaskPoll => {
                match echo_mismatch(id, &line) {
                    Some(missing) => flood.fail(format!("echo {id}: {missing} missing")),
                    None => flood.completed += 1,
                }
            }
            Scenario::Flow => {
                let leg = id % 4;
                if leg == 3 {
                    match flow_mismatch(id, &line) {
                        Some(missing) => flood.fail(format!("flow {id}: {missing} missing")),
                        None => flood.completed += 1,
                    }
                    continue;
                }
                let Some(state) = request_state(&line) else {
                    let shown = String::from_utf8_lossy(&line);
                    flood.fail(format!(
                        "flow {id}: no input_required with state in {shown}"
                    ));
                    // The flow cannot go on: count its missing legs as answered.
                    flood.requests += 3 - leg;
                    continue;
                };
                let next = id + 1;
                let mut body = flow_body(next, Some((&state, FLOW_ANSWERS[leg as usize - 1])));
                body.push('\n');
                lines
                    .send(body.into_bytes())
                    .map_err(|_| "the writer stopped")?;
            }
        }
    }
    flood.finish(&pid, started, cpu_before);
    drop(lines);
    let _ = writer.join();
    let _ = child.kill();
    let _ = child.wait();
    Ok(flood)
}

/// Writes every chunk it is given, in order, until the sender is gone; flushes whenever
/// nothing more is waiting.
pub(crate) fn write_all(stdin: ChildStdin, chunks: &mpsc::Receiver<Vec<u8>>) {
    let mut out = BufWriter::with_capacity(1 << 16, stdin);
    while let Ok(chunk) = chunks.recv() {
        if out.write_all(&chunk).is_err() {
            return;
        }
        while let Ok(more) = chunks.try_recv() {
            if out.write_all(&more).is_err() {
                return;
            }
        }
        if out.flush().is_err() {
            return;
        }
    }
}

/// The `requestState` of an `input_required` answer line. Found by scanning (a sealed state
/// is base64url text), so the generator spends little of the CPU it shares with the server;
/// a state with escapes is read by parsing the line.
fn request_state(line: &[u8]) -> Option<String> {
    const RESULT_TYPE: &[u8] = br#""resultType":"input_required""#;
    const KEY: &[u8] = br#""requestState":""#;
    line.windows(RESULT_TYPE.len())
        .position(|w| w == RESULT_TYPE)?;
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let len = line[at..].iter().position(|&b| b == b'"')?;
    let text = &line[at..at + len];
    if !text.contains(&b'\\') {
        return String::from_utf8(text.to_vec()).ok();
    }
    let parsed: Value = serde_json::from_slice(line).ok()?;
    parsed["result"]["requestState"].as_str().map(str::to_owned)
}

/// The numeric `"id"` of an answer line, found without parsing the whole line.
pub(crate) fn reply_id(line: &[u8]) -> Option<u64> {
    let at = line.windows(5).position(|w| w == b"\"id\":")? + 5;
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_id() {
        assert_eq!(
            reply_id(br#"{"jsonrpc":"2.0","id":42,"result":{}}"#),
            Some(42)
        );
        assert_eq!(reply_id(br#"{"result":{"x":1},"id":7}"#), Some(7));
        assert_eq!(reply_id(br#"{"jsonrpc":"2.0","id":"a"}"#), None);
    }

    #[test]
    fn finds_the_state_of_an_input_required_answer() {
        let asked =
            br#"{"id":1,"result":{"resultType":"input_required","requestState":"s1.abc-_"}}"#;
        assert_eq!(request_state(asked).as_deref(), Some("s1.abc-_"));
        let escaped = br#"{"id":1,"result":{"resultType":"input_required","requestState":"a\"b"}}"#;
        assert_eq!(request_state(escaped).as_deref(), Some("a\"b"));
        let done = br#"{"id":1,"result":{"resultType":"complete","requestState":"x"}}"#;
        assert_eq!(request_state(done), None);
    }
}
