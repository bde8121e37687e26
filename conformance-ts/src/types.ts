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

export type ScenarioSource =
  | { introducedIn: string; removedIn?: string }
  | { extensionId: string };

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
