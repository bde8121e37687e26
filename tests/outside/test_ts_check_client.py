"""The TypeScript SDK's client (@modelcontextprotocol/sdk 1.32.2) under `mcp-variants check-client`.

SDK 1.32.2 negotiates 2025-11-25 by initialize, so it joins the scenarios at 2025-11-25
(`--version 2025-11-25`) and passes them: it never sends requestedOutputs, and the legacy
result it receives reaches a consumer. ts_check_client.mjs is the whole adapter.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp_variants.conformance.client_scenarios import client_mode_scenarios
from support.outside import HANDSHAKE_VERSION, HERE, node_package


def test_the_ts_sdk_client_passes_the_scenarios_it_can_join(node_bin: Path, tmp_path: Path) -> None:
    node_package("@modelcontextprotocol/sdk/dist/esm/client/index.js")
    card_path = tmp_path / "card.json"
    done = subprocess.run(
        [sys.executable, "-m", "mcp_variants", "check-client", "--command", f"{node_bin} {HERE / 'ts_check_client.mjs'}",
         "--version", HANDSHAKE_VERSION, "--scorecard", str(card_path)],
        check=False, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    card = json.loads(card_path.read_text())
    joinable = {s["id"] for s in client_mode_scenarios() if s["version"] == HANDSHAKE_VERSION}
    assert len(joinable) >= 2 and {r["id"] for r in card["scenarios"]} == joinable
    for result in card["scenarios"]:
        assert result["status"] == "pass", (result["id"], result["reason"], result["evidence"]["stderr"])
        sent = result["evidence"]["sent"]
        assert [m.get("method") for m in sent][:2] == ["initialize", "notifications/initialized"]
        assert sent[0]["params"]["protocolVersion"] == HANDSHAKE_VERSION
        assert not any("requestedOutputs" in (m.get("params") or {}) for m in sent), sent
        assert any(d["consumer"] == "model" for d in result["evidence"]["deliveries"])
