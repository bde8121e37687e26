#!/usr/bin/env bash
# Install conformance-ts's packages exactly as package-lock.json pins them (npm ci): tsx (runs the
# TypeScript scenarios with tests/outside's Node 22) and ajv (JSON Schema 2020-12, as the suite uses).
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls (scripts/npm_locked.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
source ../scripts/npm_locked.sh
if lock_installed; then
    echo "conformance-ts: packages up to date"
    exit 0
fi
lock_need_npm conformance-ts/install.sh "tests/outside/install.sh needs it too"
echo "conformance-ts: npm ci (tsx, ajv) ..."
lock_npm_ci
lock_done conformance-ts/install.sh tsx/dist/cli.mjs ajv/dist/2020.js
echo "conformance-ts: installed"
