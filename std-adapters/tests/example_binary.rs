//! The examples as processes: the `preferences` server's command line and a round over real
//! pipes, `preferences_check` driving every flow in-process, and the terminal `client` driving the server's form flow over stdio and HTTP with
//! answers piped into it.
//!
//! `cargo test -p snodo-std` builds the examples next to the test binaries
//! (`target/<profile>/examples/`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

#[path = "http_client/process.rs"]
mod process;
use process::example_path;

fn example() -> Command {
    Command::new(example_path("preferences"))
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

/// A database named for the tasks is refused by a build that cannot keep tasks there, rather
/// than ignored (the tasks would silently stay in one process's memory).
#[test]
#[cfg(not(feature = "postgres"))]
fn a_task_database_without_the_postgres_feature_is_refused() {
    let out = example()
        .args(["--http", "127.0.0.1:0"])
        .env(
            "SNODO_TASKS_DATABASE_URL",
            "postgres://snodo@127.0.0.1:1/snodo",
        )
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no URL: it never listened");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("SNODO_TASKS_DATABASE_URL is set, but this build has no `postgres` feature"),
        "{stderr}"
    );
}

#[test]
fn the_check_example_drives_every_flow_to_its_end() {
    let out = Command::new(example_path("preferences_check"))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        5,
        "{stdout}"
    );
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

#[test]
fn the_server_points_check_to_its_own_example() {
    let out = example().arg("--check").output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--example preferences_check"), "{stderr}");
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

/// Runs the terminal client with `args`, `answers` piped into its standard input; its exit
/// code, standard output and standard error.
fn client(args: &[&str], answers: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(example_path("client"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answers.as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("the client exits");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8");
    (out.status.code(), text(out.stdout), text(out.stderr))
}

#[test]
fn the_client_answers_the_form_flow_from_its_input_over_stdio() {
    let server = example_path("preferences");
    let server = server.to_str().unwrap();
    let call = ["--call", "preference_preview", r#"{"subject":"desk lamp"}"#];
    let stdio = ["--stdio", server, "--stdio"];
    // Accept, answer the color; accept, answer the style.
    let (code, out, err) = client(&[&call[..], &stdio[..]].concat(), "\nteal\n\nbold\n");
    assert_eq!(code, Some(0), "{err}");
    let result: Value = serde_json::from_str(out.trim()).expect(&out);
    assert_eq!(
        result,
        json!({"color": "teal", "style": "bold", "status": "preview"})
    );
    assert!(
        err.contains("Choose a color") && err.contains("Choose a style"),
        "{err}"
    );
    // Declining the first form ends the flow with that status.
    let (code, out, _) = client(&[&call[..], &stdio[..]].concat(), "decline\n");
    assert_eq!(code, Some(0));
    assert_eq!(out.trim(), r#"{"status":"decline"}"#);
    // The end of input cancels.
    let (code, out, _) = client(&[&call[..], &stdio[..]].concat(), "");
    assert_eq!(code, Some(0));
    assert_eq!(out.trim(), r#"{"status":"cancel"}"#);
    // Without --call it lists the tools.
    let (code, out, _) = client(&stdio, "");
    assert_eq!(code, Some(0));
    assert!(
        out.lines().any(|l| l.starts_with("preference_preview\t")),
        "{out}"
    );
}

#[test]
fn the_client_answers_the_form_flow_over_http() {
    let mut server = example()
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut url = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut url)
        .expect("the server prints its URL first");
    let call = ["--call", "preference_preview", r#"{"subject":"desk lamp"}"#];
    let (code, out, err) = client(
        &[&call[..], &["--http", url.trim()][..]].concat(),
        "\nteal\n\nbold\n",
    );
    server.kill().ok();
    server.wait().ok();
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out.trim(),
        r#"{"color":"teal","style":"bold","status":"preview"}"#
    );
}

#[test]
fn the_client_without_a_server_prints_usage_and_exits_2() {
    let (code, out, err) = client(&[], "");
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.starts_with("usage: client"), "{err}");
}

/// The first leg of the preference flow, then its retry with `state` as the sealed state.
fn preference_leg(id: u64, state: Option<&str>) -> Value {
    let mut params = json!({
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}
        },
        "name": "preference_preview", "arguments": {"subject": "lamp"}
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] =
            json!({"color": {"action": "accept", "content": {"color": "teal"}}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// A retry whose state does not open is refused with the one fixed error; the server logs
/// why at debug level (for its operator, never the token), which is how a developer finds
/// out that a retry went to another process or that the state expired.
#[test]
fn a_state_that_does_not_open_logs_its_reason_at_debug_level() {
    let mut child = example()
        .arg("--stdio")
        .env("RUST_LOG", "info,snodo_core=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "{}", preference_leg(1, None)).unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let first: Value = serde_json::from_str(&line).unwrap();
    let state = first["result"]["requestState"]
        .as_str()
        .expect("the first leg seals its state")
        .to_owned();
    // One character of the MAC changed (not the last, whose low bits are padding: a change
    // there can make the encoding non-canonical, which is "malformed"), and a token of
    // another shape.
    let mut tampered = state.clone().into_bytes();
    let inner = tampered.len() - 2;
    tampered[inner] = if tampered[inner] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    for (id, token) in [(2, tampered.as_str()), (3, "s2.nothing-like-a-token")] {
        writeln!(stdin, "{}", preference_leg(id, Some(token))).unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        let refused: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("exits");
    let logs = String::from_utf8_lossy(&out.stderr);
    assert!(
        logs.contains("request state did not open: bad MAC"),
        "the tampered token's reason: {logs}"
    );
    assert!(
        logs.contains("request state did not open: malformed"),
        "the malformed token's reason: {logs}"
    );
    assert!(!logs.contains(&state[..20]), "a token in the log: {logs}");
    assert!(!logs.contains("nothing-like-a-token"), "a token in the log");
}
