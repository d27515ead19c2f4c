//! The README's quick starts, run as written on the `booking` example: the stdio pipeline and
//! the HTTP `curl` (with the example's binary and port in place of `cargo run` and 8080), so
//! the commands a newcomer copies keep working.

#[path = "http_client/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use process::{Child, example_path};
use serde_json::Value;

const README: &str = include_str!("../../README.md");

/// The shell block after `<!-- quick start: {name} -->`.
fn quick_start(name: &str) -> String {
    let marker = format!("<!-- quick start: {name} -->");
    let after = README
        .split_once(&marker)
        .unwrap_or_else(|| panic!("the README has no {marker}"))
        .1;
    let block = after
        .split_once("```sh\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .unwrap_or_else(|| panic!("no sh block after {marker}"))
        .0;
    block.to_owned()
}

fn run(script: &str) -> String {
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{script}\nfailed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Checks that `out` is the reply to `book_room`'s first leg: the `details` form to fill
/// and the sealed state to send back with it.
fn assert_first_leg(out: &str) {
    let reply: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let result = &reply["result"];
    assert_eq!(result["resultType"], "input_required", "{reply}");
    assert_eq!(result["inputRequests"]["details"]["params"]["mode"], "form");
    assert!(result["requestState"].is_string(), "{reply}");
}

#[test]
fn the_stdio_quick_start_asks_the_first_question() {
    let script = quick_start("stdio");
    let command = "cargo run -q -p snodo-std --example booking";
    assert!(script.contains(command), "{script}");
    let booking = example_path("booking");
    let out = run(&script.replace(command, &booking.display().to_string()));
    assert_first_leg(&out);
}

#[test]
fn the_http_quick_start_asks_the_first_question_and_a_bare_post_is_told_every_header() {
    let mut child = Child(
        Command::new(example_path("booking"))
            .args(["--http", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the example starts"),
    );
    let mut url = String::new();
    BufReader::new(child.0.stdout.take().expect("stdout"))
        .read_line(&mut url)
        .expect("the URL line");
    let url = url.trim();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let script = quick_start("http");
    let written = "http://127.0.0.1:8080/mcp";
    assert!(script.contains(written), "{script}");
    let script = script.replace(written, url);
    assert_first_leg(&run(&script));

    // The same request without the three MCP headers: one 400 naming them all.
    let bare: String = script
        .lines()
        .filter(|line| !line.contains("MCP-Protocol-Version"))
        .collect::<Vec<_>>()
        .join("\n");
    let bare = bare.replace("curl -s", "curl -s -w '\\n%{http_code}'");
    let out = run(&bare);
    let (body, status) = out.trim().rsplit_once('\n').expect("body and status");
    assert_eq!(status, "400", "{out}");
    let reply: Value = serde_json::from_str(body).expect("JSON error");
    let message = reply["error"]["message"].as_str().unwrap_or("");
    for header in ["MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"] {
        assert!(message.contains(header), "{header} unnamed: {message}");
    }
}
