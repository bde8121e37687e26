"""What the MCP Apps tests need from outside Python: apps/'s npm packages, Node, Chromium.

Missing pieces skip the tests that need them, naming the reason; under
MCP_VARIANTS_APPS=required (`make test` sets it) they fail instead, so CI cannot go green
without having run them.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from support.lab import CHROMIUM, find_node

REPO = Path(__file__).resolve().parents[2]
APPS = REPO / "apps"
VIEWS = REPO / "src" / "mcp_variants" / "apps" / "views"
REPORT_HOST = REPO / "src" / "mcp_variants" / "report" / "report-host.js"  # built from apps/report/host.ts
ARTIFACTS = Path(os.environ.get("MCP_VARIANTS_ARTIFACTS", REPO / "build" / "test-artifacts")) / "apps"
UI = "io.modelcontextprotocol/ui"
UI_CAPS = {UI: {"mimeTypes": ["text/html;profile=mcp-app"]}}


def unavailable(reason: str) -> None:
    if os.environ.get("MCP_VARIANTS_APPS") == "required":
        pytest.fail(f"required for the MCP Apps tests: {reason}")
    pytest.skip(reason)


def apps_installed() -> Path:
    """apps/node_modules as package-lock.json pins it (apps/install.sh)."""
    stamp = APPS / "node_modules" / ".installed-from-lock"
    want = hashlib.sha256((APPS / "package-lock.json").read_bytes()).hexdigest()
    if not stamp.is_file() or stamp.read_text().strip() != want:
        unavailable("apps/node_modules is missing or stale: run apps/install.sh (npm ci)")
    return APPS / "node_modules"


def node(minimum: int = 18) -> str:
    """A Node of at least `minimum`: the one on PATH, else tests/outside's Node 22."""
    found = find_node(minimum)
    if found is None:
        unavailable(f"no Node >= {minimum} (PATH or tests/outside/node_modules/.bin/node)")
        raise AssertionError("unreachable")
    return found


def chromium() -> Path:
    if not CHROMIUM.exists():
        unavailable(f"{CHROMIUM} is missing: Debian's chromium package (tests/apps/install-chromium.sh)")
    return CHROMIUM
