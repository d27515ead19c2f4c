//! Graceful drain on `SIGTERM`: the `preferences` example stops accepting connections at
//! once, finishes the request in flight (all of its progress, then its result), closes the
//! connection and exits successfully.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;

use serde_json::json;
use snodo_tests::cluster::node::{Node, PATIENCE};

/// Steps of the request kept in flight, and the pause before each.
const STEPS: u64 = 20;
const STEP_MS: u64 = 100;

#[test]
fn sigterm_refuses_new_connections_and_finishes_the_request_in_flight() {
    let mut node = Node::start("127.0.0.1:0", None);
    let body = json!({
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "progressToken": "drain"
            },
            "name": "slow_count",
            "arguments": {"count": STEPS, "delayMs": STEP_MS}
        }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: slow_count\r\nContent-Length: {}\r\n\r\n{body}",
        node.addr,
        body.len()
    );
    let mut stream = TcpStream::connect(node.addr).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");

    // In flight: its first progress notification has arrived, its result has not.
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    while !contains(&received, br#""progress":1.0,"#) {
        let n = stream.read(&mut chunk).expect("the first progress");
        assert!(
            n > 0,
            "closed early: {}",
            String::from_utf8_lossy(&received)
        );
        received.extend_from_slice(&chunk[..n]);
    }
    assert!(!contains(&received, br#""result""#));

    node.terminate();
    node.wait_for_log("shutting down");
    let refused = TcpStream::connect(node.addr)
        .map(|_| ())
        .map_err(|e| e.kind());
    assert_eq!(refused, Err(ErrorKind::ConnectionRefused));

    // The request goes on to its end; then the connection closes.
    stream
        .read_to_end(&mut received)
        .expect("the rest of the stream");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    let last_progress = format!(r#""progress":{STEPS}.0,"#);
    assert!(contains(&received, last_progress.as_bytes()), "{text}");
    assert!(
        contains(&received, br#""id":7,"result""#)
            && contains(&received, br#""resultType":"complete""#),
        "{text}"
    );
    let status = node.wait_exit();
    assert!(
        status.is_some_and(|s| s.success()),
        "exit: {status:?}\n{}",
        node.stderr()
    );
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
