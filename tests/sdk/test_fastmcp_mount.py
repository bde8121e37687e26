"""A FastMCP server with Variants mounted into one with Variants (`parent.mount(child, namespace="kid")`): the child's
tools served by the parent under FastMCP's names (`kid_add`), with their variants at 2026-12-01 and, at older
versions, as FastMCP alone serves the same servers unmigrated. Real processes on stdio (fastmcp_composed_server.py),
raw JSON-RPC; and the conformance check on the composed server."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION

pytestmark = [pytest.mark.wire, pytest.mark.timeout(240)]

SERVER = Path(__file__).with_name("fastmcp_composed_server.py")
CONTENT = {"audience": "assistant", "format": "content"}
STRUCTURED = {"audience": "assistant", "format": "structured"}
PROGRAMMATIC = {"audience": "programmatic", "format": "structured"}
MIGRATED = {"kid_double": {"n": 2}, "kid_broken": {"n": 3}, "kid_g_half": {"n": 3}, "hello": {}}


@pytest.fixture(scope="module")
def composed() -> Iterator[StdioTarget]:
    with StdioTarget([sys.executable, str(SERVER), "composed"], timeout=90) as target:
        yield target


def call(target: StdioTarget, name: str, arguments: dict[str, Any], requested: list[dict[str, str]]) -> Any:
    return target.exchange(OUTPUTS_VERSION, None, "tools/call",
                           {"name": name, "arguments": arguments, "requestedOutputs": requested})


def test_the_mounted_tools_are_listed_with_their_variants_at_2026_12_01(composed: StdioTarget) -> None:
    tools = {t["name"]: t for t in composed.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    assert set(tools) == {"hello", "kid_add", "kid_double", "kid_broken", "kid_g_half"}
    add = {(v["audience"], v["format"]): v for v in tools["kid_add"]["outputVariants"]}
    assert list(add) == [("assistant", "content"), ("programmatic", "structured")]
    assert add[("programmatic", "structured")]["schema"]["properties"] == {"total": {"title": "Total", "type": "integer"}}
    for migrated in ("kid_double", "kid_g_half"):
        assert [(v["audience"], v["format"]) for v in tools[migrated]["outputVariants"]] == [
            ("assistant", "content"), ("assistant", "structured")]
    assert all("outputSchema" not in tool for tool in tools.values())


def test_a_mounted_tool_answers_exactly_the_requested_outputs(composed: StdioTarget) -> None:
    result = call(composed, "kid_add", {"a": 1, "b": 2}, [PROGRAMMATIC, CONTENT]).result
    assert result["outputs"] == [{**PROGRAMMATIC, "structuredContent": {"total": 3}},
                                 {**CONTENT, "content": [{"type": "text", "text": "1 + 2 = 3"}]}]
    assert "content" not in result and "structuredContent" not in result
    assert call(composed, "kid_add", {"a": 1, "b": 2}, [PROGRAMMATIC]).result["outputs"] == [
        {**PROGRAMMATIC, "structuredContent": {"total": 3}}]
    assert call(composed, "kid_g_half", {"n": 3}, [STRUCTURED]).result["outputs"] == [  # two mounts down
        {**STRUCTURED, "structuredContent": {"result": 1.5}}]


def test_a_mounted_tool_refuses_what_it_does_not_offer_before_running(composed: StdioTarget) -> None:
    error = call(composed, "kid_double", {"n": 2}, [PROGRAMMATIC]).error
    assert error["code"] == -32602, error
    assert error["data"]["offered"] == [CONTENT, STRUCTURED] and error["data"]["tool"] == "kid_double", error
    assert "kid_double" in error["message"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_older_versions_get_what_fastmcp_alone_sends_for_the_mounted_tools(version: str) -> None:
    def answers(mode: str) -> tuple[list[Any], list[bytes]]:
        with StdioTarget([sys.executable, str(SERVER), mode], timeout=90) as target:
            listed = target.exchange(version, None, "tools/list", {}).result["tools"]
            calls = [target.exchange(version, None, "tools/call", {"name": name, "arguments": arguments}).raw
                     for name, arguments in MIGRATED.items()]
        return [json.dumps(t) for t in listed if t["name"] in MIGRATED], calls

    (plain_tools, plain_calls), (tools, calls) = answers("plain"), answers("composed")
    assert tools == plain_tools and len(tools) == len(MIGRATED)
    assert calls == plain_calls
    assert "outputSchema" in tools[0]  # kid_double: FastMCP's own, listed as it lists it


def test_the_conformance_check_passes_the_composed_server() -> None:
    ended = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-cmd",
                            f"{sys.executable} {SERVER} composed", "--all-tools",
                            "--call", 'kid_add={"a": 1, "b": 2}', "--call", 'kid_double={"n": 2}', "--call", 'kid_g_half={"n": 3}',
                            "--error-call", 'kid_broken={"n": 3}', "--call", "hello={}"],
                           capture_output=True, text=True, timeout=200)
    assert ended.returncode == 0, ended.stdout[-4000:] + ended.stderr[-2000:]
    assert "kid_add" in ended.stdout
