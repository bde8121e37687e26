"""Tools an MCPServer server had before it declared variants (established_server.py), migrated in one line each or
left plain, against the same server served plain, on the wire: every older version gets exactly what the plain server
answered (outputSchema and structuredContent before 2025-06-18 too: SEP-3279's "SHOULD preserve its established
behavior"), where the outputSchema became the programmatic variant too; at 2026-12-01 a tool that returned None gives
the model a usable content (SEP-3279: a usable model representation), and the suite passes the
server once told which tool is established."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from mcp_variants.sdk import Variants

pytestmark = [pytest.mark.wire, pytest.mark.timeout(240)]

SERVER = Path(__file__).with_name("established_server.py")
OLDER = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
CALLS = (("assignee", {"issue": 1}), ("assignee", {"issue": 2}), ("stats", {}), ("ping", {}), ("forget", {"issue": 1}),
         ("summary", {}))


def answers(plain: bool, versions: tuple[str, ...]) -> dict[str, list[Any]]:
    """Per version: tools/list's result, then each call's result."""
    env = {**os.environ, "ESTABLISHED_PLAIN": "1" if plain else "0"}
    seen: dict[str, list[Any]] = {}
    with StdioTarget([sys.executable, str(SERVER)], timeout=60, env=env) as target:
        for version in versions:
            seen[version] = [target.exchange(version, None, "tools/list", {}).result,
                             *(target.exchange(version, None, "tools/call", {"name": name, "arguments": arguments}).result
                               for name, arguments in CALLS)]
    return seen


def test_every_older_version_gets_what_the_plain_server_answered() -> None:
    """Every field, the empty content of a tool that returned None included (2026-12-01's assistant/content says
    `null`, below: it must be usable; older versions keep what the tool always sent them)."""
    plain, migrated = answers(True, OLDER), answers(False, OLDER)
    for version in OLDER:
        assert migrated[version][2]["content"] == plain[version][2]["content"] == []
        listed = {tool["name"]: tool for tool in migrated[version][0]["tools"]}
        assert "outputSchema" not in listed["summary"] and "structuredContent" not in migrated[version][6]
        # stats' outputSchema became its programmatic variant: kept as it was (SEP-3279 forbids that for a new tool only)
        assert "outputSchema" in listed["stats"] and "structuredContent" in migrated[version][3]
        assert migrated[version] == plain[version], version
    assert migrated["2024-11-05"][1]["structuredContent"] == {"result": {"name": "ana"}}  # before 2025-06-18 too


def test_at_2026_12_01_a_tool_that_returned_nothing_gives_the_model_a_usable_content() -> None:
    (listed, assigned, unassigned, stats, ping, forget, summary), = answers(False, (OUTPUTS_VERSION,)).values()
    content = [output["content"] for result in (assigned, unassigned, ping, forget) for output in result["outputs"]]
    assert content[0] == [{"type": "text", "text": '{\n  "name": "ana"\n}'}]  # as MCPServer makes it
    assert content[1] == [{"type": "text", "text": "null"}]  # the JSON of what it returned
    assert content[2] == [{"type": "text", "text": "pong"}]
    assert content[3] == [{"type": "text", "text": "null"}]  # a plain tool: the value in its structuredContent, as migrated
    variants = {tool["name"]: [(v["audience"], v["format"]) for v in tool["outputVariants"]] for tool in listed["tools"]}
    assert variants["stats"] == [("assistant", "content"), ("programmatic", "structured")]
    assert variants["ping"] == [("assistant", "content"), ("assistant", "structured")]  # as a plain @mcp.tool is
    assert variants["summary"] == [("assistant", "content")]  # structured_output=False: it had no outputSchema


def test_the_suite_passes_the_migrated_server() -> None:
    command = f"{sys.executable} {SERVER}"
    checked = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-cmd", command, "--all-tools",
                              "--call", 'assignee={"issue":2}', "--call", "stats={}", "--call", "ping={}",
                              "--call", 'forget={"issue":1}', "--call", "summary={}",
                              # stats listed its outputSchema before it declared variants: it keeps it (SEP-3279: SHOULD)
                              "--established", "stats"], capture_output=True, text=True, timeout=240,
                             env={**os.environ, "ESTABLISHED_PLAIN": "0"})
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith("OK"), checked.stdout[-3000:] + checked.stderr[-2000:]


def check(*established: str) -> str:
    """The suite's output for assignee's call that returns None (content `[]` before, as it always was; `null` at
    2026-12-01), with stats and `established` named established."""
    arguments = [a for name in ("stats", *established) for a in ("--established", name)]
    checked = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-cmd", f"{sys.executable} {SERVER}",
                              "--call", 'assignee={"issue":2}', *arguments], capture_output=True, text=True, timeout=240,
                             env={**os.environ, "ESTABLISHED_PLAIN": "0"})
    return checked.stdout


def test_the_legacy_content_rule_of_a_new_tool_leaves_out_a_tool_named_established() -> None:
    """SEP-3279's "SHOULD construct content from assistant/content" compares assignee's legacy content with its
    2026-12-01 one: they differ (`[]`, `null`), which is right for an established tool and a miss for a new one."""
    as_new = check()
    assert "FAIL  SHOULD should-legacy-content-from-assistant-content" in as_new
    assert "if assignee already served older clients before it declared variants" in as_new
    assert "pass --established assignee" in as_new
    as_established = check("assignee")
    assert "N/A   SHOULD should-legacy-content-from-assistant-content" in as_established
    assert "every tool that fits (assignee) is named with --established" in as_established


def test_variants_tool_without_its_parentheses_is_refused_at_once() -> None:
    variants = Variants(MCPServer("bare"))
    with pytest.raises(TypeError, match=r'@variants.tool\("assistant/content", ...\), with its parentheses'):
        @variants.tool  # type: ignore[arg-type]
        def bare() -> str:
            return "never registered"
