"""The docs count the tools as tools/list does (issue 49: a new user read 23 in one page and 26 in another).

Every "our N tools", "the N Jupyter tools", "among our N" of README.md and docs/ (the generated pages and
performance.md's dated measurements left out) is the number of tools the server serves, less read_notebook_page,
which only MCP Apps views call, where it says "Jupyter tools".
"""

from __future__ import annotations

import re
from pathlib import Path

from mcp_variants.tools import TOOLS

REPO = Path(__file__).resolve().parents[2]
COUNT = re.compile(r"\b(?:our|the|has|server's|[Ii]ts) (\d+) (Jupyter )?tools\b|\bamong our (\d+)\b")
ANCHOR_TOOLS = 18  # jupyter-mcp-server 2.2.4's, which migrating.md and choices.md count too
PAGES = [REPO / "README.md", *(p for p in sorted((REPO / "docs").rglob("*.md"))
                               if not {"api", "examples"} & set(p.relative_to(REPO / "docs").parts) and p.name != "performance.md")]


def test_every_tool_count_in_the_docs_is_the_servers() -> None:
    assert "read_notebook_page" in TOOLS
    wrong = []
    for page in PAGES:
        for match in COUNT.finditer(page.read_text()):
            number = int(match.group(1) or match.group(3))
            expected = len(TOOLS) - 1 if match.group(2) else len(TOOLS)
            if number not in (expected, ANCHOR_TOOLS):
                wrong.append(f"{page.relative_to(REPO)}: {match.group(0)!r} (the server has {len(TOOLS)}: {len(TOOLS) - 1} Jupyter tools)")
    assert not wrong, "\n".join(wrong)
