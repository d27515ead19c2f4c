//! The cost of fixed work in core clock cycles as SysTick counts them: three whole rounds
//! of the device over an in-memory link (a `read_sensor` call, the first leg of `set_relay`,
//! which seals its state, and the confirmed retry, which opens it), then sealing and opening
//! one token directly. Under QEMU's `-icount shift=0` every instruction takes 1 ns of virtual
//! time and SysTick counts 25 per µs, so a count is exactly 40 instructions, the same on every
//! run and every host; on silicon it is the part's real cycles.

use core::cell::Cell;
use core::convert::Infallible;

use embedded_io::{ErrorType, Read, Write};
use snodo_core::json::{Limits, parse};
use snodo_core::state::{
    Binding, MAX_TOKEN_LEN, OPEN_SCRATCH_LEN, Principal, Secret, StateOptions, open, seal,
};
use snodo_embedded_example::board::{Board, Fault};
use snodo_embedded_example::device::{self, Options, Stopped};
use snodo_embedded_example::sim::{Platform, Simulated};

use crate::clock;
use crate::report::report;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;
const READ_SENSOR: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_sensor","arguments":{"channel":0},"#;
const SET_RELAY: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"set_relay","arguments":{"channel":1,"on":true},"#;
const CONFIRMED: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"set_relay","arguments":{"channel":1,"on":true},"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},"requestState":""#;
const ROUNDS: [&str; 3] = ["read_sensor", "set_relay (seal)", "set_relay retry (open)"];

/// Sends the three requests one after the other, the retry carrying the state of the reply
/// before it, and keeps the replies.
struct Script {
    step: usize,
    input: [u8; 1024],
    input_len: usize,
    read_at: usize,
    reply: [u8; 2048],
    reply_len: usize,
    ok: bool,
}

impl Script {
    fn new() -> Script {
        Script {
            step: 0,
            input: [0; 1024],
            input_len: 0,
            read_at: 0,
            reply: [0; 2048],
            reply_len: 0,
            ok: true,
        }
    }

    fn push(&mut self, parts: &[&[u8]]) {
        self.input_len = 0;
        self.read_at = 0;
        for part in parts {
            let end = self.input_len + part.len();
            match self.input.get_mut(self.input_len..end) {
                Some(slot) => slot.copy_from_slice(part),
                None => self.ok = false,
            }
            self.input_len = end.min(self.input.len());
        }
    }

    /// The `requestState` of the last reply.
    fn token(&self) -> Option<(usize, usize)> {
        let reply = &self.reply[..self.reply_len];
        let key = br#""requestState":""#;
        let start = reply.windows(key.len()).position(|w| w == key)? + key.len();
        let len = reply[start..].iter().position(|b| *b == b'"')?;
        Some((start, len))
    }

    fn next_request(&mut self) -> bool {
        let checked = match self.step {
            0 => true,
            1 | 3 => self.replied(br#""resultType":"complete""#),
            _ => self.replied(br#""resultType":"input_required""#),
        };
        self.ok &= checked;
        match self.step {
            0 => self.push(&[READ_SENSOR.as_bytes(), META.as_bytes(), b"}}\n"]),
            1 => self.push(&[SET_RELAY.as_bytes(), META.as_bytes(), b"}}\n"]),
            2 => {
                let Some((start, len)) = self.token() else {
                    self.ok = false;
                    return false;
                };
                let mut token = [0u8; MAX_TOKEN_LEN];
                let Some(slot) = token.get_mut(..len) else {
                    self.ok = false;
                    return false;
                };
                slot.copy_from_slice(&self.reply[start..start + len]);
                let parts: [&[u8]; 5] = [
                    CONFIRMED.as_bytes(),
                    &token[..len],
                    b"\",",
                    META.as_bytes(),
                    b"}}\n",
                ];
                self.push(&parts);
            }
            _ => return false,
        }
        self.step += 1;
        self.reply_len = 0;
        true
    }

    fn replied(&self, needle: &[u8]) -> bool {
        let reply = &self.reply[..self.reply_len];
        reply.windows(needle.len()).any(|w| w == needle)
            && !reply.windows(8).any(|w| w == b"\"error\":")
    }
}

impl ErrorType for Script {
    type Error = Infallible;
}

impl Read for Script {
    fn read(&mut self, out: &mut [u8]) -> Result<usize, Infallible> {
        if self.read_at == self.input_len && !self.next_request() {
            return Ok(0);
        }
        let n = (self.input_len - self.read_at).min(out.len());
        out[..n].copy_from_slice(&self.input[self.read_at..self.read_at + n]);
        self.read_at += n;
        Ok(n)
    }
}

impl Write for Script {
    fn write(&mut self, bytes: &[u8]) -> Result<usize, Infallible> {
        let end = self.reply_len + bytes.len();
        match self.reply.get_mut(self.reply_len..end) {
            Some(slot) => {
                slot.copy_from_slice(bytes);
                self.reply_len = end;
            }
            None => self.ok = false,
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// The platform under the simulated bench, noting the cycle count before each round.
struct Timed {
    marks: Cell<[u64; 4]>,
    looks: Cell<usize>,
}

impl Platform for Timed {
    fn uptime_secs(&self) -> u64 {
        clock::uptime_secs()
    }

    fn fill_entropy(&self, buf: &mut [u8]) -> Result<(), Fault> {
        // A fixed secret: the cost is the same for any.
        buf.fill(0x5a);
        Ok(())
    }

    fn between_rounds(&self) {
        let mut marks = self.marks.get();
        let look = self.looks.get();
        if let Some(mark) = marks.get_mut(look) {
            *mark = clock::cycles();
        }
        self.marks.set(marks);
        self.looks.set(look + 1);
    }
}

/// Measures and reports; `false` if a round did not answer as it should.
pub fn run() -> bool {
    let board = Simulated::new(Timed {
        marks: Cell::new([0; 4]),
        looks: Cell::new(0),
    });
    let mut script = Script::new();
    let options = Options {
        framing: snodo_core::io::Framing::Line,
        announce: false,
    };
    let start = clock::cycles();
    let stopped = device::run(&board, &mut script, options);
    let end = clock::cycles();
    if stopped != Stopped::EndOfInput || !script.ok || board.relay(1) != Some(true) {
        report!("cost: the scripted rounds did not answer as they should");
        return false;
    }
    let marks = board.platform.marks.get();
    report!("cost: boot {} counts", (marks[0] - start) as u32);
    let mut at = marks[0];
    for (name, &next) in ROUNDS.iter().zip(marks[1..].iter().chain([end].iter())) {
        report!("cost: round {} {} counts", *name, (next - at) as u32);
        at = next;
    }
    direct()
}

/// Seals and opens one token outside a round: 120 bytes of data bound to small params.
fn direct() -> bool {
    const PARAMS: &[u8] = br#"{"name":"set_relay","arguments":{"channel":1,"on":true}}"#;
    const DATA: &[u8] = br#"{"step":1,"channel":1,"on":true,"asked":"confirm","note":"forty-two bytes of application data here"}"#;
    let Ok(keys) = Secret::new(&[0x5a; 32]) else {
        return false;
    };
    let options = StateOptions::new(keys);
    let limits = Limits::default();
    let Ok(params) = parse(PARAMS, &limits) else {
        return false;
    };
    let binding = Binding::new("tools/call", Some(params), Principal::Anonymous);
    let mut token = [0u8; MAX_TOKEN_LEN];
    let before = clock::cycles();
    let Ok(len) = seal(DATA, &binding, &options, 10, &mut token) else {
        return false;
    };
    let sealed = clock::cycles();
    let mut scratch = [0u8; OPEN_SCRATCH_LEN];
    let opened = open(&token[..len], &binding, &options, 11, &mut scratch).is_ok();
    let after = clock::cycles();
    report!(
        "cost: seal {} counts, open {} counts ({} data bytes, {} token bytes)",
        (sealed - before) as u32,
        (after - sealed) as u32,
        DATA.len() as u32,
        len as u32
    );
    opened
}
