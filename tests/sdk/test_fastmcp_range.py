"""The FastMCP range mcp_variants.fastmcp supports (the `[fastmcp]` extra, `fastmcp>=4.1.4,<4.3`), both ends: the
upper end is the newest release in it, the project's own environment (the `test` extra's pin), where test_fastmcp_*.py
run (`make canary` runs the newest on PyPI, docs/support.md); the lower end on the
wire here, the sample server of test_fastmcp_wire.py in an environment with FastMCP 4.1.4, the one fastmcp-tasks 4.1.4
requires (test_fastmcp_tasks.py shares it), with this checkout's src/ on the path."""

from __future__ import annotations

import importlib.metadata
import json
import os
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.fastmcp._lowlevel import SUPPORTED
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.envs import cached_venv

from .test_fastmcp_tasks import REQUIREMENTS, SRC

pytestmark = [pytest.mark.wire, pytest.mark.timeout(900)]

SERVER = Path(__file__).with_name("fastmcp_sample_server.py")
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_range_ends_are_the_versions_tested() -> None:
    """Both extras name the range `Variants(mcp)` names when FastMCP moved its low-level server; the test extra's pin is
    in it, and its floor is the FastMCP this file serves on."""
    for project in (PYPROJECT.parent, PYPROJECT.parent / "distributions" / "sdk"):
        (requirement,) = tomllib.loads((project / "pyproject.toml").read_text())["project"]["optional-dependencies"]["fastmcp"]
        assert requirement == f"fastmcp{SUPPORTED}", project
    test_extra = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]["test"]
    assert "fastmcp==" + importlib.metadata.version("fastmcp") in test_extra
    assert SpecifierSet(SUPPORTED).contains(importlib.metadata.version("fastmcp"))
    (floor,) = (s.version for s in SpecifierSet(SUPPORTED) if s.operator == ">=")
    assert f"fastmcp=={floor}" in REQUIREMENTS


@pytest.fixture(scope="module")
def target() -> Iterator[StdioTarget]:
    python = cached_venv("fastmcp-tasks", REQUIREMENTS) / "bin" / "python"
    with StdioTarget([str(python), str(SERVER)], env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=90) as running:
        yield running


def call(target: StdioTarget, name: str, arguments: dict[str, object], requested: list[str]) -> dict[str, Any]:
    selectors = [dict(zip(("audience", "format"), s.rsplit("/", 1), strict=True)) for s in requested]
    params = {"name": name, "arguments": arguments, "requestedOutputs": selectors}
    result: dict[str, Any] = target.exchange(OUTPUTS_VERSION, None, "tools/call", params).result
    return result


def test_the_lower_end_lists_variants_and_answers_the_requested_outputs(target: StdioTarget) -> None:
    tools = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    listed = [(v["audience"], v["format"]) for v in tools["add"]["outputVariants"]]
    assert listed[:2] == [("assistant", "content"), ("programmatic", "structured")]
    assert "$ref" not in json.dumps(tools["close_ticket"])  # FastMCP 4.1.4's dereference_refs inlined its nested model
    result = call(target, "add", {"a": 2, "b": 3}, ["programmatic/structured", "assistant/content"])
    assert [o["audience"] for o in result["outputs"]] == ["programmatic", "assistant"]
    assert result["outputs"][0]["structuredContent"] == {"total": 5}
    ticket = call(target, "close_ticket", {"id": 7}, ["programmatic/structured"])
    assert ticket["outputs"][0]["structuredContent"] == {"id": 7, "assignee": None, "closedBy": None}
    plain = call(target, "plain", {"x": 2}, ["assistant/structured"])  # FastMCP's own tool, at 2026-12-01
    assert plain["outputs"] == [{"audience": "assistant", "format": "structured", "structuredContent": {"result": 4}}]
    failed = call(target, "fail", {"how": "ours"}, ["programmatic/structured"])
    assert failed["isError"] is True and failed["outputs"][0]["structuredContent"]["error"]["type"] == "not-found"
    discover = target.exchange("2026-07-28", None, "server/discover", {}).result
    assert OUTPUTS_VERSION in discover["supportedVersions"]


def test_the_lower_end_serves_a_mounted_servers_tools_with_their_variants() -> None:
    """test_fastmcp_mount.py's composed servers on FastMCP 4.1.4: the mounted tools, two mounts down included."""
    python = cached_venv("fastmcp-tasks", REQUIREMENTS) / "bin" / "python"
    composed = [str(python), str(SERVER.with_name("fastmcp_composed_server.py")), "composed"]
    with StdioTarget(composed, env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=90) as running:
        listed = {t["name"]: t for t in running.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
        assert [v["audience"] for v in listed["kid_add"]["outputVariants"]] == ["assistant", "programmatic"]
        assert call(running, "kid_add", {"a": 3, "b": 1}, ["programmatic/structured"])["outputs"] == [
            {"audience": "programmatic", "format": "structured", "structuredContent": {"total": 4}}]
        assert call(running, "kid_g_half", {"n": 3}, ["assistant/structured"])["outputs"] == [
            {"audience": "assistant", "format": "structured", "structuredContent": {"result": 1.5}}]
