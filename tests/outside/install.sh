#!/usr/bin/env bash
# Install the Node side of tests/outside exactly as package-lock.json pins it (npm ci):
# Node 22 (the `node` package), @modelcontextprotocol/sdk, @modelcontextprotocol/conformance,
# @modelcontextprotocol/inspector and jsonpath-rfc9535 (the vectors' queries replayed in JavaScript).
# Needs only npm (any Node >= 18 ships one) and the npm registry. `make test` runs it.
#
# npm ci wipes and refills node_modules, so a stamp (the lockfile's hash) skips the ~10 s
# reinstall when nothing changed. FORCE=1 reinstalls anyway.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

stamp="node_modules/.installed-from-lock"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"

healthy() {
    [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] || return 1
    node_modules/.bin/node -e 'process.exit(process.versions.node.split(".")[0] >= 22 ? 0 : 1)' 2>/dev/null
}

if [[ "${FORCE:-}" != "1" ]] && healthy; then
    echo "tests/outside: Node deps up to date ($(node_modules/.bin/node --version))"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "tests/outside/install.sh: npm not found. The outside tests need npm (it comes with any Node >= 18," >&2
    echo "e.g. apt-get install nodejs npm) to install Node 22 and the pinned MCP packages from the npm registry." >&2
    exit 1
fi

echo "tests/outside: npm ci (Node 22, @modelcontextprotocol/sdk, /conformance, /inspector) ..."
# --ignore-scripts=false: the `node` package fetches its platform binary in a preinstall
# script (allowed by name and version in package.json "allowScripts").
npm ci --no-audit --no-fund --loglevel=error --ignore-scripts=false

version="$(node_modules/.bin/node --version)"
case "$version" in
    v2[2-9].*|v[3-9][0-9].*) ;;
    *) echo "tests/outside/install.sh: node_modules/.bin/node is $version, expected Node 22 or newer" >&2; exit 1 ;;
esac
for entry in conformance-stable/dist/index.js conformance-next/dist/index.js @modelcontextprotocol/sdk/dist/esm/client/index.js \
             jsonpath-rfc9535/dist/esm/index.js; do
    [[ -f "node_modules/$entry" ]] || { echo "tests/outside/install.sh: node_modules/$entry missing after npm ci" >&2; exit 1; }
done
echo "$want" > "$stamp"
echo "tests/outside: installed, Node $version"
