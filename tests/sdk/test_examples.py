"""The examples of examples/ pass the SEP-3279 suite (`mcp-variants check`: every MUST and testing-plan scenario
that their variants reach) on stdio and on streamable HTTP; the migrated tool answers old clients exactly as
before its migration. An example is a small server, not a fixture: the scenarios about variants it does not
declare (an MCP Apps view, user/content...) do not apply to it, and the verdict must list exactly those as not
applicable (NOT_APPLICABLE), with no --allow-skips: a server needs nothing it does not use to be OK."""

from __future__ import annotations

import difflib
import fcntl
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.processes import free_port

pytestmark = pytest.mark.timeout(300)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Each example, with the calls its tools succeed with and one that fails (isError).
CALLS = {
    "world_clock.py": (['world_clock={"zone": "Europe/Paris"}'], 'world_clock={"zone": "Mars/Olympus"}'),
    "migration/after.py": (['text_stats={"text": "two words"}'], 'text_stats={"text": 5}'),
    "bookshelf.py": (['find_books={"text": "austen"}', "shelf_table={}", "shelf_view={}", "count_books={}", "shelf_stats={}"],
                     'find_books={"text": " "}'),
}
# The scenarios that do not apply to each example, for want of the variants they are about; nothing may stay unexercised.
APPS = {"plan-06-apps-call", "plan-08-app-only-explicit-ui", "plan-09-app-only-fallback", "plan-10b-unnegotiated-extension",
        "plan-11-independent-schemas", "must-apps-extension-advertised", "must-ui-view-readable"}  # the Apps extension
NOT_APPLICABLE = {
    "world_clock.py": {*APPS, "plan-03-structured-model-input", "plan-04-user-media"},  # assistant/structured, user/content
    "migration/after.py": {*APPS, "plan-02-code-mode", "plan-04-user-media"},  # programmatic/structured, user/content
}


@dataclass(frozen=True)
class Checked:
    """A run of the suite (`python -m mcp_variants.conformance -q`): what it printed, and the scorecard it wrote."""

    returncode: int
    stdout: str
    stderr: str
    scorecard: dict[str, Any] | None


def passed(run: Checked, example: str | None = None) -> dict[str, Any]:
    """The run's scorecard, once its exit status and summary say no scenario failed, its verdict leaves nothing
    unexercised, and lists as not applicable exactly what `example` does not declare (NOT_APPLICABLE; None: not checked)."""
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert re.search(r"\d+ scenarios: \d+ pass, 0 fail", run.stdout), run.stdout[-2000:]
    assert run.scorecard is not None
    assert run.scorecard["verdict"]["unexercised"] == [], run.stdout[-3000:]
    if example is not None:
        assert {n["id"] for n in run.scorecard["verdict"]["notApplicable"]} == NOT_APPLICABLE.get(example, set()), run.stdout[-3000:]
    return run.scorecard


def run_suite(argv: list[str], transport: str, calls: list[str], scorecard: Path, *, env: dict[str, str] | None = None,
              cwd: Path | None = None, timeout: float = 300) -> Checked:
    """The suite (`python -m mcp_variants.conformance -q`) against the server `argv` starts, on stdio or on a free port."""
    if transport == "http":
        port = free_port()
        target = ["--server-url", f"http://127.0.0.1:{port}/mcp", "--server-cmd", shlex.join([*argv, "--http", "--port", str(port)])]
    else:
        target = ["--server-cmd", shlex.join(argv)]
    done = subprocess.run([sys.executable, "-m", "mcp_variants.conformance", *target, *calls, "--scorecard", str(scorecard), "-q"],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    return Checked(done.returncode, done.stdout, done.stderr, json.loads(scorecard.read_text()) if scorecard.exists() else None)


def example_calls(example: str) -> list[str]:
    """The calls with which `example` succeeds and fails (it has none of the suite's default tools)."""
    calls, bad = CALLS[example]
    return ["--no-default-calls", *(arg for ok in calls for arg in ("--call", ok)), "--error-call", bad]


def check(example: str, transport: str, scorecard: Path) -> Checked:
    return run_suite([sys.executable, str(EXAMPLES / example)], transport, example_calls(example), scorecard, timeout=240)


def checked(example: str, transport: str, tmp_path_factory: pytest.TempPathFactory) -> Checked:
    """`check`, run once per test run: test_patched_sdk.py compares the patched SDK's verdicts with this very run's.
    The first test to ask runs it under a lock; the others, on any xdist worker, read what it got."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "examples-checked"  # this run's, every worker's
    shared.mkdir(exist_ok=True)
    name = f"{example.replace('/', '-')}-{transport}"
    record = shared / f"{name}.json"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            record.write_text(json.dumps(asdict(check(example, transport, shared / f"{name}.scorecard.json"))))
    return Checked(**json.loads(record.read_text()))


@pytest.mark.parametrize("example", sorted(CALLS))
def test_the_example_passes_the_suite_on_stdio(example: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert passed(checked(example, "stdio", tmp_path_factory), example)["ok"] is True


@pytest.mark.parametrize("example", sorted(CALLS))
def test_the_example_passes_the_suite_on_streamable_http(example: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert passed(checked(example, "http", tmp_path_factory), example)["ok"] is True


def legacy_answers(script: Path, version: str, timeout: float = 30) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What a client of `version` reads of tools/list and of a call that succeeds and one that fails."""
    keep = ("name", "description", "inputSchema", "annotations", "outputSchema")
    read = ("content", "structuredContent")
    answers = []
    with StdioTarget([sys.executable, str(script)], timeout=timeout) as target:
        tools = target.exchange(version, None, "tools/list", {}).result["tools"]
        for arguments in ({"text": "a b\nc"}, {"text": 5}):
            result = target.exchange(version, None, "tools/call", {"name": "text_stats", "arguments": arguments}).result
            answers.append({k: result[k] for k in read + ("isError",) if k in result})
    return [{k: t[k] for k in keep if k in t} for t in tools], answers


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_the_migrated_tool_answers_old_clients_as_before(version: str) -> None:
    """Every field, at every older version: before 2025-06-18 too, where MCPServer sends outputSchema and
    structuredContent though those versions do not define them, the migrated tool keeps its established shape."""
    before = legacy_answers(EXAMPLES / "migration" / "before.py", version)
    after = legacy_answers(EXAMPLES / "migration" / "after.py", version)
    assert after == before
    assert before[1][0]["structuredContent"] == {"words": 3, "lines": 2, "characters": 5}
    assert "outputSchema" in before[0][0]
    assert before[1][1]["isError"] is True and before[1][1]["content"][0]["text"].startswith("Error executing tool text_stats: ")


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_an_old_request_with_requested_outputs_is_ignored_by_a_migrated_tool_as_before(version: str) -> None:
    """python-servers.md's migration table: `requestedOutputs` at an older version (a client's mistake) was ignored
    by the plain server, and still is once migrated; world_clock's tool, new with variants.tool, refuses it (-32602
    `requestedOutputs-not-in-this-version`, docs/reference/errors.md)."""
    params = {"name": "text_stats", "arguments": {"text": "a b"}, "requestedOutputs": [{"audience": "assistant", "format": "content"}]}
    answers = {}
    for script in ("before.py", "after.py"):
        with StdioTarget([sys.executable, str(EXAMPLES / "migration" / script)], timeout=30) as target:
            answers[script] = target.exchange(version, None, "tools/call", params).message
    assert answers["before.py"]["result"]["isError"] is False
    assert answers["after.py"]["result"] == answers["before.py"]["result"]
    with StdioTarget([sys.executable, str(EXAMPLES / "world_clock.py")], timeout=30) as target:
        error = target.exchange(version, None, "tools/call", {**params, "name": "world_clock", "arguments": {}}).message["error"]
    assert error["code"] == -32602 and error["data"]["reason"] == "requestedOutputs-not-in-this-version", error


def test_the_migration_changes_at_most_15_lines_and_the_new_server_is_at_most_40() -> None:
    before = (EXAMPLES / "migration" / "before.py").read_text().splitlines()
    after = (EXAMPLES / "migration" / "after.py").read_text().splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert len(changed) <= 15, changed
    assert len((EXAMPLES / "world_clock.py").read_text().splitlines()) <= 40
