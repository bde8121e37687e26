/**
 * SEP-3279 — the fixture server of the client scenarios: a small streamable HTTP MCP server on
 * loopback, one per scenario, that records every message the client sends.
 *
 * It serves every protocol version (initialize for 2024-11-05 ... 2025-11-25, the stateless
 * `_meta` envelope for 2026-07-28 and 2026-12-01; the suite's mock servers do not know
 * 2026-12-01 yet, so this is a raw node:http server). Its outputs are canned: each carries its
 * audience's canary, result `_meta` its own, so that a canary that reaches the wrong consumer
 * in the client's delivery report shows a misrouting.
 *
 * Where the SEP leaves a server free it is lenient, so that one client fault fails one check:
 * `requestedOutputs` at an older version is ignored, a duplicate selector is answered once.
 * Undeclared or unnegotiated selectors are -32602. Switches make it misbehave on purpose:
 * `listUnnegotiated` (lists the ui variant although server/discover does not advertise the
 * extension), `legacyOutputVariants` (outputVariants in a legacy listing), a tool with
 * `legacy: true` (listed at 2026-12-01 without outputVariants, answered with legacy fields),
 * `annotate` (content blocks annotated with the other core audience).
 */

import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export const OUTPUTS_VERSION = '2026-12-01';
export const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const UI = 'io.modelcontextprotocol/ui';
export const UI_EXTENSIONS = {
  [UI]: { mimeTypes: ['text/html;profile=mcp-app'] }
};
const HANDSHAKE_VERSIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25'
];
const STRUCTURED_LEGACY_VERSIONS = ['2025-06-18', '2025-11-25', '2026-07-28'];
const ALL_VERSIONS = [...HANDSHAKE_VERSIONS, '2026-07-28', OUTPUTS_VERSION];
const CORE = ['assistant', 'user', 'programmatic'];

export const CANARY: Record<string, string> = {
  assistant: 'CANARY-ASSISTANT-7d41',
  user: 'CANARY-USER-2b9c',
  programmatic: 'CANARY-PROGRAMMATIC-5e08',
  [UI]: 'CANARY-VIEW-a63f'
};
export const META_CANARY = 'CANARY-META-0c17';
export const LEGACY_CANARY = 'CANARY-LEGACY-e4a2';
export const LEGACY_AT_NEW_CANARY = 'CANARY-LEGACY-AT-2026-12-01-91d3';

export interface Selector {
  audience: string;
  format: string;
}

const SCHEMAS: Record<string, unknown> = {
  assistant: {
    type: 'object',
    properties: { count: { type: 'integer' } },
    required: ['count']
  },
  programmatic: {
    type: 'object',
    properties: { items: { type: 'array', items: { type: 'string' } } },
    required: ['items'],
    additionalProperties: false
  },
  user: { type: 'array', items: { type: 'object' } },
  [UI]: {
    type: 'object',
    properties: { rows: { type: 'array' } },
    required: ['rows']
  }
};

export interface FixtureTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputVariants: (Selector & { schema?: unknown })[];
  legacy?: boolean;
}

export const TOOL = 'search_customers';

export function toolEntry(
  selectors: Selector[],
  extra: Partial<FixtureTool> = {}
): FixtureTool {
  return {
    name: TOOL,
    description: 'Search customer records.',
    inputSchema: { type: 'object' },
    outputVariants: selectors.map((s) =>
      s.format === 'structured'
        ? { ...s, schema: SCHEMAS[s.audience] }
        : { ...s }
    ),
    ...extra
  };
}

export interface FixtureConfig {
  tools: FixtureTool[];
  extensions?: boolean;
  listUnnegotiated?: boolean;
  legacyOutputVariants?: boolean;
  annotate?: boolean;
}

function payload(audience: string, format: string, annotate: boolean): unknown {
  const canary = CANARY[audience];
  if (format === 'content') {
    const block: Record<string, unknown> = {
      type: 'text',
      text: `${canary}: 37 Globex customer records.`
    };
    if (annotate && (audience === 'assistant' || audience === 'user')) {
      block.annotations = {
        audience: [audience === 'assistant' ? 'user' : 'assistant']
      };
    }
    return [block];
  }
  return {
    assistant: { count: 37, canary },
    user: [{ name: 'Globex Retail', canary }],
    programmatic: { items: ['cust_1042', canary] },
    [UI]: { rows: [{ name: 'Globex Retail', canary }] }
  }[audience];
}

type Message = Record<string, any>;
const result = (m: Message, r: unknown) => ({
  jsonrpc: '2.0',
  id: m.id,
  result: r
});
const error = (
  m: Message | undefined,
  code: number,
  message: string,
  data?: unknown
) => ({
  jsonrpc: '2.0',
  id: m?.id ?? null,
  error: { code, message, ...(data === undefined ? {} : { data }) }
});

export class FixtureServer {
  /** Every message the client sent, in order. */
  readonly received: unknown[] = [];
  /** Each request the fixture answered at a version it serves: method, version, the tool's name. */
  readonly answered: { method: string; version: string; name?: unknown }[] = [];
  private readonly sessions = new Map<string, string>();
  private server?: Server;
  url = '';

  constructor(private readonly config: FixtureConfig) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const send = (
        status: number,
        body?: unknown,
        headers: Record<string, string> = {}
      ) => {
        const raw = body === undefined ? '' : JSON.stringify(body);
        res.writeHead(status, {
          ...headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' })
        });
        res.end(raw);
      };
      if (req.method === 'GET')
        return send(405, undefined, { Allow: 'POST, DELETE' });
      if (req.method === 'DELETE') return send(200);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let message: unknown;
        try {
          message = JSON.parse(
            Buffer.concat(chunks).toString('utf8') || 'null'
          );
        } catch {
          return send(400, error(undefined, -32700, 'Parse error'));
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          headers[k.toLowerCase()] = String(v);
        const batch = Array.isArray(message) ? message : [message];
        const replies: unknown[] = [];
        const extra: Record<string, string> = {};
        for (const item of batch) {
          const [reply, more] = this.handle(item, headers);
          Object.assign(extra, more);
          if (reply !== undefined) replies.push(reply);
        }
        if (replies.length === 0) send(202, undefined, extra);
        else send(200, Array.isArray(message) ? replies : replies[0], extra);
      });
    });
    await new Promise<void>((resolve) =>
      this.server!.listen(0, '127.0.0.1', resolve)
    );
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
    return this.url;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  private capabilities(): Record<string, unknown> {
    return {
      tools: {},
      ...(this.config.extensions ? { extensions: UI_EXTENSIONS } : {})
    };
  }

  private handle(
    message: any,
    headers: Record<string, string>
  ): [unknown, Record<string, string>] {
    this.received.push(message);
    if (
      typeof message !== 'object' ||
      message === null ||
      typeof message.method !== 'string'
    ) {
      return [
        typeof message === 'object' && message !== null && 'id' in message
          ? error(message, -32600, 'not a JSON-RPC request')
          : undefined,
        {}
      ];
    }
    const params: Message =
      typeof message.params === 'object' && message.params !== null
        ? message.params
        : {};
    const meta: Message =
      typeof params._meta === 'object' && params._meta !== null
        ? params._meta
        : {};
    const version: string | undefined =
      meta[VERSION_KEY] ||
      this.sessions.get(headers['mcp-session-id'] ?? '') ||
      headers['mcp-protocol-version'];
    if (!('id' in message)) return [undefined, {}];
    if (message.method === 'initialize') {
      const asked = params.protocolVersion;
      const answered = HANDSHAKE_VERSIONS.includes(asked)
        ? asked
        : '2025-11-25';
      const session = randomUUID().replace(/-/g, '');
      this.sessions.set(session, answered);
      return [
        result(message, {
          protocolVersion: answered,
          capabilities: this.capabilities(),
          serverInfo: { name: 'sep-3279-client-fixture', version: '1' }
        }),
        { 'Mcp-Session-Id': session }
      ];
    }
    if (version === undefined || !ALL_VERSIONS.includes(version)) {
      return [
        error(message, -32022, 'Unsupported protocol version', {
          supported: ALL_VERSIONS,
          requested: String(version)
        }),
        {}
      ];
    }
    this.answered.push({
      method: message.method,
      version,
      name: params.name
    });
    return [this.answer(message, params, meta, version), {}];
  }

  private answer(
    message: Message,
    params: Message,
    meta: Message,
    version: string
  ): unknown {
    const stateless = !HANDSHAKE_VERSIONS.includes(version);
    const cache = stateless ? { ttlMs: 0, cacheScope: 'private' } : {};
    const complete = stateless ? { resultType: 'complete' } : {};
    const method = message.method;
    if (method === 'server/discover') {
      return result(message, {
        ...complete,
        ...cache,
        supportedVersions: ALL_VERSIONS,
        capabilities: this.capabilities()
      });
    }
    if (method === 'ping') return result(message, complete);
    const offered = new Set(
      stateless ? Object.keys(meta[CAPABILITIES_KEY]?.extensions ?? {}) : []
    );
    if (method === 'tools/list') {
      return result(message, {
        ...complete,
        ...cache,
        tools: this.config.tools.map((t) => this.listed(t, version, offered))
      });
    }
    if (method === 'tools/call') {
      const tool = this.config.tools.find((t) => t.name === params.name);
      if (!tool)
        return error(
          message,
          -32602,
          `unknown tool ${JSON.stringify(params.name)}`
        );
      if (version !== OUTPUTS_VERSION || tool.legacy) {
        return result(message, {
          ...complete,
          ...this.legacyResult(tool, version)
        });
      }
      return this.outputsResult(
        message,
        tool,
        params.requestedOutputs,
        offered
      );
    }
    return error(message, -32601, `Method not found: ${method}`);
  }

  private declared(tool: FixtureTool, offered: Set<string>) {
    const own =
      this.config.extensions || this.config.listUnnegotiated ? [UI] : [];
    const allowed = own.filter((e) => offered.has(e));
    return tool.outputVariants.filter(
      (v) => CORE.includes(v.audience) || allowed.includes(v.audience)
    );
  }

  private listed(
    tool: FixtureTool,
    version: string,
    offered: Set<string>
  ): Record<string, unknown> {
    const entry: Record<string, unknown> = {
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema
    };
    if (version === OUTPUTS_VERSION && !tool.legacy)
      return { ...entry, outputVariants: this.declared(tool, offered) };
    const schema = tool.outputVariants.find(
      (v) => v.audience === 'assistant' && v.format === 'structured'
    )?.schema;
    if (
      schema !== undefined &&
      (STRUCTURED_LEGACY_VERSIONS.includes(version) ||
        version === OUTPUTS_VERSION)
    ) {
      entry.outputSchema = schema;
    }
    if (this.config.legacyOutputVariants && version !== OUTPUTS_VERSION)
      entry.outputVariants = tool.outputVariants;
    return entry;
  }

  private legacyResult(
    tool: FixtureTool,
    version: string
  ): Record<string, unknown> {
    const canary =
      version === OUTPUTS_VERSION ? LEGACY_AT_NEW_CANARY : LEGACY_CANARY;
    const out: Record<string, unknown> = {
      content: [
        { type: 'text', text: `${canary}: 37 Globex customer records.` }
      ]
    };
    if ('outputSchema' in this.listed(tool, version, new Set()))
      out.structuredContent = { count: 37, canary };
    return out;
  }

  private outputsResult(
    message: Message,
    tool: FixtureTool,
    requested: unknown,
    offered: Set<string>
  ): unknown {
    const declared = this.declared(tool, offered).map(
      (v) => `${v.audience}/${v.format}`
    );
    const asked =
      requested === undefined || requested === null
        ? [{ audience: 'assistant', format: 'content' }]
        : requested;
    if (!Array.isArray(asked) || asked.length === 0)
      return error(
        message,
        -32602,
        'requestedOutputs must be a non-empty array'
      );
    const pairs: [string, string][] = [];
    for (const s of asked) {
      const ok =
        typeof s === 'object' &&
        s !== null &&
        declared.includes(`${s.audience}/${s.format}`);
      if (!ok)
        return error(
          message,
          -32602,
          `${tool.name} does not offer ${JSON.stringify(s)} to this request`
        );
      // A duplicate is the client's fault; answered once.
      if (!pairs.some(([a, f]) => a === s.audience && f === s.format))
        pairs.push([s.audience, s.format]);
    }
    const annotate = Boolean(this.config.annotate);
    const outputs = pairs.map(([audience, format]) => ({
      audience,
      format,
      [format === 'content' ? 'content' : 'structuredContent']: payload(
        audience,
        format,
        annotate
      )
    }));
    return result(message, {
      resultType: 'complete',
      outputs,
      _meta: {
        [UI]: { datasetVersion: META_CANARY },
        'com.example/trace': META_CANARY
      }
    });
  }
}
