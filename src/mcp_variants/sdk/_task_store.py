"""Long runs as tasks: a store of the tool calls that run in the background, for any server on the public API.

One store per server. A task belongs to the client that started it (`owner`: its stdio connection, its HTTP
session, or, for stateless requests, the server's one principal: docs/reference/tasks.md), outlives the request
and the connection that started it, and is read back by its owner only: any other client is told there is no
such task, exactly as for a task that expired or never was. Its result is the call's whole wire result, projected
once when the run ends (at 2026-12-01 exactly the `requestedOutputs` of the call that created it); a run that
raised is a failed task carrying the error. Cancelling cancels the run's asyncio task: a tool sees
`CancelledError` where it awaits (the Jupyter run loop interrupts its kernel, which keeps its state).

`TaskStore` is the interface every store has; `MemoryTaskStore` keeps the tasks in this process's memory. A store
shared by many workers (mcp_variants.state.redis_tasks) implements the same protocol, its records elsewhere, with the
helpers here (`task_ttl`, `new_task_id`, `no_such_task`, `run_outcome`), and the wire (_task_wire.py) does not know
which it has.

No SDK and no wire here: `_task_wire.py` says what each protocol revision calls these.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from ..protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError

logger = logging.getLogger(__name__)

DEFAULT_TTL_MS = 30 * 60 * 1000
"""How long a task is kept after it ended, when the client asks for no TTL (30 minutes)."""
MAX_TTL_MS = 24 * 60 * 60 * 1000
"""The longest TTL a task gets, whatever a client asks for (24 hours)."""
POLL_INTERVAL_MS = 500
"""The interval a client is told to poll a working task at."""
MAX_TASKS_PER_OWNER = 100
"""How many tasks one owner (a connection or session) may hold: beyond it the task that ended longest ago is dropped,
and while none has ended a new one is refused."""


class TaskStatus(StrEnum):
    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def terminal(self) -> bool:
        """The task ended (completed, failed or cancelled): its status no longer changes."""
        return self in (TaskStatus.COMPLETED, TaskStatus.FAILED, TaskStatus.CANCELLED)


@dataclass
class Task:
    """One run: its status, and once it ended its result (completed) or its JSON-RPC error (failed)."""

    task_id: str
    owner: str
    ttl_ms: int
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    status: TaskStatus = TaskStatus.WORKING
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    last_updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    _clock: Callable[[], float] = time.monotonic  # the store's: what `expired` compares with
    _changed: float = field(init=False)
    _runner: asyncio.Task[None] | None = None
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._changed = self._clock()

    def settle(self, status: TaskStatus, *, result: dict[str, Any] | None = None, error: dict[str, Any] | None = None,
               message: str | None = None) -> None:
        """The run ended (or was cancelled) with this status and its result or error; a task that ended stays so."""
        if self.status.terminal:
            return  # a cancelled task stays cancelled, whatever its run still returns
        self.status, self.result, self.error, self.status_message = status, result, error, message
        self.last_updated_at = datetime.now(UTC)
        self._changed = self._clock()
        self._done.set()

    def expired(self, now: float) -> bool:
        """It ended more than its TTL before `now` (on the store's clock): the store drops it."""
        return self.status.terminal and now - self._changed > self.ttl_ms / 1000

    async def wait(self) -> None:
        """Until the run ended (tasks/result at 2025-11-25 blocks so)."""
        await self._done.wait()


class TaskStore(Protocol):
    """What the wire asks of a store of the server's tasks: each readable by its owner only, dropped `ttl_ms` after
    it ended; an id that names none of the owner's live tasks is `no_such_task` (-32602)."""

    default_ttl_ms: int
    poll_interval_ms: int  # the interval a client is told to poll at

    async def start(self, owner: str, run: Callable[[], Awaitable[dict[str, Any]]], ttl_ms: int | None = None) -> Task:
        """A new working task running `run()` (the call's wire result) in the background; it exists before this
        returns, so a tasks/get right after the answer finds it."""
        ...

    async def get(self, owner: str, task_id: object) -> Task:
        """The owner's task of that id, as it is now; `no_such_task` when the owner has no live task of that id."""
        ...

    async def settled(self, owner: str, task_id: object) -> Task:
        """The owner's task once its run ended (tasks/result at 2025-11-25 blocks so)."""
        ...

    async def list(self, owner: str) -> list[Task]:
        """The owner's live tasks."""
        ...

    async def cancel(self, owner: str, task_id: object) -> Task:
        """Cancel a working task and wait (briefly) for its run to unwind; a task that ended is left as it is."""
        ...

    async def aclose(self) -> None:
        """At exit: what still runs is cancelled."""
        ...


class MemoryTaskStore:
    """The server's tasks in this process's memory (`TaskStore`), by id, each readable by its owner only, dropped
    `ttl_ms` after it ended.

    `clock` is the monotonic time in seconds that a TTL is counted on; a test passes one it moves itself."""

    def __init__(self, default_ttl_ms: int = DEFAULT_TTL_MS, poll_interval_ms: int = POLL_INTERVAL_MS,
                 max_per_owner: int = MAX_TASKS_PER_OWNER, clock: Callable[[], float] = time.monotonic) -> None:
        self.default_ttl_ms = default_ttl_ms
        self._clock = clock
        self.poll_interval_ms = poll_interval_ms
        self._max_per_owner = max_per_owner
        self._tasks: dict[str, Task] = {}

    async def start(self, owner: str, run: Callable[[], Awaitable[dict[str, Any]]], ttl_ms: int | None = None) -> Task:
        """A new working task running `run()` (the call's wire result) in the background; it exists before this
        returns, so a tasks/get right after the answer finds it."""
        self._purge()
        mine = [t for t in self._tasks.values() if t.owner == owner]
        if len(mine) >= self._max_per_owner:
            ended = [t for t in mine if t.status.terminal]
            if not ended:
                raise ProtocolError(INVALID_PARAMS, f"Too many tasks running: at most {self._max_per_owner} per client")
            del self._tasks[min(ended, key=lambda t: t._changed).task_id]
        task = Task(new_task_id(), owner, task_ttl(ttl_ms, self.default_ttl_ms), _clock=self._clock)
        self._tasks[task.task_id] = task
        task._runner = asyncio.get_running_loop().create_task(self._run(task, run), name=f"task {task.task_id}")
        return task

    @staticmethod
    async def _run(task: Task, run: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        status, ended = await run_outcome(task.task_id, run)
        task.settle(status, **ended)

    async def get(self, owner: str, task_id: object) -> Task:
        """The owner's task; -32602 for any id that names none of its live tasks (expired, another's, never was)."""
        self._purge()
        task = self._tasks.get(task_id) if isinstance(task_id, str) else None
        if task is None or task.owner != owner:
            raise no_such_task(task_id)
        return task

    async def settled(self, owner: str, task_id: object) -> Task:
        """The owner's task once its run ended (tasks/result at 2025-11-25 blocks so)."""
        task = await self.get(owner, task_id)
        await task.wait()
        return task

    async def list(self, owner: str) -> list[Task]:
        """The owner's live tasks."""
        self._purge()
        return sorted((t for t in self._tasks.values() if t.owner == owner), key=lambda t: t.created_at)

    async def cancel(self, owner: str, task_id: object) -> Task:
        """Cancel a working task and wait (briefly) for its run to unwind; a task that ended is left as it is."""
        task = await self.get(owner, task_id)
        runner = task._runner
        if not task.status.terminal and runner is not None:
            task.settle(TaskStatus.CANCELLED, message="cancelled by the client")
            runner.cancel()
            await asyncio.wait({runner}, timeout=1.0)  # the tool's cleanup (a kernel interrupt) is quick
        return task

    async def aclose(self) -> None:
        """At exit: cancel what still runs."""
        runners = [t._runner for t in self._tasks.values() if t._runner is not None and not t._runner.done()]
        for runner in runners:
            runner.cancel()
        if runners:
            await asyncio.wait(runners, timeout=2.0)

    def _purge(self) -> None:
        now = self._clock()
        for task_id in [t.task_id for t in self._tasks.values() if t.expired(now)]:
            del self._tasks[task_id]


def task_ttl(ttl_ms: int | None, default_ttl_ms: int = DEFAULT_TTL_MS) -> int:
    """The TTL a task gets: the client's ask, within bounds (`MAX_TTL_MS`), else the store's default."""
    return min(ttl_ms if ttl_ms and ttl_ms > 0 else default_ttl_ms, MAX_TTL_MS)


async def run_outcome(task_id: str, run: Callable[[], Awaitable[dict[str, Any]]]) -> tuple[TaskStatus, dict[str, Any]]:
    """How a run ended, as Task.settle takes it: the status, then its result, error and message by name."""
    try:
        result = await run()
    except asyncio.CancelledError:
        return TaskStatus.CANCELLED, {"message": "cancelled by the client"}
    except ProtocolError as exc:
        return TaskStatus.FAILED, {"error": {"code": exc.code, "message": exc.message, "data": exc.data}, "message": exc.message}
    except Exception:
        logger.exception("task %s raised", task_id)
        return TaskStatus.FAILED, {"error": {"code": INTERNAL_ERROR, "message": "The run failed inside the server"},
                                   "message": "failed inside the server"}
    return TaskStatus.COMPLETED, {"result": result}


def new_task_id() -> str:
    """A task's id: unguessable."""
    return secrets.token_urlsafe(16)  # unguessable as well as owned


def no_such_task(task_id: object) -> ProtocolError:
    """The error for an id that names none of the owner's live tasks (expired, another's, never was): the same."""
    return ProtocolError(INVALID_PARAMS, f"No such task: {task_id}", {"taskId": task_id})


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
