/**
 * SEP-3279 — what every server scenario shares: the check ids, choosing a tool of the server
 * under test for a case, running a case, and turning cases into ConformanceChecks.
 *
 * A scenario runs several *cases* (one per situation of the SEP's testing plan or one MUST a
 * server can be caught breaking). A case cites the check ids of the sentences it judges (the
 * ids of src/seps/sep-3279.yaml) and emits each with the case's verdict: a failing case fails
 * every id it cites, MUST as FAILURE, SHOULD as WARNING. A case whose tool the server does not
 * have, or whose call does not succeed, is untestable (a failure naming the missing fixture,
 * per untestable.ts); a case at a protocol version the server does not serve is SKIPPED.
 *
 * Tools. The suite knows a server's tools only from tools/list at 2026-12-01. A case takes the
 * first tool that declares the variants it needs and can be called: the fixtures named
 * `test_variants_*` first (called with `{}`), then `list_files {}`, `list_kernels {}` and
 * `execute_code {code: "print(1)"}` when their input schema admits those arguments, then any
 * tool annotated `readOnlyHint: true` whose input schema admits `{}`. A tool that may change
 * something is never called unasked.
 */

import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ConformanceCheck, SpecReference } from '../../../types';
import { untestableCheck } from '../../untestable';
import { OUTPUTS_VERSION, UI, UI_EXTENSIONS, Wire, type Trip } from './wire';

export const SEP_3279_REF: SpecReference = {
  id: 'SEP-3279',
  url: 'https://github.com/modelcontextprotocol/modelcontextprotocol/pull/3279'
};

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

export const same = (a: Selector, b: Selector): boolean =>
  a.audience === b.audience && a.format === b.format;
export const label = (s: Selector): string => `${s.audience}/${s.format}`;

// ---- choosing a tool -------------------------------------------------------------------------

/** Calls that make this project's reference server's tools succeed (and fail, for the error case). */
const DEFAULT_CALLS: [string, Record<string, unknown>][] = [
  ['list_files', {}],
  ['list_kernels', {}],
  ['execute_code', { code: 'print(1)' }]
];
const DEFAULT_ERROR_CALLS: [string, Record<string, unknown>][] = [
  ['execute_code', { code: '1/0' }]
];
export const FIXTURE_PREFIX = 'test_variants_';
/** The fixture that fails inside the tool (isError: true), for the error case. */
export const ERROR_FIXTURE = 'test_variants_error';

export interface Need {
  listing?: 'plain' | 'ui';
  declares?: Selector[];
  minCore?: number;
  minStructured?: number;
  lacksCore?: boolean;
  preferAppOnly?: boolean;
  errorCall?: boolean;
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
  errors: boolean
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
    take(ERROR_FIXTURE, {});
    for (const [name, args] of DEFAULT_ERROR_CALLS) {
      if (byName.has(name) && argsFit(byName.get(name), args)) take(name, args);
    }
    return out;
  }
  for (const name of byName.keys()) {
    if (name.startsWith(FIXTURE_PREFIX) && name !== ERROR_FIXTURE)
      take(name, {});
  }
  for (const [name, args] of DEFAULT_CALLS) {
    if (byName.has(name) && argsFit(byName.get(name), args)) take(name, args);
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
    ? ` and fails as a tool error (isError: true), such as a fixture named ${ERROR_FIXTURE}`
    : '';
  return `a tool that ${parts.join(', ') || 'exists'}${fixture} (tools/list at 2026-12-01 ${listing})`;
}

/** The tool for a case, or the reason there is none. */
export function bindTool(need: Need, listings: Listings): Bound | string {
  const tools = listings[need.listing ?? 'plain'];
  if (typeof tools === 'string') {
    return `tools/list at 2026-12-01 failed, so no tool can be chosen: ${tools}`;
  }
  const candidates = callable(tools, Boolean(need.errorCall));
  if (need.preferAppOnly) {
    candidates.sort((a, b) => Number(appOnly(b[0])) - Number(appOnly(a[0])));
  }
  for (const [tool, args] of candidates) {
    const declared = selectorsOf(tool);
    const has = (s: Selector) => declared.some((d) => same(d, s));
    const core = declared.filter((s) => CORE_AUDIENCES.includes(s.audience));
    if (!(need.declares ?? [ASSISTANT_CONTENT]).every(has)) continue;
    if (core.length < (need.minCore ?? 0)) continue;
    const structured = STRUCTURED_ORDER.filter(has);
    if (structured.length < (need.minStructured ?? 0)) continue;
    const undeclared = CORE_SELECTORS.filter((s) => !has(s));
    if (need.lacksCore && undeclared.length === 0) continue;
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
  return `no callable tool fits: the case needs ${describeNeed(need)}`;
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

/** What a case does: requests, and the checks on their answers. */
export class Case {
  readonly failures: string[] = [];
  private ended?: { verdict: 'skip' | 'untestable'; reason: string };

  constructor(
    readonly wire: Wire,
    readonly listings: Listings
  ) {}

  /** Record a check: `ok`, or a failure saying what was expected and what came. */
  expect(ok: boolean, says: string, found?: unknown): boolean {
    if (!ok) {
      this.failures.push(
        found === undefined ? says : `${says}: found ${short(found)}`
      );
    }
    return ok;
  }

  bind(need: Need): Bound {
    const bound = bindTool(need, this.listings);
    if (typeof bound === 'string') {
      if (bound.startsWith('tools/list')) {
        this.failures.push(bound);
        throw new Stop();
      }
      this.ended = { verdict: 'untestable', reason: bound };
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
    if (trip.unsupported) {
      this.ended = {
        verdict: 'skip',
        reason: `the server does not serve ${version}: ${trip.unsupported}`
      };
      throw new Stop();
    }
    if (trip.problem) {
      this.failures.push(`${method}: ${trip.problem}`);
      throw new Stop();
    }
    return trip;
  }

  async list(version = OUTPUTS_VERSION, ui = false): Promise<any> {
    return (await this.send(version, ui, 'tools/list', {})).response;
  }

  /**
   * tools/call of the bound tool. `requested` undefined: no requestedOutputs. `mustSucceed`:
   * a call that does not succeed (an error, or isError: true) leaves the case untestable.
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
    const trip = await this.send(
      opts.version ?? OUTPUTS_VERSION,
      opts.ui ?? false,
      'tools/call',
      params
    );
    if ((opts.mustSucceed ?? true) && trip.response?.result?.isError === true) {
      this.untestable(
        `${bound.tool} ${JSON.stringify(bound.arguments)} did not succeed (isError: true); the case needs a call that succeeds`
      );
    }
    return trip.response;
  }

  untestable(reason: string): never {
    if (this.failures.length === 0)
      this.ended = { verdict: 'untestable', reason };
    throw new Stop();
  }

  async run(
    body: (c: Case) => Promise<void>
  ): Promise<{ verdict: Verdict; reason: string }> {
    try {
      await body(this);
    } catch (error) {
      if (!(error instanceof Stop)) {
        this.failures.push(
          `the case could not be evaluated: ${error instanceof Error ? error.stack : String(error)}`
        );
      }
    }
    if (this.failures.length > 0) {
      const more =
        this.failures.length > 1 ? ` (+${this.failures.length - 1} more)` : '';
      return { verdict: 'fail', reason: this.failures[0] + more };
    }
    if (this.ended)
      return { verdict: this.ended.verdict, reason: this.ended.reason };
    return { verdict: 'pass', reason: '' };
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
    response?.result
  );
}

export function noLegacyFields(c: Case, response: any): void {
  const result = response?.result ?? {};
  c.expect(
    !('content' in result),
    'no top-level `content` (a 2026-12-01 result carries `outputs` only)'
  );
  c.expect(
    !('structuredContent' in result),
    'no top-level `structuredContent` (a 2026-12-01 result carries `outputs` only)'
  );
}

export function outputShapes(c: Case, response: any): void {
  for (const output of outputsOf(response)) {
    if (output?.format === 'content') {
      c.expect(
        Array.isArray(output.content),
        'a content output carries a `content` array',
        output
      );
      for (const block of Array.isArray(output.content) ? output.content : []) {
        c.expect(
          typeof block?.type === 'string',
          'each content block is an object with a string `type`',
          block
        );
      }
      c.expect(
        !('structuredContent' in output),
        'a content output carries no `structuredContent`',
        output
      );
    } else if (output?.format === 'structured') {
      c.expect(
        'structuredContent' in output,
        'a structured output carries `structuredContent`',
        output
      );
      c.expect(
        !('content' in output),
        'a structured output carries no `content`',
        output
      );
    }
  }
}

export function countOutputs(c: Case, response: any, n: number): void {
  const outputs = outputsOf(response);
  c.expect(
    outputs.length === n,
    `exactly ${n} output${n === 1 ? '' : 's'}`,
    outputs.map((o) => `${o?.audience}/${o?.format}`)
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
    outputs.map((o) => `${o?.audience}/${o?.format}`)
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
    JSON.stringify(got) === JSON.stringify(want),
    `the outputs' audience/format pairs are exactly the requested ${short(want)}, each once`,
    got
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
      errors
    );
  }
}

export function refused(c: Case, response: any): void {
  c.expect(
    response?.error?.code === INVALID_PARAMS,
    `the server answers JSON-RPC error ${INVALID_PARAMS} (invalid params)`,
    response?.error ?? response?.result
  );
  c.expect(
    response?.result === undefined,
    'no result: nothing is substituted for the refused selector',
    response?.result
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
  specs: CaseSpec[]
): Promise<ConformanceCheck[]> {
  const wire = new Wire(serverUrl);
  const out: ConformanceCheck[] = [];
  try {
    const listings = await discover(wire);
    for (const spec of specs) {
      const { verdict, reason } = await new Case(wire, listings).run(spec.body);
      out.push(...checksOf(spec, verdict, reason));
    }
  } finally {
    await wire.close();
  }
  return out;
}

function checksOf(
  spec: CaseSpec,
  verdict: Verdict,
  reason: string
): ConformanceCheck[] {
  const severity = spec.level === 'SHOULD' ? 'WARNING' : 'FAILURE';
  return [...new Set(spec.checks)].map((id) => {
    const description = `${spec.title} [${spec.id}]`;
    if (verdict === 'untestable') {
      const check = untestableCheck(
        id,
        spec.id,
        description,
        reason,
        [SEP_3279_REF],
        severity
      );
      return {
        ...check,
        details: { ...check.details, case: spec.id, level: spec.level }
      };
    }
    return {
      id,
      name: spec.id,
      description,
      status:
        verdict === 'pass'
          ? 'SUCCESS'
          : verdict === 'skip'
            ? 'SKIPPED'
            : severity,
      timestamp: new Date().toISOString(),
      specReferences: [SEP_3279_REF],
      ...(verdict === 'pass' ? {} : { errorMessage: reason }),
      details: { case: spec.id, level: spec.level }
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
