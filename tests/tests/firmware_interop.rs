//! The official TypeScript client (`@modelcontextprotocol/client`, pinned in
//! `tests/interop/package-lock.json`, with the Node 22 that package set ships) reaches the
//! firmware through `snodo-bridge`: over stdio (the client starts the bridge, twice: a
//! `server/discover` probe, then the session) and over Streamable HTTP. Its own elicitation
//! handler answers `set_relay`'s confirmation and `calibrate`'s two questions, and its own
//! driver retries each leg with the device's sealed state.
//!
//! When the pinned packages are not installed yet, the test installs them as
//! `scripts/interop.sh` does (`npm ci --ignore-scripts`).

mod firmware_common;

use firmware_common::*;

#[test]
fn the_typescript_client_runs_the_flows_through_the_stdio_bridge() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let bridge = bridge_binary().to_str().unwrap().to_owned();
    let slave = pty.slave_path.to_str().unwrap().to_owned();
    run_client(
        "stdio",
        Some(PROTOCOL),
        &[
            "stdio",
            &bridge,
            "--serial",
            &slave,
            "--framing",
            "cobs",
            "--stdio",
        ],
    );
    stop(&mut device);
}

#[test]
fn the_typescript_client_runs_the_flows_through_the_http_bridge() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "line");
    let bridge = HttpBridge::start(&pty, "line");
    run_client(
        "http",
        Some(PROTOCOL),
        &["http", &format!("http://{}/mcp", bridge.addr)],
    );
    stop(&mut device);
}
