// Check your own MCP server with the official TypeScript client (@modelcontextprotocol/client,
// pinned in package-lock.json): connect, list the tools, and call one, answering every form
// the server asks from a JSON file.
//
//   node tests/interop/check-server.mjs [--era modern|legacy] [--answers FILE]
//        [--call TOOL [--args JSON]] (--url URL | -- COMMAND [ARGS...])
//
// `--url` reaches a Streamable HTTP server that is already running; after `--` comes the
// command that starts a stdio server (the client starts it itself). `--era modern` (the
// default) pins the client to 2026-07-28, so multi round-trip flows run in legs; `--era
// legacy` opens with `initialize` (2025-11-25), so the server sends `elicitation/create`
// requests instead. The answers file maps a form field's name to its value: each form is
// filled from it, and declined when a required field has no value there. URL consents are
// accepted (nothing is opened), sampling answers with a fixed text, roots are the current
// directory. Prints the tool names, then the call's result; exits 1 when connecting fails,
// the call is a JSON-RPC error or a tool error result.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const TIMEOUT = { timeout: 60_000 };

function usage(message) {
  console.error(`check-server: ${message}`);
  console.error(
    'usage: check-server.mjs [--era modern|legacy] [--answers FILE] [--call TOOL [--args JSON]] (--url URL | -- COMMAND [ARGS...])',
  );
  process.exit(64);
}

function parseArgs(argv) {
  const args = { era: 'modern', answers: {}, call: undefined, arguments: {}, url: undefined, command: [] };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--') {
      args.command = argv.slice(i + 1);
      break;
    } else if (arg === '--era') args.era = argv[++i];
    else if (arg === '--answers') args.answers = JSON.parse(readFileSync(argv[++i], 'utf8'));
    else if (arg === '--call') args.call = argv[++i];
    else if (arg === '--args') args.arguments = JSON.parse(argv[++i]);
    else if (arg === '--url') args.url = argv[++i];
    else usage(`unknown argument ${arg}`);
  }
  if (!['modern', 'legacy'].includes(args.era)) usage('--era is modern or legacy');
  if (!args.url === !args.command.length) usage('give either --url URL or -- COMMAND');
  return args;
}

/** Fills a form from the answers file, or declines when a required field is not there. */
function fillForm(params, answers) {
  const schema = params.requestedSchema ?? {};
  const content = {};
  for (const name of Object.keys(schema.properties ?? {})) {
    if (name in answers) content[name] = answers[name];
  }
  const missing = (schema.required ?? []).filter((name) => !(name in content));
  if (missing.length) {
    console.log(`form "${params.message}": declined (no answer for ${missing.join(', ')})`);
    return { action: 'decline' };
  }
  console.log(`form "${params.message}": ${JSON.stringify(content)}`);
  return { action: 'accept', content };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const negotiation = args.era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  const client = new Client(
    { name: 'snodo-check-server', version: '0.1.0' },
    { capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }, ...negotiation },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params;
    if (params.mode === 'url') {
      console.log(`url consent "${params.message}" for ${params.url}: accepted`);
      return { action: 'accept' };
    }
    return fillForm(params, args.answers);
  });
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'check-server' },
    model: 'check-server',
    stopReason: 'endTurn',
  }));
  client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: pathToFileURL(process.cwd()).href, name: 'current directory' }],
  }));

  const transport = args.url
    ? new StreamableHTTPClientTransport(new URL(args.url))
    : new StdioClientTransport({ command: args.command[0], args: args.command.slice(1), stderr: 'inherit' });
  try {
    await client.connect(transport, TIMEOUT);
  } catch (e) {
    console.error(`check-server: could not connect: ${e?.message ?? e}`);
    return 1;
  }
  try {
    const { tools } = await client.listTools(undefined, TIMEOUT);
    console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
    if (!args.call) return 0;
    const result = await client.callTool({ name: args.call, arguments: args.arguments }, TIMEOUT);
    for (const block of result.content ?? []) {
      console.log(block.type === 'text' ? `result: ${block.text}` : `result: ${JSON.stringify(block)}`);
    }
    if (result.isError) {
      console.error('check-server: the tool answered with an error result');
      return 1;
    }
    return 0;
  } catch (e) {
    console.error(`check-server: ${e?.message ?? e}`);
    return 1;
  } finally {
    await client.close().catch(() => {});
  }
}

process.exitCode = await main();
