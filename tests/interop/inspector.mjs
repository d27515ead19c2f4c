// The MCP Inspector's command-line mode (@modelcontextprotocol/inspector, pinned in
// package-lock.json) against the `preferences` example over stdio, as a user scripts it:
//
//   node inspector.mjs --server PATH/TO/preferences
//
// For each era — the Inspector's default (`legacy`: the `initialize` handshake) and
// `--protocol-era modern` (2026-07-28) — it lists the example's tools and calls `echo`, each
// a separate `--cli` run that starts the example itself. The Inspector's catalog, client
// config and secrets go to a scratch HOME, never to the user's. Prints one line per check
// and a closing `inspector: N passed, M failed`; exits 1 on any failure.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const RUN_TIMEOUT_MS = 60_000;
const require = createRequire(import.meta.url);
const launcher = join(
  dirname(require.resolve('@modelcontextprotocol/inspector/package.json')),
  'clients/launcher/build/index.js',
);

const serverArg = process.argv.indexOf('--server');
if (serverArg < 0 || !process.argv[serverArg + 1]) throw new Error('--server PATH is required');
const server = process.argv[serverArg + 1];
const home = mkdtempSync(join(tmpdir(), 'snodo-inspector-'));

/** One `inspector --cli` run; its JSON result (or error envelope). */
function inspect(era, args) {
  const eraArgs = era === 'default' ? [] : ['--protocol-era', era];
  const run = spawnSync(
    process.execPath,
    [launcher, '--cli', ...eraArgs, '--format', 'json', ...args, server, '--stdio'],
    {
      env: { ...process.env, HOME: home, RUST_LOG: 'warn' },
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
    },
  );
  const out = run.stdout.trim();
  let json;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { status: run.status, json, out, err: run.stderr };
}

let passed = 0;
let failed = 0;
function report(name, ok, detail) {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
}

const short = (s) => (s.length > 400 ? `${s.slice(0, 400)}…` : s);

console.log(`== MCP Inspector CLI over stdio against ${server} ==`);
try {
  for (const era of ['default', 'modern']) {
    const list = inspect(era, ['--method', 'tools/list']);
    const names = list.json?.result?.tools?.map((t) => t.name) ?? [];
    report(
      `${era} era: tools/list`,
      list.status === 0 && names.includes('echo') && names.includes('preference_preview'),
      list.status === 0 ? `${names.length} tools: ${names.join(', ')}` : `exit ${list.status}: ${short(list.out || list.err)}`,
    );
    const call = inspect(era, ['--method', 'tools/call', '--tool-name', 'echo', '--tool-args-json', '{"text":"inspected"}']);
    const text = call.json?.result?.content?.[0]?.text;
    report(
      `${era} era: tools/call echo`,
      call.status === 0 && text === 'inspected' && call.json.result.isError !== true,
      call.status === 0 ? `text ${JSON.stringify(text)}` : `exit ${call.status}: ${short(call.out || call.err)}`,
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(`inspector: ${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
