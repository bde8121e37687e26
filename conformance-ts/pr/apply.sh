#!/usr/bin/env bash
# Apply the SEP-3279 pull request to a checkout of @modelcontextprotocol/conformance and, with --ci,
# run that suite's CI sequence on it: npm ci, npm run check (tsgo, eslint, prettier over the whole tree),
# npm run build, npm test (vitest).
#
#   conformance-ts/pr/apply.sh SUITE_DIR [--ci]
#
# SUITE_DIR: a checkout (or `git archive`) of the suite at the commit suite.patch was made on (c321dd3,
# 0.2.0-alpha.11); `git apply --check` refuses any other before anything is written. What is applied:
# - pr/suite.patch: the suite's own files (the targetRevision source and ScenarioUrls.protocolVersion in
#   src/types.ts, registration in src/scenarios/index.ts, the runners telling the client the version a
#   scenario speaks, `server --tool-calls`, the everything-server and everything-client hooks);
# - src/scenarios/{server,client}/sep-3279/ and src/seps/sep-3279.yaml of this folder, as they are;
# - pr/suite/examples/: the everything-server's SEP-3279 fixtures, the broken server of the negative
#   tests, the everything-client's SEP-3279 handler.
# Needs Node >= 22 and npm on PATH (tests/outside/install.sh installs them in tests/outside/node_modules).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
folder="$(dirname "$here")"
suite="${1:?usage: conformance-ts/pr/apply.sh SUITE_DIR [--ci]}"
ci="${2:-}"
[[ -f "$suite/package.json" && -f "$suite/src/scenarios/index.ts" ]] || { echo "apply.sh: $suite is not a checkout of the conformance suite" >&2; exit 2; }
[[ -e "$suite/src/scenarios/server/sep-3279" ]] && { echo "apply.sh: $suite already has the SEP-3279 scenarios" >&2; exit 2; }

(cd "$suite" && git apply --check "$here/suite.patch" && git apply "$here/suite.patch")
for side in server client; do
    mkdir -p "$suite/src/scenarios/$side/sep-3279"
    cp "$folder/src/scenarios/$side/sep-3279/"*.ts "$suite/src/scenarios/$side/sep-3279/"
done
cp "$folder/src/seps/sep-3279.yaml" "$suite/src/seps/sep-3279.yaml"
cp -r "$here/suite/examples/." "$suite/examples/"
echo "apply.sh: the SEP-3279 pull request is applied to $suite"

[[ "$ci" == "--ci" ]] || exit 0
cd "$suite"
echo "apply.sh: node $(node --version), npm $(npm --version)"
step() { echo "== $*"; "$@"; }
step npm ci --no-audit --no-fund --loglevel=error
step npm run check
step npm run build
step npm test
echo "apply.sh: the suite's CI sequence passed"
