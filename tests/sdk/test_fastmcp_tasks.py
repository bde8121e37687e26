"""fastmcp-tasks beside mcp_variants.fastmcp, on the wire: what combines and what does not (docs/guides/fastmcp.md).

fastmcp-tasks 4.1.4 (its latest) requires fastmcp-slim==4.1.4, so it cannot be installed beside FastMCP 4.2.3 (the project's):
the server runs in an environment of its own (FastMCP 4.1.4, fastmcp-tasks, Docket on its in-memory backend)
with this checkout's src/ on the path."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.envs import cached_venv
from support.waiting import until

pytestmark = [pytest.mark.wire, pytest.mark.timeout(900)]

SRC = Path(__file__).resolve().parents[2] / "src"
SERVER = Path(__file__).with_name("fastmcp_tasks_server.py")
REQUIREMENTS = ("fastmcp==4.1.4", "fastmcp-tasks==4.1.4", "mcp==2.3.0", "mcp-types==2.3.0", "uvicorn==0.54.0",
                "jsonschema>=4.23", "jsonschema-rs>=0.29", "orjson>=3.10", "pyyaml>=6", "psutil>=5.9", "anyio>=4.5")
TASKS = {"io.modelcontextprotocol/tasks": {}}
PROGRAMMATIC = [{"audience": "programmatic", "format": "structured"}]


@pytest.fixture(scope="module")
def target() -> Any:
    python = cached_venv("fastmcp-tasks", REQUIREMENTS) / "bin" / "python"
    with StdioTarget([str(python), str(SERVER)], env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=90) as running:
        yield running


def add(target: StdioTarget, extensions: dict[str, Any] | None, requested: list[dict[str, str]]) -> Any:
    return target.exchange(OUTPUTS_VERSION, extensions, "tools/call",
                           {"name": "slow_add", "arguments": {"a": 2, "b": 3}, "requestedOutputs": requested})


def test_without_tasks_the_call_gets_its_outputs(target: StdioTarget) -> None:
    result = add(target, None, PROGRAMMATIC).result
    assert result["outputs"] == [{"audience": "programmatic", "format": "structured", "structuredContent": {"total": 5}}]


def test_a_bad_selector_is_refused_before_a_task_is_made(target: StdioTarget) -> None:
    error = add(target, TASKS, [{"audience": "user", "format": "structured"}]).error
    assert error["code"] == -32602 and error["data"]["reason"] == "undeclared"


def test_a_task_runs_but_its_result_is_the_legacy_pair_not_the_requested_outputs(target: StdioTarget) -> None:
    created = add(target, TASKS, PROGRAMMATIC).result
    assert created["resultType"] == "task" and created["status"] == "working"
    def ended() -> dict[str, Any] | None:
        task: dict[str, Any] = target.exchange(OUTPUTS_VERSION, TASKS, "tasks/get", {"taskId": created["taskId"]}).result
        return task if task["status"] != "working" else None

    task = until(ended, "the task ended", 60, every=0.2)
    assert task["status"] == "completed"
    # What does not combine (docs/fastmcp-change.md, 5): the worker runs the tool without the request's selectors.
    assert task["result"]["content"] == [{"type": "text", "text": "2 + 3 = 5"}] and "outputs" not in task["result"]
