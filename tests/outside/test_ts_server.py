"""A SEP-3279 server on the TypeScript SDK (@modelcontextprotocol/sdk 1.32.2) under `mcp-variants check`.

ts_server.mjs declares three tools with outputVariants, serves the handshake versions through
the SDK and 2026-07-28 and 2026-12-01 by hand. It passes every server scenario with nothing
skipped, but the one that does not apply to it (it lists the ui variant but names no ui:// view);
with one planted fault (FAULT=mirror: a structured output requested alone also comes
back mirrored into assistant/content) exactly the scenarios that forbid an unrequested output
or a mirror fail, and the exit status is 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_variants.conformance.verdict import not_applicable
from mcp_variants.processes import free_port
from support.outside import HERE, node_package

CALLS = ["--no-default-calls", "--call", 'search_customers={"query": "globex"}', "--call", 'word_count={"text": "one two three"}',
         "--call", 'divide={"a": 6, "b": 3}', "--error-call", 'divide={"a": 1, "b": 0}']
MIRROR_FAILS = {"plan-02-code-mode", "plan-03-structured-model-input", "plan-05-host-native-table", "plan-08-app-only-explicit-ui",
                "plan-11-independent-schemas", "must-no-unrequested-output", "must-no-mirror"}
NOT_APPLICABLE = {"must-ui-view-readable"}  # its tools list the ui variant but name no ui:// view to read


def check_ts_server(node_bin: Path, tmp_path: Path, fault: str = "") -> tuple[int, dict[str, Any], str]:
    node_package("@modelcontextprotocol/sdk/dist/esm/server/index.js")
    port = free_port()
    card = tmp_path / "card.json"
    done = subprocess.run(
        [sys.executable, "-m", "mcp_variants", "check", "--kind", "server",
         "--server-cmd", f"{node_bin} {HERE / 'ts_server.mjs'} --port {port}",
         "--server-url", f"http://127.0.0.1:{port}/mcp", *CALLS, "--scorecard", str(card)],
        check=False, capture_output=True, text=True, timeout=300, env={**os.environ, "FAULT": fault})
    return done.returncode, json.loads(card.read_text()) if card.exists() else {}, done.stdout + done.stderr


def test_the_ts_server_passes_every_server_scenario(node_bin: Path, tmp_path: Path) -> None:
    code, card, output = check_ts_server(node_bin, tmp_path)
    assert code == 0, output
    assert {r["id"] for r in card["scenarios"] if r["status"] != "pass"} == NOT_APPLICABLE, output
    assert {r["id"] for r in card["scenarios"] if not_applicable(r)} == NOT_APPLICABLE, output
    assert card["wireSchema"]["ok"] and card["wireSchema"]["messagesValidated"] > 50


def test_a_planted_mirror_fails_exactly_the_mirror_scenarios(node_bin: Path, tmp_path: Path) -> None:
    code, card, output = check_ts_server(node_bin, tmp_path, fault="mirror")
    assert code == 1, output
    assert {r["id"] for r in card["scenarios"] if r["status"] == "fail"} == MIRROR_FAILS, output
    assert {r["id"] for r in card["scenarios"] if r["status"] != "pass" and r["id"] not in MIRROR_FAILS} == NOT_APPLICABLE, output
    assert {r["id"] for r in card["scenarios"] if not_applicable(r)} == NOT_APPLICABLE, output
