#!/usr/bin/env bash
# Install apps/'s npm packages exactly as package-lock.json pins them (npm ci --ignore-scripts:
# none of them needs an install script; esbuild and TypeScript find their platform binaries
# in optional dependencies). Needs npm and the npm registry. `make test` runs it.
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls (scripts/npm_locked.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
source ../scripts/npm_locked.sh
if lock_installed; then
    exit 0
fi
lock_need_npm apps/install.sh "building the MCP App views needs npm (any Node >= 18)."
echo "apps: npm ci (@modelcontextprotocol/ext-apps, esbuild, typescript, playwright-core) ..."
lock_npm_ci --ignore-scripts
lock_done apps/install.sh
