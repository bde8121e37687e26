/**
 * SEP-3279 — client scenarios: the suite as a server (fixture.ts) for a client under test.
 *
 * The client is run with the fixture's URL and, in MCP_CONFORMANCE_CONTEXT, what to do:
 * `{ tool, arguments, mode, extensions, consumers, protocolVersion, deliveries }` — call `tool`
 * with `arguments` in execution `mode` (conversational, code, structured-model, user-display,
 * apps), advertising `extensions`, at `protocolVersion`, as a host with the consumers
 * `consumers` (of model, user, program, view), and append one JSON line to the file
 * `deliveries` per thing it hands to a consumer: `{"consumer": "model", "payload": ...}`.
 *
 * Routing is known only to the host, so the client reports it; requests are judged as sent.
 * Each check id is emitted once per scenario with the verdict of its own checks (a client that
 * breaks one rule fails that id alone): MUST as FAILURE, SHOULD as WARNING.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ConformanceCheck,
  Scenario,
  ScenarioSource,
  ScenarioUrls
} from '../../../types';
import type { ScenarioContext } from '../../../mock-server';
import {
  CANARY,
  FixtureServer,
  LEGACY_AT_NEW_CANARY,
  LEGACY_CANARY,
  META_CANARY,
  OUTPUTS_VERSION,
  TOOL,
  UI,
  UI_EXTENSIONS,
  VERSION_KEY,
  toolEntry,
  type FixtureConfig,
  type Selector
} from './fixture';

const SPEC_ROUTING = {
  id: 'MCP-Tools-Routing-Requirements',
  url: 'https://modelcontextprotocol.io/specification/draft/server/tools#routing-requirements'
};
const SPEC_BACKWARD_COMPATIBILITY = {
  id: 'MCP-Tools-Backward-Compatibility',
  url: 'https://modelcontextprotocol.io/specification/draft/server/tools#backward-compatibility'
};
const sel = (audience: string, format: string): Selector => ({
  audience,
  format
});
const AC = sel('assistant', 'content');
const AS = sel('assistant', 'structured');
const UC = sel('user', 'content');
const US = sel('user', 'structured');
const PS = sel('programmatic', 'structured');
const UIS = sel(UI, 'structured');
const FULL = [AC, AS, UC, US, PS];
const CONSUMERS = ['model', 'user', 'program', 'view'];
const CONSUMER_OF: Record<string, string> = {
  assistant: 'model',
  user: 'user',
  programmatic: 'program',
  [UI]: 'view'
};

const ID = {
  onlyAdvertised: 'sep-3279-client-selects-only-advertised',
  noDuplicate: 'sep-3279-client-no-duplicate-selector',
  requestsNeeded: 'sep-3279-client-requests-needed-outputs',
  followsMode: 'sep-3279-client-selection-follows-mode',
  routes: 'sep-3279-client-routes-outputs-by-audience',
  userNotInModel: 'sep-3279-client-user-output-not-in-model',
  programmatic: 'sep-3279-client-programmatic-output-not-in-model-or-user',
  apps: 'sep-3279-client-apps-routing',
  noMeta: 'sep-3279-client-no-result-meta-forwarded',
  annotations: 'sep-3279-client-ignores-block-annotations',
  noFallback: 'sep-3279-client-no-audience-fallback',
  unnegotiated: 'sep-3279-client-no-unnegotiated-extension-request',
  rejectsTool: 'sep-3279-client-rejects-tool-without-outputvariants',
  noRequestedOld: 'sep-3279-client-no-requestedoutputs-before-2026-12-01',
  acceptsLegacy: 'sep-3279-client-accepts-legacy-result'
} as const;
const SHOULD = new Set<string>([ID.requestsNeeded, ID.followsMode]);

/** What the client did: every message it sent, and what it reports delivering to each consumer. */
interface Record_ {
  sent: any[];
  answered: FixtureServer['answered'];
  delivered: Record<string, unknown[]>;
  /** The client wrote the deliveries file (even empty): it reported what it handed on. */
  reported: boolean;
}
/** One check: the id it judges, what it says, and whether the record satisfies it. */
type Check = [id: string, says: string, judge: (r: Record_) => boolean];

const calls = (r: Record_) => r.sent.filter((m) => m?.method === 'tools/call');
const newCalls = (r: Record_) =>
  calls(r).filter((m) => m?.params?._meta?.[VERSION_KEY] === OUTPUTS_VERSION);
const requestedIn = (m: any): any[] =>
  Array.isArray(m?.params?.requestedOutputs) ? m.params.requestedOutputs : [];
const isPair = (s: any, p: Selector) =>
  s?.audience === p.audience && s?.format === p.format;
const contains = (value: unknown, text: string) =>
  JSON.stringify(value ?? null).includes(text);

function onlyAdvertised(advertised: Selector[]): Check {
  return [
    ID.onlyAdvertised,
    'every requested selector is one the tool advertised',
    (r) =>
      newCalls(r)
        .flatMap(requestedIn)
        .every((s) => advertised.some((p) => isPair(s, p)))
  ];
}

const noDuplicates: Check = [
  ID.noDuplicate,
  'no tools/call names a selector twice',
  (r) =>
    calls(r).every((m) => {
      const requested = requestedIn(m);
      if (requested.some((s) => typeof s !== 'object' || s === null))
        return false;
      const keys = requested.map((s) => `${s.audience}/${s.format}`);
      return new Set(keys).size === keys.length;
    })
];

const selection = (advertised: Selector[]): Check[] => [
  onlyAdvertised(advertised),
  noDuplicates
];

const asksFor = (id: string, says: string, s: Selector): Check => [
  id,
  `${says}: ${s.audience}/${s.format}`,
  (r) => newCalls(r).some((m) => requestedIn(m).some((x) => isPair(x, s)))
];

const sendsRequestedOutputs: Check = [
  ID.requestsNeeded,
  'the call sends requestedOutputs: the mode needs more than the assistant/content fallback',
  (r) => newCalls(r).some((m) => m?.params?.requestedOutputs !== undefined)
];

function reachesIfRequested(audience: string, format?: string): Check {
  const consumer = CONSUMER_OF[audience];
  return [
    ID.routes,
    `the ${audience} output, when requested, reaches the ${consumer}`,
    (r) =>
      !newCalls(r).some((m) =>
        requestedIn(m).some(
          (s) => s?.audience === audience && (!format || s?.format === format)
        )
      ) || contains(r.delivered[consumer], CANARY[audience])
  ];
}

/** Each audience's canary at no consumer but its own, and `_meta`'s nowhere. */
function misrouting(annotated = false): Check[] {
  const out: Check[] = [];
  for (const [audience, canary] of Object.entries(CANARY)) {
    for (const consumer of CONSUMERS) {
      if (consumer === CONSUMER_OF[audience]) continue;
      const id = annotated
        ? ID.annotations
        : audience === 'user' && consumer === 'model'
          ? ID.userNotInModel
          : audience === 'programmatic' &&
              (consumer === 'model' || consumer === 'user')
            ? ID.programmatic
            : (audience === UI && consumer === 'model') ||
                (audience === 'assistant' && consumer === 'view')
              ? ID.apps
              : ID.routes;
      out.push([
        id,
        `the ${audience} output does not reach the ${consumer}`,
        (r) => !contains(r.delivered[consumer], canary)
      ]);
    }
  }
  out.push(noMeta);
  return out;
}
const noMeta: Check = [
  ID.noMeta,
  "nothing of the result's _meta reaches any consumer",
  (r) => !contains(r.delivered, META_CANARY)
];

function legacyChecks(version: string): Check[] {
  return [
    [
      ID.noRequestedOld,
      'the client calls the tool (so that its request can be judged)',
      (r) => calls(r).length > 0
    ],
    [
      ID.noRequestedOld,
      `no message carries requestedOutputs at ${version}`,
      (r) => !r.sent.some((m) => m?.params?.requestedOutputs !== undefined)
    ],
    [
      ID.noRequestedOld,
      'no request uses the 2026-12-01 shapes',
      (r) =>
        !r.sent.some((m) => m?.params?._meta?.[VERSION_KEY] === OUTPUTS_VERSION)
    ],
    [
      ID.acceptsLegacy,
      'the legacy result is accepted: its content reaches a consumer',
      (r) => contains(r.delivered, LEGACY_CANARY)
    ]
  ];
}

interface Spec {
  id: string;
  title: string;
  /**
   * What the client must have done before any check can pass: `call` (the default), its
   * tools/call of the tool at the scenario's version; `list`, its tools/list at that version
   * (where the listing is invalid: a client that refuses it calls nothing, and may exit with an
   * error).
   */
  requires?: 'call' | 'list';
  version?: string;
  mode: string;
  server: FixtureConfig;
  checks: Check[];
  extensions?: Record<string, unknown>;
  consumers?: string[];
}

const TOOLS = [toolEntry([...FULL, UIS])];

const SPECS: Spec[] = [
  {
    id: 'client-conversational',
    title:
      'Conversational mode: the assistant/content output reaches the model, nothing else',
    mode: 'conversational',
    server: { tools: TOOLS },
    checks: [
      ...selection(FULL),
      [
        ID.routes,
        'the model receives the assistant output',
        (r) => contains(r.delivered.model, CANARY.assistant)
      ],
      ...misrouting()
    ]
  },
  {
    id: 'client-code-mode',
    title:
      'Code mode asks for programmatic/structured and hands it to the program only',
    mode: 'code',
    server: { tools: TOOLS },
    checks: [
      ...selection(FULL),
      sendsRequestedOutputs,
      asksFor(ID.followsMode, 'code mode asks for its variant', PS),
      reachesIfRequested('programmatic'),
      ...misrouting()
    ]
  },
  {
    id: 'client-structured-model',
    title:
      'Structured-model mode asks for assistant/structured and gives it to the model',
    mode: 'structured-model',
    server: { tools: TOOLS },
    checks: [
      ...selection(FULL),
      sendsRequestedOutputs,
      asksFor(ID.followsMode, 'structured-model mode asks for its variant', AS),
      reachesIfRequested('assistant', 'structured'),
      ...misrouting()
    ]
  },
  {
    id: 'client-user-display',
    title:
      'User-display mode asks for a user variant and keeps it out of the model',
    mode: 'user-display',
    server: { tools: TOOLS },
    checks: [
      ...selection(FULL),
      sendsRequestedOutputs,
      [
        ID.followsMode,
        'user-display mode asks for user/structured or user/content',
        (r) =>
          asksFor(ID.followsMode, '', US)[2](r) ||
          asksFor(ID.followsMode, '', UC)[2](r)
      ],
      reachesIfRequested('user'),
      ...misrouting()
    ]
  },
  {
    id: 'client-apps-mode',
    title:
      'Apps mode, extension negotiated: assistant output to the model, ui output to the View',
    mode: 'apps',
    extensions: UI_EXTENSIONS,
    server: { tools: TOOLS, extensions: true },
    checks: [
      ...selection([...FULL, UIS]),
      sendsRequestedOutputs,
      asksFor(ID.followsMode, 'apps mode asks for', AC),
      asksFor(ID.followsMode, 'apps mode asks for', UIS),
      reachesIfRequested('assistant', 'content'),
      reachesIfRequested(UI),
      ...misrouting()
    ]
  },
  {
    id: 'client-apps-extension-not-negotiated',
    title:
      'Apps mode, the server does not advertise the extension: no ui request, even though the listing shows a ui variant',
    mode: 'apps',
    extensions: UI_EXTENSIONS,
    // The listing names an audience the request did not negotiate: refusing it is right too.
    requires: 'list',
    server: { tools: TOOLS, extensions: false, listUnnegotiated: true },
    checks: [
      ...selection([...FULL, UIS]),
      [
        ID.unnegotiated,
        'no request names the ui audience',
        (r) =>
          !r.sent.some((m) => requestedIn(m).some((s) => s?.audience === UI))
      ],
      noMeta
    ]
  },
  {
    id: 'client-code-mode-variant-not-declared',
    title:
      'Code mode against a tool without programmatic/structured asks only for declared variants',
    mode: 'code',
    server: { tools: [toolEntry([AC, AS])] },
    checks: [...selection([AC, AS]), ...misrouting()]
  },
  {
    id: 'client-no-user-display',
    title: 'A host without a user display gives a user output to nobody else',
    mode: 'user-display',
    consumers: ['model', 'program'],
    server: { tools: TOOLS },
    checks: [
      ...selection(FULL),
      [
        ID.noFallback,
        'the user output reaches no other consumer',
        (r) => !contains(r.delivered, CANARY.user)
      ],
      ...misrouting()
    ]
  },
  {
    id: 'client-block-annotations',
    title:
      'Block annotations that name another audience do not re-route an output',
    mode: 'user-display',
    server: { tools: [toolEntry([AC, UC])], annotate: true },
    checks: [
      ...selection([AC, UC]),
      reachesIfRequested('user'),
      ...misrouting(true)
    ]
  },
  {
    id: 'client-rejects-tool-without-outputvariants',
    title:
      'A Tool without outputVariants at 2026-12-01: the listing is invalid, nothing is called or used at 2026-12-01',
    mode: 'conversational',
    requires: 'list',
    server: { tools: [toolEntry(FULL, { legacy: true })] },
    checks: [
      [
        ID.rejectsTool,
        'no tools/call at 2026-12-01',
        (r) => newCalls(r).length === 0
      ],
      [
        ID.rejectsTool,
        'nothing of a legacy-shaped 2026-12-01 result is used',
        (r) => !contains(r.delivered, LEGACY_AT_NEW_CANARY)
      ]
    ]
  },
  {
    id: 'client-legacy-2026-07-28',
    title:
      'Code mode at 2026-07-28: legacy shapes, no requestedOutputs, the legacy result used',
    version: '2026-07-28',
    mode: 'code',
    server: { tools: TOOLS, legacyOutputVariants: true },
    checks: legacyChecks('2026-07-28')
  },
  {
    id: 'client-legacy-2025-11-25-apps',
    title: 'An Apps host at 2025-11-25 (initialize) sends no requestedOutputs',
    version: '2025-11-25',
    mode: 'apps',
    extensions: UI_EXTENSIONS,
    server: { tools: TOOLS, extensions: true },
    checks: legacyChecks('2025-11-25')
  },
  {
    id: 'client-legacy-2025-11-25',
    title:
      'A conversational client at 2025-11-25 (initialize) sends no requestedOutputs',
    version: '2025-11-25',
    mode: 'conversational',
    server: { tools: TOOLS },
    checks: legacyChecks('2025-11-25')
  }
];

export class Sep3279ClientScenario implements Scenario {
  // SEP-3279 targets 2026-12-01, the revision after the suite's draft.
  readonly source: ScenarioSource = { targetRevision: OUTPUTS_VERSION };
  readonly name: string;
  readonly description: string;
  // Only where refusing is right (an invalid listing) may the client end with an error.
  readonly allowClientError: boolean;
  private fixture?: FixtureServer;
  private folder?: string;

  constructor(private readonly spec: Spec) {
    this.name = `sep-3279-${spec.id}`;
    this.allowClientError = spec.requires === 'list';
    this.description = `${spec.title} (SEP-3279, protocol version ${spec.version ?? OUTPUTS_VERSION}).

The client reads MCP_CONFORMANCE_CONTEXT: call \`${TOOL}\` in execution mode \`${spec.mode}\` at
\`protocolVersion\`, advertising \`extensions\`, and append one JSON line
\`{"consumer": "model" | "user" | "program" | "view", "payload": ...}\` per delivery to the file \`deliveries\`.`;
  }

  async start(_ctx: ScenarioContext): Promise<ScenarioUrls> {
    this.fixture = new FixtureServer(this.spec.server);
    this.folder = mkdtempSync(join(tmpdir(), 'sep-3279-client-'));
    const serverUrl = await this.fixture.start();
    return {
      serverUrl,
      protocolVersion: this.spec.version ?? OUTPUTS_VERSION,
      context: {
        tool: TOOL,
        arguments: { query: 'Globex' },
        mode: this.spec.mode,
        extensions: this.spec.extensions ?? {},
        consumers: this.spec.consumers ?? CONSUMERS,
        protocolVersion: this.spec.version ?? OUTPUTS_VERSION,
        deliveries: join(this.folder, 'deliveries.jsonl')
      }
    };
  }

  // The suite calls getChecks() before stop().
  async stop(): Promise<void> {
    await this.fixture?.close();
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
  }

  /** What the client did not do of what the scenario handed it (empty: it did it all). */
  private unmet(record: Record_): string[] {
    const version = this.spec.version ?? OUTPUTS_VERSION;
    const out: string[] = [];
    if (this.spec.requires === 'list') {
      if (
        !record.answered.some(
          (a) => a.method === 'tools/list' && a.version === version
        )
      )
        out.push(
          `precondition: the client never listed the tools at ${version} (tools/list), so nothing it did can be judged`
        );
      return out;
    }
    if (
      !record.answered.some(
        (a) =>
          a.method === 'tools/call' && a.version === version && a.name === TOOL
      )
    ) {
      const seen = record.answered
        .filter((a) => a.method === 'tools/call')
        .map((a) => `${String(a.name)} at ${a.version}`);
      out.push(
        `precondition: the client never called ${TOOL} at ${version}${seen.length ? ` (it called ${seen.join(', ')})` : ' (no tools/call at all)'}, so nothing it did can be judged`
      );
    }
    if (!record.reported)
      out.push(
        'precondition: the client wrote no deliveries file (context.deliveries), so its routing cannot be judged'
      );
    return out;
  }

  getChecks(): ConformanceCheck[] {
    const problems: string[] = [];
    const delivered: Record<string, unknown[]> = Object.fromEntries(
      CONSUMERS.map((c) => [c, []])
    );
    const path = this.folder ? join(this.folder, 'deliveries.jsonl') : '';
    for (const line of existsSync(path)
      ? readFileSync(path, 'utf8').split('\n')
      : []) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line);
        if (!CONSUMERS.includes(entry?.consumer))
          problems.push(
            `a delivery to an unknown consumer: ${line.slice(0, 200)}`
          );
        else delivered[entry.consumer].push(entry.payload);
      } catch {
        problems.push(
          `a delivery line that is not JSON: ${line.slice(0, 200)}`
        );
      }
    }
    const record: Record_ = {
      sent: this.fixture?.received ?? [],
      answered: this.fixture?.answered ?? [],
      delivered,
      reported: existsSync(path)
    };
    const unmet = this.unmet(record);
    const failures = new Map<string, string[]>();
    for (const [id, says, judge] of this.spec.checks) {
      if (!failures.has(id)) failures.set(id, []);
      if (!judge(record)) failures.get(id)!.push(says);
    }
    return [...failures].map(([id, failed]) => {
      // Before the client did what the scenario hands it, no check can pass: a client that
      // never called cannot be said to "never do X".
      const messages = [
        ...unmet,
        ...failed,
        ...problems.map((p) => `deliveries file: ${p}`)
      ];
      return {
        id,
        name: this.spec.id,
        description: `${this.spec.title} [${this.spec.id}]`,
        status:
          messages.length === 0
            ? 'SUCCESS'
            : SHOULD.has(id)
              ? 'WARNING'
              : 'FAILURE',
        timestamp: new Date().toISOString(),
        specReferences: [
          this.spec.version ? SPEC_BACKWARD_COMPATIBILITY : SPEC_ROUTING
        ],
        ...(messages.length ? { errorMessage: messages.join('; ') } : {}),
        details: {
          case: this.spec.id,
          tool: TOOL,
          protocolVersion: this.spec.version ?? OUTPUTS_VERSION,
          calls: record.answered
            .filter((a) => a.method === 'tools/call')
            .map((a) => `${String(a.name)} at ${a.version}`),
          sent: record.sent.length,
          delivered: Object.fromEntries(
            CONSUMERS.map((c) => [c, delivered[c].length])
          )
        }
      };
    });
  }
}

export const sep3279ClientScenarios: Sep3279ClientScenario[] = SPECS.map(
  (s) => new Sep3279ClientScenario(s)
);
