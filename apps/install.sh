#!/usr/bin/env bash
# Install apps/'s npm packages exactly as package-lock.json pins them (npm ci --ignore-scripts:
# none of them needs an install script; esbuild and TypeScript find their platform binaries
# in optional dependencies). Needs npm and the npm registry. `make test` runs it.
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

stamp="node_modules/.installed-from-lock"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ "${FORCE:-}" != "1" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "apps/install.sh: npm not found; building the MCP App views needs npm (any Node >= 18)." >&2
    exit 1
fi
echo "apps: npm ci (@modelcontextprotocol/ext-apps, esbuild, typescript, playwright-core) ..."
npm ci --no-audit --no-fund --loglevel=error --ignore-scripts
echo "$want" > "$stamp"
