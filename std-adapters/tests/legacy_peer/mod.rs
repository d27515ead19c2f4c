//! A legacy (2025-11-25) client written by hand against the `preferences` example as a
//! process: raw HTTP/1.1 on a socket and lines on stdio, so a test can do what a real client
//! would not (drop connections, skip `notifications/initialized`, answer wrongly).
#![allow(dead_code)] // each test file uses a part of it

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::time::Duration;

#[path = "../http_client/process.rs"]
mod process;
pub use process::Child;
use process::example;

pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"burst","version":"1.0"}}}"#;
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

pub fn preview(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"preference_preview","arguments":{{"subject":"lamp"}}}}}}"#
    )
}

/// The child's resident memory, in bytes.
pub fn resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server runs");
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().strip_suffix("kB"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .expect("a VmRSS line");
    kib * 1024
}

/// Opens a connection and writes one request on it.
pub fn request(addr: SocketAddr, method: &str, session: Option<&str>, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).expect("connects");
    // A guard against a hang, never reached when the server answers.
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    let head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         {session}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    stream
}

/// The whole response of a request whose connection the server closes.
pub fn exchange(addr: SocketAddr, method: &str, session: Option<&str>, body: &str) -> String {
    let mut stream = request(addr, method, session, body);
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    response
}

/// Opens a legacy session: its id.
pub fn open_session(addr: SocketAddr) -> String {
    let id = initialize(addr);
    let initialized = exchange(addr, "POST", Some(&id), INITIALIZED);
    assert!(initialized.starts_with("HTTP/1.1 202"), "{initialized}");
    id
}

/// Sends `initialize` only (no `notifications/initialized`): the session's id.
pub fn initialize(addr: SocketAddr) -> String {
    let response = exchange(addr, "POST", None, INITIALIZE);
    response
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("a session id: {response}"))
}

/// Starts a call that asks a question, reads until the question arrives, and drops the
/// connection: whether the call now waits (a call beyond the server's limits is refused).
pub fn start_waiting_call(addr: SocketAddr, session: &str, id: usize) -> bool {
    let mut stream = request(addr, "POST", Some(session), &preview(id));
    let mut seen = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).expect("reads");
        if n == 0 {
            return false;
        }
        seen.extend_from_slice(&chunk[..n]);
        if seen
            .windows(b"elicitation/create".len())
            .any(|w| w == b"elicitation/create")
        {
            return true;
        }
    }
}

/// Starts the example on HTTP with `env` added to its environment: the child and its
/// address.
pub fn start_http(env: &[(&str, &str)]) -> (Child, SocketAddr) {
    let mut child = Child(
        example()
            .args(["--http", "127.0.0.1:0"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts"),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("its URL");
    let port = line
        .trim()
        .strip_prefix("http://127.0.0.1:")
        .and_then(|r| r.strip_suffix("/mcp"))
        .and_then(|p| p.parse::<u16>().ok())
        .unwrap_or_else(|| panic!("a URL: {line:?}"));
    (child, SocketAddr::from(([127, 0, 0, 1], port)))
}

/// The example on stdio, with a legacy session open (`initialized`: and said to be ready).
pub fn start_stdio(initialized: bool) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let (child, mut stdin, mut stdout) = spawn_stdio(&[]);
    writeln!(stdin, "{INITIALIZE}").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(line.contains(r#""protocolVersion":"2025-11-25""#), "{line}");
    if initialized {
        writeln!(stdin, "{INITIALIZED}").unwrap();
    }
    (child, stdin, stdout)
}

/// The example on stdio with the options `args`, nothing sent yet.
pub fn spawn_stdio(args: &[&str]) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Child(
        example()
            .arg("--stdio")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts"),
    );
    let stdin = child.0.stdin.take().unwrap();
    let stdout = BufReader::new(child.0.stdout.take().unwrap());
    (child, stdin, stdout)
}
