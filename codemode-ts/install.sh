#!/usr/bin/env bash
# Install codemode-ts's packages exactly as package-lock.json pins them (npm ci): @cloudflare/codemode, the official
# MCP SDK it runs on (with zod and @cfworker/json-schema, its peers), and typescript (tsc checks a program first).
# Run with tests/outside's Node 22 on PATH (make test does); npm's cache makes a reinstall offline.
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls (scripts/npm_locked.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
source ../scripts/npm_locked.sh
if lock_installed; then
    echo "codemode-ts: packages up to date"
    exit 0
fi
lock_need_npm codemode-ts/install.sh "tests/outside/install.sh needs it too"
echo "codemode-ts: npm ci (@cloudflare/codemode, @modelcontextprotocol/sdk, typescript) ..."
lock_npm_ci
lock_done codemode-ts/install.sh @cloudflare/codemode/dist/mcp.js @modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js typescript/bin/tsc
echo "codemode-ts: installed"
