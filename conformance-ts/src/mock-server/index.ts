// Stand-in for the suite's src/mock-server/index.ts: the ScenarioContext a client scenario
// receives. The SEP-3279 client scenarios serve 2026-12-01, which the suite's mock servers do
// not know yet, from their own http server, so they use only `specVersion`.
export interface ScenarioContext {
  specVersion: string;
}
