#!/usr/bin/env bash
# Install the Node side of tests/outside exactly as package-lock.json pins it (npm ci):
# Node 22 (the `node` package), @modelcontextprotocol/sdk, @modelcontextprotocol/conformance,
# @modelcontextprotocol/inspector and jsonpath-rfc9535 (the vectors' queries replayed in JavaScript).
# Needs only npm (any Node >= 18 ships one) and the npm registry. `make test` runs it.
#
# npm ci wipes and refills node_modules, so a stamp (the lockfile's hash) skips the ~10 s
# reinstall when nothing changed. FORCE=1 reinstalls anyway (scripts/npm_locked.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
source ../../scripts/npm_locked.sh

healthy() {
    lock_installed || return 1
    node_modules/.bin/node -e 'process.exit(process.versions.node.split(".")[0] >= 22 ? 0 : 1)' 2>/dev/null
}

if healthy; then
    echo "tests/outside: Node deps up to date ($(node_modules/.bin/node --version))"
    exit 0
fi

lock_need_npm tests/outside/install.sh "the outside tests need npm (it comes with any Node >= 18,
e.g. apt-get install nodejs npm) to install Node 22 and the pinned MCP packages from the npm registry."

echo "tests/outside: npm ci (Node 22, @modelcontextprotocol/sdk, /conformance, /inspector) ..."
# --ignore-scripts=false: the `node` package fetches its platform binary in a preinstall
# script (allowed by name and version in package.json "allowScripts").
lock_npm_ci --ignore-scripts=false

version="$(node_modules/.bin/node --version)"
case "$version" in
    v2[2-9].*|v[3-9][0-9].*) ;;
    *) echo "tests/outside/install.sh: node_modules/.bin/node is $version, expected Node 22 or newer" >&2; exit 1 ;;
esac
lock_done tests/outside/install.sh conformance-stable/dist/index.js conformance-next/dist/index.js \
    @modelcontextprotocol/sdk/dist/esm/client/index.js jsonpath-rfc9535/dist/esm/index.js
echo "tests/outside: installed, Node $version"
