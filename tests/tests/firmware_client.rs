//! The Rust client (`snodo_std::client`) reaches the firmware through `snodo-bridge`: over
//! stdio (the client spawns the bridge as its server) and over Streamable HTTP, completing
//! `set_relay`'s confirmation and the three-leg `calibrate` with its own form handler, and
//! following list pages of one definition each.

mod firmware_common;

use std::sync::{Arc, Mutex};

use firmware_common::*;
use serde_json::{Value, json};
use snodo_std::client::{Client, ClientBuilder, ElicitResult};

/// A client whose form handler answers the device's questions and records them.
fn client(asked: &Arc<Mutex<Vec<String>>>) -> ClientBuilder {
    let asked = Arc::clone(asked);
    Client::builder("firmware-test", "1.0.0").on_form(move |form| {
        let asked = Arc::clone(&asked);
        async move {
            asked.lock().unwrap().push(form.message.clone());
            let properties = &form.requested_schema["properties"];
            let answer = if properties.get("confirm").is_some() {
                json!({"confirm": true})
            } else if properties.get("reference").is_some() {
                json!({"reference": 23.0})
            } else {
                json!({"store": true})
            };
            Ok(ElicitResult::accept(answer))
        }
    })
}

async fn flows(client: &Client, asked: &Mutex<Vec<String>>) {
    let tools = client.list_tools().await.expect("tools/list, every page");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["read_sensor", "set_relay", "calibrate"]);

    let switched = client
        .call_tool("set_relay", json!({"channel": 0, "on": true}))
        .await
        .expect("set_relay");
    assert_eq!(
        switched["structuredContent"],
        json!({"channel": 0, "on": true, "switched": true, "was": false})
    );
    let calibrated = client
        .call_tool("calibrate", json!({"channel": 0}))
        .await
        .expect("calibrate");
    assert_eq!(calibrated["structuredContent"]["offset"], json!(-0.125));
    assert_eq!(
        *asked.lock().unwrap(),
        [
            "Switch relay 0 on?",
            "Calibrating sensor 0 (temperature): hold it at a known reference and enter what a \
             trusted instrument reads, in Cel.",
            "Sensor 0 read 23.125 Cel against 23.000 Cel. Store an offset of -0.125 Cel?",
        ]
    );
    let info = client.read_resource("device://info").await.expect("read");
    let info: Value = serde_json::from_str(info["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(info["relays"], json!([true, false]));
    assert_eq!(info["offsets"][0], json!(-0.125));
    let prompt = client
        .get_prompt("bench_check", json!({"focus": "supply voltage"}))
        .await
        .expect("prompt");
    assert_eq!(prompt["messages"].as_array().map(Vec::len), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_client_runs_the_flows_through_the_stdio_bridge() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let mut bridge = tokio::process::Command::new(bridge_binary());
    bridge
        .arg("--serial")
        .arg(&pty.slave_path)
        .args(["--framing", "cobs", "--stdio"]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = client(&asked).stdio(bridge).expect("the bridge starts");
    flows(&client, &asked).await;
    client.close().await;
    stop(&mut device);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rust_client_runs_the_flows_through_the_http_bridge() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let bridge = HttpBridge::start(&pty, "line");
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = client(&asked)
        .http(&format!("http://{}/mcp", bridge.addr))
        .expect("an http URL");
    flows(&client, &asked).await;
    client.close().await;
    stop(&mut device);
}
