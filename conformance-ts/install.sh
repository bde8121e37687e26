#!/usr/bin/env bash
# Install conformance-ts's packages exactly as package-lock.json pins them (npm ci): tsx (runs the
# TypeScript scenarios with tests/outside's Node 22) and ajv (JSON Schema 2020-12, as the suite uses).
# A stamp (the lockfile's hash) skips the reinstall when nothing changed; FORCE=1 reinstalls.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
stamp="node_modules/.installed-from-lock"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ "${FORCE:-}" != "1" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "conformance-ts: packages up to date"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "conformance-ts/install.sh: npm not found (tests/outside/install.sh needs it too)" >&2; exit 1; }
echo "conformance-ts: npm ci (tsx, ajv) ..."
npm ci --no-audit --no-fund --loglevel=error
[[ -f node_modules/tsx/dist/cli.mjs && -f node_modules/ajv/dist/2020.js ]] || { echo "conformance-ts/install.sh: tsx or ajv missing after npm ci" >&2; exit 1; }
echo "$want" > "$stamp"
echo "conformance-ts: installed"
