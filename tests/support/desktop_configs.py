"""The `mcpServers` entries README.md and docs/guides show a desktop client, as the client reads them: each entry's
`command`, `args` and `env`, by the page and name it is under. tests/docs/test_desktop_configs.py runs the `serve`
ones, tests/integration/test_connect.py the `connect` ones, each with its placeholders filled."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PAGES = (REPO / "README.md", *sorted((REPO / "docs" / "guides").glob("*.md")))
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.S | re.M)


def desktop_entries(subcommand: str) -> dict[str, dict[str, Any]]:
    """Each entry that starts `mcp-variants SUBCOMMAND` (directly or through uvx), by where it is."""
    found = {}
    for page in PAGES:
        for block in JSON_BLOCK.findall(page.read_text()):
            servers = json.loads(block).get("mcpServers") or {}
            for name, entry in servers.items():
                if "command" in entry and subcommand in entry.get("args", []):
                    found[f"{page.relative_to(REPO)}:{name}:{len(found)}"] = entry
    return found
