//! What the firmware tests share: building the device and the bridge, a pseudo-terminal pair,
//! the device process on one end of it, both sides of the bridge, and an independent COBS +
//! CRC-16 codec (written here from the framing's description, not taken from the core, so
//! the two check each other).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub mod flows;
pub mod qemu;
pub mod typescript;

#[allow(unused_imports)]
pub use flows::*;
#[allow(unused_imports)]
pub use typescript::run_client;

// ---------------------------------------------------------------------------------------------
// Building

/// `<target>/snodo-device-link`, beside the profile directory this test runs from: a target
/// directory of its own, so the outer `cargo test` keeps its lock.
fn link_target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary sits in <target>/<profile>/deps")
        .join("snodo-device-link")
}

fn cargo_build(args: &[&str], name: &str, rustc_args: &[&str]) -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(workspace)
        .args(args)
        .arg("--message-format=json-render-diagnostics")
        .arg("--target-dir")
        .arg(link_target_dir());
    if !cfg!(debug_assertions) {
        command.arg("--release");
    }
    if !rustc_args.is_empty() {
        command.arg("--").args(rustc_args);
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(output.status.success(), "building {name} failed");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo reported the {name} executable"))
}

/// The `snodo-device` host binary (built once per test run).
pub fn device_binary() -> &'static Path {
    static DEVICE: OnceLock<PathBuf> = OnceLock::new();
    DEVICE.get_or_init(|| {
        let _serial = BUILD.lock().unwrap_or_else(|e| e.into_inner());
        cargo_build(
            &[
                "rustc",
                "-p",
                "snodo-embedded-example",
                "--bin",
                "snodo-device",
                "--features",
                "host-binary",
            ],
            "snodo-device",
            &["-C", "panic=abort"],
        )
    })
}

/// The `snodo-bridge` binary (built once per test run).
pub fn bridge_binary() -> &'static Path {
    static BRIDGE: OnceLock<PathBuf> = OnceLock::new();
    BRIDGE.get_or_init(|| {
        let _serial = BUILD.lock().unwrap_or_else(|e| e.into_inner());
        cargo_build(
            &["build", "-p", "snodo-std", "--bin", "snodo-bridge"],
            "snodo-bridge",
            &[],
        )
    })
}

/// One build at a time from this process (cargo would serialise them anyway).
static BUILD: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------------------------
// The wire

pub const PROTOCOL: &str = "2026-07-28";

/// `_meta` of a client that can answer form elicitations.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    })
}

pub fn request(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

pub fn tool_call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// The retry of `first` with `answers` and the state of `reply` (a fresh id).
pub fn retry(first: &Value, id: u64, reply: &Value, answers: Value) -> Value {
    let mut retry = first.clone();
    retry["id"] = json!(id);
    retry["params"]["inputResponses"] = answers;
    if let Some(state) = reply["result"].get("requestState") {
        retry["params"]["requestState"] = state.clone();
    }
    retry
}

pub fn accept(key: &str, content: Value) -> Value {
    json!({key: {"action": "accept", "content": content}})
}

pub fn structured(reply: &Value) -> &Value {
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    &reply["result"]["structuredContent"]
}

pub fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"))
}

/// Flips one character in the middle of a token's payload.
pub fn tampered(token: &str) -> String {
    let mut bytes = token.as_bytes().to_vec();
    let at = bytes.len() / 2;
    bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

// ---------------------------------------------------------------------------------------------
// COBS and CRC-16/CCITT-FALSE, independently

pub fn crc16(bytes: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &b in bytes {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// A whole frame: COBS of the message and its big-endian CRC-16, then `0x00`.
pub fn cobs_frame(message: &[u8]) -> Vec<u8> {
    let mut data = message.to_vec();
    data.extend_from_slice(&crc16(message).to_be_bytes());
    let mut out = Vec::with_capacity(data.len() + data.len() / 254 + 2);
    let mut code_at = 0;
    out.push(0);
    let mut code = 1u8;
    for &b in &data {
        if b == 0 {
            out[code_at] = code;
            code_at = out.len();
            out.push(0);
            code = 1;
        } else {
            out.push(b);
            code += 1;
            if code == 0xFF {
                out[code_at] = code;
                code_at = out.len();
                out.push(0);
                code = 1;
            }
        }
    }
    out[code_at] = code;
    out.push(0);
    out
}

/// Decodes one frame body (no delimiter); `None` when the encoding or CRC is wrong.
pub fn cobs_decode(frame: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < frame.len() {
        let code = usize::from(frame[at]);
        if code == 0 {
            return None;
        }
        out.extend_from_slice(frame.get(at + 1..at + code)?);
        at += code;
        if code < 0xFF && at < frame.len() {
            out.push(0);
        }
    }
    let split = out.len().checked_sub(2)?;
    let (message, crc) = out.split_at(split);
    (crc16(message).to_be_bytes() == crc).then(|| message.to_vec())
}

// ---------------------------------------------------------------------------------------------
// A pseudo-terminal pair and the device on it

/// Both ends of a pseudo-terminal: the device sits on the master (as a USB-serial adapter's
/// far end would), the bridge opens the slave by its path, like `/dev/ttyACM0`.
pub struct Pty {
    pub master: OwnedFd,
    pub slave: OwnedFd,
    pub slave_path: PathBuf,
}

impl Pty {
    pub fn open() -> Pty {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors; the name, termios and winsize are optional.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        assert_eq!(rc, 0, "openpty failed");
        for fd in [master, slave] {
            // SAFETY: setting close-on-exec on descriptors this process owns, so the bridge and
            // the device inherit only what they are given.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        // SAFETY: both descriptors were just opened and are owned here.
        let (master, slave) =
            unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let slave_path =
            std::fs::read_link(format!("/proc/self/fd/{}", slave.as_raw_fd())).expect("pty name");
        Pty {
            master,
            slave,
            slave_path,
        }
    }

    /// Writes raw bytes into the slave side: the device reads them as if the bridge sent
    /// them (line noise on the wire towards the device).
    pub fn inject_towards_device(&self, bytes: &[u8]) {
        let mut slave = std::fs::File::from(self.slave.try_clone().unwrap());
        slave.write_all(bytes).unwrap();
    }

    /// Writes raw bytes into the master side: the bridge reads them as if the device sent
    /// them.
    pub fn inject_towards_bridge(&self, bytes: &[u8]) {
        let mut master = std::fs::File::from(self.master.try_clone().unwrap());
        master.write_all(bytes).unwrap();
    }
}

/// The device process with the master side as its stdin and stdout.
pub fn start_device(pty: &Pty, framing: &str) -> Device {
    let child = Command::new(device_binary())
        .args(["--framing", framing, "--announce"])
        .stdin(Stdio::from(pty.master.try_clone().unwrap()))
        .stdout(Stdio::from(pty.master.try_clone().unwrap()))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the device starts");
    Device(child)
}

/// A running device, killed when dropped: a test that fails (panics) before it stops the
/// device would otherwise leave the process holding the test's output open.
pub struct Device(Child);

impl std::ops::Deref for Device {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Device {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        stop(&mut self.0);
    }
}

// ---------------------------------------------------------------------------------------------
// The bridge

/// Collects a child's stderr in the background (the bridge's log).
pub fn collect(stream: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let log = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            eprintln!("bridge: {line}");
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    log
}

/// Waits until `log` contains `text`.
pub fn wait_for_log(log: &Mutex<String>, text: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !log.lock().unwrap().contains(text) {
        assert!(
            Instant::now() < deadline,
            "the bridge never logged {text:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The bridge in `--stdio` mode, as an MCP client would start it.
pub struct StdioBridge {
    pub child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    pub log: Arc<Mutex<String>>,
}

impl StdioBridge {
    pub fn start(pty: &Pty, framing: &str) -> StdioBridge {
        StdioBridge::on(&pty.slave_path, framing)
    }

    /// The bridge on the serial port at `path`.
    pub fn on(path: &Path, framing: &str) -> StdioBridge {
        let mut child = Command::new(bridge_binary())
            .arg("--serial")
            .arg(path)
            .args(["--framing", framing, "--timeout-ms", "3000", "--stdio"])
            .env("RUST_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the bridge starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let log = collect(child.stderr.take().unwrap());
        StdioBridge {
            child,
            stdin,
            stdout,
            log,
        }
    }

    pub fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Writes `bytes` to the bridge's stdin as they are (framing of the test's own).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn receive(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the bridge closed its stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its reply, with the notifications before it.
    pub fn call_with_notifications(&mut self, message: &Value) -> (Vec<Value>, Value) {
        self.send(message);
        let mut notifications = Vec::new();
        loop {
            let got = self.receive();
            if got.get("id").is_some() {
                assert_eq!(got["id"], message["id"], "{got}");
                return (notifications, got);
            }
            notifications.push(got);
        }
    }

    pub fn call(&mut self, message: &Value) -> Value {
        self.call_with_notifications(message).1
    }

    pub fn finish(mut self) {
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "the bridge failed: {status}");
                return;
            }
            assert!(Instant::now() < deadline, "the bridge did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The bridge in `--http` mode.
pub struct HttpBridge {
    pub child: Child,
    pub addr: String,
    pub log: Arc<Mutex<String>>,
}

/// An HTTP response, its body split into messages (one JSON body, or SSE `data:` events).
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub content_type: String,
    pub messages: Vec<Value>,
}

impl HttpReply {
    /// The last message: the reply.
    pub fn reply(&self) -> &Value {
        self.messages.last().expect("a message")
    }
}

impl HttpBridge {
    pub fn start(pty: &Pty, framing: &str) -> HttpBridge {
        HttpBridge::on(&pty.slave_path, framing)
    }

    /// The bridge on the serial port at `path`.
    pub fn on(path: &Path, framing: &str) -> HttpBridge {
        let mut child = Command::new(bridge_binary())
            .arg("--serial")
            .arg(path)
            .args(["--framing", framing, "--timeout-ms", "3000"])
            .args(["--http", "127.0.0.1:0"])
            .env("RUST_LOG", "debug")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the bridge starts");
        let log = collect(child.stderr.take().unwrap());
        let mut url = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        let addr = url
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .unwrap_or_else(|| panic!("the bridge printed its URL, not {url:?}"))
            .to_owned();
        HttpBridge { child, addr, log }
    }

    /// POSTs `body` to `/mcp` with the headers a conforming client sends for it, plus
    /// `extra`.
    pub fn post(&self, body: &Value, extra: &[(&str, &str)]) -> HttpReply {
        let text = body.to_string();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
             Connection: close\r\n",
            self.addr,
            text.len()
        );
        if let Some(method) = body["method"].as_str() {
            if body.get("id").is_some() {
                head.push_str(&format!(
                    "MCP-Protocol-Version: {PROTOCOL}\r\nMcp-Method: {method}\r\n"
                ));
                let name = match method {
                    "tools/call" | "prompts/get" => body["params"]["name"].as_str(),
                    "resources/read" => body["params"]["uri"].as_str(),
                    _ => None,
                };
                if let Some(name) = name {
                    head.push_str(&format!("Mcp-Name: {name}\r\n"));
                }
            }
        }
        for (name, value) in extra {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let mut stream = self.send_raw(&head, &text);
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        parse_http(&raw)
    }
}

impl HttpBridge {
    /// Sends `method` to `/mcp` with the headers a 2025-11-25 client sends: its session id
    /// and `MCP-Protocol-Version: 2025-11-25` once it has one, and no 2026-07-28 headers.
    /// The response is read as it comes.
    pub fn legacy(&self, method: &str, body: Option<&Value>, session: Option<&str>) -> Streamed {
        let text = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n\
             Connection: close\r\n",
            self.addr
        );
        if body.is_some() {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                text.len()
            ));
        }
        if let Some(session) = session {
            head.push_str(&format!(
                "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
            ));
        }
        Streamed::read_head(BufReader::new(self.send_raw(&head, &text)))
    }

    /// Sends the request head `head` (without its blank line) and `body` on a new
    /// connection.
    fn send_raw(&self, head: &str, body: &str) -> TcpStream {
        let mut stream = TcpStream::connect(&self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(b"\r\n").unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        stream
    }
}

/// An HTTP response read as it arrives: its head, then its messages one at a time (the JSON
/// body, or the `data:` of each SSE event that has one).
pub struct Streamed {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    body: BufReader<TcpStream>,
    chunked: bool,
    /// Body text read but not yet split into events.
    pending: String,
}

impl Streamed {
    fn read_head(mut body: BufReader<TcpStream>) -> Streamed {
        let mut line = String::new();
        body.read_line(&mut line).unwrap();
        let status = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a status line, not {line:?}"));
        let mut headers = Vec::new();
        loop {
            line.clear();
            body.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
        }
        let mut streamed = Streamed {
            status,
            headers,
            body,
            chunked: false,
            pending: String::new(),
        };
        streamed.chunked = streamed
            .header("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
        streamed
    }

    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn is_stream(&self) -> bool {
        self.header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
    }

    /// The next message, or `None` at the end of the body.
    pub fn next_message(&mut self) -> Option<Value> {
        if !self.is_stream() {
            let mut rest = String::new();
            while let Some(piece) = self.read_piece() {
                rest.push_str(&piece);
            }
            rest.push_str(&std::mem::take(&mut self.pending));
            let rest = rest.trim();
            return (!rest.is_empty())
                .then(|| serde_json::from_str(rest).unwrap_or_else(|e| panic!("{e}: {rest}")));
        }
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if !data.is_empty() {
                    return Some(serde_json::from_str(&data).unwrap());
                }
                continue;
            }
            let piece = self.read_piece()?;
            self.pending.push_str(&piece);
        }
    }

    /// The next piece of the body (one chunk when chunked), `None` at its end.
    fn read_piece(&mut self) -> Option<String> {
        if !self.chunked {
            let mut buf = [0u8; 4096];
            let n = self.body.read(&mut buf).unwrap();
            return (n > 0).then(|| String::from_utf8_lossy(&buf[..n]).into_owned());
        }
        let mut size = String::new();
        self.body.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            return None;
        }
        let mut chunk = vec![0u8; size + 2];
        self.body.read_exact(&mut chunk).unwrap();
        chunk.truncate(size);
        Some(String::from_utf8(chunk).unwrap())
    }
}

impl Drop for HttpBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_http(raw: &[u8]) -> HttpReply {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let mut content_type = String::new();
    let mut chunked = false;
    for line in lines {
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        match name.to_ascii_lowercase().as_str() {
            "content-type" => content_type = value.trim().to_owned(),
            "transfer-encoding" => chunked = value.trim().eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    let messages = if content_type.starts_with("text/event-stream") {
        body.lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    } else if body.trim().is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{e}: {body}"))]
    };
    HttpReply {
        status,
        content_type,
        messages,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let Some((size, rest)) = body.split_once("\r\n") else {
            return out;
        };
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
}

/// Kills a child and reaps it.
pub fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// A process's resident memory, in bytes (`VmRSS` of `/proc/PID/status`).
#[cfg(target_os = "linux")]
pub fn resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the process runs");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .expect("a VmRSS line")
        * 1024
}
