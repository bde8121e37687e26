/**
 * SEP-3279 — backward compatibility: what a server that serves 2026-12-01 answers a client of
 * 2026-07-28 or earlier (the legacy Tool and result shapes, and never `outputs`).
 *
 * 2026-07-28 is sent stateless; 2025-11-25 ... 2024-11-05 through an initialize handshake. A
 * version the server does not serve (initialize answers another, or -32022) skips its case.
 */

import type {
  ClientScenario,
  ConformanceCheck,
  ScenarioSource
} from '../../../types';
import type { RunContext } from '../../../connection';
import {
  ASSISTANT_CONTENT,
  ASSISTANT_STRUCTURED,
  SPEC_BACKWARD_COMPATIBILITY,
  TOOL_CALLS_ENV,
  callFailure,
  deepEqual,
  hasOutputsArray,
  isResult,
  outputsOf,
  runCases,
  schemaErrors,
  short,
  toolNamed,
  variantSchema,
  type Case,
  type CaseSpec
} from './cases';
import { changedNote } from './repeats';
import { OUTPUTS_VERSION } from './wire';

const LEGACY_CHECKS = [
  'sep-3279-server-legacy-tool-shape',
  'sep-3279-server-legacy-result-shape',
  'sep-3279-server-legacy-structuredcontent-conforms',
  'sep-3279-server-no-outputs-for-old-clients',
  'sep-3279-version-determines-shapes'
];

function legacyShapes(version: string, id: string, title: string): CaseSpec {
  return {
    id,
    title,
    level: 'MUST',
    checks: LEGACY_CHECKS,
    body: async (c) => {
      const bound = c.bind({});
      const listing = await c.list(version);
      const tools = listing?.result?.tools;
      c.expect(
        Array.isArray(tools) && tools.length > 0,
        'tools/list answers with a non-empty `tools` array',
        listing
      );
      for (const tool of Array.isArray(tools) ? tools : []) {
        c.expect(
          !('outputVariants' in (tool ?? {})),
          `${tool?.name}: no \`outputVariants\` at ${version}`
        );
        c.expect(typeof tool?.name === 'string', 'a string `name`', tool?.name);
        c.expect(
          typeof tool?.inputSchema === 'object' &&
            tool?.inputSchema !== null &&
            !Array.isArray(tool.inputSchema),
          `${tool?.name}: an \`inputSchema\` object`
        );
      }
      const response = await c.call(bound, undefined, { version });
      isResult(c, response);
      const result = response?.result ?? {};
      c.expect(
        Array.isArray(result.content),
        'the result has the legacy `content` array',
        result
      );
      c.expect(
        !('outputs' in result),
        'no `outputs`: an old client does not understand them'
      );
      const schema = toolNamed(listing, bound.tool)?.outputSchema;
      if (schema !== undefined && 'structuredContent' in result) {
        const errors = schemaErrors(schema, result.structuredContent);
        c.expect(
          errors.length === 0,
          "structuredContent is valid against the tool's legacy outputSchema",
          errors
        );
      }
    }
  };
}

/**
 * For each new tool with a legacy outputSchema (2026-07-28), `judge(outputSchema, modern tool)`.
 * SEP-3279 asks these rules of a new tool, and asks a server to keep the established outputSchema
 * of a tool that already served older clients: the wire cannot tell the two apart, so the tools
 * the runner names `established` (MCP_CONFORMANCE_TOOL_CALLS) are left out, each named in the
 * case's details and description. A name the server does not list fails the case: it would
 * exempt nothing, and the person believe it did.
 */
async function eachLegacySchema(
  c: Case,
  judge: (name: string, schema: unknown, modern: any) => void
): Promise<void> {
  const modern = await c.list(undefined, true);
  const legacy = await c.list('2026-07-28');
  const tools = legacy?.result?.tools;
  c.expect(
    Array.isArray(tools),
    'tools/list at 2026-07-28 answers with a `tools` array',
    legacy
  );
  const established = c.setup.toolCalls.established;
  for (const name of established) {
    c.expect(
      toolNamed(modern, name) !== undefined,
      `established ${name}: the server has no such tool (tools/list)`
    );
  }
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (tool?.outputSchema === undefined) continue;
    if (established.includes(tool.name)) {
      c.exempted.push(tool.name);
      continue;
    }
    judge(tool.name, tool.outputSchema, toolNamed(modern, tool.name));
  }
}

/** What a failure of a tool that is not new means, and how to name it established. */
const forANewTool = (rule: string, name: string): string =>
  `SEP-3279 ${rule} a new tool; if ${name} already had this outputSchema before it declared variants, ` +
  `a migrated tool keeping its established shape, name it established ("established": ["${name}"] in ${TOOL_CALLS_ENV})`;

export const BACKCOMPAT_CASES: CaseSpec[] = [
  legacyShapes(
    '2026-07-28',
    'plan-13-legacy-projection-2026-07-28',
    'Versioned projection to the 2026-07-28 legacy shapes'
  ),
  {
    id: 'must-requestedoutputs-at-2026-07-28-never-yields-outputs',
    title:
      'requestedOutputs sent at 2026-07-28 never turns the result into `outputs`',
    level: 'MUST',
    checks: [
      'sep-3279-server-no-outputs-for-old-clients',
      'sep-3279-server-legacy-result-shape',
      'sep-3279-legacy-outputvariants-not-a-signal'
    ],
    body: async (c) => {
      const response = await c.call(c.bind({}), [ASSISTANT_CONTENT], {
        version: '2026-07-28',
        mustSucceed: false
      });
      c.expect(
        !('outputs' in (response?.result ?? {})),
        'no `outputs` in a 2026-07-28 result'
      );
      c.expect(
        response?.error !== undefined ||
          Array.isArray(response?.result?.content),
        'the server refuses the field (any JSON-RPC error) or answers the legacy `content`',
        response
      );
    }
  },
  ...['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].map((v) =>
    legacyShapes(v, `must-legacy-shapes-${v}`, `Legacy shapes at ${v}`)
  ),
  {
    id: 'must-legacy-outputschema-not-from-other-audiences',
    title:
      'The legacy outputSchema is never a user, programmatic or extension schema',
    level: 'MUST',
    checks: ['sep-3279-server-legacy-outputschema-not-from-other-audiences'],
    body: async (c) => {
      await eachLegacySchema(c, (name, schema, modern) => {
        const variants: any[] = Array.isArray(modern?.outputVariants)
          ? modern.outputVariants
          : [];
        const own = variantSchema(modern, ASSISTANT_STRUCTURED);
        const others = variants
          .filter((v) => v?.audience !== 'assistant' && v?.schema !== undefined)
          .map((v) => v.schema);
        c.expect(
          (own !== undefined && deepEqual(schema, own)) ||
            !others.some((o) => deepEqual(o, schema)),
          `${name}: outputSchema is assistant/structured's schema, or equals no user/programmatic/extension schema (${forANewTool('forbids this for', name)})`,
          schema
        );
      });
    }
  },
  {
    id: 'should-legacy-outputschema-from-assistant-structured',
    title:
      'A tool with assistant/structured exposes that schema as its legacy outputSchema',
    level: 'SHOULD',
    checks: ['sep-3279-server-legacy-outputschema-from-assistant-structured'],
    body: async (c) => {
      await eachLegacySchema(c, (name, schema, modern) => {
        const declared = (
          Array.isArray(modern?.outputVariants) ? modern.outputVariants : []
        ).some(
          (v: any) => v?.audience === 'assistant' && v?.format === 'structured'
        );
        const own = variantSchema(modern, ASSISTANT_STRUCTURED);
        c.expect(
          !declared || (own !== undefined && deepEqual(schema, own)),
          `${name}: outputSchema is assistant/structured's schema (${forANewTool('asks this of', name)})`,
          schema
        );
      });
    }
  },
  {
    id: 'should-legacy-content-from-assistant-content',
    title: 'The legacy content at 2026-07-28 is the assistant/content output',
    level: 'SHOULD',
    checks: ['sep-3279-server-legacy-content-from-assistant-content'],
    body: async (c) => {
      const bound = c.bind({ newTool: true });
      const modern = await c.call(bound, [ASSISTANT_CONTENT]);
      isResult(c, modern);
      hasOutputsArray(c, modern);
      const legacy = await c.call(bound, undefined, { version: '2026-07-28' });
      isResult(c, legacy);
      const ac = assistantContent(modern);
      const equal =
        ac !== undefined &&
        legacy?.result?.content !== undefined &&
        deepEqual(legacy.result.content, ac);
      // Not equal: the 2026-12-01 call, sent again, tells a tool whose result changes from call to call (repeats.ts).
      const again = equal
        ? undefined
        : await c.call(bound, [ASSISTANT_CONTENT], { mustSucceed: false });
      const changed =
        again !== undefined &&
        callFailure(again) === undefined &&
        !deepEqual(assistantContent(again), ac);
      c.expect(
        equal,
        'the legacy `content` equals the assistant/content output of the same call at 2026-12-01' +
          (changed
            ? `: ${changedNote(bound.tool, OUTPUTS_VERSION, short(assistantContent(again), 80))}`
            : '') +
          `. SEP-3279 asks this of a new tool; if ${bound.tool} already served older clients before it declared ` +
          `variants (a migrated tool keeping the content it always sent them), name it established ` +
          `("established": ["${bound.tool}"] in ${TOOL_CALLS_ENV})`,
        legacy?.result?.content
      );
    }
  }
];

/** The `content` of a 2026-12-01 result's one assistant/content output, or undefined. */
function assistantContent(response: any): unknown {
  const ac = outputsOf(response).filter(
    (o) => o?.audience === 'assistant' && o?.format === 'content'
  );
  return ac.length === 1 ? ac[0].content : undefined;
}

export class Sep3279BackwardCompatibilityScenario implements ClientScenario {
  name = 'sep-3279-backward-compatibility';
  // SEP-3279 targets 2026-12-01, the revision after the suite's draft.
  readonly source: ScenarioSource = { targetRevision: OUTPUTS_VERSION };
  description = `Test SEP-3279 backward compatibility: a 2026-12-01 server talking to older clients.

**Server Implementation Requirements (SEP-3279, Backward compatibility):**
- tools/list at 2026-07-28 or earlier MUST return the legacy Tool shape without \`outputVariants\`;
  tools/call MUST return the legacy \`content\` (and optional \`structuredContent\`, valid against
  the legacy \`outputSchema\`), never \`outputs\`, even when the request carries \`requestedOutputs\`.
- For a new tool, the legacy \`outputSchema\` MUST NOT be a user, programmatic or extension schema;
  it SHOULD be assistant/structured's. A tool that already served older clients keeps its established
  \`outputSchema\` (SHOULD): name it in \`--tool-calls\` \`"established": ["TOOL"]\` and these two
  rules leave it out, saying so. The legacy \`content\` SHOULD be the assistant/content output (a
  new tool's: an established one keeps the content it always sent).

Versions 2024-11-05 ... 2025-11-25 use an initialize handshake; a version the server does not
serve is SKIPPED. Fixtures as in sep-3279-output-selection (any tool callable with \`{}\`).`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    return runCases(
      ctx.serverUrl,
      BACKCOMPAT_CASES,
      SPEC_BACKWARD_COMPATIBILITY
    );
  }
}
