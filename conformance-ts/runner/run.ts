/**
 * A small runner with the suite's scenario interfaces, for the SEP-3279 scenarios only.
 *
 *   tsx runner/run.ts server --url http://127.0.0.1:3000/mcp [--scenario NAME ...] [-o DIR]
 *   tsx runner/run.ts client --command "CLIENT ARGS" [--scenario NAME ...] [-o DIR]
 *
 * server: `scenario.run({serverUrl, specVersion})` for each server scenario, as the suite's
 * `server` command does. client: for each client scenario, `start()`, the client command run
 * with the fixture's URL as its last argument and MCP_CONFORMANCE_SCENARIO and
 * MCP_CONFORMANCE_CONTEXT in its environment (as the suite's `client` command does; also
 * MCP_CONFORMANCE_PROTOCOL_VERSION, which the suite sets from its --spec-version, here from the
 * scenario's context), `stop()`, `getChecks()`.
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
import { DRAFT_PROTOCOL_VERSION, type ConformanceCheck } from '../src/types';

const CLIENT_TIMEOUT_MS = 30000;

function usage(message: string): never {
  process.stderr.write(
    `run.ts: ${message}\nusage: tsx runner/run.ts server --url URL | client --command CMD [--scenario NAME ...] [-o DIR]\n`
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
for (let i = 0; i < args.length; i++) {
  const value = args[i + 1];
  if (args[i] === '--url' && value) url = args[++i];
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
if (mode === 'server') {
  for (const scenario of sep3279ServerScenarios.filter((s) => chosen(s.name))) {
    results[scenario.name] = await scenario.run({
      serverUrl: url!,
      specVersion: DRAFT_PROTOCOL_VERSION
    });
  }
} else {
  for (const scenario of sep3279ClientScenarios.filter((s) => chosen(s.name))) {
    const urls = await scenario.start({ specVersion: DRAFT_PROTOCOL_VERSION });
    try {
      const context = urls.context ?? {};
      await runClient(urls.serverUrl, {
        MCP_CONFORMANCE_SCENARIO: scenario.name,
        MCP_CONFORMANCE_CONTEXT: JSON.stringify(context),
        MCP_CONFORMANCE_PROTOCOL_VERSION: String(
          context.protocolVersion ?? DRAFT_PROTOCOL_VERSION
        )
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
