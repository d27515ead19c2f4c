// The official TypeScript client (@modelcontextprotocol/client, pinned in package-lock.json)
// against the `preferences` example server, over one transport per run:
//
//   node interop.mjs --transport stdio --server PATH/TO/preferences [--era modern|legacy]
//   node interop.mjs --transport http  --server PATH/TO/preferences [--era modern|legacy]
//
// `--era legacy` leaves the client's version negotiation at its default (`legacy`: the
// 2025-11-25 `initialize` handshake, as almost every host in the field opens): the server
// bridges each input request of its MRTR handlers into a request of its own
// (`elicitation/create`, `sampling/createMessage`, `roots/list`), which the client's handlers
// answer, and the client sees one request per flow and its final result. The checks for
// that era are in `legacyCases` below.
//
// `--era modern` (the default) pins the client to 2026-07-28
// (`versionNegotiation: { mode: { pin: '2026-07-28' } }`). The client
// declares elicitation (form and URL), sampling and roots, and answers every input request
// with its own handlers (canned answers below). It runs the multi round-trip (MRTR) flows
// through its own auto-fulfilment driver: the harness never answers or retries anything
// itself, except in the negative case, where it replays a state by hand through the client's
// documented manual mode (`allowInputRequired: true`). What the harness checks it reads from
// the messages the client sends and receives, recorded by wrapping the transport instance
// (its `send` and its `onmessage`).
//
// Over stdio the client starts the server twice: a short-lived sibling process answers the
// `server/discover` probe, then the session process gets ordinary requests only. That sibling
// path needs the SDK's own StdioClientTransport class (a subclass or a wrapper object would
// probe in place), so the transport is wrapped per instance, never subclassed; the number of
// processes started is counted on the class's `start`.
//
// Prints one line per check and a closing `interop: N passed, M failed`; exits 1 on any
// failure.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const VERSION = '2026-07-28';
/** Per request leg; a flow that hangs fails instead of stalling the run. */
const LEG_TIMEOUT_MS = 15_000;
/** The whole run. */
const RUN_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------

function parseArgs(argv) {
  const args = { transport: undefined, server: undefined, transcript: undefined, era: 'modern' };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--transport') args.transport = argv[++i];
    else if (arg === '--era') args.era = argv[++i];
    else if (arg === '--server') args.server = argv[++i];
    else if (arg === '--transcript') args.transcript = argv[++i];
    else throw new Error(`unknown argument ${arg}`);
  }
  if (!['stdio', 'http'].includes(args.transport)) throw new Error('--transport stdio|http is required');
  if (!args.server) throw new Error('--server PATH (the preferences example binary) is required');
  if (!['modern', 'legacy'].includes(args.era)) throw new Error('--era modern|legacy');
  return args;
}

// ---------------------------------------------------------------------------------------
// Canned answers: what the client's own handlers return
// ---------------------------------------------------------------------------------------

const ANSWERS = {
  color: 'teal',
  style: 'bold',
  label: 'demo',
};
const SAMPLED = {
  role: 'assistant',
  content: { type: 'text', text: 'teal' },
  model: 'interop-canned-model',
  stopReason: 'endTurn',
};
const ROOTS = { roots: [{ uri: 'file:///tmp/snodo-interop/project', name: 'interop project' }] };

/** What the client declares: elicitation in both modes, sampling and roots. */
const CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** Everything the client's handlers were asked, in order. */
const asked = [];

function installHandlers(client) {
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params;
    asked.push({ method: 'elicitation/create', params });
    if (params.mode === 'url') {
      // Consent only: nothing is opened, and consent says nothing about completion.
      return { action: 'accept' };
    }
    const content = {};
    for (const name of Object.keys(params.requestedSchema?.properties ?? {})) {
      content[name] = ANSWERS[name] ?? 'interop';
    }
    return { action: 'accept', content };
  });
  client.setRequestHandler('sampling/createMessage', async (request) => {
    asked.push({ method: 'sampling/createMessage', params: request.params });
    return SAMPLED;
  });
  client.setRequestHandler('roots/list', async (request) => {
    asked.push({ method: 'roots/list', params: request.params });
    return ROOTS;
  });
}

// ---------------------------------------------------------------------------------------
// Observing the client's messages
// ---------------------------------------------------------------------------------------

/** Records every message the client sends and receives on one transport instance. */
class Recorder {
  sent = [];
  received = [];
  /** Both directions, in order, for the transcript. */
  log = [];

  attach(transport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      this.sent.push(structuredClone(message));
      this.log.push({ dir: 'sent', message: structuredClone(message) });
      return send(message, options);
    };
    const { received, log } = this;
    let handler;
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      enumerable: true,
      get: () => handler,
      set: (fn) => {
        handler =
          typeof fn === 'function'
            ? (message, extra) => {
                received.push(structuredClone(message));
                log.push({ dir: 'received', message: structuredClone(message) });
                return fn(message, extra);
              }
            : fn;
      },
    });
  }

  mark() {
    return { sent: this.sent.length, received: this.received.length };
  }

  /** Requests sent since `mark` with this method whose params satisfy `pick`. */
  requests(mark, method, pick = () => true) {
    return this.sent
      .slice(mark.sent)
      .filter((m) => m.method === method && m.id !== undefined && pick(m.params ?? {}));
  }

  /** The response received to the request with this id. */
  response(id) {
    return this.received.find((m) => m.id === id && m.method === undefined);
  }
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

class Failure extends Error {}

function check(condition, message) {
  if (!condition) throw new Failure(message);
}

const short = (v) => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 400 ? `${s.slice(0, 400)}…` : s;
};

/** Every request id the client sent over the whole session, for freshness. */
function allRequestIds(recorder) {
  return recorder.sent.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => m.id);
}

/**
 * The legs of one flow: `count` requests, each with an id used by no other request in the
 * session; returns them with the response each got.
 */
function legs(recorder, mark, method, pick, count) {
  const found = recorder.requests(mark, method, pick);
  check(found.length === count, `expected ${count} ${method} legs, the client sent ${found.length}: ${short(found)}`);
  const ids = allRequestIds(recorder);
  for (const leg of found) {
    check(ids.filter((id) => id === leg.id).length === 1, `leg id ${short(leg.id)} is not fresh`);
  }
  return found.map((request) => ({ request, response: recorder.response(request.id) }));
}

/** Checks that each retry echoes the previous leg's requestState byte for byte (or drops it). */
function checkStateEchoes(flow) {
  for (let i = 1; i < flow.length; i += 1) {
    const previous = flow[i - 1].response?.result;
    const sent = flow[i].request.params?.requestState;
    if (typeof previous?.requestState === 'string') {
      check(sent === previous.requestState, `leg ${i + 1} does not echo leg ${i}'s requestState byte for byte`);
    } else {
      check(sent === undefined, `leg ${i + 1} carries a requestState although leg ${i}'s result had none`);
    }
  }
}

const hasState = (leg) => typeof leg.request.params?.requestState === 'string';
const responseKeys = (leg) => Object.keys(leg.request.params?.inputResponses ?? {}).sort();
const requestedKinds = (leg) =>
  Object.fromEntries(
    Object.entries(leg.response?.result?.inputRequests ?? {}).map(([key, r]) => [key, r.method]),
  );

/** The three-leg preference flow: no state, then two different states; color, then style. */
function checkPreferenceLegs(flow) {
  const [one, two, three] = flow;
  check(!hasState(one) && one.request.params.inputResponses === undefined, 'leg 1 carries retry fields');
  check(hasState(two) && hasState(three), 'legs 2 and 3 must carry requestState');
  check(two.request.params.requestState !== three.request.params.requestState, 'legs 2 and 3 carry the same state');
  check(isDeepStrictEqual(responseKeys(two), ['color']), `leg 2 answers ${short(responseKeys(two))}, not color`);
  check(isDeepStrictEqual(responseKeys(three), ['style']), `leg 3 answers ${short(responseKeys(three))}, not style`);
  check(
    isDeepStrictEqual(two.request.params.inputResponses.color, { action: 'accept', content: { color: 'teal' } }),
    `leg 2's color answer is ${short(two.request.params.inputResponses.color)}`,
  );
  checkStateEchoes(flow);
}

const PREVIEW = '{"color":"teal","style":"bold","status":"preview"}';

function expectText(actual, expected, what) {
  check(actual === expected, `${what}: expected ${expected}, got ${short(actual)}`);
}

// ---------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------

const timeout = { timeout: LEG_TIMEOUT_MS };

/**
 * The preference flow as tool, resource and prompt, in either era: how to run it, where its
 * text is, which requests are its own, and what else its result and requests must show.
 */
const FAMILIES = [
  {
    name: 'tool preference_preview',
    method: 'tools/call',
    pick: (p) => p.name === 'preference_preview',
    run: (client) => client.callTool({ name: 'preference_preview', arguments: { subject: 'interop' } }, timeout),
    text: (result) => result.content?.[0]?.text,
    checkResult: () => {},
    checkRequest: (request) =>
      check(isDeepStrictEqual(request.params.arguments, { subject: 'interop' }), 'arguments changed between legs'),
  },
  {
    name: 'resource preview://preferences',
    method: 'resources/read',
    pick: (p) => p.uri === 'preview://preferences',
    run: (client) => client.readResource({ uri: 'preview://preferences' }, { ...timeout, cacheMode: 'bypass' }),
    text: (result) => result.contents?.[0]?.text,
    checkResult: (result) =>
      check(result.contents[0].uri === 'preview://preferences', `contents for ${result.contents[0].uri}`),
    checkRequest: () => {},
  },
  {
    name: 'prompt preference_prompt',
    method: 'prompts/get',
    pick: (p) => p.name === 'preference_prompt',
    run: (client) => client.getPrompt({ name: 'preference_prompt' }, timeout),
    text: (result) => result.messages?.[0]?.content?.text,
    checkResult: (result) => check(result.messages[0].role === 'user', `role ${result.messages[0].role}`),
    checkRequest: () => {},
  },
];

function cases(client, recorder, transport) {
  const isTool = (name) => (p) => p.name === name;
  return [
    {
      name: 'connect: pinned 2026-07-28',
      run: async (started) => {
        check(client.getProtocolEra() === 'modern', `era ${short(client.getProtocolEra())}`);
        const discover = client.getDiscoverResult();
        check(
          (discover?.supportedVersions ?? []).includes(VERSION),
          `server/discover does not offer ${VERSION}: ${short(discover)}`,
        );
        check(
          discover?._meta?.['io.modelcontextprotocol/serverInfo']?.name === 'snodo-preferences' ||
            client.getServerVersion()?.name === 'snodo-preferences',
          `server ${short(client.getServerVersion())}`,
        );
        if (transport === 'stdio') {
          check(started.count === 2, `expected 2 server processes (probe, session), got ${started.count}`);
          check(
            recorder.sent.length === 0,
            `the session process got ${short(recorder.sent.map((m) => m.method))} before any call`,
          );
          return 'server/discover answered by a probe process; the session process got nothing yet';
        }
        const methods = recorder.sent.map((m) => m.method);
        check(isDeepStrictEqual(methods, ['server/discover']), `connect sent ${short(methods)}`);
        return 'server/discover in place';
      },
    },
    ...FAMILIES.map((family) => ({
      name: `${family.name}: 3 legs`,
      run: async () => {
        const mark = recorder.mark();
        const result = await family.run(client);
        expectText(family.text(result), PREVIEW, 'final result');
        family.checkResult(result);
        const flow = legs(recorder, mark, family.method, family.pick, 3);
        checkPreferenceLegs(flow);
        for (const leg of flow) family.checkRequest(leg.request);
        return PREVIEW;
      },
    })),
    {
      name: 'tool reset_preview: state kept, then discarded',
      run: async () => {
        const expected = '{"status":"accept","stateDiscarded":true}';
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'reset_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legs(recorder, mark, 'tools/call', isTool('reset_preview'), 3);
        const [one, two, three] = flow;
        check(!hasState(one) && one.request.params.inputResponses === undefined, 'leg 1 carries retry fields');
        const stateOnly = one.response?.result;
        check(
          typeof stateOnly?.requestState === 'string' && stateOnly.inputRequests === undefined,
          `leg 1's result is not state-only: ${short(stateOnly)}`,
        );
        check(hasState(two) && two.request.params.inputResponses === undefined, 'leg 2 must carry only the kept state');
        check(
          two.response?.result?.requestState === undefined,
          `leg 2's result still carries state: ${short(two.response?.result)}`,
        );
        check(!hasState(three), 'leg 3 still carries the state the server dropped');
        check(isDeepStrictEqual(responseKeys(three), ['label']), `leg 3 answers ${short(responseKeys(three))}`);
        checkStateEchoes(flow);
        return expected;
      },
    },
    {
      name: 'tool url_preview: URL consent is consent, not completion',
      run: async () => {
        const expected = '{"consent":"accept","externalStatus":"pending"}';
        const before = asked.length;
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'url_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legs(recorder, mark, 'tools/call', isTool('url_preview'), 2);
        const ask = asked.slice(before);
        check(
          ask.length === 1 && ask[0].params.mode === 'url' && ask[0].params.url === 'https://example.com/preferences/preview',
          `the client's handler was asked ${short(ask)}`,
        );
        check(
          isDeepStrictEqual(flow[1].request.params.inputResponses, { consent: { action: 'accept' } }),
          `leg 2 answers ${short(flow[1].request.params.inputResponses)}`,
        );
        checkStateEchoes(flow);
        return expected;
      },
    },
    {
      name: 'tool sampling_preview: a sampled message',
      run: async () => {
        const expected = '{"suggestion":"teal","model":"interop-canned-model","status":"preview"}';
        const before = asked.length;
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'sampling_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legs(recorder, mark, 'tools/call', isTool('sampling_preview'), 2);
        check(isDeepStrictEqual(requestedKinds(flow[0]), { suggestion: 'sampling/createMessage' }), 'leg 1 asked something else');
        check(asked.slice(before).every((a) => a.method === 'sampling/createMessage'), 'another handler ran');
        check(
          isDeepStrictEqual(flow[1].request.params.inputResponses?.suggestion, SAMPLED),
          `leg 2 answers ${short(flow[1].request.params.inputResponses)}`,
        );
        checkStateEchoes(flow);
        return expected;
      },
    },
    {
      name: 'tool roots_preview: the client roots',
      run: async () => {
        const expected = '{"rootCount":1,"roots":["file:///tmp/snodo-interop/project"],"status":"preview"}';
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'roots_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legs(recorder, mark, 'tools/call', isTool('roots_preview'), 2);
        check(isDeepStrictEqual(requestedKinds(flow[0]), { roots: 'roots/list' }), 'leg 1 asked something else');
        check(
          isDeepStrictEqual(flow[1].request.params.inputResponses?.roots, ROOTS),
          `leg 2 answers ${short(flow[1].request.params.inputResponses)}`,
        );
        checkStateEchoes(flow);
        return expected;
      },
    },
    {
      name: 'tool combined_preview: form, sampling and roots in one result',
      run: async () => {
        const expected = '{"color":"teal","suggestion":"teal","rootCount":1,"status":"preview"}';
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'combined_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legs(recorder, mark, 'tools/call', isTool('combined_preview'), 2);
        check(
          isDeepStrictEqual(requestedKinds(flow[0]), {
            color: 'elicitation/create',
            suggestion: 'sampling/createMessage',
            roots: 'roots/list',
          }),
          `leg 1 asked ${short(requestedKinds(flow[0]))}`,
        );
        check(hasState(flow[1]), 'leg 2 lacks the state');
        check(
          isDeepStrictEqual(responseKeys(flow[1]), ['color', 'roots', 'suggestion']),
          `leg 2 answers ${short(responseKeys(flow[1]))}`,
        );
        checkStateEchoes(flow);
        return expected;
      },
    },
    {
      name: 'negative: tool state replayed with other arguments is -32602',
      run: async () => {
        // Manual mode for these calls: the harness, not the driver, replays the state.
        const manual = { ...timeout, allowInputRequired: true };
        const first = await client.callTool({ name: 'preference_preview', arguments: { subject: 'first' } }, manual);
        check(
          first.resultType === 'input_required' && typeof first.requestState === 'string',
          `the first leg is not input_required with state: ${short(first)}`,
        );
        const answers = { color: { action: 'accept', content: { color: 'teal' } } };
        const mark = recorder.mark();
        const replay = { requestState: first.requestState, inputResponses: answers };
        const code = await client
          .callTool({ name: 'preference_preview', arguments: { subject: 'second' }, ...replay }, manual)
          .then(
            (r) => `a result: ${short(r)}`,
            (e) => (e instanceof ProtocolError ? e.code : `${e?.name}: ${e?.message}`),
          );
        const [sent] = legs(recorder, mark, 'tools/call', isTool('preference_preview'), 1);
        check(
          sent.request.params.requestState === first.requestState && sent.request.params.arguments.subject === 'second',
          `the replay was not sent as asked: ${short(sent.request.params)}`,
        );
        check(code === -32602, `expected -32602, got ${short(code)}`);
        check(sent.response?.error?.code === -32602, `the wire response is ${short(sent.response)}`);
        // Control: the same state with the same arguments is accepted.
        const control = await client.callTool(
          { name: 'preference_preview', arguments: { subject: 'first' }, ...replay },
          manual,
        );
        check(
          control.resultType === 'input_required' && Object.keys(control.inputRequests ?? {}).join() === 'style',
          `the same state with the same arguments was not accepted: ${short(control)}`,
        );
        return '-32602; the same state with the original arguments goes on to style';
      },
    },
    {
      name: 'negative: prompt state replayed with other arguments is -32602',
      run: async () => {
        const manual = { ...timeout, allowInputRequired: true };
        const first = await client.getPrompt({ name: 'preference_prompt', arguments: { subject: 'first' } }, manual);
        check(typeof first.requestState === 'string', `the first leg has no state: ${short(first)}`);
        const replay = {
          requestState: first.requestState,
          inputResponses: { color: { action: 'accept', content: { color: 'teal' } } },
        };
        const code = await client
          .getPrompt({ name: 'preference_prompt', arguments: { subject: 'second' }, ...replay }, manual)
          .then(
            (r) => `a result: ${short(r)}`,
            (e) => (e instanceof ProtocolError ? e.code : `${e?.name}: ${e?.message}`),
          );
        check(code === -32602, `expected -32602, got ${short(code)}`);
        return '-32602';
      },
    },
    {
      name: 'session: every request carries the 2026-07-28 envelope, no initialize',
      run: async (started) => {
        const requests = recorder.sent.filter((m) => m.method !== undefined && m.id !== undefined);
        const methods = [...new Set(requests.map((m) => m.method))];
        check(!methods.includes('initialize'), 'the client sent initialize');
        if (transport === 'stdio') {
          check(started.count === 2, `${started.count} server processes were started`);
          check(!methods.includes('server/discover'), 'the stdio session process got server/discover');
          check(requests[0]?.method !== 'server/discover', `the session began with ${requests[0]?.method}`);
        }
        for (const m of requests) {
          const meta = m.params?._meta ?? {};
          check(
            meta['io.modelcontextprotocol/protocolVersion'] === VERSION &&
              typeof meta['io.modelcontextprotocol/clientCapabilities'] === 'object',
            `${m.method} ${short(m.id)} lacks the envelope: ${short(meta)}`,
          );
        }
        const ids = requests.map((m) => m.id);
        check(new Set(ids).size === ids.length, 'a request id was reused');
        check(
          isDeepStrictEqual(requests[0].params._meta['io.modelcontextprotocol/clientCapabilities'], CAPABILITIES),
          `declared ${short(requests[0].params._meta['io.modelcontextprotocol/clientCapabilities'])}`,
        );
        return `${requests.length} requests (${methods.join(', ')}), first ${requests[0]?.method}, ids all distinct`;
      },
    },
  ];
}


// ---------------------------------------------------------------------------------------
// The legacy era: the client's default negotiation, the server's bridged requests
// ---------------------------------------------------------------------------------------

const LEGACY_VERSION = '2025-11-25';

/**
 * One flow of the legacy era: exactly one request (`method`, `pick`) since `mark`, the
 * requests the server sent meanwhile and the client's answer to each, in order.
 */
function legacyFlow(recorder, mark, method, pick) {
  const calls = recorder.requests(mark, method, pick);
  check(calls.length === 1, `expected one ${method} request, the client sent ${calls.length}: ${short(calls)}`);
  const [call] = calls;
  check(
    call.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === undefined,
    `the request carries the 2026-07-28 envelope: ${short(call.params?._meta)}`,
  );
  check(
    call.params?.requestState === undefined && call.params?.inputResponses === undefined,
    'the request carries retry fields',
  );
  const asks = recorder.received.slice(mark.received).filter((m) => m.method !== undefined && m.id !== undefined);
  const answers = asks.map((ask) => recorder.sent.find((m) => m.method === undefined && m.id === ask.id));
  check(answers.every((a) => a !== undefined), 'a server request went unanswered');
  return { call, response: recorder.response(call.id), asks, answers: answers.map((a) => a.result ?? a.error) };
}

const askedFor = (flow) => flow.asks.map((a) => a.method);

/** The preference flow, bridged: color, then style, each an elicitation/create. */
function checkBridgedPreference(flow) {
  check(
    isDeepStrictEqual(askedFor(flow), ['elicitation/create', 'elicitation/create']),
    `the server asked ${short(askedFor(flow))}`,
  );
  const [color, style] = flow.asks;
  check(color.params.message === 'Choose a color for a read-only preview', `first ask ${short(color.params)}`);
  check(style.params.message === 'Choose a style for a read-only preview', `second ask ${short(style.params)}`);
  check(
    Object.keys(color.params.requestedSchema?.properties ?? {}).join() === 'color',
    `the color form ${short(color.params.requestedSchema)}`,
  );
  check(
    isDeepStrictEqual(flow.answers, [
      { action: 'accept', content: { color: 'teal' } },
      { action: 'accept', content: { style: 'bold' } },
    ]),
    `the client answered ${short(flow.answers)}`,
  );
  check(flow.response?.result?.resultType === undefined, `the result carries resultType: ${short(flow.response)}`);
}

function legacyCases(client, recorder, transport) {
  const isTool = (name) => (p) => p.name === name;
  const tool = (name, expected, asked, answers) => ({
    name: `tool ${name}: bridged ${asked.join(', ')}`,
    run: async () => {
      const mark = recorder.mark();
      const result = await client.callTool({ name, arguments: {} }, timeout);
      expectText(result.content?.[0]?.text, expected, 'final result');
      const flow = legacyFlow(recorder, mark, 'tools/call', isTool(name));
      check(isDeepStrictEqual(askedFor(flow), asked), `the server asked ${short(askedFor(flow))}`);
      answers?.(flow);
      return expected;
    },
  });
  return [
    {
      name: `connect: default negotiation, initialize at ${LEGACY_VERSION}`,
      run: async (started) => {
        check(client.getProtocolEra() === 'legacy', `era ${short(client.getProtocolEra())}`);
        check(client.getServerVersion()?.name === 'snodo-preferences', `server ${short(client.getServerVersion())}`);
        const methods = recorder.sent.map((m) => m.method);
        check(
          isDeepStrictEqual(methods.slice(0, 2), ['initialize', 'notifications/initialized']),
          `connect sent ${short(methods)}`,
        );
        const init = recorder.sent[0];
        check(init.params.protocolVersion === LEGACY_VERSION, `initialize asked ${init.params.protocolVersion}`);
        check(isDeepStrictEqual(init.params.capabilities, CAPABILITIES), `declared ${short(init.params.capabilities)}`);
        const result = recorder.response(init.id)?.result;
        check(result?.protocolVersion === LEGACY_VERSION, `negotiated ${short(result)}`);
        check(result?.resultType === undefined, 'the InitializeResult carries resultType');
        if (transport === 'stdio') check(started.count === 1, `${started.count} server processes were started`);
        return `${result.protocolVersion}, capabilities ${short(result.capabilities)}`;
      },
    },
    ...FAMILIES.map((family) => ({
      name: `${family.name}: one request, color and style bridged`,
      run: async () => {
        const mark = recorder.mark();
        const result = await family.run(client);
        expectText(family.text(result), PREVIEW, 'final result');
        family.checkResult(result);
        const flow = legacyFlow(recorder, mark, family.method, family.pick);
        family.checkRequest(flow.call);
        checkBridgedPreference(flow);
        return PREVIEW;
      },
    })),
    tool('reset_preview', '{"status":"accept","stateDiscarded":true}', ['elicitation/create']),
    tool('url_preview', '{"consent":"accept","externalStatus":"pending"}', ['elicitation/create'], (flow) => {
      const [ask] = flow.asks;
      check(
        ask.params.mode === 'url' &&
          ask.params.url === 'https://example.com/preferences/preview' &&
          typeof ask.params.elicitationId === 'string',
        `the URL elicitation ${short(ask.params)}`,
      );
      check(isDeepStrictEqual(flow.answers, [{ action: 'accept' }]), `answered ${short(flow.answers)}`);
    }),
    tool(
      'sampling_preview',
      '{"suggestion":"teal","model":"interop-canned-model","status":"preview"}',
      ['sampling/createMessage'],
      (flow) => check(isDeepStrictEqual(flow.answers, [SAMPLED]), `answered ${short(flow.answers)}`),
    ),
    tool(
      'roots_preview',
      '{"rootCount":1,"roots":["file:///tmp/snodo-interop/project"],"status":"preview"}',
      ['roots/list'],
      (flow) => check(isDeepStrictEqual(flow.answers, [ROOTS]), `answered ${short(flow.answers)}`),
    ),
    {
      name: 'tool combined_preview: form, sampling and roots bridged in one round',
      run: async () => {
        const expected = '{"color":"teal","suggestion":"teal","rootCount":1,"status":"preview"}';
        const mark = recorder.mark();
        const result = await client.callTool({ name: 'combined_preview', arguments: {} }, timeout);
        expectText(result.content?.[0]?.text, expected, 'final result');
        const flow = legacyFlow(recorder, mark, 'tools/call', isTool('combined_preview'));
        check(
          isDeepStrictEqual([...askedFor(flow)].sort(), ['elicitation/create', 'roots/list', 'sampling/createMessage']),
          `the server asked ${short(askedFor(flow))}`,
        );
        return expected;
      },
    },
    {
      name: 'session: initialize once, no envelope, no server/discover',
      run: async (started) => {
        const requests = recorder.sent.filter((m) => m.method !== undefined && m.id !== undefined);
        const methods = requests.map((m) => m.method);
        check(methods.filter((m) => m === 'initialize').length === 1, `initialize sent ${short(methods)}`);
        check(!methods.includes('server/discover'), 'the client probed');
        for (const m of requests) {
          check(
            m.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === undefined,
            `${m.method} carries the envelope`,
          );
        }
        const received = recorder.received.filter((m) => m.result !== undefined);
        check(received.every((m) => m.result.resultType === undefined), 'a result carries resultType');
        if (transport === 'stdio') check(started.count === 1, `${started.count} server processes were started`);
        const asked = recorder.received.filter((m) => m.method !== undefined && m.id !== undefined).length;
        return `${requests.length} requests (${[...new Set(methods)].join(', ')}); ${asked} server requests answered`;
      },
    },
  ];
}

// ---------------------------------------------------------------------------------------
// Transports
// ---------------------------------------------------------------------------------------

/** Collects a child's standard error, for the report on failure. */
function collect(stream, into) {
  stream?.on('data', (chunk) => {
    into.text += chunk.toString();
    if (into.text.length > 64 * 1024) into.text = into.text.slice(-64 * 1024);
  });
}

async function stdioTransport(server, log) {
  const transport = new StdioClientTransport({
    command: server,
    args: ['--stdio'],
    env: { RUST_LOG: process.env.RUST_LOG ?? 'warn' },
    stderr: 'pipe',
  });
  collect(transport.stderr, log);
  return { transport, stop: async () => {} };
}

/** Starts the server with `--http 127.0.0.1:0` and reads its URL from the first line. */
async function httpTransport(server, log) {
  const child = spawn(server, ['--http', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' },
  });
  collect(child.stderr, log);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server printed no URL in 10 s')), 10_000);
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, newline).trim());
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before printing its URL`));
    });
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return { transport: new StreamableHTTPClientTransport(new URL(url)), stop, url };
}

// ---------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const log = { text: '' };
  const started = { count: 0 };
  const start = StdioClientTransport.prototype.start;
  // Counts server processes (the probe sibling and the session) without changing the class
  // the client checks for its sibling probe.
  StdioClientTransport.prototype.start = function countedStart(...rest) {
    started.count += 1;
    return start.apply(this, rest);
  };

  console.log(
    `== interop over ${args.transport}, ${args.era} era: @modelcontextprotocol/client against ${args.server} ==`,
  );
  const { transport, stop, url } =
    args.transport === 'stdio' ? await stdioTransport(args.server, log) : await httpTransport(args.server, log);
  if (url) console.log(`server at ${url}`);
  const recorder = new Recorder();
  recorder.attach(transport);

  // The legacy era is the client's default: no versionNegotiation at all.
  const negotiation = args.era === 'modern' ? { versionNegotiation: { mode: { pin: VERSION } } } : {};
  const client = new Client({ name: 'snodo-interop', version: '0.0.0' }, { capabilities: CAPABILITIES, ...negotiation });
  installHandlers(client);
  const errors = [];
  client.onerror = (e) => errors.push(e);

  let passed = 0;
  let failed = 0;
  try {
    try {
      await client.connect(transport, timeout);
    } catch (e) {
      console.log(`FAIL connect: ${e?.message ?? e}`);
      failed += 1;
      return { passed, failed, log };
    }
    const all = args.era === 'modern' ? cases(client, recorder, args.transport) : legacyCases(client, recorder, args.transport);
    for (const c of all) {
      try {
        const detail = await c.run(started);
        passed += 1;
        console.log(`ok   ${c.name}${detail ? `: ${detail}` : ''}`);
      } catch (e) {
        failed += 1;
        const what = e instanceof Failure ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
        console.log(`FAIL ${c.name}: ${what}`);
      }
    }
  } finally {
    await client.close().catch(() => {});
    await stop();
  }
  if (errors.length > 0) {
    console.log(`client errors reported through onerror: ${errors.map((e) => e?.message ?? e).join('; ')}`);
  }
  if (args.transcript) {
    writeFileSync(args.transcript, recorder.log.map((l) => JSON.stringify(l)).join('\n') + '\n');
  }
  return { passed, failed, log };
}

const watchdog = setTimeout(() => {
  console.log(`FAIL the run took longer than ${RUN_TIMEOUT_MS / 1000} s`);
  console.log('interop: 0 passed, 1 failed');
  process.exit(1);
}, RUN_TIMEOUT_MS);
watchdog.unref();

main().then(
  ({ passed, failed, log }) => {
    if (failed > 0 && log.text) {
      console.log('--- server standard error ---');
      console.log(log.text.trimEnd());
    }
    console.log(`interop: ${passed} passed, ${failed} failed`);
    process.exitCode = failed === 0 ? 0 : 1;
  },
  (e) => {
    console.log(`FAIL ${e?.stack ?? e}`);
    console.log('interop: 0 passed, 1 failed');
    process.exitCode = 1;
  },
);
