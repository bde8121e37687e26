// The TypeScript MCP SDK's client (@modelcontextprotocol/sdk 1.32.2) as a participant of
// `mcp-variants check-client`: what an SDK author writes to join the SEP-3279 client scenarios.
//
//   mcp-variants check-client --command "node tests/outside/ts_check_client.mjs" --version 2025-11-25
//
// The suite appends the fixture server's URL and sets MCP_CONFORMANCE_SCENARIO,
// MCP_CONFORMANCE_PROTOCOL_VERSION, MCP_CONFORMANCE_CONTEXT ({tool, arguments, mode, extensions,
// consumers}) and MCP_CONFORMANCE_DELIVERIES (a file: one JSON line per delivery,
// {"consumer": "model" | "user" | "program" | "view", "payload": ...}).
//
// SDK 1.32.2 negotiates 2025-11-25 by initialize and knows nothing of SEP-3279: it has no
// execution modes and never sends requestedOutputs. Its host policy for the legacy result is the
// usual one: `content` to the model, `structuredContent` to the program.

import { appendFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv.at(-1);
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const consumers = new Set(context.consumers ?? ['model', 'user', 'program', 'view']);

function deliver(consumer, payload) {
  if (consumers.has(consumer)) {
    appendFileSync(process.env.MCP_CONFORMANCE_DELIVERIES, JSON.stringify({ consumer, payload }) + '\n');
  }
}

const client = new Client(
  { name: 'mcp-variants-check-client-ts', version: '1.0.0' },
  { capabilities: context.extensions && Object.keys(context.extensions).length ? { extensions: context.extensions } : {} }
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
await client.listTools();
const result = await client.callTool({ name: context.tool, arguments: context.arguments ?? {} });
deliver('model', result.content);
if ('structuredContent' in result) deliver('program', result.structuredContent);
await client.close();
