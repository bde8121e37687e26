"""Tasks kept on Redis: a task created through any worker is read, listed and cancelled through any other.

The worker whose request created a task runs it (its asyncio task, as in the in-memory MemoryTaskStore); the record is
the store's. Keys, under the deployment's namespace:

- `task:<id>`: a hash (owner, status, TTL, times, the result or error as JSON, the worker running it). While it runs it
  expires `RUNNING_EXPIRY_MS` after its worker last renewed it (every beat); `ttl_ms` after it ended, as in memory.
- `owner:<owner>`: the owner's task ids by creation time (listing, the per-owner bound, kept in the creating script).
- `running`: the ids of running tasks; `worker:<id>`: a worker's lease, renewed every second.
- channel `tasks`: `cancel <id>` (the worker running it cancels the run at once), `stopped <id>` (its run ended:
  tasks/cancel answers) and `settled <id>` (tasks/result waiting anywhere wakes).

A worker that dies stops renewing its lease; its running tasks are failed, with the reason, by the next worker that
reads them or reaps (every second): within `LEASE_MS` + a second. (A worker judges others' leases only after its own
heartbeats have reached the store for a lease: a freshly started worker, or one the store was lost to, waits that long.)
A status only ever changes from working, in one script, so a run that ends after it was cancelled (or failed as lost)
leaves the task as it was, and a result is recorded once.

Every exchange with the store is bounded by its deadline (`RedisNamespace.exchange`). A create whose answer did not come in
time was refused to the client, yet its script may still run once a frozen Redis resumes: the record would name a live
worker that never started it. Its worker drops such a record at its next beat (no client ever had its id). A run that
ends while the store is unreachable keeps its end in memory and records it once the store answers again, however long
that takes, while its worker lives.

When the primary has replicas (a Sentinel deployment, or any primary with replicas attached), a create waits (`WAIT 1`,
within the deadline) until one has the record before the task's id is given: a failover promotes a replica that knows
every task a client was told of. A create no replica confirmed in time is dropped and refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from ..protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, ProtocolError
from ..sdk.tasks import (
    DEFAULT_TTL_MS,
    MAX_TASKS_PER_OWNER,
    MAX_TTL_MS,
    POLL_INTERVAL_MS,
    Task,
    TaskStatus,
    new_task_id,
    no_such_task,
    run_outcome,
    task_ttl,
)
from .redis_client import REDIS_ERRORS, RedisNamespace, StateUnavailable

logger = logging.getLogger(__name__)

LEASE_MS = 5000  # a worker silent this long is gone: its running tasks fail
BEAT_S = 1.0  # lease renewal, reaping, and the check of this worker's runs against their records
RETRY_S = 0.5
REPLICA_SHARE = 0.75  # of the deadline, the most a create waits for a replica to have its record (the rest: the round trip)
SHUT_DOWN = "The worker running this task shut down: its run was stopped. Start it again"
RUNNING_EXPIRY_MS = 60 * 60 * 1000  # a running task's record outlives its worker's last renewal by this much at most
LOST = "The worker running this task stopped (no heartbeat for {seconds} s): its run is lost. Start it again"

# Settle a task once: only a working task changes, and is then kept its TTL (KEYS: task, running; ARGV: id, channel,
# field, value...).
_SETTLE = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'working' and status ~= 'input_required' then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], redis.call('HGET', KEYS[1], 'ttl'))
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'settled ' .. ARGV[1])
return 1
"""


# Create a task, within its owner's bound: when the owner holds max_per_owner ids, ids of expired tasks are dropped, then
# the oldest ended task; 0 when all still run. The lease is renewed with it. (KEYS: task, owner's ids, running, lease;
# ARGV: max, id, now, owner TTL, lease ms, worker, the task key's prefix, the task's expiry while running, field, value...)
_CREATE = """
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then
  local ended = {}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    local status = redis.call('HGET', ARGV[7] .. id, 'status')
    if not status then
      redis.call('ZREM', KEYS[2], id)
    elseif status == 'completed' or status == 'failed' or status == 'cancelled' then
      table.insert(ended, {tonumber(redis.call('HGET', ARGV[7] .. id, 'updated')), id})
    end
  end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then
    if #ended == 0 then return 0 end
    table.sort(ended, function(x, y) return x[1] < y[1] end)
    redis.call('DEL', ARGV[7] .. ended[1][2])
    redis.call('ZREM', KEYS[2], ended[1][2])
  end
end
redis.call('SET', KEYS[4], ARGV[6], 'PX', ARGV[5])
for i = 9, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[2])
return 1
"""


class RedisTaskStore:
    """mcp_variants.sdk.tasks.TaskStore, its records on Redis (`state`); runs of this worker's requests run here."""

    def __init__(self, state: RedisNamespace, *, default_ttl_ms: int = DEFAULT_TTL_MS, poll_interval_ms: int = POLL_INTERVAL_MS,
                 max_per_owner: int = MAX_TASKS_PER_OWNER) -> None:
        self.default_ttl_ms = default_ttl_ms
        self.poll_interval_ms = poll_interval_ms
        self._max_per_owner = max_per_owner
        self.state = state
        self.worker = secrets.token_hex(8)
        self._redis: Any = state.client()  # decode_responses: every reply is a str (redis's types say bytes | str)
        self._runners: dict[str, asyncio.Task[None]] = {}
        self._waiting: dict[str, asyncio.Event] = {}  # tasks/result here, until `settled <id>`
        self._stopping: dict[str, asyncio.Event] = {}  # tasks/cancel here, until `stopped <id>`
        self._unrecorded: dict[str, tuple[TaskStatus, dict[str, Any]]] = {}  # runs here that ended while the store was lost
        self._background: list[asyncio.Task[None]] = []
        self._beating_since: float | None = None  # since when this worker's heartbeats reach the store, unbroken
        self._replicas: int | None = None  # the primary's replicas, as of the last beat (None: not asked yet)
        self._settle = self._redis.register_script(_SETTLE)
        self._create = self._redis.register_script(_CREATE)
        self._channel = state.key("tasks")

    async def start(self, owner: str, run: Callable[[], Awaitable[dict[str, Any]]], ttl_ms: int | None = None) -> Task:
        self._begin()
        task = Task(new_task_id(), owner, task_ttl(ttl_ms, self.default_ttl_ms))
        now = _ms(task.created_at)
        keys = [self._key(task.task_id), self._owner_key(owner), self.state.key("running"), self.state.key("worker", self.worker)]
        args: list[str | int] = [self._max_per_owner, task.task_id, now, MAX_TTL_MS * 2, LEASE_MS, self.worker, self._key(""),
                RUNNING_EXPIRY_MS, "owner", owner, "ttl", task.ttl_ms, "created", now, "updated", now, "status", task.status.value,
                "worker", self.worker]
        async with self.state.exchange():
            if self._replicas is None:
                self._replicas = await self._count_replicas()
            if not self._replicas:
                created = await self._create(keys=keys, args=args)
            else:  # on a replica before its id is given: a failover then loses no task a client knows of
                async with self._redis.pipeline(transaction=False) as pipe:  # WAIT counts this connection's writes
                    await self._create(keys=keys, args=args, client=pipe)
                    pipe.wait(1, max(1, int(self.state.deadline_s * 1000 * REPLICA_SHARE)))
                    created, copied = await pipe.execute()
                if created and not copied:
                    await self._drop(task.task_id, owner)
                    raise StateUnavailable(INTERNAL_ERROR, f"The shared state store ({self.state.where()}) did not copy the new "
                                           "task to a replica in time (a failover could lose it): it was not started. Try again", {})
            if not created:
                raise ProtocolError(INVALID_PARAMS, f"Too many tasks running: at most {self._max_per_owner} per client")
        self._runners[task.task_id] = asyncio.get_running_loop().create_task(self._run_here(task, run), name=f"task {task.task_id}")
        return task

    async def get(self, owner: str, task_id: object) -> Task:
        self._begin()
        async with self.state.exchange():
            task = await self._load(task_id) if isinstance(task_id, str) else None
        if task is None or task.owner != owner:
            raise no_such_task(task_id)
        return task

    async def settled(self, owner: str, task_id: object) -> Task:
        task = await self.get(owner, task_id)
        event = self._waiting.setdefault(task.task_id, asyncio.Event())
        try:
            while not task.status.terminal:
                with contextlib.suppress(TimeoutError):  # a message missed while reconnecting: read again
                    await asyncio.wait_for(event.wait(), self.poll_interval_ms / 1000)
                event.clear()
                task = await self.get(owner, task_id)
        finally:
            self._waiting.pop(task.task_id, None)
        return task

    async def list(self, owner: str) -> list[Task]:
        self._begin()
        async with self.state.exchange():
            ids = await self._redis.zrange(self._owner_key(owner), 0, -1)
            tasks = [await self._load(task_id) for task_id in ids]
        return [t for t in tasks if t is not None and t.owner == owner]

    async def cancel(self, owner: str, task_id: object) -> Task:
        task = await self.get(owner, task_id)
        if task.status.terminal:
            return task
        # As in memory, the answer waits (briefly) for the run to unwind (a kernel interrupt), wherever it runs: the
        # client's next run must not meet its end.
        stopped = self._stopping.setdefault(task.task_id, asyncio.Event())
        try:
            async with self.state.exchange():
                await self._set(task.task_id, TaskStatus.CANCELLED, message="cancelled by the client")
                await self._redis.publish(self._channel, f"cancel {task.task_id}")
            if (runner := self._runners.get(task.task_id)) is not None:
                runner.cancel()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopped.wait(), 1.0)
        finally:
            self._stopping.pop(task.task_id, None)
        return await self.get(owner, task_id)

    async def aclose(self) -> None:
        """At exit: this worker's running tasks fail (no other worker can finish them), their runs are cancelled; the
        ends of runs not yet recorded get one more try."""
        runners = [r for r in self._runners.values() if not r.done()]
        for task_id in list(self._runners):
            with contextlib.suppress(*REDIS_ERRORS):
                async with self.state.within():
                    await self._lost(task_id, SHUT_DOWN)
        with contextlib.suppress(*REDIS_ERRORS):
            async with self.state.within():
                await self._record_unrecorded()
        for task_id in self._unrecorded:
            logger.error("task %s ended but the shared state store could not record it before this worker stopped: its "
                         "result is lost", task_id)
        for runner in runners:
            runner.cancel()
        if runners:
            await asyncio.wait(runners, timeout=2.0)
        for background in self._background:
            background.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        with contextlib.suppress(*REDIS_ERRORS):
            async with self.state.within():
                await self._redis.delete(self.state.key("worker", self.worker))
        await self.state.close(self._redis)

    # -- records

    def _key(self, task_id: str) -> str:
        return self.state.key("task", task_id)

    def _owner_key(self, owner: str) -> str:
        return self.state.key("owner", owner)

    async def _load(self, task_id: str) -> Task | None:
        fields = await self._redis.hgetall(self._key(task_id))
        if not fields:
            return None
        status = TaskStatus(fields["status"])
        if not status.terminal and await self._gone(fields["worker"]):
            await self._lost(task_id)
            return await self._load(task_id)
        task = Task(task_id, fields["owner"], int(fields["ttl"]), created_at=_moment(fields["created"]), status=status,
                    status_message=fields.get("message"), last_updated_at=_moment(fields["updated"]))
        task.result = json.loads(fields["result"]) if "result" in fields else None
        task.error = json.loads(fields["error"]) if "error" in fields else None
        return task

    async def _set(self, task_id: str, status: TaskStatus, *, result: dict[str, Any] | None = None,
                   error: dict[str, Any] | None = None, message: str | None = None) -> bool:
        """Settle the task once (a terminal status stays); whether this call did."""
        fields: list[str] = ["status", status.value, "updated", str(_ms(datetime.now(UTC)))]
        if message is not None:
            fields += ["message", message]
        if result is not None:
            fields += ["result", json.dumps(result, ensure_ascii=False)]
        if error is not None:
            fields += ["error", json.dumps(error, ensure_ascii=False)]
        done = await self._settle(keys=[self._key(task_id), self.state.key("running")], args=[task_id, self._channel, *fields])
        return bool(done)

    async def _gone(self, worker: str) -> bool:
        """Whether `worker`'s lease lapsed (this worker is never gone to itself: its lease is renewed, not lost). Judged
        only once this worker's own heartbeats have reached the store for a lease: after the store was lost, every
        worker's lease may have lapsed, and the others renew theirs within a beat of its return."""
        if worker == self.worker or self._beating_since is None or time.monotonic() - self._beating_since < LEASE_MS / 1000:
            return False
        return not await self._redis.exists(self.state.key("worker", worker))

    async def _lost(self, task_id: str, message: str = LOST.format(seconds=LEASE_MS // 1000)) -> None:
        await self._set(task_id, TaskStatus.FAILED, error={"code": INTERNAL_ERROR, "message": message, "data": {}}, message=message)

    # -- this worker's runs

    async def _run_here(self, task: Task, run: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        settled = False
        try:
            status, ended = await run_outcome(task.task_id, run)
            try:
                async with self.state.within():
                    settled = await self._set(task.task_id, status, **ended)
            except REDIS_ERRORS as exc:
                logger.warning("task %s ended while the shared state store is unreachable (%s): its end is recorded once it answers",
                               task.task_id, exc)
                self._unrecorded[task.task_id] = (status, ended)
        finally:
            self._runners.pop(task.task_id, None)
            if not settled:  # it had ended already (a cancel, which waits for this), or the store was lost
                with contextlib.suppress(*REDIS_ERRORS):
                    async with self.state.within():
                        await self._redis.publish(self._channel, f"stopped {task.task_id}")

    def _begin(self) -> None:
        """The lease, the reaper and the cancel listener, from the first use on (they need the running loop)."""
        if not self._background:
            loop = asyncio.get_running_loop()
            self._background = [loop.create_task(self._heartbeat(), name="tasks heartbeat"),
                                loop.create_task(self._listen(), name="tasks listener")]

    async def _beat(self) -> None:
        await self._redis.set(self.state.key("worker", self.worker), str(time.time()), px=LEASE_MS)
        self._replicas = await self._count_replicas()

    async def _count_replicas(self) -> int:
        """The replicas the primary has now (after a failover, the new one's: none until one is attached again)."""
        return int((await self._redis.info("replication")).get("connected_slaves", 0))

    async def _heartbeat(self) -> None:
        while True:
            try:
                async with self.state.within():
                    await self._beat()
                self._beating_since = self._beating_since or time.monotonic()
                async with self.state.within():
                    await self._record_unrecorded()
                    await self._reap()
                    await self._check_runs()
            except REDIS_ERRORS as exc:
                self._beating_since = None
                logger.warning("tasks: the shared state store is unreachable (%s); retrying", str(exc) or "no answer in time")
            await asyncio.sleep(BEAT_S)

    async def _record_unrecorded(self) -> None:
        """The ends of runs here that the store could not take when they ended."""
        for task_id, (status, ended) in list(self._unrecorded.items()):
            await self._set(task_id, status, **ended)
            del self._unrecorded[task_id]

    async def _reap(self) -> None:
        """Fail the running tasks whose worker's lease lapsed; drop this worker's records that it never started."""
        running = await self._redis.smembers(self.state.key("running"))
        for task_id in running:
            worker, owner, created = await self._redis.hmget(self._key(task_id), "worker", "owner", "created")
            if worker is None:
                await self._redis.srem(self.state.key("running"), task_id)
            elif worker == self.worker:
                if task_id not in self._runners and task_id not in self._unrecorded and self._never_started(created):
                    logger.warning("task %s: made by a create whose answer came too late (refused to its client); dropping it", task_id)
                    await self._drop(task_id, owner)
            elif await self._gone(worker):
                logger.warning("task %s: its worker %s stopped; failing it", task_id, worker)
                await self._lost(task_id)

    def _never_started(self, created: str | None) -> bool:
        """Whether a record of this worker's that it does not run was made by a create refused to its client: older than
        a create's deadline (before that, its `start` may still be waiting for the answer)."""
        return created is None or time.time() * 1000 - int(created) > 2 * self.state.deadline_s * 1000

    async def _drop(self, task_id: str, owner: str | None) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.delete(self._key(task_id))
            pipe.srem(self.state.key("running"), task_id)
            if owner is not None:
                pipe.zrem(self._owner_key(owner), task_id)
            await pipe.execute()

    async def _check_runs(self) -> None:
        """A run here whose task ended elsewhere (cancelled while the listener was reconnecting) is cancelled; the records of
        the others are renewed."""
        for task_id, runner in list(self._runners.items()):
            status = await self._redis.hget(self._key(task_id), "status")
            if status is None or TaskStatus(status).terminal:
                runner.cancel()
            else:
                await self._redis.pexpire(self._key(task_id), RUNNING_EXPIRY_MS)

    async def _listen(self) -> None:
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(self._channel)
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            self._heard(str(message["data"]))
            except REDIS_ERRORS as exc:
                logger.warning("tasks: lost the shared state store's channel (%s); reconnecting", exc)
            await asyncio.sleep(RETRY_S)

    def _heard(self, message: str) -> None:
        kind, _, task_id = message.partition(" ")
        if kind == "cancel" and (runner := self._runners.get(task_id)) is not None:
            runner.cancel()
        waiting = {"settled": self._waiting, "stopped": self._stopping}.get(kind, {})
        if (event := waiting.get(task_id)) is not None:
            event.set()


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _moment(ms: str) -> datetime:
    return datetime.fromtimestamp(int(ms) / 1000, UTC)
