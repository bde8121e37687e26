"""The FastMCP examples pass the SEP-3279 suite (`mcp-variants-check`, every scenario exercised) on stdio and on
streamable HTTP; the FastMCP tool migrated in one line answers old clients exactly as before."""

from __future__ import annotations

import difflib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from .test_examples import legacy_answers, passed, run_suite

pytestmark = pytest.mark.timeout(600)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SERVER = EXAMPLES / "fastmcp_server.py"
CALLS = ["--no-default-calls", "--call", 'region_sales={"region": "north"}', "--call", 'text_stats={"text": "two words"}',
         "--error-call", 'region_sales={"region": "atlantis"}',
         # A handshake-era scenario starts a server of its own, whose import of FastMCP on a loaded machine can
         # outlast the suite's default wait for an answer.
         "--timeout", "150"]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_fastmcp_example_passes_every_scenario_of_the_suite(transport: str, tmp_path: Path) -> None:
    scorecard = passed(run_suite([sys.executable, str(SERVER)], transport, CALLS, tmp_path / "scorecard.json", timeout=580))
    assert scorecard["ok"] is True
    totals = scorecard["totals"]
    assert totals["fail"] == 0 and totals["skip"] == 0 and totals["pass"] >= 50, totals  # every scenario exercised


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_the_migrated_fastmcp_tool_answers_old_clients_as_before(version: str) -> None:
    before = legacy_answers(EXAMPLES / "migration" / "fastmcp_before.py", version, timeout=90)
    after = legacy_answers(EXAMPLES / "migration" / "fastmcp_after.py", version, timeout=90)
    assert after == before
    if version >= "2025-06-18":
        assert before[1][0]["structuredContent"] == {"words": 3, "lines": 2, "characters": 5}


def test_the_migration_is_one_line_on_the_tool_and_three_around_it() -> None:
    before = (EXAMPLES / "migration" / "fastmcp_before.py").read_text().splitlines()
    after = (EXAMPLES / "migration" / "fastmcp_after.py").read_text().splitlines()
    diff = difflib.unified_diff(before, after, lineterm="", n=0)
    added = [line[1:] for line in diff if line.startswith("+") and not line.startswith("+++")]
    assert "@variants.legacy_tool(structured=\"assistant\")" in added and "@mcp.tool" in before
    code = [line for line in added if line.strip() and not line.startswith('"""')]
    assert code == ["from mcp_variants.fastmcp import Variants, cli", "variants = Variants(mcp)",
                    '@variants.legacy_tool(structured="assistant")', "    cli(mcp)"], code


def without_docstring(path: Path) -> str:
    source = path.read_text()
    return source.split('"""', 2)[2].lstrip("\n")


def test_the_guide_shows_each_examples_code_in_the_page() -> None:
    guide = (EXAMPLES.parent / "docs" / "guides" / "fastmcp.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", guide, re.S)
    files = [SERVER, EXAMPLES / "migration" / "fastmcp_before.py", EXAMPLES / "migration" / "fastmcp_after.py"]
    assert blocks[:3] == [without_docstring(f) for f in files]


def served(path: Path) -> Any:
    """The FastMCP server an example defines, loaded in this process."""
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.mcp


def test_fastmcps_in_memory_client_reads_the_migrated_tool_as_before() -> None:
    """FastMCP's own `Client(mcp)` (in process, the SDK's low-level server on memory streams) gets the same result."""
    from fastmcp import Client

    async def answer(path: Path) -> tuple[Any, ...]:
        async with Client(served(path)) as client:
            result = await client.call_tool("text_stats", {"text": "a b\nc"})
            return [block.text for block in result.content], result.structured_content, result.is_error

    before = anyio.run(answer, EXAMPLES / "migration" / "fastmcp_before.py")
    assert anyio.run(answer, EXAMPLES / "migration" / "fastmcp_after.py") == before
    assert before[1] == {"words": 3, "lines": 2, "characters": 5}
