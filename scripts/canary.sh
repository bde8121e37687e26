#!/usr/bin/env bash
# The canary (make canary; docs/support.md): the sdk distribution (and the whole server, which tests/sdk runs as the
# suite's `mcp-variants check` and as a second server) with the NEWEST releases of mcp, mcp-types, fastmcp and uvicorn
# on PyPI, whatever our ranges allow, and the tests of what reads their behaviour and private names run there. It
# answers "does the next release of a dependency break us?" before a user asks it: run it when one of them releases.
# A maintainer's tool, not part of make test or CI (it installs what is newest today, so its result is not reproducible).
#
# The environment is made anew under .canary/ (git-ignored; CANARY_DIR to put it elsewhere) by uv, with each of the
# four packages as an override: every requirement on it, our upper bounds included, is replaced by the bare name, so
# the resolver takes its newest release. Exit status: pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
DIR=${CANARY_DIR:-$REPO/.canary}
UV=${UV:-$REPO/.venv/bin/uv}
PYTHON=${PYTHON:-$(command -v python3.11 || command -v python3)}
NEWEST=(mcp mcp-types fastmcp uvicorn)
# What the tests below use besides the distributions: the test extra's runners, packaging for the ranges, and the lint
# extra's mypy (tests/sdk/test_typing.py).
TESTING=(pytest pytest-timeout pytest-xdist hypothesis uv httpx packaging)

started=$(date +%s)
rm -rf "$DIR"
mkdir -p "$DIR"
printf '%s\n' "${NEWEST[@]}" > "$DIR/overrides.txt"
"$UV" venv -q --python "$PYTHON" "$DIR/venv"
"$UV" pip install -q --python "$DIR/venv/bin/python" --override "$DIR/overrides.txt" \
    $(printf -- '--refresh-package %s ' "${NEWEST[@]}") \
    ./distributions/conformance "./distributions/sdk[fastmcp]" ".[lint]" "${TESTING[@]}"

echo "canary: the newest releases, installed in $DIR/venv:"
"$DIR/venv/bin/python" - "${NEWEST[@]}" pydantic <<'PY'
import sys
from importlib.metadata import version
for name in sys.argv[1:]:
    print(f"  {name} {version(name)}")
PY

# The SDK and FastMCP tests (tests/sdk; those needing Node or Chromium skip), and the private names of our dependencies
# (test_dependency_internals.py checks the names first, then whether the version is in our range: past our bounds, the
# names passing and the range failing is the expected result). From the repository root, so pyproject.toml's pytest
# settings apply; the package is the one installed here (src/ is not on the path).
status=0
"$DIR/venv/bin/python" -m pytest -q -p no:randomly -p no:cacheprovider -n 2 tests/sdk tests/unit/test_dependency_internals.py \
    || status=$?
echo "canary: $([ $status = 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - started )) s"
exit $status
