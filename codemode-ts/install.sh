#!/usr/bin/env bash
# Install codemode-ts's packages exactly as package-lock.json pins them (npm ci): @cloudflare/codemode, the official
# MCP SDK it runs on (with zod and @cfworker/json-schema, its peers), and typescript (tsc checks a program first).
# Run with tests/outside's Node 22 on PATH (make test does); npm's cache makes a reinstall offline.
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
stamp="node_modules/.installed-from-lock"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ "${FORCE:-}" != "1" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "codemode-ts: packages up to date"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "codemode-ts/install.sh: npm not found (tests/outside/install.sh needs it too)" >&2; exit 1; }
echo "codemode-ts: npm ci (@cloudflare/codemode, @modelcontextprotocol/sdk, typescript) ..."
npm ci --no-audit --no-fund --loglevel=error
for entry in @cloudflare/codemode/dist/mcp.js @modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js typescript/bin/tsc; do
    [[ -f "node_modules/$entry" ]] || { echo "codemode-ts/install.sh: node_modules/$entry missing after npm ci" >&2; exit 1; }
done
echo "$want" > "$stamp"
echo "codemode-ts: installed"
