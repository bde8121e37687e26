/**
 * SEP-3279 — request-time selection and the tool call result at 2026-12-01
 * (`requestedOutputs` in, `outputs` out).
 *
 * Each case chooses a tool of the server that declares what it needs (cases.ts: fixtures
 * named test_variants_* first) and calls it with the 2026-12-01 envelope.
 */

import type {
  ClientScenario,
  ConformanceCheck,
  ScenarioSource
} from '../../../types';
import type { RunContext } from '../../../connection';
import {
  CONFORMS,
  FALLBACK,
  MATCH,
  MIRROR,
  ONE,
  REJECT,
  SPEC_RESULT,
  SUBSTITUTE,
  UNREQUESTED,
  VALIDATE,
  ASSISTANT_CONTENT,
  ASSISTANT_STRUCTURED,
  EMPTY_CONTENT_FIX,
  ERROR_FIXTURE,
  PROGRAMMATIC_STRUCTURED,
  UI_STRUCTURED,
  USER_CONTENT,
  USER_STRUCTURED,
  countOutputs,
  hasOutputsArray,
  isResult,
  noLegacyFields,
  only,
  outputShapes,
  outputsOf,
  refused,
  runCases,
  sameAsRequested,
  sel,
  toolNamed,
  validOutput,
  type Case,
  type CaseSpec,
  type Need,
  type Selector
} from './cases';
import { OUTPUTS_VERSION, UI } from './wire';

/** One variant requested alone: exactly it comes back, valid against its schema when structured. */
function single(
  id: string,
  title: string,
  s: Selector,
  checks: string[],
  opts: { ui?: boolean; need?: Need } = {}
): CaseSpec {
  const structured = s.format === 'structured';
  return {
    id,
    title,
    level: 'MUST',
    // Every single-selector call judges one output, its pair, and nothing more.
    checks: [...new Set([ONE, UNREQUESTED, MATCH, ...checks])],
    body: async (c) => {
      const bound = c.bind(
        opts.need ?? { listing: opts.ui ? 'ui' : 'plain', declares: [s] }
      );
      const listing = structured ? await c.list(undefined, opts.ui) : undefined;
      const response = await c.call(bound, [s], { ui: opts.ui });
      isResult(c, response);
      hasOutputsArray(c, response);
      only(c, response, s);
      outputShapes(c, response);
      if (s.audience === 'assistant' && s.format === 'content') {
        const content = outputsOf(response)[0]?.content;
        c.expect(
          Array.isArray(content) && content.length >= 1,
          'the model gets at least one content block',
          content,
          undefined,
          EMPTY_CONTENT_FIX
        );
      }
      if (structured)
        validOutput(c, response, toolNamed(listing, bound.tool), s);
      noLegacyFields(c, response);
    }
  };
}

function rejection(
  id: string,
  title: string,
  extra: string,
  need: Need,
  selector: (c: Case, bound: any) => Selector
): CaseSpec {
  return {
    id,
    title,
    level: 'MUST',
    checks: [REJECT, SUBSTITUTE, ...(extra ? [extra] : [])],
    body: async (c) => {
      const bound = c.bind(need);
      refused(
        c,
        await c.call(bound, [selector(c, bound)], { mustSucceed: false }),
        extra ? [extra] : []
      );
    }
  };
}

export const SELECTION_CASES: CaseSpec[] = [
  single(
    'plan-01-conversational',
    'A conversational call requesting assistant/content',
    ASSISTANT_CONTENT,
    [ONE, UNREQUESTED, MATCH]
  ),
  single(
    'plan-02-code-mode',
    'A code-mode call requesting programmatic/structured',
    PROGRAMMATIC_STRUCTURED,
    [ONE, UNREQUESTED, VALIDATE, MIRROR]
  ),
  single(
    'plan-03-structured-model-input',
    'A direct structured-model call requesting assistant/structured',
    ASSISTANT_STRUCTURED,
    [ONE, VALIDATE, MIRROR]
  ),
  single(
    'plan-04-user-media',
    'A user-rendered media call requesting user/content',
    USER_CONTENT,
    [ONE, UNREQUESTED, MATCH]
  ),
  single(
    'plan-05-host-native-table',
    'A host-native table call requesting user/structured',
    USER_STRUCTURED,
    [ONE, VALIDATE]
  ),
  {
    id: 'plan-06-apps-call',
    title:
      'An Apps call requesting assistant/content and io.modelcontextprotocol/ui/structured',
    level: 'MUST',
    checks: [
      ONE,
      UNREQUESTED,
      VALIDATE,
      'sep-3279-audience-core-or-negotiated'
    ],
    body: async (c) => {
      const requested = [ASSISTANT_CONTENT, UI_STRUCTURED];
      const bound = c.bind({ listing: 'ui', declares: requested });
      const listing = await c.list(undefined, true);
      const response = await c.call(bound, requested, { ui: true });
      isResult(c, response);
      hasOutputsArray(c, response);
      countOutputs(c, response, 2);
      sameAsRequested(c, response, requested);
      outputShapes(c, response);
      validOutput(c, response, toolNamed(listing, bound.tool), UI_STRUCTURED);
      noLegacyFields(c, response);
    }
  },
  single(
    'plan-08-app-only-explicit-ui',
    'An App-only call explicitly requesting io.modelcontextprotocol/ui/structured',
    UI_STRUCTURED,
    [ONE, VALIDATE],
    {
      ui: true,
      need: { listing: 'ui', declares: [UI_STRUCTURED], preferAppOnly: true }
    }
  ),
  {
    id: 'plan-09-app-only-fallback',
    title:
      'An App-only call without requestedOutputs receives assistant/content',
    level: 'MUST',
    checks: [FALLBACK, UNREQUESTED],
    body: async (c) => {
      const bound = c.bind({
        listing: 'ui',
        declares: [UI_STRUCTURED],
        preferAppOnly: true
      });
      const response = await c.call(bound, undefined, { ui: true });
      isResult(c, response);
      hasOutputsArray(c, response);
      only(c, response, ASSISTANT_CONTENT);
      outputShapes(c, response);
      c.expect(
        !outputsOf(response).some((o) => o?.audience === UI),
        'no ui output although the extension is negotiated'
      );
      noLegacyFields(c, response);
    }
  },
  rejection(
    'plan-10a-undeclared-selector',
    'Rejection of an undeclared selector',
    '',
    { lacksCore: true },
    (_c, b) => b.undeclared
  ),
  rejection(
    'plan-10b-unnegotiated-extension',
    'Rejection of an extension selector the request did not negotiate',
    'sep-3279-extension-audience-only-when-negotiated',
    { listing: 'ui', declares: [ASSISTANT_CONTENT, UI_STRUCTURED] },
    () => UI_STRUCTURED
  ),
  rejection(
    'plan-10c-arbitrary-audience',
    'Rejection of an audience that is neither core nor a negotiated extension',
    'sep-3279-non-core-audience-defined-by-extension',
    {},
    () => sel('host', 'structured')
  ),
  rejection(
    'plan-10d-non-core-combination',
    'Rejection of programmatic/content, a combination outside the core set',
    'sep-3279-core-combinations-only',
    {},
    () => sel('programmatic', 'content')
  ),
  {
    id: 'plan-11-independent-schemas',
    title: 'Independent validation of programmatic and App schemas',
    level: 'MUST',
    checks: [VALIDATE, CONFORMS, 'sep-3279-schema-equality-not-inferred'],
    body: async (c) => {
      const requested = [PROGRAMMATIC_STRUCTURED, UI_STRUCTURED];
      const bound = c.bind({ listing: 'ui', declares: requested });
      const listing = await c.list(undefined, true);
      const tool = toolNamed(listing, bound.tool);
      for (const s of requested) {
        const entry = (tool?.outputVariants ?? []).some(
          (v: any) => v?.audience === s.audience && v?.format === s.format
        );
        c.expect(
          entry,
          `the tool lists ${s.audience}/${s.format}, with its own entry`
        );
      }
      const response = await c.call(bound, requested, { ui: true });
      isResult(c, response);
      hasOutputsArray(c, response);
      countOutputs(c, response, 2);
      sameAsRequested(c, response, requested);
      outputShapes(c, response);
      for (const s of requested) validOutput(c, response, tool, s);
    }
  },
  {
    id: 'must-fallback-assistant-content',
    title: 'Without requestedOutputs the server returns assistant/content',
    level: 'MUST',
    checks: [FALLBACK, UNREQUESTED],
    body: async (c) => {
      const response = await c.call(c.bind({ minCore: 2 }), undefined);
      isResult(c, response);
      hasOutputsArray(c, response);
      only(c, response, ASSISTANT_CONTENT);
      outputShapes(c, response);
      noLegacyFields(c, response);
    }
  },
  {
    id: 'must-assistant-content-usable',
    title: 'The assistant/content fallback is a usable model representation',
    level: 'MUST',
    checks: ['sep-3279-assistant-content-usable'],
    body: async (c) => {
      const response = await c.call(c.bind({ minCore: 2 }), [
        ASSISTANT_CONTENT
      ]);
      isResult(c, response);
      const ac = outputsOf(response).filter(
        (o) => o?.audience === 'assistant' && o?.format === 'content'
      );
      const content = ac.length === 1 ? ac[0].content : undefined;
      c.expect(
        Array.isArray(content) && content.length >= 1,
        'at least one content block',
        ac,
        undefined,
        EMPTY_CONTENT_FIX
      );
      const blocks: any[] = ac.flatMap((o) =>
        Array.isArray(o?.content) ? o.content : []
      );
      c.expect(
        blocks.some(
          (b) => b?.type !== 'text' || (b?.type === 'text' && b?.text !== '')
        ),
        'some block carries something: non-empty text, or a non-text block',
        blocks,
        undefined,
        EMPTY_CONTENT_FIX
      );
    }
  },
  {
    id: 'must-result-shape-2026-12-01',
    title: 'A 2026-12-01 result carries outputs, not the legacy fields',
    level: 'MUST',
    checks: [
      'sep-3279-result-has-outputs',
      'sep-3279-version-determines-shapes'
    ],
    body: async (c) => {
      const response = await c.call(c.bind({}), [ASSISTANT_CONTENT]);
      isResult(c, response);
      hasOutputsArray(c, response);
      noLegacyFields(c, response);
      outputShapes(c, response);
    }
  },
  {
    id: 'must-one-output-per-requested-selector',
    title: 'Every declared core variant requested at once: one output each',
    level: 'MUST',
    checks: [ONE, MATCH],
    body: async (c) => {
      const bound = c.bind({ minCore: 2 });
      const response = await c.call(bound, bound.declaredCore);
      isResult(c, response);
      hasOutputsArray(c, response);
      sameAsRequested(c, response, bound.declaredCore);
      outputShapes(c, response);
    }
  },
  {
    id: 'must-no-unrequested-output',
    title: 'One non-fallback variant requested: nothing else comes back',
    level: 'MUST',
    checks: [UNREQUESTED, MATCH],
    body: async (c) => {
      const bound = c.bind({ minCore: 2 });
      const requested = [bound.other!];
      const response = await c.call(bound, requested);
      isResult(c, response);
      hasOutputsArray(c, response);
      countOutputs(c, response, 1);
      sameAsRequested(c, response, requested);
    }
  },
  {
    id: 'must-selector-match',
    title: 'Outputs carry the audience and format of the selector they answer',
    level: 'MUST',
    checks: [MATCH, ONE],
    body: async (c) => {
      const bound = c.bind({ minCore: 2 });
      const requested = [ASSISTANT_CONTENT, bound.other!];
      const response = await c.call(bound, requested);
      isResult(c, response);
      hasOutputsArray(c, response);
      countOutputs(c, response, 2);
      sameAsRequested(c, response, requested);
      outputShapes(c, response);
    }
  },
  {
    id: 'must-structured-outputs-valid',
    title:
      'Every declared variant requested at once: each structured output valid against its own schema',
    level: 'MUST',
    checks: [VALIDATE, CONFORMS],
    body: async (c) => {
      const bound = c.bind({ listing: 'ui', minStructured: 1 });
      const listing = await c.list(undefined, true);
      const response = await c.call(bound, bound.declared, { ui: true });
      isResult(c, response);
      hasOutputsArray(c, response);
      sameAsRequested(c, response, bound.declared);
      const tool = toolNamed(listing, bound.tool);
      for (const s of bound.declared.filter((s) => s.format === 'structured'))
        validOutput(c, response, tool, s);
    }
  },
  {
    id: 'must-no-mirror',
    title: 'A structured output alone is not mirrored into a content output',
    level: 'MUST',
    checks: [MIRROR, 'sep-3279-sdk-no-unrequested-text-mirror', UNREQUESTED],
    body: async (c) => {
      const bound = c.bind({ minStructured: 1 });
      const response = await c.call(bound, [bound.structured!]);
      isResult(c, response);
      hasOutputsArray(c, response);
      c.expect(
        !outputsOf(response).some((o) => o?.format === 'content'),
        'no content output',
        outputsOf(response)
      );
      countOutputs(c, response, 1);
      noLegacyFields(c, response);
    }
  },
  {
    id: 'should-error-outputs-per-selector',
    title:
      'A failing call answers each requested selector with an error output',
    level: 'SHOULD',
    checks: [
      'sep-3279-server-error-outputs-per-selector',
      'sep-3279-server-error-not-empty-outputs',
      'sep-3279-error-outputs-need-not-conform'
    ],
    body: async (c) => {
      const bound = c.bind({ errorCall: true });
      const response = await c.call(bound, bound.declaredCore, {
        mustSucceed: false
      });
      if (response?.result?.isError !== true) {
        c.untestable(
          `${bound.tool} ${JSON.stringify(bound.arguments)} did not fail as a tool error (isError: true); the case needs a fixture such as ${ERROR_FIXTURE}`
        );
      }
      const outputs = response?.result?.outputs;
      c.expect(
        Array.isArray(outputs) && outputs.length >= 1,
        'an isError result does not carry an empty outputs array',
        outputs
      );
      sameAsRequested(c, response, bound.declaredCore);
      outputShapes(c, response);
    }
  }
];

export class Sep3279OutputSelectionScenario implements ClientScenario {
  name = 'sep-3279-output-selection';
  // SEP-3279 targets 2026-12-01, the revision after the suite's draft.
  readonly source: ScenarioSource = { targetRevision: OUTPUTS_VERSION };
  description = `Test SEP-3279 request-time selection (\`requestedOutputs\`) and results (\`outputs\`) at 2026-12-01.

**Server Implementation Requirements (SEP-3279, Request-time selection, Tool call result):**
- Without requestedOutputs the server MUST return assistant/content (alone).
- It MUST return exactly one output for every requested selector, with that selector's audience
  and format, and MUST NOT return an output the client did not request (no structured mirror).
- Each structured output MUST be valid against its own variant's schema.
- An undeclared, unnegotiated, non-core or non-core-combination selector MUST be rejected as
  invalid params (-32602); nothing is substituted.
- SHOULD: a failing call (isError: true) answers each requested selector with an error output.

**Fixtures (tools/list at 2026-12-01):** each case takes the first tool that declares what it
needs: tools named \`test_variants_*\` first (called with \`{}\`), then read-only tools whose input
schema admits \`{}\`. Together they must declare every core variant and
\`io.modelcontextprotocol/ui\`/structured, one of them with \`_meta.ui.visibility: ["app"]\`;
\`${ERROR_FIXTURE}\` must fail as a tool error. A case without its fixture fails as untestable.`;

  async run(ctx: RunContext): Promise<ConformanceCheck[]> {
    return runCases(ctx.serverUrl, SELECTION_CASES, SPEC_RESULT);
  }
}
