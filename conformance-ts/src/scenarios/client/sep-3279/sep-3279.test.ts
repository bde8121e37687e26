/**
 * SEP-3279 client scenarios: the everything-client's handler passes every one;
 * a client that does nothing, one that crashes, and one that hands a user
 * output to the model each fail (the last under the id of that rule alone).
 */
import { appendFileSync } from 'fs';
import { describe, it, expect } from 'vitest';
import type { ConformanceCheck } from '../../../types';
import { testScenarioContext } from '../../../mock-server/testing';
import { getHandler } from '../../../../examples/clients/typescript/everything-client';
import { CANARY } from './fixture';
import { sep3279ClientScenarios } from './scenarios';

const names = sep3279ClientScenarios.map((s) => s.name);

/** As the runner does: start, the client with the context in its environment, checks, stop. */
async function runInline(
  name: string,
  client: (url: string) => Promise<void>
): Promise<{ checks: ConformanceCheck[]; error?: unknown }> {
  const scenario = sep3279ClientScenarios.find((s) => s.name === name)!;
  const urls = await scenario.start(testScenarioContext());
  try {
    process.env.MCP_CONFORMANCE_SCENARIO = name;
    process.env.MCP_CONFORMANCE_PROTOCOL_VERSION = urls.protocolVersion;
    process.env.MCP_CONFORMANCE_CONTEXT = JSON.stringify({
      name,
      ...urls.context
    });
    const error = await client(urls.serverUrl).then(
      () => undefined,
      (e: unknown) => e ?? 'error'
    );
    return { checks: scenario.getChecks(), error };
  } finally {
    delete process.env.MCP_CONFORMANCE_SCENARIO;
    delete process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
    delete process.env.MCP_CONFORMANCE_CONTEXT;
    await scenario.stop();
  }
}
const passing = (checks: { status: string }[]) =>
  checks.filter((c) => c.status === 'SUCCESS').length;

describe('SEP-3279 client scenarios', () => {
  for (const name of names) {
    it(`${name}: the everything-client passes every check`, async () => {
      const handler = getHandler(name);
      expect(handler, `no everything-client handler for ${name}`).toBeDefined();
      const { checks, error } = await runInline(name, handler!);
      // A client error only where refusing is right (the scenario allows it).
      if (
        !sep3279ClientScenarios.find((s) => s.name === name)!.allowClientError
      )
        expect(error).toBeUndefined();
      expect(checks.length).toBeGreaterThan(0);
      for (const check of checks)
        expect(check.status, `${check.id}: ${check.errorMessage}`).toBe(
          'SUCCESS'
        );
    });

    it(`${name}: a client that does nothing passes no check`, async () => {
      const { checks } = await runInline(name, async () => {});
      expect(checks.length).toBeGreaterThan(0);
      expect(passing(checks)).toBe(0);
    });

    it(`${name}: a client that crashes passes no check`, async () => {
      const { checks, error } = await runInline(name, async () => {
        throw new Error('Unknown scenario');
      });
      expect(error).toBeDefined();
      expect(passing(checks)).toBe(0);
    });
  }

  it('the client tells the version the scenario speaks, not the draft', async () => {
    for (const scenario of sep3279ClientScenarios) {
      expect(scenario.source).toEqual({ targetRevision: '2026-12-01' });
    }
    const scenario = sep3279ClientScenarios.find(
      (s) => s.name === 'sep-3279-client-code-mode'
    )!;
    const urls = await scenario.start({ specVersion: '2026-07-28' } as never);
    try {
      expect(urls.protocolVersion).toBe('2026-12-01');
    } finally {
      await scenario.stop();
    }
  });

  it('a client that hands a user output to the model fails that rule alone', async () => {
    const name = 'sep-3279-client-user-display';
    const handler = getHandler(name)!;
    const { checks } = await runInline(name, async (url) => {
      await handler(url);
      const { deliveries } = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT!);
      appendFileSync(
        deliveries,
        JSON.stringify({ consumer: 'model', payload: CANARY.user }) + '\n'
      );
    });
    const failed = checks
      .filter((c) => c.status !== 'SUCCESS')
      .map((c) => c.id);
    expect(failed).toEqual(['sep-3279-client-user-output-not-in-model']);
  });
});
