/**
 * The everything-client's SEP-3279 (tool result variants) handler: a host
 * with consumers (model, user, program, view) that calls one tool in one
 * execution mode and routes each output by its audience.
 *
 * MCP_CONFORMANCE_CONTEXT: `{ tool, arguments, mode, extensions, consumers,
 * protocolVersion, deliveries }`. At 2026-12-01 it lists the tools (refusing a
 * tool without outputVariants, or one naming an audience the request did not
 * negotiate), asks for the variants its mode needs among those declared, and
 * hands each output to its audience's consumer only (never block annotations'
 * or the result `_meta`'s say). Before 2026-12-01 it uses the legacy shapes
 * and sends no requestedOutputs. Every delivery is one JSON line
 * `{"consumer", "payload"}` appended to `deliveries`.
 *
 * The SDK client does not speak 2026-12-01 yet, so, as the everything-client's
 * stateless requester does for the draft, requests are raw JSON-RPC over
 * fetch.
 */

import { appendFileSync, writeFileSync } from 'fs';

const OUTPUTS_VERSION = '2026-12-01';
const HANDSHAKE_VERSIONS = [
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25'
];
const UI = 'io.modelcontextprotocol/ui';
const CORE = ['assistant', 'user', 'programmatic'];
const CONSUMER_OF: Record<string, string> = {
  assistant: 'model',
  user: 'user',
  programmatic: 'program',
  [UI]: 'view'
};
const CLIENT_INFO = { name: 'everything-client', version: '1.0.0' };

interface Selector {
  audience: string;
  format: string;
}
interface Sep3279Context {
  tool: string;
  arguments?: Record<string, unknown>;
  mode: string;
  extensions?: Record<string, unknown>;
  consumers?: string[];
  protocolVersion?: string;
  deliveries: string;
}

const same = (a: Selector, b: Selector) =>
  a.audience === b.audience && a.format === b.format;

/** One JSON-RPC exchange at `version`: stateless `_meta` from 2026-07-28, a session before. */
class Wire {
  private nextId = 1;
  private session?: string;

  constructor(
    private readonly url: string,
    private readonly version: string,
    private readonly extensions: Record<string, unknown>
  ) {}

  private get stateless(): boolean {
    return !HANDSHAKE_VERSIONS.includes(this.version);
  }

  async open(): Promise<void> {
    if (this.stateless) return;
    const init = await this.request('initialize', {
      protocolVersion: this.version,
      capabilities: { extensions: this.extensions },
      clientInfo: CLIENT_INFO
    });
    if (init.protocolVersion !== this.version)
      throw new Error(
        `the server answered initialize with ${init.protocolVersion}`
      );
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async request(
    method: string,
    params: Record<string, unknown> = {}
  ): Promise<Record<string, any>> {
    const body = {
      jsonrpc: '2.0',
      id: this.nextId++,
      method,
      params: this.stateless
        ? {
            ...params,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': this.version,
              'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
              'io.modelcontextprotocol/clientCapabilities': {
                extensions: this.extensions
              }
            }
          }
        : params
    };
    const message = await this.post(body, method, params.name);
    if (message?.error)
      throw new Error(`${method}: ${JSON.stringify(message.error)}`);
    return message?.result ?? {};
  }

  private async post(
    body: Record<string, unknown>,
    method?: string,
    name?: unknown
  ): Promise<Record<string, any> | undefined> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': this.version
    };
    if (this.session) headers['Mcp-Session-Id'] = this.session;
    if (this.stateless && method) headers['Mcp-Method'] = method;
    if (this.stateless && typeof name === 'string') headers['Mcp-Name'] = name;
    const res = await fetch(this.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body)
    });
    this.session = res.headers.get('mcp-session-id') ?? this.session;
    const text = await res.text();
    if (!('id' in body) || !text) return undefined;
    const data = (res.headers.get('content-type') ?? '').includes(
      'text/event-stream'
    )
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('')
      : text;
    return JSON.parse(data);
  }
}

/** The selectors execution `mode` asks for, among those the tool declares (none: the fallback). */
function selectorsFor(
  mode: string,
  declared: Selector[],
  consumers: string[],
  uiNegotiated: boolean
): Selector[] | undefined {
  const has = (audience: string, format: string) =>
    declared.some((s) => same(s, { audience, format }));
  const pick = (...wanted: [string, string][]) =>
    wanted
      .filter(([a, f]) => has(a, f))
      .map(([audience, format]) => ({ audience, format }));
  switch (mode) {
    case 'code':
      return has('programmatic', 'structured')
        ? pick(['programmatic', 'structured'])
        : undefined;
    case 'structured-model':
      return has('assistant', 'structured')
        ? pick(['assistant', 'structured'])
        : undefined;
    case 'user-display':
      if (!consumers.includes('user')) return undefined;
      return pick(
        ['assistant', 'content'],
        has('user', 'structured') ? ['user', 'structured'] : ['user', 'content']
      );
    case 'apps':
      return uiNegotiated && has(UI, 'structured')
        ? pick(['assistant', 'content'], [UI, 'structured'])
        : undefined;
    default:
      return undefined;
  }
}

export async function runSep3279Client(serverUrl: string): Promise<void> {
  const context = JSON.parse(
    process.env.MCP_CONFORMANCE_CONTEXT ?? '{}'
  ) as Sep3279Context;
  const version =
    context.protocolVersion ?? process.env.MCP_CONFORMANCE_PROTOCOL_VERSION!;
  const consumers = context.consumers ?? ['model', 'user', 'program', 'view'];
  const extensions = context.extensions ?? {};
  writeFileSync(context.deliveries, '', { flag: 'a' });
  const deliver = (consumer: string, payload: unknown) => {
    if (consumers.includes(consumer))
      appendFileSync(
        context.deliveries,
        JSON.stringify({ consumer, payload }) + '\n'
      );
  };

  const wire = new Wire(serverUrl, version, extensions);
  await wire.open();
  const listing = await wire.request('tools/list');
  const tool = (listing.tools ?? []).find(
    (t: { name?: string }) => t?.name === context.tool
  );
  if (!tool) throw new Error(`the server lists no tool ${context.tool}`);

  if (version !== OUTPUTS_VERSION) {
    // The legacy shapes: no requestedOutputs; content to the model, as a
    // host before 2026-12-01 does, structuredContent to the program or View.
    const result = await wire.request('tools/call', {
      name: context.tool,
      arguments: context.arguments ?? {}
    });
    deliver('model', result.content);
    if (result.structuredContent !== undefined)
      deliver(
        context.mode === 'apps' ? 'view' : 'program',
        result.structuredContent
      );
    return;
  }

  if (!Array.isArray(tool.outputVariants))
    throw new Error(
      `${context.tool} has no outputVariants at ${OUTPUTS_VERSION}: the listing is invalid`
    );
  const discovered = await wire.request('server/discover');
  const negotiated = Object.keys(extensions).filter(
    (id) => id in (discovered.capabilities?.extensions ?? {})
  );
  const declared: Selector[] = tool.outputVariants;
  const stray = declared.filter(
    (s) => !CORE.includes(s.audience) && !negotiated.includes(s.audience)
  );
  if (stray.length > 0)
    throw new Error(
      `${context.tool} lists the audience ${stray[0].audience}, which this request did not negotiate`
    );

  const requested = selectorsFor(
    context.mode,
    declared,
    consumers,
    negotiated.includes(UI)
  );
  const result = await wire.request('tools/call', {
    name: context.tool,
    arguments: context.arguments ?? {},
    ...(requested ? { requestedOutputs: requested } : {})
  });
  if (!Array.isArray(result.outputs))
    throw new Error(`the result at ${OUTPUTS_VERSION} has no outputs`);
  const expected = requested ?? [{ audience: 'assistant', format: 'content' }];
  for (const output of result.outputs) {
    // Routed by the output's own audience; block annotations and the result
    // _meta never decide, and an output nobody asked for goes nowhere.
    if (!expected.some((s) => same(s, output))) continue;
    const consumer = CONSUMER_OF[output.audience];
    if (!consumer) continue;
    deliver(
      consumer,
      output.format === 'content' ? output.content : output.structuredContent
    );
  }
}
