"""The examples of examples/ pass the SEP-3279 suite (`mcp-variants check`: every MUST and testing-plan scenario
that their variants reach) on stdio and on streamable HTTP; the migrated tool answers old clients exactly as
before its migration."""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.processes import free_port

pytestmark = pytest.mark.timeout(300)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Each example, with arguments its tool succeeds with and arguments it fails with (isError).
CALLS = {
    "world_clock.py": ('world_clock={"zone": "Europe/Paris"}', 'world_clock={"zone": "Mars/Olympus"}'),
    "migration/after.py": ('text_stats={"text": "two words"}', 'text_stats={"text": 5}'),
}


def check(*target: str, example: str, tmp_path: Path) -> dict[str, Any]:
    ok, bad = CALLS[example]
    scorecard = tmp_path / "scorecard.json"
    done = subprocess.run([sys.executable, "-m", "mcp_variants.conformance", *target, "--no-default-calls", "--call", ok,
                           "--error-call", bad, "--scorecard", str(scorecard), "-q"], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\d+ scenarios: \d+ pass, 0 fail", done.stdout), done.stdout[-2000:]
    return json.loads(scorecard.read_text())


@pytest.mark.parametrize("example", sorted(CALLS))
def test_the_example_passes_the_suite_on_stdio(example: str, tmp_path: Path) -> None:
    scorecard = check("--server-cmd", f"{sys.executable} {EXAMPLES / example}", example=example, tmp_path=tmp_path)
    assert scorecard["ok"] is True


@pytest.mark.parametrize("example", sorted(CALLS))
def test_the_example_passes_the_suite_on_streamable_http(example: str, tmp_path: Path) -> None:
    port = free_port()
    scorecard = check("--server-url", f"http://127.0.0.1:{port}/mcp", "--server-cmd",
                      f"{sys.executable} {EXAMPLES / example} --http --port {port}", example=example, tmp_path=tmp_path)
    assert scorecard["ok"] is True


STRUCTURED_SINCE = "2025-06-18"  # outputSchema and structuredContent came with this version


def legacy_answers(script: Path, version: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """What a client of `version` reads of tools/list and of a call: the fields that version defines."""
    with StdioTarget([sys.executable, str(script)], timeout=30) as target:
        tools = target.exchange(version, None, "tools/list", {}).result["tools"]
        result = target.exchange(version, None, "tools/call", {"name": "text_stats", "arguments": {"text": "a b\nc"}}).result
    structured = version >= STRUCTURED_SINCE
    keep = ("name", "description", "inputSchema", "annotations", *(("outputSchema",) if structured else ()))
    read = ("content", *(("structuredContent",) if structured else ()))
    answer = {k: result[k] for k in read if k in result} | {"isError": result.get("isError", False)}  # absent is false
    return [{k: t[k] for k in keep if k in t} for t in tools], answer


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_the_migrated_tool_answers_old_clients_as_before(version: str) -> None:
    """(Before 2025-06-18 the SDK's MCPServer also sends outputSchema and structuredContent, which those versions do
    not define; the layer sends content alone there, as its eras say: docs/reference/legacy.md.)"""
    before = legacy_answers(EXAMPLES / "migration" / "before.py", version)
    after = legacy_answers(EXAMPLES / "migration" / "after.py", version)
    assert after == before
    if version >= STRUCTURED_SINCE:
        assert before[1]["structuredContent"] == {"words": 3, "lines": 2, "characters": 5}


def test_the_migration_changes_at_most_15_lines_and_the_new_server_is_at_most_40() -> None:
    before = (EXAMPLES / "migration" / "before.py").read_text().splitlines()
    after = (EXAMPLES / "migration" / "after.py").read_text().splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(changed) <= 15, changed
    assert len((EXAMPLES / "world_clock.py").read_text().splitlines()) <= 40
