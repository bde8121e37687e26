/**
 * SEP-3279 server scenarios: each passes against the everything-server's
 * test_variants_* fixtures and fails against a deliberately broken variant of
 * them (examples/servers/typescript/sep-3279-broken-server.ts), under the check
 * id of the rule the variant breaks and no other.
 */
import { spawn, ChildProcess } from 'child_process';
import { createServer } from 'net';
import path from 'path';
import type { ConformanceCheck } from '../../../types';
import { testContext } from '../../../connection/testing';
import type { ClientScenario } from '../../../types';
import { Sep3279BackwardCompatibilityScenario } from './backcompat';
import { Sep3279ToolDeclarationsScenario } from './declarations';
import { TOOL_CALLS_ENV } from './cases';
import { Sep3279OutputSelectionScenario } from './selection';
import { OUTPUTS_VERSION } from './wire';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function start(script: string, port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const proc = spawn('npx', ['tsx', path.join(process.cwd(), script)], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
      // Its own process group, so that stop() ends npx and the server it runs.
      detached: process.platform !== 'win32'
    });
    let stderr = '';
    proc.stderr?.on('data', (d) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${script} did not start within 30s: ${stderr}`));
    }, 30000);
    proc.stdout?.on('data', (d) => {
      if (d.toString().includes('running on')) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function stop(proc: ChildProcess | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!proc || proc.exitCode !== null) return resolve();
    const timer = setTimeout(() => {
      if (process.platform === 'win32' || proc.pid === undefined)
        proc.kill('SIGKILL');
      else process.kill(-proc.pid, 'SIGKILL');
      resolve();
    }, 5000);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (process.platform === 'win32' || proc.pid === undefined)
      proc.kill('SIGTERM');
    else process.kill(-proc.pid, 'SIGTERM');
  });
}

const run = (scenario: ClientScenario, url: string) =>
  scenario.run(testContext(url));

/** `scenario` run with MCP_CONFORMANCE_TOOL_CALLS `toolCalls`, as `server --tool-calls` sets it. */
async function runWith(
  toolCalls: Record<string, unknown>,
  scenario: ClientScenario,
  url: string
): Promise<ConformanceCheck[]> {
  const before = process.env[TOOL_CALLS_ENV];
  process.env[TOOL_CALLS_ENV] = JSON.stringify(toolCalls);
  try {
    return await run(scenario, url);
  } finally {
    if (before === undefined) delete process.env[TOOL_CALLS_ENV];
    else process.env[TOOL_CALLS_ENV] = before;
  }
}

/** `scenario` run with `calls` named. */
const runNaming = (
  calls: Record<string, Record<string, unknown>>,
  scenario: ClientScenario,
  url: string
) => runWith({ calls, errorCalls: {} }, scenario, url);

/** `scenario` run with `established` named. */
const runEstablished = (
  established: string[],
  scenario: ClientScenario,
  url: string
) => runWith({ established }, scenario, url);

const REPEAT_WORDS = 'succeeded on its';

/** The status of `id` in `caseId` (the check's details.case). */
function statusOf(
  checks: ConformanceCheck[],
  caseId: string,
  id: string
): string | undefined {
  return checks.find((c) => c.details?.case === caseId && c.id === id)?.status;
}

describe('SEP-3279 server scenarios', () => {
  describe('against the everything-server', () => {
    let server: ChildProcess | undefined;
    let url = '';

    beforeAll(async () => {
      const port = await freePort();
      url = `http://localhost:${port}/mcp`;
      server = await start(
        'examples/servers/typescript/everything-server.ts',
        port
      );
    }, 35000);

    afterAll(() => stop(server));

    for (const scenario of [
      new Sep3279ToolDeclarationsScenario(),
      new Sep3279OutputSelectionScenario(),
      new Sep3279BackwardCompatibilityScenario()
    ]) {
      it(`${scenario.name}: every check passes, none skipped`, async () => {
        const checks = await run(scenario, url);
        expect(checks.length).toBeGreaterThan(0);
        expect(
          checks.filter((c) => c.status !== 'SUCCESS').map((c) => c.id)
        ).toEqual([]);
        expect(scenario.source).toEqual({ targetRevision: OUTPUTS_VERSION });
      }, 60000);
    }

    it('a named read-only call, made in every case it fits, passes every check and says nothing of repeats', async () => {
      const checks = await runNaming(
        { test_variants_all: {} },
        new Sep3279OutputSelectionScenario(),
        url
      );
      expect(
        checks.filter((c) => c.status !== 'SUCCESS').map((c) => c.id)
      ).toEqual([]);
      const calls = checks.flatMap(
        (c) => (c.details?.calls as { tool?: string; resent?: true }[]) ?? []
      );
      expect(
        calls.filter((call) => call.tool === 'test_variants_all').length
      ).toBeGreaterThan(5);
      expect(calls.some((call) => call.resent)).toBe(false);
    }, 60000);

    it('records the tool and version of every call it made', async () => {
      const checks = await run(new Sep3279OutputSelectionScenario(), url);
      const calls = checks
        .flatMap(
          (c) => (c.details?.calls as { method: string; tool?: string }[]) ?? []
        )
        .filter((call) => call.method === 'tools/call');
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call).toMatchObject({ protocolVersion: expect.any(String) });
        expect(String(call.tool)).toMatch(/^test_variants_/);
      }
    }, 60000);
  });

  describe('against deliberately broken fixtures', () => {
    let server: ChildProcess | undefined;
    let port = 0;
    const at = (breakage: string) => `http://localhost:${port}/${breakage}/mcp`;

    beforeAll(async () => {
      port = await freePort();
      server = await start(
        'examples/servers/typescript/sep-3279-broken-server.ts',
        port
      );
    }, 35000);

    afterAll(() => stop(server));

    it('a tool that fails on every call is a FAILURE with the server’s message, never a skip', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('failing-tools')
      );
      const one = checks.find(
        (c) =>
          c.details?.case === 'plan-01-conversational' &&
          c.id === 'sep-3279-server-one-output-per-selector'
      );
      expect(one?.status).toBe('FAILURE');
      expect(one?.errorMessage).toContain('always fails');
      expect(one?.errorMessage).toContain(`at ${OUTPUTS_VERSION}`);
      expect(one?.errorMessage).not.toContain(REPEAT_WORDS);
      expect(checks.some((c) => c.status === 'SKIPPED')).toBe(false);
    }, 60000);

    it('a named call that succeeds once and fails when repeated still fails, and says its first request fails now too', async () => {
      const checks = await runNaming(
        { test_variants_all: {} },
        new Sep3279OutputSelectionScenario(),
        at('fails-when-repeated')
      );
      const needed =
        'the call the case needs to succeed failed (isError: true)';
      const named = checks.filter(
        (c) =>
          c.errorMessage?.startsWith(`${needed}: test_variants_all`) ?? false
      );
      expect(named.length).toBeGreaterThan(0);
      expect(named.every((c) => c.status === 'FAILURE')).toBe(true);
      const said =
        'test_variants_all succeeded on its 1st call in this run, with the same arguments, and failed on ' +
        'this one, its 2nd; that first request, sent again, fails now too (isError: true: "test_variants_all ' +
        'already ran once and fails when called again (on purpose)"): the tool\'s first call changed what a ' +
        'repeat finds';
      expect(named[0].errorMessage).toContain(said);
      expect(named[0].errorMessage).toContain(
        'Name a call that succeeds every time (a read-only tool, or arguments a repeat does not change)'
      );
      for (const check of named) {
        expect(check.errorMessage).toMatch(
          /; test_variants_all succeeded on its 1st call .*; the server said: .*already ran once/
        );
        expect(check.details?.failedWhenRepeated).toMatchObject({
          tool: 'test_variants_all',
          arguments: {},
          firstSucceeded: 1,
          call: expect.any(Number)
        });
      }
      // The first request was sent again once, in the case whose call first failed.
      const callsByCase = new Map(
        checks.map((c) => [
          c.details?.case,
          (c.details?.calls as { resent?: true; outcome: string }[]) ?? []
        ])
      );
      const resent = [...callsByCase.values()]
        .flat()
        .filter((call) => call.resent);
      expect(resent).toEqual([
        expect.objectContaining({
          tool: 'test_variants_all',
          outcome: 'isError'
        })
      ]);
      // A tool the suite chose itself (not named) fails the same way, with the server's words alone.
      const chosen = checks.filter(
        (c) =>
          c.errorMessage?.startsWith(`${needed}: test_variants_app_only`) ??
          false
      );
      expect(chosen.length).toBeGreaterThan(0);
      for (const check of chosen) {
        expect(check.status).toBe('FAILURE');
        expect(check.errorMessage).not.toContain(REPEAT_WORDS);
      }
    }, 60000);

    it('an unrequested output fails no-unrequested-output, not the schema check of the same case', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('unrequested-output')
      );
      expect(
        statusOf(
          checks,
          'plan-02-code-mode',
          'sep-3279-server-no-unrequested-output'
        )
      ).toBe('FAILURE');
      expect(
        statusOf(
          checks,
          'plan-02-code-mode',
          'sep-3279-server-validates-each-structured-output'
        )
      ).toBe('SUCCESS');
    }, 60000);

    it('legacy fields in a 2026-12-01 result fail result-has-outputs', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('legacy-fields-at-2026-12-01')
      );
      expect(
        statusOf(
          checks,
          'must-result-shape-2026-12-01',
          'sep-3279-result-has-outputs'
        )
      ).toBe('FAILURE');
    }, 60000);

    it('a relabelled audience fails output-matches-selector, not the count checks of the same case', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('relabelled-audience')
      );
      const of = (id: string) => statusOf(checks, 'plan-04-user-media', id);
      expect(of('sep-3279-server-output-matches-selector')).toBe('FAILURE');
      expect(of('sep-3279-server-one-output-per-selector')).toBe('SUCCESS');
      expect(of('sep-3279-server-no-unrequested-output')).toBe('SUCCESS');
    }, 60000);

    it('an invalid structured output fails the schema check', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('invalid-structured-output')
      );
      expect(
        statusOf(
          checks,
          'plan-02-code-mode',
          'sep-3279-server-validates-each-structured-output'
        )
      ).toBe('FAILURE');
      expect(
        statusOf(
          checks,
          'plan-02-code-mode',
          'sep-3279-server-no-unrequested-output'
        )
      ).toBe('SUCCESS');
    }, 60000);

    it('a substituted selector fails the rejection checks', async () => {
      const checks = await run(
        new Sep3279OutputSelectionScenario(),
        at('substituted-selector')
      );
      for (const id of [
        'sep-3279-server-rejects-undeclared-or-unnegotiated-selector',
        'sep-3279-server-no-silent-substitution'
      ])
        expect(statusOf(checks, 'plan-10a-undeclared-selector', id)).toBe(
          'FAILURE'
        );
    }, 60000);

    it('a tool without outputVariants fails the declaration scenario', async () => {
      const checks = await run(
        new Sep3279ToolDeclarationsScenario(),
        at('no-output-variants')
      );
      expect(
        statusOf(
          checks,
          'must-outputvariants-on-every-tool',
          'sep-3279-version-determines-shapes'
        )
      ).toBe('FAILURE');
    }, 60000);

    it('a ui variant listed without the extension negotiated fails', async () => {
      const checks = await run(
        new Sep3279ToolDeclarationsScenario(),
        at('unnegotiated-ui-variant')
      );
      expect(
        statusOf(
          checks,
          'must-no-unnegotiated-extension-audience',
          'sep-3279-server-no-unnegotiated-extension-variant'
        )
      ).toBe('FAILURE');
    }, 60000);

    it('a ui variant listed while the Apps extension is not served fails', async () => {
      const checks = await run(
        new Sep3279ToolDeclarationsScenario(),
        at('ui-extension-not-served')
      );
      const check = checks.find(
        (c) =>
          c.details?.case === 'must-no-unnegotiated-extension-audience' &&
          c.id === 'sep-3279-server-no-unnegotiated-extension-variant'
      );
      expect(check?.status).toBe('FAILURE');
      expect(check?.errorMessage).toContain('server/discover advertises');
      expect(check?.errorMessage).toContain('can be read');
    }, 60000);

    describe('a legacy outputSchema that is the programmatic schema', () => {
      const MUST_CASE = 'must-legacy-outputschema-not-from-other-audiences';
      const MUST_ID =
        'sep-3279-server-legacy-outputschema-not-from-other-audiences';
      const SHOULD_CASE =
        'should-legacy-outputschema-from-assistant-structured';
      const SHOULD_ID =
        'sep-3279-server-legacy-outputschema-from-assistant-structured';
      const find = (checks: ConformanceCheck[], caseId: string, id: string) =>
        checks.find((c) => c.details?.case === caseId && c.id === id);

      it('fails the MUST for a new tool, saying how to name a migrated one established', async () => {
        const checks = await run(
          new Sep3279BackwardCompatibilityScenario(),
          at('legacy-programmatic-schema')
        );
        const must = find(checks, MUST_CASE, MUST_ID);
        expect(must?.status).toBe('FAILURE');
        expect(must?.errorMessage).toContain(
          'SEP-3279 forbids this for a new tool; if test_variants_all already had this outputSchema before it ' +
            'declared variants, a migrated tool keeping its established shape, name it established ' +
            '("established": ["test_variants_all"] in MCP_CONFORMANCE_TOOL_CALLS)'
        );
        expect(must?.details?.exempted).toBeUndefined();
        expect(find(checks, SHOULD_CASE, SHOULD_ID)?.status).toBe('WARNING');
      }, 60000);

      it('passes both rules for the tools named established, and names them', async () => {
        const checks = await runEstablished(
          ['test_variants_all', 'test_variants_error'],
          new Sep3279BackwardCompatibilityScenario(),
          at('legacy-programmatic-schema')
        );
        for (const [caseId, id] of [
          [MUST_CASE, MUST_ID],
          [SHOULD_CASE, SHOULD_ID]
        ]) {
          const check = find(checks, caseId, id);
          expect(check?.status).toBe('SUCCESS');
          expect(check?.details?.exempted).toMatchObject({
            tools: ['test_variants_all', 'test_variants_error'],
            why: expect.stringContaining(
              'SEP-3279 says a server SHOULD preserve'
            )
          });
          expect(check?.description).toContain(
            'not judged: test_variants_all, test_variants_error, named established'
          );
        }
      }, 60000);

      it('a tool named established does not exempt another', async () => {
        const checks = await runEstablished(
          ['test_variants_error'],
          new Sep3279BackwardCompatibilityScenario(),
          at('legacy-programmatic-schema')
        );
        const must = find(checks, MUST_CASE, MUST_ID);
        expect(must?.status).toBe('FAILURE');
        expect(must?.errorMessage).toContain('test_variants_all:');
        expect(must?.errorMessage).not.toContain('test_variants_error:');
        expect(must?.details?.exempted).toMatchObject({
          tools: ['test_variants_error']
        });
      }, 60000);

      it('an established name the server does not list fails the case', async () => {
        const checks = await runEstablished(
          ['test_variants_al'],
          new Sep3279BackwardCompatibilityScenario(),
          at('legacy-programmatic-schema')
        );
        expect(find(checks, MUST_CASE, MUST_ID)?.errorMessage).toContain(
          'established test_variants_al: the server has no such tool'
        );
      }, 60000);
    });

    it('outputs answered to a 2026-07-28 request fail backward compatibility', async () => {
      const checks = await run(
        new Sep3279BackwardCompatibilityScenario(),
        at('outputs-for-old-clients')
      );
      expect(
        statusOf(
          checks,
          'must-requestedoutputs-at-2026-07-28-never-yields-outputs',
          'sep-3279-server-no-outputs-for-old-clients'
        )
      ).toBe('FAILURE');
    }, 60000);
  });
});
