"""Run outputs kept on Redis: a capped result's `mcp-variants://runs/...` read whole through any worker, by its owner only.

The same rules as the in-memory OutputStore (output_links.py): one LRU of at most `max_bytes` over every worker's runs,
a run larger than the budget kept alone, each run readable by its owner only, dropped when its owner's session ends.
Eviction is ours, in one script per write (Redis is never asked to evict), keys under the deployment's namespace:

- `run:<id>`: a hash (owner, size, the outputs as JSON);
- `runs`: every run, scored by its last use (a counter, `runs:clock`); `runs:bytes`: their total size;
- `runs:owner:<owner>`: an owner's runs (its session's end forgets them).
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any

from ..output_links import STORE_BYTES, OutputNotKept, OutputStore, size_of
from .redis_client import REDIS_ERRORS, RedisNamespace

logger = logging.getLogger(__name__)

# KEYS: run, runs, bytes, clock, owner's runs; ARGV: run id, owner, size, outputs, budget, the run key's prefix, the owner
# set's prefix. The new run, then the least recently used others dropped until the total is within the budget.
_PUT = """
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'size', ARGV[3], 'outputs', ARGV[4])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
local total = redis.call('INCRBY', KEYS[3], ARGV[3])
while total > tonumber(ARGV[5]) and redis.call('ZCARD', KEYS[2]) > 1 do
  local oldest = redis.call('ZPOPMIN', KEYS[2])[1]
  local kept = redis.call('HMGET', ARGV[6] .. oldest, 'size', 'owner')
  redis.call('DEL', ARGV[6] .. oldest)
  if kept[1] then total = redis.call('DECRBY', KEYS[3], kept[1]) end
  if kept[2] then redis.call('SREM', ARGV[7] .. kept[2], oldest) end
end
return total
"""

# KEYS: runs, bytes, owner's runs; ARGV: the run key's prefix. Every run of the owner dropped.
_FORGET = """
for _, run in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local size = redis.call('HGET', ARGV[1] .. run, 'size')
  redis.call('DEL', ARGV[1] .. run)
  redis.call('ZREM', KEYS[1], run)
  if size then redis.call('DECRBY', KEYS[2], size) end
end
redis.call('DEL', KEYS[3])
return 1
"""


class RedisOutputStore(OutputStore):
    """OutputStore's interface, its runs on Redis (`state`)."""

    def __init__(self, state: RedisNamespace, max_bytes: int = STORE_BYTES) -> None:
        super().__init__(max_bytes)
        self.state = state
        self._redis: Any = state.client()  # decode_responses: every reply is a str
        self._put = self._redis.register_script(_PUT)
        self._forget = self._redis.register_script(_FORGET)

    async def put(self, outputs: list[dict[str, Any]], owner: str = "") -> str | None:
        run = secrets.token_hex(8)
        size = size_of(outputs)
        try:
            async with self.state.within():
                await self._put(keys=[self.state.key("run", run), self.state.key("runs"), self.state.key("runs", "bytes"),
                                      self.state.key("runs", "clock"), self.state.key("runs", "owner", owner)],
                                args=[run, owner, size, json.dumps(outputs, ensure_ascii=False), self.max_bytes,
                                      self.state.key("run", ""), self.state.key("runs", "owner", "")])
        except REDIS_ERRORS as exc:
            logger.warning("outputs: not kept, the shared state store could not keep them (%s)", exc)
            return None
        return run

    async def get(self, run: str, index: int, owner: str = "") -> dict[str, Any]:
        async with self.state.exchange():
            kept_owner, outputs = await self._redis.hmget(self.state.key("run", run), "owner", "outputs")
            if kept_owner is None or kept_owner != owner:
                raise OutputNotKept(run)
            found = json.loads(outputs)
            if not 0 <= index < len(found):
                raise OutputNotKept(run)
            await self._redis.zadd(self.state.key("runs"), {run: await self._redis.incr(self.state.key("runs", "clock"))}, xx=True)
        return dict(found[index])

    async def forget(self, owner: str) -> None:
        try:
            async with self.state.within():
                await self._forget(keys=[self.state.key("runs"), self.state.key("runs", "bytes"), self.state.key("runs", "owner", owner)],
                                   args=[self.state.key("run", "")])
        except REDIS_ERRORS as exc:
            logger.warning("outputs: the runs of %s could not be forgotten (%s); they go as others are kept", owner, exc)

    async def aclose(self) -> None:
        await self.state.close(self._redis)
