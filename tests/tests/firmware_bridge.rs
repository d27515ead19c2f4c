//! The firmware on a pseudo-terminal pair, driven through `snodo-bridge` over stdio and over
//! Streamable HTTP: the `set_relay` confirmation flow (the relay switches only after a valid
//! confirmation), the three-leg `calibrate` flow, tampered and replayed state refused,
//! corrupted bytes on a COBS link detected with the next frame still served, and the device
//! disconnecting and restarting under the bridge.
//!
//! The device process has the pty's master side as its stdin and stdout (it puts the
//! terminal in raw mode); the bridge opens the slave side by its path, as it would open
//! `/dev/ttyACM0`.

mod firmware_common;

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use firmware_common::*;
use serde_json::{Value, json};

#[test]
fn stdio_bridge_over_cobs_runs_the_confirmation_and_calibration_flows() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    let discover = bridge.call(&request(1, "server/discover", json!({})));
    assert_eq!(discover["result"]["supportedVersions"], json!([PROTOCOL]));

    set_relay_flow(&mut |m| bridge.call(m));
    calibrate_flow(&mut |m| bridge.call(m));

    // Progress notifications travel before the reply.
    progress_flow(&mut bridge);

    bridge.finish();
    stop(&mut device);
}

/// The stdio side reads lines with the stdio transport's own reader: a line over the 1 MiB
/// bound is answered -32600 without being kept, blank lines are skipped, a byte order mark
/// and `\r\n` are accepted, and the next message is served.
#[test]
fn the_stdio_bridge_refuses_an_overlong_line_and_serves_the_next() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    let mut long = vec![b'x'; (1 << 20) + 10];
    long.push(b'\n');
    bridge.send_raw(&long);
    let refused = bridge.receive();
    assert_eq!(error_code(&refused), -32600, "{refused}");
    assert_eq!(refused["id"], Value::Null, "{refused}");
    let discover = request(2, "server/discover", json!({}));
    let mut framed = b"\n  \r\n\xEF\xBB\xBF".to_vec();
    framed.extend_from_slice(discover.to_string().as_bytes());
    framed.extend_from_slice(b"\r\n");
    bridge.send_raw(&framed);
    let reply = bridge.receive();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["result"]["supportedVersions"], json!([PROTOCOL]));
    bridge.finish();
    stop(&mut device);
}

#[test]
fn http_bridge_over_lines_runs_the_flows_with_the_http_rules() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let bridge = HttpBridge::start(&pty, "line");
    let mut call = |m: &Value| {
        let reply = bridge.post(m, &[]);
        let expected = if reply.reply().get("error").is_some() {
            400
        } else {
            200
        };
        assert_eq!(reply.status, expected, "{reply:?}");
        reply.reply().clone()
    };
    set_relay_flow(&mut call);
    calibrate_flow(&mut call);

    // Progress makes the response an event stream, the reply its last event.
    let mut with_progress = tool_call(40, "read_sensor", json!({"channel": 1, "samples": 2}));
    with_progress["params"]["_meta"]["progressToken"] = json!(9);
    let streamed = bridge.post(&with_progress, &[]);
    assert_eq!(streamed.status, 200);
    assert!(
        streamed.content_type.starts_with("text/event-stream"),
        "{streamed:?}"
    );
    assert_eq!(streamed.messages.len(), 3, "{streamed:?}");
    assert_eq!(structured(streamed.reply())["value"], json!(41.5));

    // The HTTP rules apply at the bridge: a header that disagrees with the body is -32020,
    // a foreign Origin 403, a notification 202.
    let listed = request(41, "tools/list", json!({}));
    let mismatch = bridge.post(&listed, &[("Mcp-Method", "tools/call")]);
    assert_eq!(mismatch.status, 400, "{mismatch:?}");
    assert_eq!(error_code(mismatch.reply()), -32020);
    assert_eq!(mismatch.reply()["id"], 41);
    let foreign = bridge.post(&listed, &[("Origin", "https://evil.example")]);
    assert_eq!(foreign.status, 403, "{foreign:?}");
    let notification =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    assert_eq!(bridge.post(&notification, &[]).status, 202);
    // An unknown method maps to 404 from the device's own -32601.
    let unknown = bridge.post(&request(42, "tools/unknown", json!({})), &[]);
    assert_eq!(unknown.status, 404, "{unknown:?}");
    stop(&mut device);
}

#[test]
fn corrupted_bytes_on_a_cobs_link_are_detected_and_the_next_frame_is_served() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    assert!(
        bridge
            .call(&request(1, "server/discover", json!({})))
            .get("result")
            .is_some()
    );

    // Towards the device: a frame whose CRC no longer matches. The device answers -32700
    // with id null (nobody waits for it: the bridge logs it) and serves the next frame.
    let mut frame = cobs_frame(
        tool_call(2, "read_sensor", json!({"channel": 0}))
            .to_string()
            .as_bytes(),
    );
    let at = frame.len() / 2;
    frame[at] ^= 0x04;
    pty.inject_towards_device(&frame);
    wait_for_log(&bridge.log, "a reply nobody waits for");
    let next = bridge.call(&tool_call(3, "read_sensor", json!({"channel": 0})));
    assert_eq!(structured(&next)["value"], json!(23.125));

    // Towards the bridge: noise and a corrupt frame between requests are logged and
    // skipped; the next reply is read normally.
    let mut noise = b"\x13\x37garbage".to_vec();
    noise.push(0);
    let mut bad = cobs_frame(br#"{"jsonrpc":"2.0","id":99,"result":{}}"#);
    bad[3] ^= 0x40;
    noise.extend_from_slice(&bad);
    pty.inject_towards_bridge(&noise);
    wait_for_log(&bridge.log, "corrupt frame");
    let after = bridge.call(&tool_call(4, "read_sensor", json!({"channel": 1})));
    assert_eq!(structured(&after)["value"], json!(41.5));

    // A corrupt frame while a request waits is its (failed) answer: the client hears of it
    // at once rather than after the timeout.
    stop(&mut device);
    std::thread::sleep(Duration::from_millis(100));
    bridge.send(&tool_call(5, "read_sensor", json!({"channel": 0})));
    std::thread::sleep(Duration::from_millis(200));
    pty.inject_towards_bridge(&bad);
    let failed = bridge.receive();
    assert_eq!(failed["id"], 5);
    assert_eq!(error_code(&failed), -32603);
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("garbage") && message.contains("CRC"),
        "{message}"
    );
    bridge.finish();
}

#[test]
fn the_bridge_reports_a_reset_and_a_disconnection() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    let first = tool_call(1, "set_relay", json!({"channel": 0, "on": true}));
    let asked = bridge.call(&first);
    assert_eq!(asked["result"]["resultType"], "input_required");

    // The device restarts: a fresh secret, so its earlier state no longer opens.
    stop(&mut device);
    let mut device = start_device(&pty, "cobs");
    wait_for_log(&bridge.log, "the device (re)started");
    let stale = retry(
        &first,
        2,
        &asked,
        accept("confirm", json!({"confirm": true})),
    );
    assert_eq!(error_code(&bridge.call(&stale)), -32602);
    let info = bridge.call(&info(3));
    assert_eq!(relays(&info), json!([false, false]));

    // Silence: a request to a device that is not running times out, clearly.
    stop(&mut device);
    let quiet = bridge.call(&tool_call(4, "read_sensor", json!({"channel": 0})));
    let message = quiet["error"]["message"].as_str().unwrap();
    assert!(message.contains("did not answer"), "{message}");

    // The far end goes away: the port reports it, and the request fails at once.
    drop(pty.master);
    drop(pty.slave);
    let gone = bridge.call(&tool_call(5, "read_sensor", json!({"channel": 0})));
    let message = gone["error"]["message"].as_str().unwrap();
    assert!(message.contains("disconnected"), "{message}");
    assert_eq!(error_code(&gone), -32603);
    wait_for_log(&bridge.log, "device disconnected");
    bridge.finish();
}

#[test]
fn the_bridge_refuses_a_port_it_cannot_open() {
    let mut child = std::process::Command::new(bridge_binary())
        .args(["--serial", "/nonexistent/tty", "--stdio"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(err.contains("cannot open /nonexistent/tty"), "{err}");
    let usage = std::process::Command::new(bridge_binary())
        .args(["--serial", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn the_independent_codec_agrees_with_the_framing() {
    assert_eq!(crc16(b"123456789"), 0x29B1);
    for message in [
        &b""[..],
        b"{}",
        &[0u8; 300],
        &(1..=255).collect::<Vec<u8>>(),
    ] {
        let frame = cobs_frame(message);
        assert_eq!(frame.last(), Some(&0));
        assert!(!frame[..frame.len() - 1].contains(&0));
        assert_eq!(
            cobs_decode(&frame[..frame.len() - 1]).as_deref(),
            Some(message)
        );
    }
}

/// The device alone on pipes in COBS framing: every reply is a valid frame, a corrupt frame
/// and an oversized one are answered with `id: null` errors, and the frames after them are
/// served.
#[test]
fn the_device_speaks_cobs_on_pipes() {
    let mut input = Vec::new();
    let discover = request(1, "server/discover", json!({})).to_string();
    input.extend(cobs_frame(discover.as_bytes()));
    let mut corrupt = cobs_frame(
        tool_call(2, "read_sensor", json!({"channel": 0}))
            .to_string()
            .as_bytes(),
    );
    let at = corrupt.len() - 3;
    corrupt[at] ^= 0x01;
    input.extend(corrupt);
    input.extend(cobs_frame(&vec![b'x'; 5000]));
    input.extend_from_slice(&[0, 0, 0]);
    input.extend(cobs_frame(
        tool_call(3, "read_sensor", json!({"channel": 1}))
            .to_string()
            .as_bytes(),
    ));
    let output = std::process::Command::new(device_binary())
        .args(["--framing", "cobs"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            std::thread::spawn(move || stdin.write_all(&input));
            child.wait_with_output()
        })
        .expect("the device runs");
    assert!(output.status.success());
    assert_eq!(output.stdout.last(), Some(&0), "every frame ends with 0x00");
    let replies: Vec<Value> = output.stdout[..output.stdout.len() - 1]
        .split(|&b| b == 0)
        .map(|frame| {
            let message = cobs_decode(frame).expect("a valid frame with a matching CRC");
            serde_json::from_slice(&message).unwrap()
        })
        .collect();
    assert_eq!(replies.len(), 4, "{replies:?}");
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(
        (replies[1]["id"].clone(), error_code(&replies[1])),
        (Value::Null, -32700)
    );
    assert_eq!(
        (replies[2]["id"].clone(), error_code(&replies[2])),
        (Value::Null, -32600)
    );
    assert_eq!(structured(&replies[3])["value"], json!(41.5));
}
