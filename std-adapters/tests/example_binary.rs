//! The `preferences` example as a process: its command line, and a round over real pipes.
//!
//! `cargo test -p snodo-std` builds the example next to the test binaries
//! (`target/<profile>/examples/preferences`).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn example() -> Command {
    let mut dir = std::env::current_exe().expect("test binary path");
    dir.pop();
    if dir.ends_with("deps") {
        dir.pop();
    }
    let path: PathBuf = dir
        .join("examples")
        .join(format!("preferences{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: run `cargo test -p snodo-std`, which builds the examples",
        path.display()
    );
    Command::new(path)
}

#[test]
fn an_unknown_flag_prints_usage_and_exits_2() {
    let out = example().arg("--bogus").output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("usage:"), "{stderr}");
    assert!(stderr.contains("--bogus"), "{stderr}");
}

#[test]
fn help_prints_usage() {
    let out = example().arg("--help").output().expect("runs");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--stdio"));
}

#[test]
fn serves_stdio_and_exits_at_end_of_input() {
    for args in [&["--stdio"][..], &[]] {
        let mut child = example()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let request = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                },
                "name": "echo", "arguments": {"text": "pip\u{e9}"}
            }
        });
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{request}").unwrap();
        drop(stdin);
        let out = child.wait_with_output().expect("exits");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines: Vec<&[u8]> = out.stdout.split(|&b| b == b'\n').collect();
        assert_eq!(lines.len(), 2, "one line and the final newline");
        assert!(lines[0].is_ascii());
        let reply: Value = serde_json::from_slice(lines[0]).unwrap();
        assert_eq!(reply["result"]["content"][0]["text"], "pip\u{e9}");
        let logs = BufReader::new(&out.stderr[..]).lines().count();
        assert!(logs >= 1, "logs go to stderr");
    }
}
