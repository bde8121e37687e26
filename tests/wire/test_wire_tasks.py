"""Long runs as tasks (issue 21), on the wire: SEP-2663's extension at 2026-07-28 and 2026-12-01, and the
experimental tasks of 2025-11-25. The official suite's tasks-* scenarios run against examples/everything.py."""

from __future__ import annotations

from typing import Any

import pytest

from support.waiting import marked_sleep, until
from support.wire import INVALID_PARAMS, OUTPUTS_VERSION, WireClient, sel, text_of, unique

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

TASKS = "io.modelcontextprotocol/tasks"
METHOD_NOT_FOUND = -32601
MISSING_CAPABILITY = -32021


def settle(client: WireClient, task_id: str, timeout: float = 30.0) -> dict[str, Any]:
    """tasks/get until the task ended."""
    def ended() -> dict[str, Any] | None:
        task: dict[str, Any] = client.request("tasks/get", {"taskId": task_id}).result
        return task if task["status"] in ("completed", "failed", "cancelled") else None

    return until(ended, f"task {task_id} ended", timeout=timeout)


def started(client: WireClient, code: str, **extra: Any) -> str:
    created = client.call("execute_code", {"code": code}, **extra).result
    assert created["resultType"] == "task" and created["status"] == "working", created
    assert isinstance(created["ttlMs"], int) and isinstance(created["pollIntervalMs"], int), created
    return str(created["taskId"])


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_a_cancelled_sleep_is_interrupted_and_the_kernel_keeps_its_variables(connect, transport, tmp_path):
    """The cancel reaches the kernel: the run stops inside its sleep (the line after it never runs), and the next run
    is served by the same kernel, its variables kept. The sleep outlasts every deadline here, so only an interrupt
    lets the next run complete."""
    client = connect(transport, "2026-07-28", {TASKS: {}})
    name = unique("kept")
    assert settle(client, started(client, f"{name} = 41"))["status"] == "completed"
    begun, finished = tmp_path / "begun", tmp_path / "finished"
    sleeping = started(client, marked_sleep(begun, 600, then=f"open({str(finished)!r}, 'w').close()"))
    until(begun.exists, "the sleep has begun")
    ack = client.request("tasks/cancel", {"taskId": sleeping}).result
    assert ack["resultType"] == "complete" and "taskId" not in ack and "status" not in ack, ack
    assert settle(client, sleeping)["status"] == "cancelled"
    after = settle(client, started(client, f"print({name} + 1)"))
    assert after["status"] == "completed" and "42" in text_of(after["result"]["content"]), after
    assert not finished.exists(), "the cancelled run went on past its sleep"


def test_the_result_carries_exactly_the_requested_outputs_of_the_call_that_created_it(connect):
    client = connect("http", OUTPUTS_VERSION, {TASKS: {}})
    task_id = started(client, "print('hi')", requested=[sel("programmatic", "structured")])
    task = settle(client, task_id)
    assert task["status"] == "completed", task
    assert [(o["audience"], o["format"]) for o in task["result"]["outputs"]] == [("programmatic", "structured")], task


def test_a_refused_selection_is_refused_before_any_task(connect):
    client = connect("http", OUTPUTS_VERSION, {TASKS: {}})
    reply = client.call("execute_code", {"code": "1"}, requested=[sel("nobody", "structured")])
    assert reply.error["code"] == INVALID_PARAMS


def test_the_extension_gates_tasks_and_the_removed_methods_are_not_found(connect):
    plain = connect("http", "2026-07-28", None)
    assert plain.request("tasks/get", {"taskId": "x"}).error["code"] == MISSING_CAPABILITY
    assert "content" in plain.call("execute_code", {"code": "1"}).result  # no task without the extension
    client = connect("http", "2026-07-28", {TASKS: {}})
    assert client.request("tasks/get", {"taskId": "no-such-task"}).error["code"] == INVALID_PARAMS
    assert client.request("tasks/result", {"taskId": "x"}).error["code"] == METHOD_NOT_FOUND
    assert client.request("tasks/list", {}).error["code"] == METHOD_NOT_FOUND
    assert client.request("tasks/update", {"taskId": "no-such-task", "inputResponses": {}}).error["code"] == INVALID_PARAMS


def test_a_failure_is_a_completed_task_with_is_error(connect):
    client = connect("http", "2026-07-28", {TASKS: {}})
    task = settle(client, started(client, "raise ValueError('boom')"))
    assert task["status"] == "completed" and task["result"]["isError"] is True, task


def test_2025_11_25_tasks(connect):
    client = connect("http", "2025-11-25", None)
    listed = {t["name"]: t for t in client.list_tools().result["tools"]}
    assert listed["execute_code"]["execution"] == {"taskSupport": "optional"}
    created = client.call("execute_code", {"code": "print(6 * 7)"}, task={"ttl": 60000}).result
    task_id = created["task"]["taskId"]
    assert created["task"]["status"] == "working" and created["task"]["ttl"] == 60000, created
    result = client.request("tasks/result", {"taskId": task_id}).result
    assert "42" in text_of(result["content"]), result
    assert client.request("tasks/get", {"taskId": task_id}).result["status"] == "completed"
    assert task_id in [t["taskId"] for t in client.request("tasks/list", {}).result["tasks"]]
    other = connect("http", "2025-11-25", {"other": {}})  # another HTTP session: another client
    assert other.request("tasks/get", {"taskId": task_id}).error["code"] == INVALID_PARAMS
