// A server of the `initialize` era, built with the official TypeScript SDK 1.x
// (@modelcontextprotocol/sdk, pinned in package-lock.json), which speaks 2025-11-25 and
// earlier only. Our Rust client is tested against it (tests/tests/client_legacy_interop.rs,
// run by scripts/interop.sh): it must find the era with its `server/discover` probe, fall back
// to `initialize`, and answer the server's own requests.
//
//   node legacy-server.mjs --stdio [--log PATH]
//   node legacy-server.mjs --http  [--log PATH]   (prints its URL on the first line)
//
// Tools: `greet` (no input), `pick_color` (asks for a form elicitation), `suggest` (asks the
// client's model through sampling/createMessage), `count_roots` (asks roots/list),
// `open_page` (a URL elicitation), and `end_session` (over HTTP, ends the session after
// answering, so the next request gets 404). With --log, every message the server receives and sends
// and every HTTP request line with its MCP headers is written there as one JSON object a
// line, so the test can read what passed between them.

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const logPath = args.includes('--log') ? args[args.indexOf('--log') + 1] : undefined;
const log = (entry) => {
  if (logPath) appendFileSync(logPath, `${JSON.stringify(entry)}\n`);
};

const TOOLS = [
  { name: 'greet', description: 'Says hello', inputSchema: { type: 'object', properties: {} } },
  { name: 'pick_color', description: 'Asks for a color', inputSchema: { type: 'object', properties: {} } },
  { name: 'suggest', description: 'Asks the model', inputSchema: { type: 'object', properties: {} } },
  { name: 'count_roots', description: 'Lists the roots', inputSchema: { type: 'object', properties: {} } },
  { name: 'open_page', description: 'Asks to open a page', inputSchema: { type: 'object', properties: {} } },
  { name: 'end_session', description: 'Ends the HTTP session after answering', inputSchema: { type: 'object', properties: {} } },
];

const text = (t) => ({ content: [{ type: 'text', text: t }] });

function newServer() {
  const server = new Server({ name: 'ts-legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // Over HTTP, requests tied to the call go on the POST's own event stream; open_page's
    // goes on the session's standalone stream (the client's GET).
    const related = { relatedRequestId: extra.requestId };
    switch (request.params.name) {
      case 'greet':
        return text('hello from a legacy server');
      case 'pick_color': {
        const answer = await server.elicitInput({
          message: 'Pick a color',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        }, related);
        return text(answer.action === 'accept' ? `color: ${answer.content.color}` : `action: ${answer.action}`);
      }
      case 'suggest': {
        const sampled = await server.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Suggest a color' } }],
          maxTokens: 20,
        }, related);
        return text(`suggested: ${sampled.content.text} by ${sampled.model}`);
      }
      case 'count_roots': {
        const { roots } = await server.listRoots(undefined, related);
        return text(`roots: ${roots.map((r) => r.uri).join(' ')}`);
      }
      case 'open_page': {
        const answer = await server.elicitInput({
          mode: 'url',
          message: 'Open the page',
          url: 'https://example.com/legacy',
          elicitationId: 'legacy-1',
        });
        return text(`consent: ${answer.action}`);
      }
      case 'end_session':
        // Over HTTP the session ends once this answer is out: the next request gets 404.
        setTimeout(() => server.endSession?.(), 50);
        return text('ending the session');
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

/** Logs every message a transport receives and sends. */
function record(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    log({ event: 'sent', message });
    return send(message, options);
  };
  const start = transport.start.bind(transport);
  transport.start = async () => {
    const handler = transport.onmessage;
    transport.onmessage = (message, extra) => {
      log({ event: 'message', message });
      handler?.(message, extra);
    };
    return start();
  };
  return transport;
}

async function stdio() {
  await newServer().connect(record(new StdioServerTransport()));
}

async function http() {
  const sessions = new Map();
  const httpServer = createServer(async (req, res) => {
    const session = req.headers['mcp-session-id'];
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    log({
      event: 'http',
      method: req.method,
      rpc: body?.method ?? null,
      session: session ?? null,
      protocolVersion: req.headers['mcp-protocol-version'] ?? null,
      mcpMethod: req.headers['mcp-method'] ?? null,
    });
    let transport = session ? sessions.get(session) : undefined;
    if (!transport && req.method === 'POST' && !session && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) {
          sessions.delete(transport.sessionId);
          log({ event: 'closed', session: transport.sessionId });
        }
      };
      const server = newServer();
      server.endSession = () => transport.close();
      await server.connect(record(transport));
    }
    if (!transport) {
      res.writeHead(session ? 404 : 400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
          id: null,
        }),
      );
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  httpServer.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}

if (args.includes('--stdio')) await stdio();
else if (args.includes('--http')) await http();
else throw new Error('--stdio or --http');
