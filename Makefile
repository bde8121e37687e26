# Two commands on a fresh machine with Python 3.11: `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest-xdist workers, one test file each at a time (--dist loadfile keeps a file's module fixtures in one
# process): two more than the CPUs, since most tests wait on kernels, servers and browsers rather than compute
# (docs/testing.md records the measurement behind the number).
# --no-loadscope-reorder: the files in the order tests/conftest.py gives them, the longest first; xdist's own order
# (the files with the most tests first) can start a long file with few tests last, and the run waits on it alone.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 2 )))
PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
# A missing outside tool or browser fails its tests instead of skipping them (make test).
REQUIRED := MCP_VARIANTS_OUTSIDE=required MCP_VARIANTS_APPS=required MCP_VARIANTS_REDIS=required
# The suite's processes write the bytecode of what they import, as Python does by default: where
# PYTHONDONTWRITEBYTECODE is set, every one of the suite's processes would compile again what it imports (the
# package, and the venvs the tests make with uv, which compiles nothing). So the first process that imports a
# module compiles it.
BYTECODE := PYTHONDONTWRITEBYTECODE=

.PHONY: demo test test-fast lint canary bench serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[demo,test,docs,lint]'
	touch $(STAMP)

demo: $(STAMP)  ## the SEP-3279 scenarios against a live server; writes demo-report.html
	$(BIN)/mcp-variants demo --report demo-report.html

test: $(STAMP)  ## the whole test suite: unit, property and wire tests on real kernels; outside clients and the official conformance suite (Node 22 from npm); MCP Apps views in headless Chromium
	@# Node 22 and the pinned npm packages of tests/outside (npm ci). If this fails, the tests
	@# still run and every Node test fails with the reason (MCP_VARIANTS_OUTSIDE=required).
	-tests/outside/install.sh
	@# The SEP-3279 scenarios in the official suite's API (conformance-ts/): tsx and ajv, run with that Node 22.
	-PATH="$(CURDIR)/tests/outside/node_modules/.bin:$$PATH" conformance-ts/install.sh
	@# Code mode in TypeScript (codemode-ts/): @cloudflare/codemode on the official SDK, and tsc, with that Node 22.
	-PATH="$(CURDIR)/tests/outside/node_modules/.bin:$$PATH" codemode-ts/install.sh
	@# MCP Apps: apps/'s pinned npm packages (npm ci) and Debian's chromium (apt-get, as root, once).
	@# If either fails, the tests still run and the Apps tests fail with the reason (MCP_VARIANTS_APPS=required).
	-apps/install.sh
	-tests/apps/install-chromium.sh
	@# Debian's redis-server for the shared-state tests (apt-get, as root, once). If this fails, they fail with the reason.
	-tests/integration/install-redis.sh
	@# JupyterHub's proxy (configurable-http-proxy, npm ci) for the JupyterHub tests; the gateway and Hub environments are made by the tests (pip).
	-tests/jupyterhub/install.sh
	@# The files in parallel. No test judges speed: `make bench` measures it, judges it and records it.
	$(BYTECODE) $(REQUIRED) $(BIN)/python -m pytest $(PARALLEL)

test-fast: $(STAMP)  ## the core's unit and property tests, the import test and the public server API on the stdio wire: under a minute, no Node, no browser, no Jupyter server
	@# These keep the CPUs busy: one worker per CPU.
	$(BYTECODE) $(BIN)/python -m pytest -q -n auto tests/unit tests/sdk/test_api.py

lint: $(STAMP)  ## ruff (pyproject.toml's rules, line length 140) and mypy (src/ and scripts/; strict on protocol/)
	$(BIN)/ruff check src tests bench scripts examples hatch_build.py
	$(BIN)/mypy

canary: $(STAMP)  ## the SDK and FastMCP tests on the newest mcp, mcp-types, fastmcp and uvicorn on PyPI, our upper bounds overridden, in .canary/ (docs/support.md); not part of make test
	scripts/canary.sh

bench: $(STAMP)  ## benchmarks; results go to bench/results/
	$(BIN)/python -m bench

serve: $(STAMP)  ## the server on stdio, rooted here
	$(BIN)/mcp-variants serve

clean:
	rm -rf $(VENV) demo-report.html .pytest_cache .hypothesis tests/.envs .canary

.PHONY: docs docs-examples
docs: $(STAMP)  ## the documentation site into site/ (mkdocs --strict: a broken link or a missing page fails)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

docs-examples: $(STAMP)  ## regenerate docs/examples/ and docs/api/ from the live server (checked by tests/docs)
	$(BIN)/python scripts/gen_docs.py
