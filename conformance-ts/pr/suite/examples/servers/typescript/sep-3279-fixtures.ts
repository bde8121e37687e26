/**
 * SEP-3279 (tool result variants, protocol revision 2026-12-01) fixtures of the everything-server.
 *
 * The SDK this server is built on does not know 2026-12-01, so, as the everything-server does for
 * the draft's stateless path, this module answers 2026-12-01 requests itself: a request whose
 * `_meta` names protocol version 2026-12-01 is served here (server/discover, tools/list,
 * tools/call, resources/read); any other goes on to the everything-server's own handlers, where
 * `registerSep3279Tools` registers the same tools in their legacy (2026-07-28 and earlier) shape.
 *
 * Tools (read-only, no arguments, as the everything-server's test_* fixtures are):
 * - test_variants_all: every core variant (assistant/content, assistant/structured, user/content,
 *   user/structured, programmatic/structured, each structured one with its own schema) and, when
 *   the request negotiates io.modelcontextprotocol/ui, io.modelcontextprotocol/ui/structured;
 * - test_variants_app_only: an App-only tool (`_meta.ui.visibility: ["app"]`), listed when the
 *   request negotiates io.modelcontextprotocol/ui: assistant/content and the ui variant;
 * - test_variants_error: always fails as a tool error (`isError: true`), answering each requested
 *   selector with an error output.
 *
 * `Sep3279Breakage` breaks one rule on purpose, for the negative tests
 * (sep-3279-broken-server.ts); the everything-server uses none. `fails-when-repeated` breaks no
 * rule of the SEP: each tool succeeds on its first call and fails on every later one, as a tool
 * that changes what the next call finds does (the suite makes a named call in every case it fits).
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { NextFunction, Request, Response } from 'express';

export const SEP_3279_VERSION = '2026-12-01';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const UI = 'io.modelcontextprotocol/ui';
const VIEW_URI = 'ui://test-variants/view.html';
const VIEW_MIME = 'text/html;profile=mcp-app';
const INVALID_PARAMS = -32602;

/** The rules the broken server breaks, one each (sep-3279-broken-server.ts). */
export const SEP_3279_BREAKAGES = [
  'failing-tools',
  'legacy-fields-at-2026-12-01',
  'unrequested-output',
  'no-output-variants',
  'relabelled-audience',
  'unnegotiated-ui-variant',
  'substituted-selector',
  'outputs-for-old-clients',
  'invalid-structured-output',
  'ui-extension-not-served',
  'legacy-programmatic-schema',
  'fails-when-repeated'
] as const;
export type Sep3279Breakage = (typeof SEP_3279_BREAKAGES)[number];

interface Selector {
  audience: string;
  format: 'content' | 'structured';
}
interface Variant extends Selector {
  schema?: Record<string, unknown>;
  /** The output's payload: content blocks, or the structured value. */
  value: unknown;
}
interface Fixture {
  name: string;
  description: string;
  appOnly?: boolean;
  fails?: boolean;
  variants: (ui: boolean) => Variant[];
}

interface TextBlock {
  type: 'text';
  text: string;
}
const text = (t: string): TextBlock[] => [{ type: 'text', text: t }];
const ASSISTANT_TEXT = 'Three readings: 3, 1, 4 (mean 2.67).';

const CORE_VARIANTS: Variant[] = [
  { audience: 'assistant', format: 'content', value: text(ASSISTANT_TEXT) },
  {
    audience: 'assistant',
    format: 'structured',
    schema: {
      type: 'object',
      properties: { mean: { type: 'number' } },
      required: ['mean']
    },
    value: { mean: 2.67 }
  },
  {
    audience: 'user',
    format: 'content',
    value: [
      { type: 'text', text: 'Readings' },
      { type: 'text', text: '3 | 1 | 4' }
    ]
  },
  {
    audience: 'user',
    format: 'structured',
    schema: {
      type: 'object',
      properties: {
        rows: {
          type: 'array',
          items: {
            type: 'object',
            properties: { reading: { type: 'integer' } },
            required: ['reading']
          }
        }
      },
      required: ['rows']
    },
    value: { rows: [{ reading: 3 }, { reading: 1 }, { reading: 4 }] }
  },
  {
    audience: 'programmatic',
    format: 'structured',
    schema: {
      type: 'object',
      properties: { values: { type: 'array', items: { type: 'integer' } } },
      required: ['values']
    },
    value: { values: [3, 1, 4] }
  }
];
const UI_VARIANT: Variant = {
  audience: UI,
  format: 'structured',
  schema: {
    type: 'object',
    properties: { series: { type: 'array', items: { type: 'integer' } } },
    required: ['series']
  },
  value: { series: [3, 1, 4] }
};

export const SEP_3279_FIXTURES: Fixture[] = [
  {
    name: 'test_variants_all',
    description: 'Tests SEP-3279 output variants: every core variant',
    variants: (ui) => (ui ? [...CORE_VARIANTS, UI_VARIANT] : CORE_VARIANTS)
  },
  {
    name: 'test_variants_app_only',
    description: 'Tests SEP-3279 output variants: an App-only tool',
    appOnly: true,
    variants: () => [CORE_VARIANTS[0], UI_VARIANT]
  },
  {
    name: 'test_variants_error',
    description: 'Tests SEP-3279 error outputs: always fails as a tool error',
    fails: true,
    variants: () => [CORE_VARIANTS[0], CORE_VARIANTS[4]]
  }
];
const ERROR_TEXT = 'test_variants_error always fails (on purpose)';

const key = (s: Selector) => `${s.audience}/${s.format}`;

function uiNegotiated(meta: Record<string, any> | undefined): boolean {
  const extensions = meta?.[CAPABILITIES_KEY]?.extensions;
  return (
    typeof extensions === 'object' && extensions !== null && UI in extensions
  );
}

/** The fixtures a 2026-12-01 tools/list shows: App-only ones only to a ui-negotiating request. */
function listed(ui: boolean, broken?: Sep3279Breakage): Fixture[] {
  return SEP_3279_FIXTURES.filter(
    (f) => !f.appOnly || ui || broken === 'unnegotiated-ui-variant'
  );
}

function toolEntry(
  fixture: Fixture,
  ui: boolean,
  broken?: Sep3279Breakage
): Record<string, unknown> {
  const variants = fixture.variants(ui || broken === 'unnegotiated-ui-variant');
  const tool: Record<string, unknown> = {
    name: fixture.name,
    description: fixture.description,
    inputSchema: {
      type: 'object',
      properties: {},
      additionalProperties: false
    },
    annotations: { readOnlyHint: true },
    outputVariants: variants.map(({ audience, format, schema }) => ({
      audience,
      format,
      ...(schema ? { schema } : {})
    }))
  };
  if (broken === 'no-output-variants') delete tool.outputVariants;
  if (variants.some((v) => v.audience === UI)) {
    tool._meta = {
      ui: {
        resourceUri: VIEW_URI,
        ...(fixture.appOnly ? { visibility: ['app'] } : {})
      }
    };
  }
  return tool;
}

type JsonRpcAnswer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string } };

const invalid = (message: string): JsonRpcAnswer => ({
  error: { code: INVALID_PARAMS, message }
});

function output(
  v: Variant | Selector,
  value: unknown
): Record<string, unknown> {
  return v.format === 'content'
    ? { audience: v.audience, format: 'content', content: value }
    : { audience: v.audience, format: 'structured', structuredContent: value };
}

/** tools/call at 2026-12-01: one output per requested selector (assistant/content without any). */
function callTool(
  params: Record<string, any>,
  ui: boolean,
  broken?: Sep3279Breakage,
  /** The tools that succeeded once (`fails-when-repeated`). */
  called: Set<string> = new Set()
): JsonRpcAnswer {
  const fixture = SEP_3279_FIXTURES.find((f) => f.name === params.name);
  if (!fixture) return invalid(`Unknown tool: ${String(params.name)}`);
  const declared = fixture.variants(ui || broken === 'unnegotiated-ui-variant');
  const requested: unknown = params.requestedOutputs ?? [
    { audience: 'assistant', format: 'content' }
  ];
  if (!Array.isArray(requested) || requested.length === 0)
    return invalid('requestedOutputs must be a non-empty array of selectors');
  const chosen: Variant[] = [];
  for (const s of requested) {
    const variant = declared.find(
      (v) => v.audience === s?.audience && v.format === s?.format
    );
    if (!variant) {
      if (broken === 'substituted-selector') {
        chosen.push(declared[0]);
        continue;
      }
      return invalid(
        `${fixture.name} does not offer ${key(s)} to this request (undeclared, not negotiated, or not a core combination)`
      );
    }
    if (chosen.includes(variant))
      return invalid(`requestedOutputs names ${key(variant)} twice`);
    chosen.push(variant);
  }
  const repeated = broken === 'fails-when-repeated' && called.has(fixture.name);
  if (broken === 'fails-when-repeated') called.add(fixture.name);
  const fails = fixture.fails || broken === 'failing-tools' || repeated;
  const why = repeated
    ? `${fixture.name} already ran once and fails when called again (on purpose)`
    : ERROR_TEXT;
  const outputs = chosen.map((v) => {
    if (fails)
      return output(v, v.format === 'content' ? text(why) : { error: why });
    if (broken === 'invalid-structured-output' && v.audience === 'programmatic')
      return output(v, { values: 'not an array' });
    const out = output(v, v.value);
    if (broken === 'relabelled-audience' && v.audience === 'user')
      out.audience = 'assistant';
    return out;
  });
  if (broken === 'unrequested-output' && !fails) {
    const extra = declared.find((v) => !chosen.includes(v));
    if (extra) outputs.push(output(extra, extra.value));
  }
  const result: Record<string, unknown> = {
    resultType: 'complete',
    outputs,
    ...(fails ? { isError: true } : {})
  };
  if (broken === 'legacy-fields-at-2026-12-01')
    result.content = text(ASSISTANT_TEXT);
  return { result };
}

/**
 * tools/list at 2026-07-28 of `legacy-programmatic-schema`: the legacy shape, each tool with a
 * programmatic/structured variant listing its schema as the legacy outputSchema (an SDK inferring
 * that one schema fits every audience). What a migrated tool keeps, when that was its outputSchema
 * before it declared variants: the suite's `established` tools are not judged for it.
 */
function legacyListing(): Record<string, unknown> {
  return {
    resultType: 'complete',
    tools: SEP_3279_FIXTURES.map((fixture) => {
      const programmatic = fixture
        .variants(false)
        .find((v) => v.audience === 'programmatic');
      return {
        name: fixture.name,
        description: fixture.description,
        inputSchema: { type: 'object', properties: {} },
        annotations: { readOnlyHint: true },
        ...(programmatic?.schema ? { outputSchema: programmatic.schema } : {})
      };
    })
  };
}

/** A fixture's result at 2026-07-28 and earlier: the legacy content, from assistant/content. */
export function legacyResult(name: string): {
  content: TextBlock[];
  isError?: boolean;
} {
  const fixture = SEP_3279_FIXTURES.find((f) => f.name === name);
  if (fixture?.fails) return { content: text(ERROR_TEXT), isError: true };
  return { content: text(ASSISTANT_TEXT) };
}

function answer(
  method: string,
  params: Record<string, any>,
  broken: Sep3279Breakage | undefined,
  called: Set<string>
): JsonRpcAnswer {
  const ui = uiNegotiated(params._meta);
  switch (method) {
    case 'server/discover':
      return {
        result: {
          resultType: 'complete',
          supportedVersions: [SEP_3279_VERSION],
          capabilities: {
            tools: {},
            resources: {},
            ...(broken === 'ui-extension-not-served'
              ? {}
              : { extensions: { [UI]: {} } })
          },
          _meta: {
            'io.modelcontextprotocol/serverInfo': {
              name: 'everything-sep-3279',
              version: '1.0.0'
            }
          }
        }
      };
    case 'tools/list':
      return {
        result: {
          resultType: 'complete',
          tools: listed(ui, broken).map((f) => toolEntry(f, ui, broken))
        }
      };
    case 'tools/call':
      return callTool(params, ui, broken, called);
    case 'resources/read':
      if (params.uri !== VIEW_URI || broken === 'ui-extension-not-served')
        return { error: { code: -32002, message: 'Resource not found' } };
      return {
        result: {
          resultType: 'complete',
          contents: [
            {
              uri: VIEW_URI,
              mimeType: VIEW_MIME,
              text: '<!doctype html><title>test_variants</title><p>series</p>'
            }
          ]
        }
      };
    default:
      return {
        error: {
          code: -32601,
          message: `Method not found at ${SEP_3279_VERSION}: ${method}`
        }
      };
  }
}

/**
 * Express middleware: serves a POST whose `_meta` speaks 2026-12-01 (and, for the broken
 * server's `outputs-for-old-clients`, a 2026-07-28 tools/call, for `legacy-programmatic-schema`,
 * a 2026-07-28 tools/list); passes anything else on.
 */
export function sep3279Handler(broken?: Sep3279Breakage) {
  const called = new Set<string>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const body = req.body;
    const params = body?.params ?? {};
    const version = params?._meta?.[VERSION_KEY];
    if (req.method !== 'POST' || typeof body?.method !== 'string')
      return next();
    if (
      broken === 'outputs-for-old-clients' &&
      version === '2026-07-28' &&
      body.method === 'tools/call' &&
      SEP_3279_FIXTURES.some((f) => f.name === params.name)
    ) {
      const modern = callTool(params, false);
      const legacy = legacyResult(params.name);
      res.json({
        jsonrpc: '2.0',
        id: body.id ?? null,
        result: {
          resultType: 'complete',
          ...legacy,
          ...('result' in modern ? { outputs: modern.result.outputs } : {})
        }
      });
      return;
    }
    if (
      broken === 'legacy-programmatic-schema' &&
      version === '2026-07-28' &&
      body.method === 'tools/list'
    ) {
      res.json({
        jsonrpc: '2.0',
        id: body.id ?? null,
        result: legacyListing()
      });
      return;
    }
    if (version !== SEP_3279_VERSION) return next();
    if (req.headers['mcp-protocol-version'] !== SEP_3279_VERSION) {
      res.status(400).json({
        jsonrpc: '2.0',
        id: body.id ?? null,
        error: {
          code: -32020,
          message: 'MCP-Protocol-Version header does not match _meta'
        }
      });
      return;
    }
    if (!('id' in body)) {
      res.status(202).end();
      return;
    }
    res.json({
      jsonrpc: '2.0',
      id: body.id,
      ...answer(body.method, params, broken, called)
    });
  };
}

/** The fixtures in their legacy shape (2026-07-28 and earlier): content from assistant/content. */
export function registerSep3279Tools(server: McpServer): void {
  for (const fixture of SEP_3279_FIXTURES) {
    server.registerTool(
      fixture.name,
      { description: fixture.description, annotations: { readOnlyHint: true } },
      async () => legacyResult(fixture.name)
    );
  }
}
