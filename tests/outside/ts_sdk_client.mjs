// The TypeScript MCP SDK's client (@modelcontextprotocol/sdk, pinned in package.json) against
// mcp-variants, exactly as an application would use it: connect, list tools, call tools.
//
//   node ts_sdk_client.mjs '<config JSON>'
//
// config: {"transport": "http", "url": "http://127.0.0.1:PORT/mcp", "calls": [[name, args], ...]}
//      or {"transport": "stdio", "command": "...", "args": [...], "env": {...}, "cwd": "...", "calls": [...]}
//
// Prints one JSON document on stdout:
//   {sdkVersion, transport, protocolVersion, serverInfo, capabilities, tools: <tools/list result>,
//    calls: [{name, arguments, ok, result | error: {name, code, message}}],
//    wire: {sent: [...], received: [...]}}
// `result` is what the SDK's callTool returned (it validated structuredContent against the
// outputSchema itself; it keeps unknown fields). `wire` holds every JSON-RPC message exchanged,
// as the transport saw it, so the Python side can check the raw bytes too.
// The process exits 0 whenever it could report; a call that throws is recorded, not fatal.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The package's exports map sends `<pkg>/package.json` to dist/cjs/package.json; read the real one.
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8')
).version;

function record(transport, wire) {
  // Protocol.connect() assigns transport.onmessage; intercept the assignment so that every
  // incoming message (the initialize response included) is recorded before the SDK sees it.
  let inner;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get() {
      return inner && ((message, extra) => {
        wire.received.push(message);
        inner(message, extra);
      });
    },
    set(fn) {
      inner = fn;
    },
  });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.sent.push(message);
    return send(message, options);
  };
}

function describeError(error) {
  return {
    name: error?.constructor?.name ?? typeof error,
    code: error?.code,
    message: String(error?.message ?? error),
  };
}

async function main() {
  const config = JSON.parse(process.argv[2]);
  let transport;
  if (config.transport === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(config.url));
  } else if (config.transport === 'stdio') {
    transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: config.env,
      cwd: config.cwd,
      stderr: 'inherit',
    });
  } else {
    throw new Error(`unknown transport ${config.transport}`);
  }
  const wire = { sent: [], received: [] };
  record(transport, wire);

  const client = new Client({ name: 'mcp-variants-outside-ts', version: '1.0.0' });
  await client.connect(transport);
  const initialize = wire.received.find((m) => m.id !== undefined && m.result?.protocolVersion);
  const report = {
    sdkVersion,
    transport: config.transport,
    protocolVersion: initialize?.result?.protocolVersion ?? null,
    serverInfo: client.getServerVersion() ?? null,
    capabilities: client.getServerCapabilities() ?? null,
    tools: await client.listTools(),
    calls: [],
    wire,
  };
  for (const [name, args] of config.calls ?? []) {
    try {
      const result = await client.callTool({ name, arguments: args });
      report.calls.push({ name, arguments: args, ok: true, result });
    } catch (error) {
      report.calls.push({ name, arguments: args, ok: false, error: describeError(error) });
    }
  }
  await client.close();
  // A write to a pipe is asynchronous in Node: exiting before it drained cut the report at 64 KiB.
  await new Promise((resolve) => process.stdout.write(JSON.stringify(report) + '\n', resolve));
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`ts_sdk_client: ${error?.stack ?? error}\n`);
    process.exit(2);
  }
);
