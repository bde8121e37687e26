/**
 * A small runner with the suite's server-scenario interface: for each SEP-3279 scenario,
 * `scenario.run({serverUrl, specVersion})`, then the checks it returned, as the suite's
 * `server` command gathers them.
 *
 *   tsx runner/run.ts --url http://127.0.0.1:3000/mcp [--scenario NAME ...] [-o DIR]
 *
 * Prints one JSON object: {scenario name: ConformanceCheck[]}. With -o, also writes
 * DIR/server-<scenario>-<time>/checks.json, the suite's results layout. Exit status: 1 when
 * any check is FAILURE or WARNING (the suite's CI reading), 2 on a usage error, else 0.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sep3279ServerScenarios } from '../src/scenarios/server/sep-3279/index';
import { DRAFT_PROTOCOL_VERSION, type ConformanceCheck } from '../src/types';

function usage(message: string): never {
  process.stderr.write(
    `run.ts: ${message}\nusage: tsx runner/run.ts --url URL [--scenario NAME ...] [-o DIR]\n`
  );
  process.exit(2);
}

const args = process.argv.slice(2);
let url: string | undefined;
let outDir: string | undefined;
const wanted: string[] = [];
for (let i = 0; i < args.length; i++) {
  const value = args[i + 1];
  if (args[i] === '--url' && value) url = args[++i];
  else if (args[i] === '--scenario' && value) wanted.push(args[++i]);
  else if ((args[i] === '-o' || args[i] === '--output-dir') && value)
    outDir = args[++i];
  else usage(`unexpected argument ${args[i]}`);
}
if (!url) usage('--url is required');
const known = sep3279ServerScenarios.map((s) => s.name);
for (const name of wanted)
  if (!known.includes(name))
    usage(`no scenario ${name}; known: ${known.join(', ')}`);

const results: Record<string, ConformanceCheck[]> = {};
for (const scenario of sep3279ServerScenarios) {
  if (wanted.length > 0 && !wanted.includes(scenario.name)) continue;
  const checks = await scenario.run({
    serverUrl: url,
    specVersion: DRAFT_PROTOCOL_VERSION
  });
  results[scenario.name] = checks;
  if (outDir) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const dir = join(outDir, `server-${scenario.name}-${stamp}`);
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
