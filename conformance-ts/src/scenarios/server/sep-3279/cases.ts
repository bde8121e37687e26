/**
 * SEP-3279 — what every server scenario shares: the check ids, choosing a tool of the server
 * under test for a case, running a case, and turning cases into ConformanceChecks.
 *
 * A scenario runs several *cases* (one per situation of the SEP's testing plan or one MUST a
 * server can be caught breaking). A case cites the check ids of the sentences it judges (the
 * ids of src/seps/sep-3279.yaml); each expectation of the case names the check id it judges, so
 * a failure is reported under the id it breaks, with its own message (an expectation every id
 * depends on, such as "the call succeeded", fails them all). MUST as FAILURE, SHOULD as
 * WARNING. Every check records the calls its case made: tool, arguments, protocol version,
 * extensions, requestedOutputs, and how each ended.
 *
 * A call the case needs to succeed that ends in a JSON-RPC error or `isError: true` fails the
 * case, with the server's own message. A case no listed tool applies to (no tool declares what
 * it judges) is SKIPPED as not applicable; a case that applies but cannot be exercised (the tool
 * needs arguments nobody gave) is untestable (a failure naming what to pass, per untestable.ts);
 * a case at a protocol version the server does not serve is SKIPPED.
 *
 * Tools. The suite knows a server's tools only from tools/list at 2026-12-01. A case takes the
 * first tool that declares the variants it needs and can be called: the calls named by the
 * runner (MCP_CONFORMANCE_TOOL_CALLS, below) first, then the everything-server's fixtures named
 * `test_variants_*` (called with `{}`), then any tool annotated `readOnlyHint: true` whose input
 * schema admits `{}`. A tool that may change something is never called unasked.
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ConformanceCheck, SpecReference } from '../../../types';
import { untestableCheck } from '../../untestable';
import {
  repeatedCallsOn,
  repeatNote,
  type RepeatedCalls,
  type Repeat,
  type SentCall
} from './repeats';
import { OUTPUTS_VERSION, UI, UI_EXTENSIONS, Wire, type Trip } from './wire';

/** The spec sections SEP-3279 adds to the tools page (the SEP's section titles). */
export const SPEC_TOOLS =
  'https://modelcontextprotocol.io/specification/draft/server/tools';
export const specSection = (anchor: string, title: string): SpecReference => ({
  id: `MCP-Tools-${title}`,
  url: `${SPEC_TOOLS}#${anchor}`
});
export const SPEC_DECLARATION = specSection(
  'tool-declaration',
  'Tool-Declaration'
);
export const SPEC_RESULT = specSection('tool-call-result', 'Tool-Call-Result');
export const SPEC_BACKWARD_COMPATIBILITY = specSection(
  'backward-compatibility',
  'Backward-Compatibility'
);

export interface Selector {
  audience: string;
  format: string;
}
export const sel = (audience: string, format: string): Selector => ({
  audience,
  format
});
export const ASSISTANT_CONTENT = sel('assistant', 'content');
export const ASSISTANT_STRUCTURED = sel('assistant', 'structured');
export const USER_CONTENT = sel('user', 'content');
export const USER_STRUCTURED = sel('user', 'structured');
export const PROGRAMMATIC_STRUCTURED = sel('programmatic', 'structured');
export const UI_STRUCTURED = sel(UI, 'structured');
export const CORE_AUDIENCES = ['assistant', 'user', 'programmatic'];
/** What a server whose assistant/content carries nothing should do: the failure alone says only "found []". */
export const EMPTY_CONTENT_FIX =
  'SEP-3279: assistant/content MUST provide a usable model representation, and this one gives ' +
  'the model nothing to read; return a text block that says what the empty result means ' +
  '(e.g. "No results.")';
export const CORE_SELECTORS = [
  ASSISTANT_CONTENT,
  ASSISTANT_STRUCTURED,
  USER_CONTENT,
  USER_STRUCTURED,
  PROGRAMMATIC_STRUCTURED
];
const OTHER_ORDER = [
  PROGRAMMATIC_STRUCTURED,
  ASSISTANT_STRUCTURED,
  USER_STRUCTURED,
  USER_CONTENT
];
const STRUCTURED_ORDER = [
  ASSISTANT_STRUCTURED,
  PROGRAMMATIC_STRUCTURED,
  USER_STRUCTURED
];
export const INVALID_PARAMS = -32602;

/** The check ids (src/seps/sep-3279.yaml) the shared expectations judge. */
export const ONE = 'sep-3279-server-one-output-per-selector';
export const UNREQUESTED = 'sep-3279-server-no-unrequested-output';
export const MATCH = 'sep-3279-server-output-matches-selector';
export const VALIDATE = 'sep-3279-server-validates-each-structured-output';
export const CONFORMS = 'sep-3279-structured-output-conforms-to-schema';
export const MIRROR = 'sep-3279-server-no-structured-mirror';
export const FALLBACK = 'sep-3279-server-fallback-assistant-content';
export const REJECT =
  'sep-3279-server-rejects-undeclared-or-unnegotiated-selector';
export const SUBSTITUTE = 'sep-3279-server-no-silent-substitution';
export const HAS_OUTPUTS = 'sep-3279-result-has-outputs';
export const VERSION_SHAPES = 'sep-3279-version-determines-shapes';

export const same = (a: Selector, b: Selector): boolean =>
  a.audience === b.audience && a.format === b.format;
export const label = (s: Selector): string => `${s.audience}/${s.format}`;

// ---- choosing a tool -------------------------------------------------------------------------

export const FIXTURE_PREFIX = 'test_variants_';
/** The fixture that fails inside the tool (isError: true), for the error case. */
export const ERROR_FIXTURE = 'test_variants_error';

/**
 * The calls the runner names for a server whose tools need arguments (or whose failing call the
 * error case should use): MCP_CONFORMANCE_TOOL_CALLS, JSON
 * `{"calls": {"TOOL": {ARGS}, ...}, "errorCalls": {"TOOL": {ARGS}}, "established": ["TOOL", ...]}`,
 * in order of preference. Naming a call is the person's consent to it: nothing else but read-only
 * tools is called. `established` names the tools that already served older clients before they
 * declared variants (ESTABLISHED_WHY): the wire cannot tell them from new ones, only the person can.
 */
export interface ToolCalls {
  calls: Record<string, Record<string, unknown>>;
  errorCalls: Record<string, Record<string, unknown>>;
  established: string[];
}
export const TOOL_CALLS_ENV = 'MCP_CONFORMANCE_TOOL_CALLS';

/** Why a rule SEP-3279 asks of a new tool did not judge a tool named `established`. */
export const ESTABLISHED_WHY =
  'named established: it already served older clients before it declared variants, so its legacy ' +
  'content, outputSchema and structuredContent are its established ones, which SEP-3279 says a server SHOULD ' +
  'preserve; this rule is for a new tool';

export function toolCallsFromEnv(raw = process.env[TOOL_CALLS_ENV]): ToolCalls {
  const none: ToolCalls = { calls: {}, errorCalls: {}, established: [] };
  if (!raw) return none;
  const parsed = JSON.parse(raw);
  const objects = (v: unknown): v is Record<string, Record<string, unknown>> =>
    typeof v === 'object' &&
    v !== null &&
    Object.values(v).every((a) => typeof a === 'object' && a !== null);
  const established: unknown = parsed?.established ?? [];
  if (
    !objects(parsed?.calls ?? {}) ||
    !objects(parsed?.errorCalls ?? {}) ||
    !Array.isArray(established) ||
    !established.every((name) => typeof name === 'string')
  ) {
    throw new Error(
      `${TOOL_CALLS_ENV}: expected {"calls": {"TOOL": {ARGS}}, "errorCalls": {...}, "established": ["TOOL", ...]}, got ${raw.slice(0, 200)}`
    );
  }
  return {
    calls: parsed.calls ?? {},
    errorCalls: parsed.errorCalls ?? {},
    established: [...new Set(established as string[])]
  };
}

export interface Need {
  listing?: 'plain' | 'ui';
  declares?: Selector[];
  minCore?: number;
  minStructured?: number;
  lacksCore?: boolean;
  preferAppOnly?: boolean;
  errorCall?: boolean;
  /** A tool not named `established`: a rule SEP-3279 asks of a new tool's legacy answers. */
  newTool?: boolean;
}

export interface Bound {
  tool: string;
  arguments: Record<string, unknown>;
  declared: Selector[];
  declaredCore: Selector[];
  undeclared?: Selector;
  other?: Selector;
  structured?: Selector;
}

export type Listings = Record<'plain' | 'ui', any[] | string>;
export interface Setup {
  listings: Listings;
  toolCalls: ToolCalls;
  /** The named calls made on this server so far, by this scenario and those run before it (repeats.ts). */
  repeats: RepeatedCalls;
}

const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  validateFormats: false
});

function argsFit(tool: any, args: Record<string, unknown>): boolean {
  const schema = tool?.inputSchema;
  if (typeof schema !== 'object' || schema === null) {
    return Object.keys(args).length === 0;
  }
  try {
    return ajv.validate(schema, args) === true;
  } catch {
    return false;
  }
}

export function selectorsOf(tool: any): Selector[] {
  const variants = tool?.outputVariants;
  if (!Array.isArray(variants)) return [];
  return variants
    .filter(
      (v: any) =>
        typeof v?.audience === 'string' && typeof v?.format === 'string'
    )
    .map((v: any) => sel(v.audience, v.format));
}

const appOnly = (tool: any): boolean => {
  const visibility = tool?._meta?.ui?.visibility;
  return (
    Array.isArray(visibility) &&
    visibility.length === 1 &&
    visibility[0] === 'app'
  );
};

function callable(
  tools: any[],
  errors: boolean,
  named: ToolCalls
): [any, Record<string, unknown>][] {
  const byName = new Map<string, any>();
  for (const t of tools) {
    if (typeof t?.name === 'string' && !byName.has(t.name))
      byName.set(t.name, t);
  }
  const out: [any, Record<string, unknown>][] = [];
  const seen = new Set<string>();
  const take = (name: string, args: Record<string, unknown>) => {
    const tool = byName.get(name);
    if (tool && !seen.has(name)) {
      out.push([tool, args]);
      seen.add(name);
    }
  };
  if (errors) {
    for (const [name, args] of Object.entries(named.errorCalls))
      take(name, args);
    take(ERROR_FIXTURE, {});
    return out;
  }
  for (const [name, args] of Object.entries(named.calls)) take(name, args);
  for (const name of byName.keys()) {
    if (name.startsWith(FIXTURE_PREFIX) && name !== ERROR_FIXTURE)
      take(name, {});
  }
  for (const [name, tool] of byName) {
    if (tool?.annotations?.readOnlyHint === true && argsFit(tool, {}))
      take(name, {});
  }
  return out;
}

export function describeNeed(need: Need): string {
  const parts: string[] = [];
  if (need.declares?.length)
    parts.push('declares ' + need.declares.map(label).join(' and '));
  if (need.minCore)
    parts.push(`declares at least ${need.minCore} core variants`);
  if (need.minStructured)
    parts.push(
      `declares at least ${need.minStructured} structured core variant(s)`
    );
  if (need.lacksCore) parts.push('leaves some core combination undeclared');
  const listing =
    need.listing === 'ui'
      ? 'with io.modelcontextprotocol/ui negotiated'
      : 'without extensions';
  const fixture = need.errorCall
    ? ` and fails as a tool error (isError: true), such as a fixture named ${ERROR_FIXTURE} or a call named in ${TOOL_CALLS_ENV} errorCalls`
    : '';
  return `a tool that ${parts.join(', ') || 'exists'}${fixture} (tools/list at 2026-12-01 ${listing})`;
}

function fits(
  need: Need,
  tool: any,
  args: Record<string, unknown>
): Bound | undefined {
  const declared = selectorsOf(tool);
  const has = (s: Selector) => declared.some((d) => same(d, s));
  const core = declared.filter((s) => CORE_AUDIENCES.includes(s.audience));
  if (!(need.declares ?? [ASSISTANT_CONTENT]).every(has)) return undefined;
  if (core.length < (need.minCore ?? 0)) return undefined;
  const structured = STRUCTURED_ORDER.filter(has);
  if (structured.length < (need.minStructured ?? 0)) return undefined;
  const undeclared = CORE_SELECTORS.filter((s) => !has(s));
  if (need.lacksCore && undeclared.length === 0) return undefined;
  return {
    tool: tool.name,
    arguments: args,
    declared,
    declaredCore: core,
    undeclared: undeclared[0],
    other: OTHER_ORDER.find(has),
    structured: structured[0]
  };
}

/** Why a case has no tool: nothing listed applies to it, or what applies cannot be called. */
export interface Unbound {
  applicable: boolean;
  reason: string;
}

/** The tool for a case, or why there is none. */
export function bindTool(need: Need, setup: Setup): Bound | Unbound {
  const tools = setup.listings[need.listing ?? 'plain'];
  if (typeof tools === 'string') {
    return {
      applicable: true,
      reason: `tools/list at 2026-12-01 failed, so no tool can be chosen: ${tools}`
    };
  }
  let candidates = callable(tools, Boolean(need.errorCall), setup.toolCalls);
  if (need.newTool) {
    const isEstablished = ([tool]: (typeof candidates)[number]) =>
      setup.toolCalls.established.includes(tool?.name);
    const established = candidates.filter(
      (c) => isEstablished(c) && fits(need, c[0], c[1]) !== undefined
    );
    candidates = candidates.filter((c) => !isEstablished(c));
    if (
      established.length > 0 &&
      !candidates.some(([tool, args]) => fits(need, tool, args) !== undefined)
    ) {
      return {
        applicable: false,
        reason: `not applicable: every tool that fits (${established.map(([t]) => t?.name).join(', ')}) is ${ESTABLISHED_WHY}`
      };
    }
  }
  if (need.preferAppOnly) {
    candidates.sort((a, b) => Number(appOnly(b[0])) - Number(appOnly(a[0])));
  }
  for (const [tool, args] of candidates) {
    const bound = fits(need, tool, args);
    if (bound) return bound;
  }
  if (need.errorCall) {
    return {
      applicable: true,
      reason: `no failing call to make: the case needs ${describeNeed(need)}`
    };
  }
  const uncalled = tools
    .filter((t) => fits(need, t, {}) !== undefined)
    .map((t) => t?.name);
  if (uncalled.length === 0) {
    return {
      applicable: false,
      reason: `not applicable: no listed tool ${describeNeed(need).replace(/^a tool that /, '')}`
    };
  }
  return {
    applicable: true,
    reason: `${uncalled.join(', ')} ${uncalled.length === 1 ? 'declares' : 'declare'} what the case judges but ${uncalled.length === 1 ? 'is' : 'are'} not called unasked (not read-only, or ${uncalled.length === 1 ? 'needs' : 'need'} arguments): name a call in ${TOOL_CALLS_ENV} (${describeNeed(need)})`
  };
}

export async function discover(wire: Wire): Promise<Listings> {
  const out: Partial<Listings> = {};
  for (const [name, extensions] of [
    ['plain', undefined],
    ['ui', UI_EXTENSIONS]
  ] as const) {
    const trip = await wire.listAll(OUTPUTS_VERSION, extensions);
    const tools = trip.response?.result?.tools;
    out[name] = trip.problem
      ? trip.problem
      : Array.isArray(tools)
        ? tools
        : `no tools array in ${JSON.stringify(trip.response).slice(0, 300)}`;
  }
  return out as Listings;
}

// ---- running a case --------------------------------------------------------------------------

export type Verdict = 'pass' | 'fail' | 'skip' | 'untestable';

/** Ends a case early: the rest cannot be judged. */
class Stop extends Error {}

/**
 * The check id(s) an expectation judges: those of them the case cites get its failure.
 * Without one (or when the case cites none of them), every id of the case depends on it.
 */
export type Judges = string | string[] | undefined;

export interface Failure {
  /** The check ids it is reported under; empty: every id of the case. */
  checks: string[];
  message: string;
  /** A needed named call that failed after the same call succeeded (repeats.ts). */
  repeat?: Repeat;
}

/** One request a case made, for the report: what was called, at which version, how it ended. */
export interface CallRecord {
  method: string;
  tool?: string;
  arguments?: Record<string, unknown>;
  protocolVersion: string;
  extensions: string[];
  requestedOutputs?: string[];
  outcome: 'result' | 'isError' | 'error' | 'unsupported' | 'no answer';
  message?: string;
  /** The first successful request of a named call, sent again after a later one failed (repeats.ts). */
  resent?: true;
}

function callRecord(
  method: string,
  params: Record<string, unknown>,
  version: string,
  extensions: Record<string, unknown> | undefined,
  trip: Trip
): CallRecord {
  const record: CallRecord = {
    method,
    ...(method === 'tools/call'
      ? {
          tool: String(params.name),
          arguments: params.arguments as Record<string, unknown>
        }
      : {}),
    protocolVersion: version,
    extensions: Object.keys(extensions ?? {}),
    ...(Array.isArray(params.requestedOutputs)
      ? { requestedOutputs: params.requestedOutputs.map(label) }
      : {}),
    outcome: trip.unsupported
      ? 'unsupported'
      : trip.problem
        ? 'no answer'
        : trip.response?.error !== undefined
          ? 'error'
          : trip.response?.result?.isError === true
            ? 'isError'
            : 'result'
  };
  if (record.outcome === 'error' || record.outcome === 'isError')
    record.message = serverMessage(trip.response);
  if (trip.problem) record.message = trip.problem;
  return record;
}

/** The text of a result's error: its content blocks' or outputs' text, else the JSON. */
export function serverMessage(response: any): string {
  const error = response?.error;
  if (error !== undefined) {
    return `JSON-RPC error ${short(error?.code)}: ${short(error?.message ?? error)}`;
  }
  const result = response?.result ?? {};
  const blocks: any[] = [
    ...(Array.isArray(result.content) ? result.content : []),
    ...(Array.isArray(result.outputs)
      ? result.outputs.flatMap((o: any) =>
          Array.isArray(o?.content) ? o.content : []
        )
      : [])
  ];
  const text = blocks
    .filter((b) => b?.type === 'text' && typeof b?.text === 'string')
    .map((b) => b.text)
    .join(' ');
  return short(text || result, 500);
}

/** How a tools/call failed (a JSON-RPC error, or isError: true, with the server's message), or undefined. */
export function callFailure(response: any): string | undefined {
  if (response?.error !== undefined) return serverMessage(response);
  if (response?.result?.isError === true)
    return `isError: true: ${serverMessage(response)}`;
  return undefined;
}

/** What a case does: requests, and the checks on their answers. */
export class Case {
  readonly failures: Failure[] = [];
  readonly calls: CallRecord[] = [];
  /** The tools a rule for new tools left out, named `established` (in details.exempted, never silent). */
  readonly exempted: string[] = [];
  private ended?: { verdict: 'skip' | 'untestable'; reason: string };

  constructor(
    readonly wire: Wire,
    readonly setup: Setup,
    /** The check ids the case cites (CaseSpec.checks). */
    readonly cites: string[] = []
  ) {}

  get listings(): Listings {
    return this.setup.listings;
  }

  /** Record a check: `ok`, or a failure (under the id it judges) saying what was expected, what came and,
   * given `fix`, what the server should do instead. */
  expect(
    ok: boolean,
    says: string,
    found?: unknown,
    judges?: Judges,
    fix?: string
  ): boolean {
    if (!ok) {
      const ids = judges === undefined ? [] : [judges].flat();
      const message =
        found === undefined ? says : `${says}: found ${short(found)}`;
      this.failures.push({
        checks: ids.filter((id) => this.cites.includes(id)),
        message: fix === undefined ? message : `${message}. ${fix}`
      });
    }
    return ok;
  }

  bind(need: Need): Bound {
    const bound = bindTool(need, this.setup);
    if ('reason' in bound) {
      if (bound.reason.startsWith('tools/list')) {
        this.failures.push({ checks: [], message: bound.reason });
      } else {
        this.ended = {
          verdict: bound.applicable ? 'untestable' : 'skip',
          reason: bound.reason
        };
      }
      throw new Stop();
    }
    return bound;
  }

  /** A request; a version the server does not serve skips the case, no answer at all fails it. */
  async send(
    version: string,
    ui: boolean,
    method: string,
    params: Record<string, unknown>
  ): Promise<Trip> {
    const extensions = ui ? UI_EXTENSIONS : undefined;
    const trip =
      method === 'tools/list'
        ? await this.wire.listAll(version, extensions)
        : await this.wire.request(version, extensions, method, params);
    this.calls.push(callRecord(method, params, version, extensions, trip));
    if (trip.unsupported) {
      this.ended = {
        verdict: 'skip',
        reason: `the server does not serve ${version}: ${trip.unsupported}`
      };
      throw new Stop();
    }
    if (trip.problem) {
      this.failures.push({ checks: [], message: `${method}: ${trip.problem}` });
      throw new Stop();
    }
    return trip;
  }

  async list(version = OUTPUTS_VERSION, ui = false): Promise<any> {
    return (await this.send(version, ui, 'tools/list', {})).response;
  }

  /**
   * tools/call of the bound tool. `requested` undefined: no requestedOutputs. `mustSucceed`
   * (the default): a call that does not succeed (a JSON-RPC error, or isError: true) fails the
   * case, with the server's message; the rest of it cannot be judged. A named call that
   * succeeded earlier and fails now, its first request failing too when sent again, says so
   * (repeats.ts).
   */
  async call(
    bound: Bound,
    requested: Selector[] | undefined,
    opts: { version?: string; ui?: boolean; mustSucceed?: boolean } = {}
  ): Promise<any> {
    const params: Record<string, unknown> = {
      name: bound.tool,
      arguments: bound.arguments
    };
    if (requested !== undefined) params.requestedOutputs = requested;
    const version = opts.version ?? OUTPUTS_VERSION;
    const ui = opts.ui ?? false;
    const mustSucceed = opts.mustSucceed ?? true;
    const trip = await this.send(version, ui, 'tools/call', params);
    const response = trip.response;
    const failed = callFailure(response);
    const repeat = this.named(bound)
      ? await this.setup.repeats.record(
          { version, ui, params },
          failed,
          mustSucceed,
          (first) => this.resend(first)
        )
      : undefined;
    if (mustSucceed && failed !== undefined) {
      const how =
        response?.error !== undefined
          ? 'answered a JSON-RPC error'
          : 'failed (isError: true)';
      // said before the server's words, which a report may cut
      const note = repeat ? `; ${repeatNote(repeat)}` : '';
      this.failures.push({
        checks: [],
        message: `the call the case needs to succeed ${how}: ${bound.tool} ${short(bound.arguments)} at ${version}${requested ? ` requesting ${requested.map(label).join(', ')}` : ''}${note}; the server said: ${serverMessage(response)}`,
        ...(repeat ? { repeat } : {})
      });
      throw new Stop();
    }
    return response;
  }

  /** Whether the bound call is one the runner named (MCP_CONFORMANCE_TOOL_CALLS calls), with its arguments. */
  private named(bound: Bound): boolean {
    const calls = this.setup.toolCalls.calls;
    return (
      Object.prototype.hasOwnProperty.call(calls, bound.tool) &&
      deepEqual(calls[bound.tool], bound.arguments)
    );
  }

  /** A named call's first successful request, sent again and recorded with the case's calls. */
  private async resend(call: SentCall): Promise<string | undefined | null> {
    const extensions = call.ui ? UI_EXTENSIONS : undefined;
    const trip = await this.wire.request(
      call.version,
      extensions,
      'tools/call',
      call.params
    );
    this.calls.push({
      ...callRecord('tools/call', call.params, call.version, extensions, trip),
      resent: true
    });
    return trip.problem || trip.unsupported ? null : callFailure(trip.response);
  }

  untestable(reason: string): never {
    if (this.failures.length === 0)
      this.ended = { verdict: 'untestable', reason };
    throw new Stop();
  }

  async run(body: (c: Case) => Promise<void>): Promise<Verdict> {
    try {
      await body(this);
    } catch (error) {
      if (!(error instanceof Stop)) {
        this.failures.push({
          checks: [],
          message: `the case could not be evaluated: ${error instanceof Error ? error.stack : String(error)}`
        });
      }
    }
    if (this.failures.length > 0) return 'fail';
    return this.ended?.verdict ?? 'pass';
  }

  /** Why the case did not pass, for one check id: its own failures and those of every id. */
  reasonFor(id: string): string {
    if (this.failures.length === 0) return this.ended?.reason ?? '';
    return this.failures
      .filter((f) => f.checks.length === 0 || f.checks.includes(id))
      .map((f) => f.message)
      .join('; ');
  }
}

export function short(value: unknown, limit = 300): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length <= limit
    ? text
    : `${text.slice(0, limit)}…(${text.length} chars)`;
}

// ---- checks shared by cases ------------------------------------------------------------------

/** The JSON Schema 2020-12 errors of `value` under `schema`, or a sentence when the schema is broken. */
export function schemaErrors(schema: unknown, value: unknown): string[] {
  if (typeof schema !== 'object' && typeof schema !== 'boolean') {
    return [`the schema is not a JSON Schema: ${short(schema)}`];
  }
  let validate;
  try {
    validate = ajv.compile(schema as object);
  } catch (error) {
    return [
      `the declared schema is not valid JSON Schema 2020-12: ${String(error).slice(0, 200)}`
    ];
  }
  if (validate(value)) return [];
  return (validate.errors ?? [])
    .slice(0, 3)
    .map((e) => `${e.instancePath || '<root>'}: ${e.message}`);
}

export function toolNamed(listing: any, name: string): any {
  const tools = listing?.result?.tools;
  return Array.isArray(tools)
    ? tools.find((t: any) => t?.name === name)
    : undefined;
}

export function variantSchema(tool: any, s: Selector): unknown {
  const variant = (
    Array.isArray(tool?.outputVariants) ? tool.outputVariants : []
  ).find((v: any) => v?.audience === s.audience && v?.format === s.format);
  return variant?.schema;
}

export function outputsOf(response: any): any[] {
  const outputs = response?.result?.outputs;
  return Array.isArray(outputs) ? outputs : [];
}

export function isResult(c: Case, response: any): boolean {
  return c.expect(
    response?.result !== undefined,
    'the server answers with a result, not a JSON-RPC error',
    response?.error
  );
}

export function hasOutputsArray(c: Case, response: any): boolean {
  return c.expect(
    Array.isArray(response?.result?.outputs),
    'the result has an `outputs` array',
    response?.result,
    [HAS_OUTPUTS, VERSION_SHAPES]
  );
}

const LEGACY_LEAK = [HAS_OUTPUTS, VERSION_SHAPES, UNREQUESTED, MIRROR];

export function noLegacyFields(c: Case, response: any): void {
  const result = response?.result ?? {};
  c.expect(
    !('content' in result),
    'no top-level `content` (a 2026-12-01 result carries `outputs` only)',
    undefined,
    LEGACY_LEAK
  );
  c.expect(
    !('structuredContent' in result),
    'no top-level `structuredContent` (a 2026-12-01 result carries `outputs` only)',
    undefined,
    LEGACY_LEAK
  );
}

const SHAPE = [MATCH, HAS_OUTPUTS];

export function outputShapes(c: Case, response: any): void {
  for (const output of outputsOf(response)) {
    if (output?.format === 'content') {
      c.expect(
        Array.isArray(output.content),
        'a content output carries a `content` array',
        output,
        SHAPE
      );
      for (const block of Array.isArray(output.content) ? output.content : []) {
        c.expect(
          typeof block?.type === 'string',
          'each content block is an object with a string `type`',
          block,
          SHAPE
        );
      }
      c.expect(
        !('structuredContent' in output),
        'a content output carries no `structuredContent`',
        output,
        SHAPE
      );
    } else if (output?.format === 'structured') {
      c.expect(
        'structuredContent' in output,
        'a structured output carries `structuredContent`',
        output,
        SHAPE
      );
      c.expect(
        !('content' in output),
        'a structured output carries no `content`',
        output,
        SHAPE
      );
    }
  }
}

export function countOutputs(c: Case, response: any, n: number): void {
  const outputs = outputsOf(response);
  c.expect(
    outputs.length === n,
    `exactly ${n} output${n === 1 ? '' : 's'}`,
    outputs.map((o) => `${o?.audience}/${o?.format}`),
    outputs.length > n ? [UNREQUESTED, MIRROR] : [ONE, FALLBACK]
  );
}

export function only(c: Case, response: any, s: Selector): void {
  countOutputs(c, response, 1);
  const outputs = outputsOf(response);
  c.expect(
    outputs.length > 0 &&
      outputs.every(
        (o) => o?.audience === s.audience && o?.format === s.format
      ),
    `the output is ${label(s)}`,
    outputs.map((o) => `${o?.audience}/${o?.format}`),
    [MATCH, FALLBACK]
  );
}

/** The outputs' audience/format pairs are exactly the requested selectors, each once. */
export function sameAsRequested(
  c: Case,
  response: any,
  requested: Selector[]
): void {
  const key = (s: any) => `${s?.audience}/${s?.format}`;
  const got = outputsOf(response).map(key).sort();
  const want = requested.map(key).sort();
  c.expect(
    want.every((w) => got.filter((g) => g === w).length === 1),
    `one output for each requested selector ${short(want)}`,
    got,
    ONE
  );
  c.expect(
    got.every((g) => want.includes(g)),
    `no output but those requested ${short(want)}`,
    got,
    [UNREQUESTED, MIRROR]
  );
}

/** The `s` output is valid against the schema `s`'s variant declares (vacuously, without one). */
export function validOutput(
  c: Case,
  response: any,
  tool: any,
  s: Selector
): void {
  const schema = variantSchema(tool, s);
  const values = outputsOf(response)
    .filter(
      (o) =>
        o?.audience === s.audience &&
        o?.format === s.format &&
        'structuredContent' in o
    )
    .map((o) => o.structuredContent);
  if (schema === undefined || values.length === 0) return;
  for (const value of values) {
    const errors = schemaErrors(schema, value);
    c.expect(
      errors.length === 0,
      `the ${label(s)} output is valid against the schema its variant declares`,
      errors,
      [VALIDATE, CONFORMS]
    );
  }
}

/** The selector refused with -32602; `extra`: the case's own rule a substitution also breaks. */
export function refused(c: Case, response: any, extra: string[] = []): void {
  c.expect(
    response?.error?.code === INVALID_PARAMS,
    `the server answers JSON-RPC error ${INVALID_PARAMS} (invalid params)`,
    response?.error ?? response?.result,
    REJECT
  );
  c.expect(
    response?.result === undefined,
    'no result: nothing is substituted for the refused selector',
    response?.result,
    [SUBSTITUTE, REJECT, ...extra]
  );
}

// ---- cases into checks -----------------------------------------------------------------------

export interface CaseSpec {
  /** The case's id, the same as the Python suite's scenario id for the same situation. */
  id: string;
  title: string;
  level: 'MUST' | 'SHOULD';
  /** The check ids (src/seps/sep-3279.yaml) the case judges. */
  checks: string[];
  body: (c: Case) => Promise<void>;
}

export async function runCases(
  serverUrl: string,
  specs: CaseSpec[],
  reference: SpecReference
): Promise<ConformanceCheck[]> {
  const wire = new Wire(serverUrl);
  const out: ConformanceCheck[] = [];
  try {
    const setup: Setup = {
      listings: await discover(wire),
      toolCalls: toolCallsFromEnv(),
      repeats: repeatedCallsOn(serverUrl)
    };
    for (const spec of specs) {
      const c = new Case(wire, setup, [...new Set(spec.checks)]);
      const verdict = await c.run(spec.body);
      out.push(...checksOf(spec, c, verdict, reference));
    }
  } finally {
    await wire.close();
  }
  return out;
}

/** Each check id the case cites, failed only by its own failures (and those every id depends on). */
function checksOf(
  spec: CaseSpec,
  c: Case,
  verdict: Verdict,
  reference: SpecReference
): ConformanceCheck[] {
  const severity = spec.level === 'SHOULD' ? 'WARNING' : 'FAILURE';
  const exempted =
    c.exempted.length > 0
      ? ` (not judged: ${c.exempted.join(', ')}, ${ESTABLISHED_WHY})`
      : '';
  const description = `${spec.title} [${spec.id}]${exempted}`;
  const repeat = c.failures.find((f) => f.repeat)?.repeat;
  const details = {
    case: spec.id,
    level: spec.level,
    calls: c.calls,
    ...(repeat ? { failedWhenRepeated: repeat } : {}),
    ...(c.exempted.length > 0
      ? { exempted: { tools: c.exempted, why: ESTABLISHED_WHY } }
      : {})
  };
  return c.cites.map((id) => {
    if (verdict === 'untestable') {
      const check = untestableCheck(
        id,
        spec.id,
        description,
        c.reasonFor(id),
        [reference],
        severity
      );
      return { ...check, details: { ...check.details, ...details } };
    }
    const reason = c.reasonFor(id);
    const status =
      verdict === 'skip'
        ? 'SKIPPED'
        : verdict === 'fail' && reason !== ''
          ? severity
          : 'SUCCESS';
    return {
      id,
      name: spec.id,
      description,
      status,
      timestamp: new Date().toISOString(),
      specReferences: [reference],
      ...(status === 'SUCCESS' ? {} : { errorMessage: reason }),
      details
    };
  });
}

/** JSON equality, key order ignored. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map(
        (k) =>
          `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
