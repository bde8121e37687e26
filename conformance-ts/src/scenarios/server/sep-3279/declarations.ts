/**
 * SEP-3279 — tool declarations at 2026-12-01 (`outputVariants` in tools/list).
 *
 * Lists the tools twice at 2026-12-01, without extensions and with io.modelcontextprotocol/ui
 * negotiated, and judges every tool's declaration. Needs no fixture tool: any server that
 * lists at least one tool can be judged.
 */

import type {
  ClientScenario,
  ConformanceCheck,
  ScenarioSource
} from '../../../types';
import type { RunContext } from '../../../connection';
import {
  CORE_AUDIENCES,
  SPEC_DECLARATION,
  runCases,
  type Case,
  type CaseSpec
} from './cases';
import { OUTPUTS_VERSION, UI } from './wire';

function tools(c: Case, response: any): any[] {
  const list = response?.result?.tools;
  c.expect(
    Array.isArray(list),
    'tools/list answers with a `tools` array',
    response
  );
  c.expect(
    Array.isArray(list) && list.length > 0,
    'tools/list lists at least one tool: nothing was judged'
  );
  return Array.isArray(list) ? list : [];
}

function everyTool(c: Case, response: any, judge: (tool: any) => void): void {
  for (const tool of tools(c, response)) judge(tool);
}

const variantsOf = (tool: any): any[] =>
  Array.isArray(tool?.outputVariants) ? tool.outputVariants : [];

/**
 * A tool listing the ui variant or a `_meta.ui.resourceUri` (to a request that negotiates the
 * extension) needs the extension served: advertised in server/discover's capabilities, and each
 * `ui://` resource a listed tool names readable. Otherwise the ui audience is not negotiated.
 */
async function uiServed(c: Case): Promise<void> {
  const listed = await c.list(undefined, true);
  const tools: any[] = Array.isArray(listed?.result?.tools)
    ? listed.result.tools
    : [];
  const ui = tools.filter(
    (t) =>
      variantsOf(t).some((v) => v?.audience === UI) ||
      typeof t?._meta?.ui?.resourceUri === 'string'
  );
  if (ui.length === 0) return;
  const names = ui.map((t) => t?.name).join(', ');
  const discovered = (
    await c.send(OUTPUTS_VERSION, true, 'server/discover', {})
  ).response;
  const extensions = discovered?.result?.capabilities?.extensions;
  c.expect(
    typeof extensions === 'object' && extensions !== null && UI in extensions,
    `${names} list the ui variant or a ui:// view, so server/discover advertises ${UI} in capabilities.extensions`,
    discovered?.result?.capabilities ?? discovered?.error
  );
  const uris = new Set(
    ui
      .map((t) => t?._meta?.ui?.resourceUri)
      .filter((u): u is string => typeof u === 'string')
  );
  for (const uri of uris) {
    const read = (
      await c.send(OUTPUTS_VERSION, true, 'resources/read', { uri })
    ).response;
    const contents = read?.result?.contents;
    c.expect(
      Array.isArray(contents) && contents.length > 0,
      `the view ${uri} a listed tool names can be read (resources/read)`,
      read?.error ?? read?.result
    );
  }
}

export const DECLARATION_CASES: CaseSpec[] = [
  {
    id: 'plan-07-every-tool-declares-assistant-content',
    title: 'No tool declaration omits assistant/content',
    level: 'MUST',
    checks: ['sep-3279-tool-declares-assistant-content'],
    body: async (c) => {
      for (const ui of [false, true]) {
        everyTool(c, await c.list(undefined, ui), (tool) => {
          const n = variantsOf(tool).filter(
            (v) => v?.audience === 'assistant' && v?.format === 'content'
          ).length;
          c.expect(
            n === 1,
            `${tool?.name}: assistant/content is declared once${ui ? ' (ui negotiated)' : ''}`,
            n
          );
        });
      }
    }
  },
  {
    id: 'must-outputvariants-on-every-tool',
    title: 'tools/list at 2026-12-01: every tool has outputVariants',
    level: 'MUST',
    checks: ['sep-3279-version-determines-shapes'],
    body: async (c) => {
      for (const ui of [false, true]) {
        everyTool(c, await c.list(undefined, ui), (tool) =>
          c.expect(
            Array.isArray(tool?.outputVariants),
            `${tool?.name}: \`outputVariants\` is an array${ui ? ' (ui negotiated)' : ''}`,
            tool?.outputVariants
          )
        );
      }
    }
  },
  {
    id: 'must-no-duplicate-variant-pairs',
    title: 'No tool declares an audience/format pair twice',
    level: 'MUST',
    checks: ['sep-3279-tool-no-duplicate-variant-pair'],
    body: async (c) => {
      everyTool(c, await c.list(undefined, true), (tool) => {
        const pairs = variantsOf(tool).map(
          (v) => `${v?.audience}/${v?.format}`
        );
        const twice = pairs.filter((p, i) => pairs.indexOf(p) !== i);
        c.expect(
          twice.length === 0,
          `${tool?.name}: no audience/format pair twice`,
          twice
        );
      });
    }
  },
  {
    id: 'must-no-unnegotiated-extension-audience',
    title:
      'outputVariants lists an extension audience only when it was negotiated',
    level: 'MUST',
    checks: [
      'sep-3279-server-no-unnegotiated-extension-variant',
      'sep-3279-audience-core-or-negotiated',
      'sep-3279-non-core-audience-defined-by-extension'
    ],
    body: async (c) => {
      for (const [ui, allowed] of [
        [false, CORE_AUDIENCES],
        [true, [...CORE_AUDIENCES, UI]]
      ] as const) {
        everyTool(c, await c.list(undefined, ui), (tool) => {
          const bad = variantsOf(tool)
            .map((v) => v?.audience)
            .filter((a) => !allowed.includes(a));
          c.expect(
            bad.length === 0,
            `${tool?.name}: every audience is core${ui ? ' or the negotiated io.modelcontextprotocol/ui' : ' (no extension negotiated)'}`,
            bad
          );
        });
      }
      await uiServed(c);
    }
  },
  {
    id: 'must-core-combinations-only',
    title: 'Core audiences are declared only in the core combinations',
    level: 'MUST',
    checks: ['sep-3279-core-combinations-only'],
    body: async (c) => {
      everyTool(c, await c.list(undefined, true), (tool) => {
        c.expect(
          Array.isArray(tool?.outputVariants),
          `${tool?.name}: \`outputVariants\` to judge`,
          tool?.outputVariants
        );
        const variants = variantsOf(tool);
        c.expect(
          !variants.some(
            (v) => v?.audience === 'programmatic' && v?.format === 'content'
          ),
          `${tool?.name}: no programmatic/content`
        );
        const bad = variants.filter(
          (v) =>
            CORE_AUDIENCES.includes(v?.audience) &&
            !['content', 'structured'].includes(v?.format)
        );
        c.expect(
          bad.length === 0,
          `${tool?.name}: a core variant's format is content or structured`,
          bad
        );
      });
    }
  },
  {
    id: 'should-no-outputschema-at-2026-12-01',
    title: 'tools/list at 2026-12-01 carries no legacy outputSchema',
    level: 'SHOULD',
    checks: ['sep-3279-outputschema-maps-to-legacy-only'],
    body: async (c) => {
      everyTool(c, await c.list(undefined, true), (tool) =>
        c.expect(
          !('outputSchema' in (tool ?? {})),
          `${tool?.name}: no \`outputSchema\` beside \`outputVariants\``
        )
      );
    }
  },
  {
    id: 'should-structured-variants-declare-schema',
    title: 'Every structured variant declares the JSON Schema of its payload',
    level: 'SHOULD',
    checks: ['sep-3279-structured-variant-declares-schema'],
    body: async (c) => {
      const listed = tools(c, await c.list(undefined, true));
      c.expect(
        listed.some((t) => Array.isArray(t?.outputVariants)),
        'some tool has `outputVariants` to judge'
      );
      for (const tool of listed) {
        for (const v of variantsOf(tool).filter(
          (v) => v?.format === 'structured'
        )) {
          const schema = v?.schema;
          c.expect(
            typeof schema === 'object' &&
              schema !== null &&
              !Array.isArray(schema),
            `${tool?.name}: ${v.audience}/structured carries a \`schema\` object`,
            schema
          );
        }
      }
    }
  }
];

export class Sep3279ToolDeclarationsScenario implements ClientScenario {
  name = 'sep-3279-tool-declarations';
  // SEP-3279 targets 2026-12-01, the revision after the suite's draft.
  readonly source: ScenarioSource = { targetRevision: OUTPUTS_VERSION };
  description = `Test SEP-3279 tool declarations (\`outputVariants\`) at protocol version 2026-12-01.

tools/list is sent twice with the 2026-12-01 \`_meta\` envelope: without extensions and with
\`io.modelcontextprotocol/ui\` negotiated in clientCapabilities.extensions.

**Server Implementation Requirements (SEP-3279, Tool declaration):**
- Every tool MUST carry \`outputVariants\` at 2026-12-01 and MUST declare assistant/content (once).
- A tool MUST NOT declare the same audience and format pair more than once.
- Audiences MUST be core (assistant, user, programmatic) or an extension the request negotiated;
  an extension audience MUST NOT be listed without the extension.
- Core audiences only in the core combinations (no programmatic/content; formats content or structured).
- SHOULD: no legacy \`outputSchema\` at 2026-12-01; every structured variant declares a \`schema\`.

No fixture tool is needed: at least one listed tool.`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    return runCases(ctx.serverUrl, DECLARATION_CASES, SPEC_DECLARATION);
  }
}
