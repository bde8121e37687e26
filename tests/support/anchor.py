"""jupyter-mcp-server 2.2.4, the server ours is a drop-in for ("the anchor"): its tools as it lists them, for the
drop-in tests and for scripts/record_compat.py, which records their inputSchemas in variants/compat/."""

from __future__ import annotations

import json
import tempfile
from typing import Any

from mcp_variants.catalog import COMPAT, variants_dir
from mcp_variants.conformance.wire import StdioTarget
from support.envs import ANCHOR_REQUIREMENTS, cached_venv

ANCHOR = "jupyter-mcp-server"
VERSION = ANCHOR_REQUIREMENTS[0].split("==")[1]
RECORD = variants_dir() / COMPAT / f"{ANCHOR}.json"
HANDSHAKE = "2025-11-25"


def anchor_tools() -> list[dict[str, Any]]:
    """Its tools/list, from a process started in an empty folder (tests/.envs/anchor, made on first use)."""
    env = cached_venv("anchor", ANCHOR_REQUIREMENTS)
    with tempfile.TemporaryDirectory(prefix="anchor-") as folder, StdioTarget(
        # Without a Jupyter server to use it lists its tools all the same; it starts no kernel.
        [str(env / "bin" / ANCHOR), "start", "--transport", "stdio", "--start-new-code-sandbox", "false"], cwd=folder, timeout=120,
    ) as anchor:
        listed = anchor.exchange(HANDSHAKE, None, "tools/list", {})
    tools: list[dict[str, Any]] = listed.result["tools"]
    return tools


def record_of(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """What variants/compat/jupyter-mcp-server.json holds: each tool's inputSchema exactly as it listed it."""
    return {
        "$comment": f"{ANCHOR} {VERSION}'s inputSchemas as its tools/list gives them, listed in place of ours by "
                    f"`serve --compat {ANCHOR}`. Recorded by scripts/record_compat.py: do not edit.",
        "server": ANCHOR,
        "version": VERSION,
        "tools": {tool["name"]: tool["inputSchema"] for tool in sorted(tools, key=lambda t: str(t["name"]))},
    }


def record_text(record: dict[str, Any]) -> str:
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"
