// Code mode on a SEP-3279 server in TypeScript: the tools present, and answer, their programmatic/structured variant.
//
//   const variants = await connectVariants({ url, token });      // the official SDK's HTTP transport, at 2026-12-01
//   const server = variantsMcpServer(variants);                   // an SDK McpServer: outputSchema = the variant's schema
//   const code = await codeMcpServer({ server, executor: nodeExecutor() });   // @cloudflare/codemode
//
// The SDK's Client negotiates 2025-11-25 by initialize and cannot speak 2026-12-01 (there, a tool's outputSchema is the
// legacy assistant/structured shape, and its result parser throws when a tool with an outputSchema answers without
// structuredContent). So requests go out on the SDK's StreamableHTTPClientTransport, set to 2026-12-01, stateless:
// each carries the `_meta` envelope and the routing headers (Mcp-Method, Mcp-Name), as conformance-ts's requests do.
// Every tools/call sends requestedOutputs: [programmatic/structured] where the tool declares it, nothing (the
// assistant/content fallback) where it does not. isError is thrown as ToolCallError carrying the error output.
// A server without 2026-12-01 (an older one: no outputVariants) is spoken to by the SDK's own Client instead, and its
// legacy structuredContent (else its content) is what a program gets.

import vm from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export const OUTPUTS_VERSION = '2026-12-01';
const PROGRAMMATIC = { audience: 'programmatic', format: 'structured' };
const MAX_LIST_PAGES = 100;

/** A call answered with isError: `output` is the error output as it came, `error` its `error` object. */
export class ToolCallError extends Error {
  constructor(tool, output) {
    const error = output?.error ?? { type: 'content', message: textOf(output) };
    super(`${tool} failed: ${error.type}: ${error.message}`);
    this.name = 'ToolCallError';
    this.tool = tool;
    this.output = output;
    this.error = error;
  }
}

function textOf(blocks) {
  return Array.isArray(blocks) ? blocks.filter((b) => b?.type === 'text').map((b) => b.text).join('\n') : String(blocks);
}

function programmaticSchema(tool) {
  return (tool.outputVariants ?? []).find((v) => v.audience === 'programmatic' && v.format === 'structured')?.schema;
}

/** The routing headers of a stateless request, read from the body the transport is about to POST. */
function routingFetch(sent) {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    if (typeof init?.body === 'string') {
      const message = JSON.parse(init.body);
      sent.push(message);
      if (message.method) headers.set('Mcp-Method', message.method);
      if (message.method === 'tools/call') headers.set('Mcp-Name', message.params.name);
    }
    return fetch(url, { ...init, headers });
  };
}

/** Connect at 2026-12-01 when the server speaks it, else through the SDK's Client (legacy). */
export async function connectVariants({ url, token }) {
  const sent = [];
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit, fetch: routingFetch(sent) });
  transport.setProtocolVersion(OUTPUTS_VERSION);
  const pending = new Map();
  transport.onmessage = (message) => {
    const waiter = pending.get(message.id);
    if (waiter && !message.method) {
      pending.delete(message.id);
      waiter(message);
    }
  };
  transport.onerror = (error) => {
    for (const waiter of pending.values()) waiter({ error: { code: -1, message: String(error?.message ?? error) } });
    pending.clear();
  };
  await transport.start();
  let nextId = 1;
  const envelope = { 'io.modelcontextprotocol/protocolVersion': OUTPUTS_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };
  async function request(method, params) {
    const id = nextId++;
    const answered = new Promise((resolve) => pending.set(id, resolve));
    await transport.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope } });
    const response = await answered;
    if (response.error) {
      throw Object.assign(new Error(`${method}: JSON-RPC error ${response.error.code}: ${response.error.message}`), response.error);
    }
    return response.result;
  }

  let discovered;
  try {
    discovered = await request('server/discover', {});
  } catch {
    discovered = undefined;
  }
  if (!discovered?.supportedVersions?.includes(OUTPUTS_VERSION)) {
    await transport.close();
    return connectLegacy({ url, requestInit, sent });
  }

  const tools = [];
  let cursor;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const listed = await request('tools/list', cursor ? { cursor } : {});
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
    if (!cursor) break;
  }
  for (const tool of tools) {
    if (!Array.isArray(tool.outputVariants)) throw new Error(`tool ${tool.name} has no outputVariants at ${OUTPUTS_VERSION}`);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    version: OUTPUTS_VERSION,
    sent,
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema,
                                  returns: programmaticSchema(tool) })),
    async call(name, args) {
      const tool = byName.get(name);
      if (!tool) throw new Error(`tool ${name} was not listed; listed: ${[...byName.keys()].join(', ')}`);
      const wanted = programmaticSchema(tool) ? [PROGRAMMATIC] : undefined;
      const result = await request('tools/call', { name, arguments: args ?? {}, ...(wanted && { requestedOutputs: wanted }) });
      const outputs = result.outputs ?? [];
      const selected = wanted ? PROGRAMMATIC : { audience: 'assistant', format: 'content' };
      const output = outputs.find((o) => o.audience === selected.audience && o.format === selected.format);
      if (outputs.length !== 1 || !output) {
        throw new Error(`${name}: expected one ${selected.audience}/${selected.format} output, got ${JSON.stringify(outputs).slice(0, 300)}`);
      }
      const value = wanted ? output.structuredContent : output.content;
      if (result.isError) throw new ToolCallError(name, value);
      return value;
    },
    close: () => transport.close(),
  };
}

/** An older server: the SDK's Client at its own version; the program gets structuredContent, else content. */
async function connectLegacy({ url, requestInit, sent }) {
  const client = new Client({ name: 'mcp-variants-codemode', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit, fetch: routingFetch(sent) }));
  const { tools } = await client.listTools();
  return {
    version: 'legacy',
    sent,
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema,
                                  returns: tool.outputSchema })),
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args ?? {} });
      const value = result.structuredContent ?? result.content;
      if (result.isError) throw new ToolCallError(name, value);
      return value;
    },
    close: () => client.close(),
  };
}

/** An SDK McpServer presenting `variants`' tools: the programmatic/structured schema as each one's outputSchema, the
 * value for code as its structuredContent. A ToolCallError becomes isError with the error output as JSON text, which
 * is what @cloudflare/codemode throws into the program (`JSON.parse(error.message)` gives the error output back). */
export function variantsMcpServer(variants) {
  const server = new McpServer({ name: 'mcp-variants-codemode', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: variants.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.returns?.type === 'object' && { outputSchema: tool.returns }),
    })),
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    try {
      const value = await variants.call(params.name, params.arguments);
      if (Array.isArray(value)) return { content: value };
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    } catch (error) {
      if (!(error instanceof ToolCallError)) throw error;
      const output = error.output?.error ? error.output : { error: error.error };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(output) }] };
    }
  });
  return server;
}

// ECMAScript's reserved words: a tool of that name is `<name>_` in the namespace (mcp_variants.client.stubs.script_name).
const RESERVED = new Set(('await break case catch class const continue debugger default delete do else enum export extends ' +
  'false finally for function if implements import in instanceof interface let new null package private protected public ' +
  'return static super switch this throw true try typeof var void while with yield').split(' '));

/** A tool's name as a method of the namespace, as codemode's types name it. */
export function scriptName(name) {
  let cleaned = name.replace(/[-.\s]/g, '_').replace(/[^A-Za-z0-9_$]/g, '') || '_';
  if (/^[0-9]/.test(cleaned)) cleaned = '_' + cleaned;
  return RESERVED.has(cleaned) ? cleaned + '_' : cleaned;
}

/** @cloudflare/codemode's Executor in a node:vm context: the program sees only its namespaces and a console (no
 * require, no process, no fetch, no network), and runs as the async arrow function codemode asks a model for. */
/** The `code` tool's description for codeMcpServer with the generated bindings (codemode.d.ts) as its types:
 * codemode types a tool's result `unknown` (it reads only the input schema); the bindings give the model the
 * programmatic/structured types its program is checked against. */
export function codeDescription(bindings) {
  return 'Execute code to achieve a goal.\n\nAvailable:\n' + bindings +
    '\nWrite an async arrow function in JavaScript that returns the result. A failed call throws an Error whose ' +
    'message is the error output as JSON (ToolErrorOutput).\n\n{{example}}';
}

export function nodeExecutor({ timeoutMs = 60_000 } = {}) {
  return {
    async execute(code, providersOrFns) {
      const providers = Array.isArray(providersOrFns) ? providersOrFns : [{ name: 'codemode', fns: providersOrFns }];
      const logs = [];
      // atob/btoa: a program reads an image's base64 bytes; pure functions, no I/O.
      const sandbox = { atob, btoa, console: { log: (...a) => logs.push(a.map(String).join(' ')) } };
      const context = vm.createContext(sandbox, { codeGeneration: { strings: false, wasm: false } });
      // A failed call reaches the program as an Error of its own realm, so `e instanceof Error` holds there.
      const SandboxError = vm.runInContext('Error', context);
      for (const { name, fns } of providers) {
        const namespace = {};
        for (const [fn, call] of Object.entries(fns)) {
          namespace[scriptName(fn)] = async (input) => {
            try {
              return await call(input);
            } catch (error) {
              throw new SandboxError(String(error?.message ?? error));
            }
          };
        }
        context[name] = Object.freeze(namespace);
      }
      let timer;
      try {
        const program = vm.runInContext(`(${code.trim()})`, context, { timeout: timeoutMs });
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`the program ran longer than ${timeoutMs} ms`)), timeoutMs);
        });
        const result = await Promise.race([program(), timeout]);
        // Values made in the context have its prototypes: a round trip through JSON gives the host plain ones.
        return { result: result === undefined ? undefined : JSON.parse(JSON.stringify(result)), logs };
      } catch (error) {
        return { result: undefined, error: String(error?.message ?? error), logs };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
