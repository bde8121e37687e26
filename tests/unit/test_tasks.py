"""The task store (sdk/_task_store.py): ownership, expiry, cancellation, failure. No I/O: plain coroutines."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_variants.protocol.errors import INVALID_PARAMS, ProtocolError
from mcp_variants.sdk.tasks import MemoryTaskStore, TaskStatus


async def answer(value: dict[str, Any], delay: float = 0.0) -> dict[str, Any]:
    await asyncio.sleep(delay)
    return value


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


class Clock:
    """The store's monotonic clock, moved by the test: expiry is checked without waiting for it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_task_completes_with_its_result_and_only_its_owner_reads_it() -> None:
    async def scenario() -> None:
        store = MemoryTaskStore()
        task = await store.start("alice", lambda: answer({"content": []}))
        await task.wait()
        assert (await store.get("alice", task.task_id)).result == {"content": []}
        assert (await store.get("alice", task.task_id)).status is TaskStatus.COMPLETED
        with pytest.raises(ProtocolError) as refused:
            await store.get("bob", task.task_id)
        assert refused.value.code == INVALID_PARAMS
        assert [t.task_id for t in await store.list("bob")] == []

    run(scenario())


def test_an_expired_task_is_no_such_task_never_an_empty_result() -> None:
    async def scenario() -> None:
        clock = Clock()
        store = MemoryTaskStore(clock=clock)
        task = await store.start("alice", lambda: answer({"content": []}), ttl_ms=1000)
        await task.wait()
        clock.now += 1.0
        assert (await store.get("alice", task.task_id)).status is TaskStatus.COMPLETED  # at its TTL, still there
        clock.now += 0.001
        with pytest.raises(ProtocolError, match="No such task"):
            await store.get("alice", task.task_id)

    run(scenario())


def test_a_running_task_is_never_expired_and_cancelling_it_stops_the_run() -> None:
    async def scenario() -> None:
        clock = Clock()
        store = MemoryTaskStore(clock=clock)
        begun = asyncio.Event()

        async def long_run() -> dict[str, Any]:
            begun.set()
            return await answer({}, delay=30)

        task = await store.start("alice", long_run, ttl_ms=1)
        await begun.wait()
        clock.now += 3600
        assert (await store.get("alice", task.task_id)).status is TaskStatus.WORKING
        await store.cancel("alice", task.task_id)
        assert task.status is TaskStatus.CANCELLED and task._runner is not None and task._runner.done()
        await store.cancel("alice", task.task_id)  # idempotent
        assert task.status is TaskStatus.CANCELLED

    run(scenario())


def test_a_failure_is_a_failed_task_carrying_the_error() -> None:
    async def broken() -> dict[str, Any]:
        raise ProtocolError(-32603, "broke", {"why": "test"})

    async def scenario() -> None:
        store = MemoryTaskStore()
        task = await store.start("alice", broken)
        await task.wait()
        assert task.status is TaskStatus.FAILED and task.error == {"code": -32603, "message": "broke", "data": {"why": "test"}}

    run(scenario())


def test_a_client_holds_a_bounded_number_of_tasks() -> None:
    async def scenario() -> None:
        store = MemoryTaskStore(max_per_owner=2)
        first = await store.start("alice", lambda: answer({}))
        await first.wait()
        await store.start("alice", lambda: answer({}, delay=30))
        await store.start("alice", lambda: answer({}, delay=30))  # drops the one that ended
        with pytest.raises(ProtocolError, match="Too many"):
            await store.start("alice", lambda: answer({}, delay=30))
        await store.start("bob", lambda: answer({}))  # another client's own budget
        await store.aclose()

    run(scenario())
