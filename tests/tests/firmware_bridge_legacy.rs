//! A 2025-11-25 host (one that opens with `initialize`) reaching the unchanged firmware
//! through `snodo-bridge --stdio`: the bridge answers `initialize` from the device's
//! discovery, keeps the legacy session, and bridges the device's `input_required` to the
//! host as `elicitation/create`, retrying on the device with the answer. Literal messages.

mod firmware_common;

use firmware_common::*;
use serde_json::{Value, json};

fn initialize(capabilities: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "legacy-host", "version": "1.0.0"},
    }})
}

fn set_relay(id: u64, channel: u64, on: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "set_relay", "arguments": {"channel": channel, "on": on},
    }})
}

fn relays(bridge: &mut StdioBridge, id: u64) -> Value {
    let read = json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
        "params": {"uri": "device://info"}});
    let reply = bridge.call(&read);
    assert!(reply["result"].get("resultType").is_none(), "{reply}");
    let text = reply["result"]["contents"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("device info: {reply}"));
    serde_json::from_str::<Value>(text).unwrap()["relays"].clone()
}

/// Opens a legacy session: the answer names the device, as its own discovery does.
fn open(bridge: &mut StdioBridge, capabilities: Value) {
    let opened = bridge.call(&initialize(capabilities));
    let result = &opened["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25", "{opened}");
    assert_eq!(result["serverInfo"]["name"], "snodo-bench-instrument");
    assert!(result["capabilities"]["tools"].is_object(), "{opened}");
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.starts_with("A bench instrument")),
        "{opened}"
    );
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// Sends `call` and answers the bridged `elicitation/create` with `answer`: the request's
/// reply.
fn confirm_with(bridge: &mut StdioBridge, call: &Value, message: &str, answer: Value) -> Value {
    bridge.send(call);
    let asked = bridge.receive();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["message"], message);
    assert_eq!(
        asked["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    assert!(
        asked["id"].is_string() || asked["id"].is_number(),
        "{asked}"
    );
    bridge.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": answer}));
    let reply = bridge.receive();
    assert_eq!(reply["id"], call["id"], "{reply}");
    reply
}

#[test]
fn a_legacy_host_switches_a_relay_by_answering_the_bridged_elicitation() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    open(&mut bridge, json!({"elicitation": {"form": {}}}));

    let ping = bridge.call(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    // The device pages its lists one tool at a time; the cursor passes through the bridge.
    let first = bridge.call(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    assert_eq!(
        first["result"]["tools"][0]["name"], "read_sensor",
        "{first}"
    );
    let cursor = first["result"]["nextCursor"].clone();
    let second = bridge.call(&json!({"jsonrpc": "2.0", "id": 30, "method": "tools/list",
        "params": {"cursor": cursor}}));
    assert_eq!(
        second["result"]["tools"][0]["name"], "set_relay",
        "{second}"
    );
    assert_eq!(relays(&mut bridge, 4), json!([false, false]));

    // Declined: the device finishes without switching.
    let declined = confirm_with(
        &mut bridge,
        &set_relay(5, 1, true),
        "Switch relay 1 on?",
        json!({"action": "decline"}),
    );
    assert_eq!(
        declined["result"]["structuredContent"],
        json!({"channel": 1, "on": true, "switched": false, "action": "decline"}),
        "{declined}"
    );
    assert!(declined["result"].get("resultType").is_none(), "{declined}");
    assert_eq!(relays(&mut bridge, 6), json!([false, false]));

    // Confirmed: switched, once.
    let confirmed = confirm_with(
        &mut bridge,
        &set_relay(7, 1, true),
        "Switch relay 1 on?",
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    assert_eq!(
        confirmed["result"]["structuredContent"],
        json!({"channel": 1, "on": true, "switched": true, "was": false}),
        "{confirmed}"
    );
    assert_eq!(relays(&mut bridge, 8), json!([false, true]));

    // The session is legacy for good: a modern request is refused.
    let modern = bridge.call(&tool_call(9, "read_sensor", json!({"channel": 0})));
    assert_eq!(error_code(&modern), -32600, "{modern}");

    bridge.finish();
    stop(&mut device);
}

#[test]
fn a_legacy_host_without_elicitation_is_never_asked_and_told_what_is_missing() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let mut bridge = StdioBridge::start(&pty, "line");
    open(&mut bridge, json!({}));
    let refused = bridge.call(&set_relay(2, 0, true));
    assert_eq!(error_code(&refused), -32603, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("elicitation"), "{refused}");
    assert_eq!(relays(&mut bridge, 3), json!([false, false]));
    bridge.finish();
    stop(&mut device);
}

#[test]
fn a_legacy_host_cancelling_a_queued_request_gets_no_reply_and_the_device_never_runs_it() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = StdioBridge::start(&pty, "cobs");
    open(&mut bridge, json!({"elicitation": {"form": {}}}));

    // Request 2 holds the device's turn while it waits for the host's answer; request 3
    // (a sensor read) queues behind it, and is cancelled there.
    bridge.send(&set_relay(2, 0, true));
    let asked = bridge.receive();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "tools/call", "id": 3,
        "params": {"name": "read_sensor", "arguments": {"channel": 0}}}));
    bridge.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 3, "reason": "no longer needed"}}),
    );
    bridge.send(&json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "decline"}}));
    let declined = bridge.receive();
    assert_eq!(declined["id"], 2, "{declined}");

    // The next reply is the next request's: none comes for the cancelled one (the device
    // serves one request at a time, so had it run, its reply would come first).
    let listed = bridge.call(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    assert_eq!(
        listed["result"]["tools"][0]["name"], "read_sensor",
        "{listed}"
    );
    wait_for_log(&bridge.log, "a queued legacy request was cancelled");

    bridge.finish();
    stop(&mut device);
}

#[test]
fn a_modern_client_is_still_relayed_unchanged() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let mut bridge = StdioBridge::start(&pty, "line");
    let discover = bridge.call(&request(1, "server/discover", json!({})));
    assert_eq!(discover["result"]["supportedVersions"], json!([PROTOCOL]));
    let asked = bridge.call(&tool_call(
        2,
        "set_relay",
        json!({"channel": 0, "on": true}),
    ));
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    // `initialize` after the connection turned modern is refused, saying why.
    let late = bridge.call(&initialize(json!({})));
    assert_eq!(error_code(&late), -32601, "{late}");
    assert!(
        late["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("This connection speaks MCP 2026-07-28")),
        "{late}"
    );
    bridge.finish();
    stop(&mut device);
}

/// Opens a legacy HTTP session; waits until the bridge logged it (the log is in order, so
/// whatever the bridge logged while answering is in it then).
fn open_over_http(bridge: &HttpBridge) {
    let mut opened = bridge.legacy("POST", Some(&initialize(json!({}))), None);
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let result = opened.next_message().expect("the initialize result");
    assert_eq!(
        result["result"]["serverInfo"]["name"], "snodo-bench-instrument",
        "{result}"
    );
    wait_for_log(&bridge.log, &session);
}

fn discoveries_asked(bridge: &HttpBridge) -> usize {
    let log = bridge.log.lock().unwrap();
    log.matches("asking the device its server/discover").count()
}

#[test]
fn the_http_bridge_asks_the_device_its_discovery_once_per_boot() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let bridge = HttpBridge::start(&pty, "line");
    open_over_http(&bridge);
    open_over_http(&bridge);
    assert_eq!(
        discoveries_asked(&bridge),
        1,
        "one discovery for two sessions"
    );

    // A restart of the device may change what it serves: the next session asks again.
    pty.inject_towards_bridge(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/io.snodo/boot\"}\n",
    );
    wait_for_log(&bridge.log, "the device (re)started");
    open_over_http(&bridge);
    assert_eq!(
        discoveries_asked(&bridge),
        2,
        "asked again after the restart"
    );
    stop(&mut device);
}

#[test]
fn a_legacy_host_over_http_switches_a_relay_answering_on_the_posts_stream() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let bridge = HttpBridge::start(&pty, "cobs");

    // `initialize` opens a session, answered from the device's discovery.
    let mut opened = bridge.legacy(
        "POST",
        Some(&initialize(json!({"elicitation": {"form": {}}}))),
        None,
    );
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("the session id")
        .to_owned();
    let result = opened.next_message().expect("the initialize result");
    assert_eq!(result["id"], 1, "{result}");
    assert_eq!(
        result["result"]["protocolVersion"], "2025-11-25",
        "{result}"
    );
    assert_eq!(
        result["result"]["serverInfo"]["name"], "snodo-bench-instrument",
        "{result}"
    );
    assert!(result["result"]["capabilities"]["tools"].is_object());
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = bridge.legacy("POST", Some(&initialized), Some(&session));
    assert_eq!(accepted.status, 202);

    // The device's `input_required` reaches the host as `elicitation/create` on the POST's
    // stream; the answer, POSTed back, finishes the call there.
    let call = set_relay(2, 0, true);
    let mut stream = bridge.legacy("POST", Some(&call), Some(&session));
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    let asked = stream.next_message().expect("the bridged request");
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["message"], "Switch relay 0 on?", "{asked}");
    let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"confirm": true}}});
    let delivered = bridge.legacy("POST", Some(&answer), Some(&session));
    assert_eq!(delivered.status, 202);
    let reply = stream.next_message().expect("the call's reply");
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(
        reply["result"]["structuredContent"],
        json!({"channel": 0, "on": true, "switched": true, "was": false}),
        "{reply}"
    );
    assert!(reply["result"].get("resultType").is_none(), "{reply}");
    assert!(
        stream.next_message().is_none(),
        "the stream ends with the reply"
    );

    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
        "params": {"uri": "device://info"}});
    let info = bridge
        .legacy("POST", Some(&read), Some(&session))
        .next_message()
        .expect("the device's info");
    let text = info["result"]["contents"][0]["text"].as_str().unwrap();
    let relays = serde_json::from_str::<Value>(text).unwrap()["relays"].clone();
    assert_eq!(relays, json!([true, false]), "{info}");

    // The session's own stream opens with `GET`; `DELETE` ends the session, after which
    // it is unknown (404).
    let own = bridge.legacy("GET", None, Some(&session));
    assert_eq!(own.status, 200);
    assert_eq!(own.header("content-type"), Some("text/event-stream"));
    drop(own);
    assert_eq!(bridge.legacy("DELETE", None, Some(&session)).status, 200);
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    assert_eq!(
        bridge.legacy("POST", Some(&ping), Some(&session)).status,
        404
    );

    // A modern client on the same endpoint is still relayed to the device unchanged.
    let discover = bridge.post(&request(5, "server/discover", json!({})), &[]);
    assert_eq!(
        discover.reply()["result"]["supportedVersions"],
        json!([PROTOCOL])
    );
    stop(&mut device);
}

/// The bridge's HTTP side runs on the server's own listener, so `SIGTERM` drains it as it
/// drains a server: a legacy session's open `GET` stream ends, the bridge exits successfully,
/// and it accepts no connection after that.
#[test]
fn sigterm_drains_the_http_bridge_and_ends_the_session_streams() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let mut bridge = HttpBridge::start(&pty, "line");
    let opened = bridge.legacy("POST", Some(&initialize(json!({}))), None);
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("initialize names the session")
        .to_owned();
    let mut stream = bridge.legacy("GET", None, Some(&session));
    assert_eq!(stream.status, 200);

    let pid = i32::try_from(bridge.child.id()).expect("a pid");
    kill(Pid::from_raw(pid), Signal::SIGTERM).expect("the signal is sent");
    assert!(
        stream.next_message().is_none(),
        "the session's stream ends at the drain"
    );
    let status = bridge.child.wait().expect("the bridge exits");
    assert!(
        status.success(),
        "a drained bridge exits with 0, not {status}"
    );
    assert!(
        std::net::TcpStream::connect(&bridge.addr).is_err(),
        "nothing listens after the drain"
    );
    stop(&mut device);
}
