/**
 * SEP-3279 — the wire the scenarios speak, over streamable HTTP.
 *
 * 2026-12-01 (and 2026-07-28) requests are stateless (SEP-2575): each carries the `_meta`
 * envelope (protocolVersion, clientInfo, clientCapabilities, with the extensions the request
 * negotiates) and the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers. The suite's own
 * stateless connection sends only the versions it knows (2026-07-28 is its draft), so these
 * scenarios send raw fetch requests, as its connection-mechanics scenarios do. 2024-11-05 ...
 * 2025-11-25 requests go through one initialize handshake per (version, extensions), kept by
 * its Mcp-Session-Id.
 */

export const OUTPUTS_VERSION = '2026-12-01';
export const HANDSHAKE_VERSIONS = new Set([
  '2024-11-05',
  '2025-03-26',
  '2025-06-18',
  '2025-11-25'
]);
export const UNSUPPORTED_VERSION = -32022;
export const UI = 'io.modelcontextprotocol/ui';
export const UI_EXTENSIONS: Record<string, unknown> = {
  [UI]: { mimeTypes: ['text/html;profile=mcp-app'] }
};

const CLIENT_INFO = { name: 'conformance-test-client', version: '1.0.0' };

export interface JsonRpcResponse {
  jsonrpc?: string;
  id?: unknown;
  result?: any;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** One request and what came back: a JSON-RPC response, or why there is none. */
export interface Trip {
  request: { method: string; params: Record<string, unknown> };
  response?: JsonRpcResponse;
  /** The server does not serve this version (initialize answered another one, or -32022). */
  unsupported?: string;
  /** No JSON-RPC response at all (HTTP error, bad body, timeout). */
  problem?: string;
}

type Extensions = Record<string, unknown> | undefined;

function capabilities(extensions: Extensions): Record<string, unknown> {
  return extensions && Object.keys(extensions).length > 0 ? { extensions } : {};
}

export class Wire {
  private nextId = 1;
  private sessions = new Map<
    string,
    Promise<{ session?: string; trip: Trip }>
  >();

  constructor(
    private readonly url: string,
    private readonly timeoutMs = 30000
  ) {}

  async request(
    version: string,
    extensions: Extensions,
    method: string,
    params: Record<string, unknown> = {}
  ): Promise<Trip> {
    if (HANDSHAKE_VERSIONS.has(version)) {
      return this.handshakeRequest(version, extensions, method, params);
    }
    const body = {
      ...params,
      _meta: {
        ...((params._meta as Record<string, unknown>) ?? {}),
        'io.modelcontextprotocol/protocolVersion': version,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': capabilities(extensions)
      }
    };
    const headers: Record<string, string> = {
      'MCP-Protocol-Version': version,
      'Mcp-Method': method
    };
    // Mcp-Name: the tool (or prompt) name, the resource's uri.
    const name = method === 'resources/read' ? params.uri : params.name;
    if (
      ['tools/call', 'prompts/get', 'resources/read'].includes(method) &&
      typeof name === 'string'
    ) {
      headers['Mcp-Name'] = name;
    }
    const trip = await this.post(method, body, headers);
    const code = trip.response?.error?.code;
    if (code === UNSUPPORTED_VERSION && version !== OUTPUTS_VERSION) {
      trip.unsupported = `the server answered ${UNSUPPORTED_VERSION} (unsupported protocol version) at ${version}`;
    }
    return trip;
  }

  /** tools/list, every page (nextCursor followed, `tools` concatenated). */
  async listAll(version: string, extensions: Extensions): Promise<Trip> {
    const first = await this.request(version, extensions, 'tools/list', {});
    let trip = first;
    for (let page = 1; page < 50; page++) {
      const cursor = trip.response?.result?.nextCursor;
      if (!cursor || trip.problem || trip.unsupported) break;
      trip = await this.request(version, extensions, 'tools/list', { cursor });
      const tools = trip.response?.result?.tools;
      if (trip.problem || !Array.isArray(tools)) {
        first.problem = `page ${page + 1} of tools/list failed: ${trip.problem ?? JSON.stringify(trip.response).slice(0, 300)}`;
        break;
      }
      first.response!.result.tools = [
        ...first.response!.result.tools,
        ...tools
      ];
      delete first.response!.result.nextCursor;
    }
    return first;
  }

  private async handshakeRequest(
    version: string,
    extensions: Extensions,
    method: string,
    params: Record<string, unknown>
  ): Promise<Trip> {
    const key = `${version} ${JSON.stringify(extensions ?? {})}`;
    let opened = this.sessions.get(key);
    if (!opened) {
      opened = this.openSession(version, extensions);
      this.sessions.set(key, opened);
    }
    const { session, trip: init } = await opened;
    if (init.unsupported || init.problem) {
      return {
        request: { method, params },
        unsupported: init.unsupported,
        problem: init.problem && `initialize: ${init.problem}`
      };
    }
    return this.post(method, params, {
      'MCP-Protocol-Version': version,
      ...(session ? { 'Mcp-Session-Id': session } : {})
    });
  }

  private async openSession(
    version: string,
    extensions: Extensions
  ): Promise<{ session?: string; trip: Trip }> {
    const trip = await this.post('initialize', {
      protocolVersion: version,
      capabilities: capabilities(extensions),
      clientInfo: CLIENT_INFO
    });
    const session = trip.session;
    const result = trip.response?.result;
    if (result) {
      if (result.protocolVersion !== version) {
        trip.unsupported = `initialize at ${version} was answered with protocolVersion ${JSON.stringify(result.protocolVersion)}`;
      } else {
        await this.post(
          'notifications/initialized',
          undefined,
          {
            'MCP-Protocol-Version': version,
            ...(session ? { 'Mcp-Session-Id': session } : {})
          },
          true
        );
      }
    } else if (trip.response) {
      trip.unsupported = `initialize at ${version} was refused: ${JSON.stringify(trip.response.error).slice(0, 300)}`;
    }
    return { session, trip };
  }

  /** Close the handshake sessions (DELETE), as a well-behaved client does. */
  async close(): Promise<void> {
    for (const [key, opened] of this.sessions) {
      const { session } = await opened;
      if (!session) continue;
      await fetch(this.url, {
        method: 'DELETE',
        headers: {
          'Mcp-Session-Id': session,
          'MCP-Protocol-Version': key.split(' ')[0]
        }
      }).catch(() => undefined);
    }
    this.sessions.clear();
  }

  private async post(
    method: string,
    params: Record<string, unknown> | undefined,
    headers: Record<string, string> = {},
    notification = false
  ): Promise<Trip & { session?: string }> {
    const id = this.nextId++;
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (!notification) message.id = id;
    if (params !== undefined) message.params = params;
    const trip: Trip & { session?: string } = {
      request: { method, params: params ?? {} }
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...headers
        },
        body: JSON.stringify(message),
        signal: controller.signal
      });
      trip.session = res.headers.get('mcp-session-id') ?? undefined;
      const text = await res.text();
      if (notification) return trip;
      const type = res.headers.get('content-type') ?? '';
      const messages = type.includes('text/event-stream')
        ? sseMessages(text)
        : parseJson(text);
      const response = messages.find(
        (m) => isObject(m) && !('method' in m) && m.id === id
      );
      if (response) {
        trip.response = response as JsonRpcResponse;
      } else {
        trip.problem = `HTTP ${res.status}: no JSON-RPC response to ${method} in ${JSON.stringify(text.slice(0, 300))}`;
      }
    } catch (error) {
      trip.problem = `${method}: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      clearTimeout(timer);
    }
    return trip;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown[] {
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

function sseMessages(text: string): unknown[] {
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data) out.push(...parseJson(data));
  }
  return out;
}
