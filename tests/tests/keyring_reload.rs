//! The `preferences` example's sealed-state keys from configuration: a key-ring file read at
//! start and again on `SIGHUP` without dropping the connection or the flow in progress, a
//! refused reload leaving the ring as it was, and a weak or malformed ring refused at start
//! with its line and without its secret.

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use snodo_tests::cluster::load::{Answer, Connection, accepted, flow_request};
use snodo_tests::cluster::node::{KEY_A, KEY_B, Node, example_program, write_ring};

fn state_of(answer: &Answer) -> String {
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState in {}", answer.body))
        .to_owned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn sighup_swaps_the_ring_under_a_flow_on_the_same_connection() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ring = dir.path().join("keys");
    write_ring(&ring, &[KEY_A]);
    let node = Node::start("127.0.0.1:0", Some(&ring));
    runtime().block_on(async {
        let mut connection = Connection::open(node.addr).await.expect("connect");
        let mut post = async |message: Value| connection.post(&message).await.expect("an answer");

        let leg1 = post(flow_request(1, None)).await;
        let sealed_with_a = state_of(&leg1);
        assert!(sealed_with_a.starts_with("s2.a."), "{sealed_with_a}");

        // Step 2 of a rotation (b seals, a still opens): the flow goes on.
        write_ring(&ring, &[KEY_B, KEY_A]);
        let line = node.reload().expect("the ring reloads");
        assert!(line.contains(r#"["b", "a"]"#), "{line}");
        let color = accepted("color", "teal");
        let leg2 = post(flow_request(2, Some((&sealed_with_a, color.clone())))).await;
        let sealed_with_b = state_of(&leg2);
        assert!(sealed_with_b.starts_with("s2.b."), "{sealed_with_b}");

        // A weak ring is refused, naming its line and not its secret; nothing changes.
        write_ring(&ring, &[KEY_B, "c c2hvcnQ="]);
        let refused = node.reload().expect_err("a weak ring is refused");
        assert!(
            refused.contains("line 2: the secret is 5 bytes"),
            "{refused}"
        );
        assert!(!node.stderr().contains("c2hvcnQ"), "{}", node.stderr());
        let again = post(flow_request(3, Some((&sealed_with_a, color.clone())))).await;
        assert!(state_of(&again).starts_with("s2.b."));

        // Step 3: b only. The token sealed with a is refused; the one sealed with b opens.
        write_ring(&ring, &[KEY_B]);
        node.reload().expect("the ring reloads");
        let stale = post(flow_request(4, Some((&sealed_with_a, color)))).await;
        assert_eq!(stale.status, 400, "{}", stale.body);
        assert_eq!(stale.body["error"]["code"], json!(-32602), "{}", stale.body);
        let style = accepted("style", "bold");
        let leg3 = post(flow_request(5, Some((&sealed_with_b, style)))).await;
        assert_eq!(leg3.status, 200, "{}", leg3.body);
        assert_eq!(
            leg3.body["result"]["resultType"], "complete",
            "{}",
            leg3.body
        );
    });
}

#[test]
fn the_ring_can_come_from_the_environment() {
    let ring = format!("{KEY_B}; {KEY_A}");
    let output = Command::new(example_program())
        .args(["--stdio"])
        .env("SNODO_KEYRING", &ring)
        .env_remove("SNODO_KEYRING_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let line = flow_request(1, None).to_string() + "\n";
            let mut stdin = child.stdin.take().expect("piped stdin");
            stdin.write_all(line.as_bytes())?;
            drop(stdin);
            child.wait_with_output()
        })
        .expect("the example runs");
    assert!(output.status.success(), "{output:?}");
    let reply: Value = serde_json::from_slice(&output.stdout).expect("one JSON reply");
    let state = reply["result"]["requestState"].as_str().unwrap_or("");
    assert!(state.starts_with("s2.b."), "{reply}");
}

#[test]
fn a_bad_ring_stops_the_server_at_start_naming_the_line_not_the_secret() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ring = dir.path().join("keys");
    let short = "c2hvcnQ="; // "short": 5 bytes
    std::fs::write(&ring, format!("{KEY_A}\n\nb {short}\n")).expect("write");
    let by_file = Command::new(example_program())
        .args(["--http", "127.0.0.1:0", "--keyring-file"])
        .arg(&ring)
        .output()
        .expect("the example runs");
    let by_env = Command::new(example_program())
        .args(["--http", "127.0.0.1:0"])
        .env("SNODO_KEYRING", format!("{KEY_A}; x.y {short}"))
        .env_remove("SNODO_KEYRING_FILE")
        .output()
        .expect("the example runs");
    let expected = [
        format!(
            "key-ring file {}, line 3: the secret is 5 bytes",
            ring.display()
        ),
        "environment variable SNODO_KEYRING, line 1, entry 2: a key id is".to_owned(),
    ];
    for (output, expected) in [by_file, by_env].iter().zip(expected) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{stderr}");
        assert!(output.stdout.is_empty(), "no URL: {output:?}");
        assert!(stderr.contains(&expected), "{stderr}");
        assert!(
            !stderr.contains(short) && !stderr.contains("AQEBAQ"),
            "{stderr}"
        );
    }
}
