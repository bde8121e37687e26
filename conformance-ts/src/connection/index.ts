// Stand-in for the suite's src/connection/index.ts: the RunContext a server scenario receives.
// The SEP-3279 scenarios use only `serverUrl` (they speak 2026-12-01, which the suite's
// connections do not know yet, over raw fetch).
export interface RunContext {
  serverUrl: string;
  specVersion: string;
}
