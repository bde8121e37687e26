// A small SEP-3279 server on the TypeScript MCP SDK (@modelcontextprotocol/sdk 1.32.2), for
// `mcp-variants check`: the suite is any SDK's, not only Python's.
//
//   node ts_server.mjs --port 3000          # streamable HTTP at http://127.0.0.1:3000/mcp
//   FAULT=mirror node ts_server.mjs ...     # one planted fault: an unrequested text mirror at 2026-12-01
//
// Three tools declare outputVariants, and two fixtures reuse them with fixed arguments. The SDK serves the handshake versions (2024-11-05 ...
// 2025-11-25) with the legacy projection: content from assistant/content, structuredContent and
// outputSchema from assistant/structured. SDK 1.32.2 does not know 2026-12-01, so a request whose
// `_meta` envelope says 2026-12-01 is answered by hand (handle2026 below): server/discover,
// tools/list with outputVariants, tools/call with requestedOutputs and outputs. 2026-07-28, the
// other stateless version the SDK does not know, gets the legacy projection by hand too.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

const NEW = '2026-12-01';
const STATELESS = '2026-07-28';
const SERVED = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', STATELESS, NEW];
const UI = 'io.modelcontextprotocol/ui';
const FAULT = process.env.FAULT ?? '';

// ---- the tools: declarations, and one projector per declared variant ------------------------

const customers = [
  { customerId: 'cust_1042', displayName: 'Globex Retail', region: 'NA' },
  { customerId: 'cust_2088', displayName: 'Globex Energy', region: 'EMEA' },
];
const text = (t) => [{ type: 'text', text: t }];
const obj = (properties, required) => ({ type: 'object', properties, required, additionalProperties: false });

const TOOLS = {
  search_customers: {
    description: 'Search customer records by name.',
    inputSchema: obj({ query: { type: 'string' } }, ['query']),
    annotations: { readOnlyHint: true },
    run: ({ query }) => customers.filter((c) => c.displayName.toLowerCase().includes(String(query).toLowerCase())),
    variants: {
      'assistant/content': { project: (rows) => text(`${rows.length} customers: ${rows.map((r) => r.displayName).join(', ')}.`) },
      'assistant/structured': {
        schema: obj({ count: { type: 'integer' }, names: { type: 'array', items: { type: 'string' } } }, ['count', 'names']),
        project: (rows) => ({ count: rows.length, names: rows.map((r) => r.displayName) }),
      },
      'user/content': { project: (rows) => rows.map((r) => ({ type: 'text', text: `${r.displayName} (${r.region})` })) },
      'user/structured': { schema: { type: 'array', items: obj({ displayName: { type: 'string' }, region: { type: 'string' } }, ['displayName', 'region']) },
        project: (rows) => rows.map(({ displayName, region }) => ({ displayName, region })) },
      'programmatic/structured': {
        schema: obj({ items: { type: 'array', items: obj({ customerId: { type: 'string' }, displayName: { type: 'string' }, region: { type: 'string' } }, ['customerId', 'displayName', 'region']) } }, ['items']),
        project: (rows) => ({ items: rows }),
      },
      [`${UI}/structured`]: { schema: obj({ columns: { type: 'array', items: { type: 'string' } }, rows: { type: 'array' } }, ['columns', 'rows']),
        project: (rows) => ({ columns: ['displayName', 'region'], rows }) },
    },
  },
  word_count: {
    description: 'Count the words of a text.',
    inputSchema: obj({ text: { type: 'string' } }, ['text']),
    annotations: { readOnlyHint: true },
    run: ({ text: t }) => String(t).split(/\s+/).filter(Boolean).length,
    variants: {
      'assistant/content': { project: (n) => text(`${n} words.`) },
      'programmatic/structured': { schema: obj({ words: { type: 'integer' } }, ['words']), project: (n) => ({ words: n }) },
    },
  },
  divide: {
    description: 'Divide a by b.',
    inputSchema: obj({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    annotations: { readOnlyHint: true },
    run: ({ a, b }) => {
      if (b === 0) throw new Error('division by zero');
      return a / b;
    },
    variants: {
      'assistant/content': { project: (q) => text(`The quotient is ${q}.`) },
      'assistant/structured': { schema: obj({ quotient: { type: 'number' } }, ['quotient']), project: (q) => ({ quotient: q }) },
      'programmatic/structured': { schema: obj({ quotient: { type: 'number' } }, ['quotient']), project: (q) => ({ quotient: q }) },
    },
  },
};

// Fixtures of the SEP-3279 scenarios in the official suite's API (conformance-ts/): named as its
// everything-server names its own, callable with `{}`. One fails (division by zero) for the error case.
const fixture = (tool, args, description) => ({
  ...tool, description, inputSchema: obj({}, []), run: () => tool.run(args),
});
TOOLS.test_variants_customers = fixture(TOOLS.search_customers, { query: 'globex' }, 'search_customers for "globex": every core variant and the ui one.');
TOOLS.test_variants_error = fixture(TOOLS.divide, { a: 1, b: 0 }, 'divide 1 by 0: fails as a tool error (isError: true).');

const validators = new AjvJsonSchemaValidator();
const key = (s) => `${s.audience}/${s.format}`;
const split = (k) => ({ audience: k.slice(0, k.lastIndexOf('/')), format: k.slice(k.lastIndexOf('/') + 1) });

// ---- 2026-12-01, by hand ---------------------------------------------------------------------

function negotiated(meta) {
  return Object.keys(meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions ?? {}).includes(UI);
}

function declared(tool, meta) {
  return Object.keys(tool.variants).filter((k) => !k.startsWith(`${UI}/`) || negotiated(meta));
}

function listing(meta) {
  return Object.entries(TOOLS).map(([name, t]) => ({
    name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations,
    outputVariants: declared(t, meta).map((k) => ({ ...split(k), ...(t.variants[k].schema ? { schema: t.variants[k].schema } : {}) })),
  }));
}

class InvalidParams extends Error {}

function selection(tool, params) {
  const offered = declared(tool, params._meta);
  const requested = params.requestedOutputs ?? [{ audience: 'assistant', format: 'content' }];
  if (!Array.isArray(requested) || requested.length === 0) throw new InvalidParams('requestedOutputs must be a non-empty array');
  const seen = new Set();
  for (const s of requested) {
    const k = `${s?.audience}/${s?.format}`;
    if (seen.has(k)) throw new InvalidParams(`duplicate selector ${k}`);
    if (!offered.includes(k)) throw new InvalidParams(`${k} is not offered to this request; offered: ${offered.join(', ')}`);
    seen.add(k);
  }
  return [...seen];
}

function outputFor(tool, k, value) {
  const { audience, format } = split(k);
  const variant = tool.variants[k];
  if (format === 'content') return { audience, format, content: variant.project(value) };
  const structuredContent = variant.project(value);
  const check = validators.getValidator(variant.schema)(structuredContent);
  if (!check.valid) throw new Error(`${k} breaks its own schema: ${check.errorMessage}`);
  return { audience, format, structuredContent };
}

function callTool(params) {
  const tool = TOOLS[params.name];
  if (!tool) throw new InvalidParams(`unknown tool ${params.name}`);
  const keys = selection(tool, params);
  let value;
  try {
    value = tool.run(params.arguments ?? {});
  } catch (error) {
    const outputs = keys.map((k) => (split(k).format === 'content'
      ? { ...split(k), content: text(`Error: ${error.message}`) }
      : { ...split(k), structuredContent: { error: { message: error.message } } }));
    return { resultType: 'complete', isError: true, outputs };
  }
  const outputs = keys.map((k) => outputFor(tool, k, value));
  if (FAULT === 'mirror' && outputs.every((o) => o.format === 'structured')) {
    outputs.push({ audience: 'assistant', format: 'content', content: text(JSON.stringify(outputs[0].structuredContent)) });
  }
  return { resultType: 'complete', outputs };
}

function handle2026(message) {
  const params = message.params ?? {};
  const reply = (result) => ({ jsonrpc: '2.0', id: message.id, result });
  const fail = (code, text, data) => ({ jsonrpc: '2.0', id: message.id, error: { code, message: text, ...(data ? { data } : {}) } });
  try {
    switch (message.method) {
      case 'server/discover':
        return reply({ resultType: 'complete', supportedVersions: SERVED, capabilities: { tools: {}, extensions: { [UI]: {} } }, ttlMs: 0, cacheScope: 'private' });
      case 'tools/list':
        return reply({ resultType: 'complete', tools: listing(params._meta), ttlMs: 0, cacheScope: 'private' });
      case 'tools/call':
        return reply(callTool(params));
      default:
        return fail(-32601, `Method not found: ${message.method}`);
    }
  } catch (error) {
    return error instanceof InvalidParams ? fail(-32602, error.message) : fail(-32603, error.message);
  }
}

// ---- older versions: the legacy projection --------------------------------------------------

function legacyTools() {
  return Object.entries(TOOLS).map(([name, t]) => ({
    name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations,
    ...(t.variants['assistant/structured'] ? { outputSchema: t.variants['assistant/structured'].schema } : {}),
  }));
}

function legacyCall(params) {
  const tool = TOOLS[params.name];
  if (!tool) throw new InvalidParams(`unknown tool ${params.name}`);
  try {
    const value = tool.run(params.arguments ?? {});
    const structured = tool.variants['assistant/structured'];
    return { content: tool.variants['assistant/content'].project(value), ...(structured ? { structuredContent: structured.project(value) } : {}) };
  } catch (error) {
    return { isError: true, content: text(`Error: ${error.message}`) };
  }
}

// 2026-07-28, the stateless era SDK 1.32.2 does not know either: the legacy shapes, by hand.
function handle20260728(message) {
  const params = message.params ?? {};
  const reply = (result) => ({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } });
  try {
    switch (message.method) {
      case 'server/discover':
        return reply({ supportedVersions: SERVED, capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' });
      case 'tools/list':
        return reply({ tools: legacyTools(), ttlMs: 0, cacheScope: 'private' });
      case 'tools/call':
        return reply(legacyCall(params));
      default:
        return { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } };
    }
  } catch (error) {
    return { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: error.message } };
  }
}

// ---- the handshake versions, through the SDK -------------------------------------------------

function legacyServer() {
  const server = new Server({ name: 'mcp-variants-ts-example', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: legacyTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => legacyCall(request.params));
  return server;
}

const sessions = new Map();

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

const http = createServer(async (req, res) => {
  try {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const version = body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
    if (version !== undefined) {
      const handler = { [NEW]: handle2026, [STATELESS]: handle20260728 }[version];
      const answer = handler ? handler(body)
        : { jsonrpc: '2.0', id: body.id, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: SERVED, requested: version } } };
      res.writeHead(handler ? 200 : 400, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID, enableJsonResponse: true,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await legacyServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (error) {
    res.writeHead(400, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: String(error?.message ?? error) } }));
  }
});

const port = Number(process.argv[process.argv.indexOf('--port') + 1] || 3000);
http.listen(port, '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
