// Stand-in for @modelcontextprotocol/conformance's src/types.ts: only the names the SEP-3279
// scenarios import, with the same shapes, so that they type-check and run here. The runner's
// own file; a pull request drops in src/scenarios/** and src/seps/sep-3279.yaml, not this.
import type { RunContext } from './connection';
import type { ScenarioContext } from './mock-server';

export type CheckStatus =
  | 'SUCCESS'
  | 'FAILURE'
  | 'WARNING'
  | 'SKIPPED'
  | 'INFO';

export interface SpecReference {
  id: string;
  url?: string;
}

export const DRAFT_PROTOCOL_VERSION = '2026-07-28';

/**
 * Spec revisions after the draft that scenarios already target (a SEP accepted for a later
 * revision). Off the `--spec-version` timeline, as extensions are, until the draft reaches them.
 * The pull request adds this to the suite's src/types.ts (conformance-ts/pr/suite.patch).
 */
export const NEXT_PROTOCOL_VERSIONS = ['2026-12-01'] as const;
export type NextProtocolVersion = (typeof NEXT_PROTOCOL_VERSIONS)[number];

export type ScenarioSource =
  | { introducedIn: string; removedIn?: string }
  | { extensionId: string }
  | { targetRevision: NextProtocolVersion };

export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: CheckStatus;
  timestamp: string;
  specReferences?: SpecReference[];
  details?: Record<string, unknown>;
  errorMessage?: string;
}

export interface ClientScenario {
  name: string;
  description: string;
  source: ScenarioSource;
  run(ctx: RunContext): Promise<ConformanceCheck[]>;
}

export interface ScenarioUrls {
  serverUrl: string;
  /**
   * The protocol version the client is to speak (MCP_CONFORMANCE_PROTOCOL_VERSION), when the
   * scenario decides it; else the runner's spec version. Added by the pull request.
   */
  protocolVersion?: string;
  context?: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  description: string;
  source: ScenarioSource;
  allowClientError?: boolean;
  start(ctx: ScenarioContext): Promise<ScenarioUrls>;
  stop(): Promise<void>;
  getChecks(): ConformanceCheck[];
}
