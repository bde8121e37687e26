#!/usr/bin/env bash
# Install configurable-http-proxy (JupyterHub's proxy) exactly as package-lock.json pins it (npm ci),
# for the JupyterHub tests and benchmarks. It runs on the `node` on PATH (any Node >= 18; npm comes
# with it). Needs only the npm registry. `make test` runs it.
#
# A stamp (the lockfile's hash) skips the reinstall when nothing changed. FORCE=1 reinstalls anyway.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

stamp="node_modules/.installed-from-lock"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
proxy="node_modules/.bin/configurable-http-proxy"

if [[ "${FORCE:-}" != "1" && -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$proxy" ]]; then
    echo "tests/jupyterhub: configurable-http-proxy up to date"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "tests/jupyterhub/install.sh: npm not found. The JupyterHub tests need Node >= 18 with npm (apt-get install nodejs npm)." >&2
    exit 1
fi
echo "tests/jupyterhub: npm ci (configurable-http-proxy) ..."
npm ci --no-audit --no-fund --loglevel=error
"$proxy" --version >/dev/null
echo "$want" > "$stamp"
echo "tests/jupyterhub: installed configurable-http-proxy $("$proxy" --version)"
