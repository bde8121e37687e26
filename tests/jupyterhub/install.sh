#!/usr/bin/env bash
# Install configurable-http-proxy (JupyterHub's proxy) exactly as package-lock.json pins it (npm ci),
# for the JupyterHub tests and benchmarks. It runs on the `node` on PATH (any Node >= 18; npm comes
# with it). Needs only the npm registry. `make test` runs it.
#
# A stamp (the lockfile's hash) skips the reinstall when nothing changed. FORCE=1 reinstalls anyway
# (scripts/npm_locked.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
source ../../scripts/npm_locked.sh
proxy="node_modules/.bin/configurable-http-proxy"

if lock_installed && [[ -x "$proxy" ]]; then
    echo "tests/jupyterhub: configurable-http-proxy up to date"
    exit 0
fi
lock_need_npm tests/jupyterhub/install.sh "the JupyterHub tests need Node >= 18 with npm (apt-get install nodejs npm)."
echo "tests/jupyterhub: npm ci (configurable-http-proxy) ..."
lock_npm_ci
"$proxy" --version >/dev/null
lock_done tests/jupyterhub/install.sh
echo "tests/jupyterhub: installed configurable-http-proxy $("$proxy" --version)"
