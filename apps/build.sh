#!/usr/bin/env bash
# Rebuild the MCP App views from apps/src into src/mcp_variants/apps/views/ (committed files).
#   apps/build.sh              rebuild in place (then commit the result)
#   apps/build.sh --out DIR    build elsewhere (tests/apps compares that with the committed files)
# Reproducible: the output depends only on apps/src, package-lock.json and the pinned esbuild.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/install.sh"
cd "$here"
node_modules/.bin/tsc --noEmit -p .
node build.mjs "$@"
