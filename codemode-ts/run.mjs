// Runs a fixed program through @cloudflare/codemode's codeMcpServer over variants.mjs, against a live server:
//
//   node run.mjs '{"url": "http://127.0.0.1:PORT/mcp", "token": "...", "program": "<file>", "bindings": "<codemode.d.ts>"}'
//
// The program goes in as a model sends it: the `code` tool's argument. Prints one JSON document:
// {version, description (the code tool's, what the model reads), result (the code tool's result), sent (every
// JSON-RPC message POSTed to the server)}.

import { readFileSync } from 'node:fs';
import { codeMcpServer } from '@cloudflare/codemode/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { codeDescription, connectVariants, nodeExecutor, variantsMcpServer } from './variants.mjs';

const config = JSON.parse(process.argv[2]);
const variants = await connectVariants({ url: config.url, token: config.token });
const description = config.bindings ? codeDescription(readFileSync(config.bindings, 'utf8')) : undefined;
const code = await codeMcpServer({ server: variantsMcpServer(variants), executor: nodeExecutor(), description });
const [here, there] = InMemoryTransport.createLinkedPair();
await code.connect(there);
const model = new Client({ name: 'scripted-model', version: '1.0.0' });
await model.connect(here);
const { tools } = await model.listTools();
const program = readFileSync(config.program, 'utf8').replace(/^\/\/.*\n/gm, '').trim();
const result = await model.callTool({ name: 'code', arguments: { code: program } });
process.stdout.write(JSON.stringify({ version: variants.version, description: tools[0].description, result, sent: variants.sent }));
await model.close();
await variants.close();
