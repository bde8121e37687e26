"""Images of `--images link` kept on Redis as well: a link made through one worker is read through any other, by the
clients it was shown to only.

The projections that make links are synchronous, so `put` keeps the image in this worker's memory at once (the
in-memory ImageStore: this worker reads it back without Redis) and writes it to Redis in the background; `get` looks
here first, then on Redis. A link read through another worker within milliseconds of its result may come before the
write: a miss there is looked for again for up to `SETTLE_S`. The same budget and LRU order as in memory, kept in one
script per write; keys under the deployment's namespace:

- `image:<sha256>.<ext>`: a hash (mime, the bytes as base64, size); `images:owners:<name>`: who may read it;
- `images`: every image by its last use (`images:clock`); `images:bytes`: their total size.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from typing import Any

from ..images import STORE_BYTES, URI_PREFIX, ImageNotKept, ImageStore
from .redis_client import REDIS_ERRORS, RedisNamespace

logger = logging.getLogger(__name__)

SETTLE_S = 0.3
RETRY_S = 0.05

# KEYS: image, owners, images, bytes, clock; ARGV: name, mime, base64 data, size, owner, budget, image prefix, owners
# prefix. The image (once), its new owner, its use; then the least recently used others dropped until within budget.
_PUT = """
local total
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'mime', ARGV[2], 'data', ARGV[3], 'size', ARGV[4])
  total = redis.call('INCRBY', KEYS[4], ARGV[4])
else
  total = tonumber(redis.call('GET', KEYS[4]) or '0')
end
redis.call('SADD', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[5]), ARGV[1])
while total > tonumber(ARGV[6]) and redis.call('ZCARD', KEYS[3]) > 1 do
  local oldest = redis.call('ZPOPMIN', KEYS[3])[1]
  local size = redis.call('HGET', ARGV[7] .. oldest, 'size')
  redis.call('DEL', ARGV[7] .. oldest, ARGV[8] .. oldest)
  if size then total = redis.call('DECRBY', KEYS[4], size) end
end
return total
"""


class RedisImageStore(ImageStore):
    """ImageStore's interface: this worker's images in memory, every worker's on Redis (`state`)."""

    def __init__(self, state: RedisNamespace, max_bytes: int = STORE_BYTES) -> None:
        super().__init__(max_bytes)
        self.state = state
        self._redis: Any = state.client()  # decode_responses: every reply is a str
        self._put = self._redis.register_script(_PUT)
        self._writes: set[asyncio.Task[None]] = set()

    def put(self, mime: str, data: bytes, owner: str = "") -> str:
        uri = super().put(mime, data, owner)
        try:
            write = asyncio.get_running_loop().create_task(self._write(uri, mime, data, owner))
        except RuntimeError:  # no loop in this thread: this worker's memory only
            return uri
        self._writes.add(write)
        write.add_done_callback(self._writes.discard)
        return uri

    async def _write(self, uri: str, mime: str, data: bytes, owner: str) -> None:
        name = uri.removeprefix(URI_PREFIX)
        try:
            async with self.state.within():
                await self._put(keys=[self.state.key("image", name), self.state.key("images", "owners", name), self.state.key("images"),
                                      self.state.key("images", "bytes"), self.state.key("images", "clock")],
                                args=[name, mime, base64.b64encode(data).decode(), len(data), owner, self.max_bytes,
                                      self.state.key("image", ""), self.state.key("images", "owners", "")])
        except REDIS_ERRORS as exc:
            logger.warning("images: %s kept by this worker only, the shared state store could not keep it (%s)", uri, exc)

    async def get(self, uri: str, owner: str = "") -> tuple[str, bytes]:
        try:
            return await super().get(uri, owner)
        except ImageNotKept:
            pass
        name = uri.removeprefix(URI_PREFIX)
        deadline = asyncio.get_running_loop().time() + SETTLE_S
        async with self.state.exchange():
            while True:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.sismember(self.state.key("images", "owners", name), owner)
                    pipe.hmget(self.state.key("image", name), "mime", "data")
                    allowed, (mime, data) = await pipe.execute()
                if allowed and data is not None:
                    await self._redis.zadd(self.state.key("images"), {name: await self._redis.incr(self.state.key("images", "clock"))},
                                           xx=True)
                    return mime, base64.b64decode(data)
                if asyncio.get_running_loop().time() > deadline:
                    raise ImageNotKept(uri)
                await asyncio.sleep(RETRY_S)

    async def aclose(self) -> None:
        if self._writes:
            await asyncio.wait(self._writes, timeout=2.0)
        await self.state.close(self._redis)
