/**
 * A small runner with the suite's scenario interfaces, for the SEP-3279 scenarios only.
 *
 *   tsx runner/run.ts server --url http://127.0.0.1:3000/mcp [--call TOOL=JSON ...]
 *       [--error-call TOOL=JSON ...] [--established TOOL ...] [--scenario NAME ...] [-o DIR]
 *   tsx runner/run.ts client --command "CLIENT ARGS" [--scenario NAME ...] [-o DIR]
 *
 * server: `scenario.run({serverUrl, specVersion})` for each server scenario, as the suite's
 * `server` command does. `--call TOOL=JSON` names a call the cases may make (a tool that needs
 * arguments, or is not read-only: naming it is consent), `--error-call TOOL=JSON` one that fails
 * as a tool error, `--established TOOL` a tool that served older clients before it declared variants
 * (its legacy outputSchema kept); all reach the scenarios as MCP_CONFORMANCE_TOOL_CALLS, as the suite's
 * `server --tool-calls` option does. client: for each client scenario, `start()`, the client command run
 * with the fixture's URL as its last argument and MCP_CONFORMANCE_SCENARIO and
 * MCP_CONFORMANCE_CONTEXT in its environment (as the suite's `client` command does; also
 * MCP_CONFORMANCE_PROTOCOL_VERSION, the version the scenario speaks: its targetRevision), `stop()`,
 * `getChecks()`.
 *
 * Prints one JSON object: {scenario name: ConformanceCheck[]}. With -o, also writes
 * DIR/[server-]<scenario>-<time>/checks.json, the suite's results layout. Exit status: 1 when
 * any check is FAILURE or WARNING (the suite's CI reading), 2 on a usage error, else 0.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sep3279ClientScenarios } from '../src/scenarios/client/sep-3279/index';
import { sep3279ServerScenarios } from '../src/scenarios/server/sep-3279/index';
import { TOOL_CALLS_ENV } from '../src/scenarios/server/sep-3279/cases';
import {
  DRAFT_PROTOCOL_VERSION,
  type ConformanceCheck,
  type ScenarioSource
} from '../src/types';

const CLIENT_TIMEOUT_MS = 30000;

function usage(message: string): never {
  process.stderr.write(
    `run.ts: ${message}\nusage: tsx runner/run.ts server --url URL [--call TOOL=JSON ...] [--error-call TOOL=JSON ...] [--established TOOL ...] | client --command CMD [--scenario NAME ...] [-o DIR]\n`
  );
  process.exit(2);
}

const [mode, ...args] = process.argv.slice(2);
if (mode !== 'server' && mode !== 'client')
  usage('the first argument is server or client');
let url: string | undefined;
let command: string | undefined;
let outDir: string | undefined;
const wanted: string[] = [];
const toolCalls = {
  calls: {} as Record<string, unknown>,
  errorCalls: {} as Record<string, unknown>,
  established: [] as string[]
};
/** TOOL=JSON (the arguments, an object; TOOL alone: `{}`). */
function namedCall(option: string, text: string): [string, unknown] {
  const at = text.indexOf('=');
  const name = at < 0 ? text : text.slice(0, at);
  let args: unknown = {};
  try {
    if (at >= 0) args = JSON.parse(text.slice(at + 1));
  } catch (error) {
    usage(`${option} ${text}: the arguments are not JSON (${String(error)})`);
  }
  if (!name || typeof args !== 'object' || args === null || Array.isArray(args))
    usage(`${option} ${text}: expected TOOL=JSON, the arguments an object`);
  return [name, args];
}
for (let i = 0; i < args.length; i++) {
  const value = args[i + 1];
  if (args[i] === '--url' && value) url = args[++i];
  else if (args[i] === '--call' && value) {
    const [name, a] = namedCall('--call', args[++i]);
    toolCalls.calls[name] = a;
  } else if (args[i] === '--error-call' && value) {
    const [name, a] = namedCall('--error-call', args[++i]);
    toolCalls.errorCalls[name] = a;
  } else if (args[i] === '--established' && value)
    toolCalls.established.push(args[++i]);
  else if (args[i] === '--command' && value) command = args[++i];
  else if (args[i] === '--scenario' && value) wanted.push(args[++i]);
  else if ((args[i] === '-o' || args[i] === '--output-dir') && value)
    outDir = args[++i];
  else usage(`unexpected argument ${args[i]}`);
}
if (mode === 'server' && !url) usage('server needs --url');
if (mode === 'client' && !command) usage('client needs --command');
const known: string[] = (
  mode === 'server' ? sep3279ServerScenarios : sep3279ClientScenarios
).map((s) => s.name);
for (const name of wanted)
  if (!known.includes(name))
    usage(`no scenario ${name}; known: ${known.join(', ')}`);
const chosen = (name: string) => wanted.length === 0 || wanted.includes(name);

/** The client command (a shell command line) with the URL appended; resolves when it exits or is killed. */
function runClient(url: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(`${command} ${url}`, {
      shell: true,
      stdio: ['ignore', 2, 2],
      env: { ...process.env, ...env }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CLIENT_TIMEOUT_MS);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const results: Record<string, ConformanceCheck[]> = {};
/** The version a scenario speaks: its target revision, else the draft (what the suite infers). */
const speaks = (source: ScenarioSource): string =>
  'targetRevision' in source ? source.targetRevision : DRAFT_PROTOCOL_VERSION;

if (mode === 'server') {
  process.env[TOOL_CALLS_ENV] = JSON.stringify(toolCalls);
  for (const scenario of sep3279ServerScenarios.filter((s) => chosen(s.name))) {
    results[scenario.name] = await scenario.run({
      serverUrl: url!,
      specVersion: speaks(scenario.source)
    });
  }
} else {
  for (const scenario of sep3279ClientScenarios.filter((s) => chosen(s.name))) {
    const urls = await scenario.start({ specVersion: speaks(scenario.source) });
    try {
      const context = urls.context ?? {};
      await runClient(urls.serverUrl, {
        MCP_CONFORMANCE_SCENARIO: scenario.name,
        // The scenario's name in the context, as the suite's runner puts it.
        MCP_CONFORMANCE_CONTEXT: JSON.stringify({
          name: scenario.name,
          ...context
        }),
        MCP_CONFORMANCE_PROTOCOL_VERSION:
          urls.protocolVersion ?? speaks(scenario.source)
      });
      results[scenario.name] = scenario.getChecks();
    } finally {
      await scenario.stop();
    }
  }
}
if (outDir) {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (const [name, checks] of Object.entries(results)) {
    const dir = join(
      outDir,
      `${mode === 'server' ? 'server-' : ''}${name}-${stamp}`
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'checks.json'),
      JSON.stringify(checks, null, 2) + '\n'
    );
  }
}
process.stdout.write(JSON.stringify(results, null, 2) + '\n');
const bad = Object.values(results)
  .flat()
  .some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
// exitCode, not exit(): a piped stdout is written asynchronously and exit() would cut it.
process.exitCode = bad ? 1 : 0;
