"""The connection to the shared state store: one Redis (`redis://` or `rediss://`, a password in the URL), its keys
under one namespace per deployment.

Every call that needs the store and cannot reach it fails at once with `StateUnavailable` (short socket timeouts:
nothing hangs); the client connects again on the next call. Redis must never evict our keys on its own: a running
task's record has no expiry, and a `maxmemory-policy` of `allkeys-*` could drop it, so the server refuses to start
on one (`check`). A full Redis (`noeviction`) refuses writes: the call that wrote fails, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import redis
import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from ..protocol.errors import INTERNAL_ERROR, ProtocolError

TIMEOUT_S = 2.0  # a socket read or connect; a store that answers slower than this is treated as lost
DEFAULT_NAMESPACE = "mcp-variants"


class StateUnavailable(ProtocolError):
    """The shared state store could not be reached, or refused the write (full)."""


@dataclass(frozen=True)
class RedisNamespace:
    """Where the shared state is, on one Redis: the URL (its password never shown) and the namespace its keys live under;
    its clients, its keys and the start-up check. It stores nothing itself: the stores of redis_*.py do."""

    url: str
    namespace: str = DEFAULT_NAMESPACE

    def key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def where(self) -> str:
        """The store for messages: scheme, host and port, no password."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"

    def client(self) -> redis.asyncio.Redis:
        # A pooled connection a restarted Redis closed fails once: it is retried on a new one (a refused connect fails
        # at once, a silent store after TIMEOUT_S: neither is retried long).
        return redis.asyncio.Redis.from_url(self.url, decode_responses=True, socket_timeout=TIMEOUT_S,
                                            socket_connect_timeout=TIMEOUT_S, health_check_interval=10,
                                            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
                                            retry_on_error=[redis.exceptions.ConnectionError])

    def unavailable(self, exc: Exception) -> StateUnavailable:
        if isinstance(exc, redis.exceptions.OutOfMemoryError) or "maxmemory" in str(exc):  # a script's OOM is a plain ResponseError
            return StateUnavailable(INTERNAL_ERROR, f"The shared state store ({self.where()}) is full and refused the write: "
                                                    "free memory there, or raise its maxmemory", {})
        return StateUnavailable(INTERNAL_ERROR, f"The shared state store ({self.where()}) is unreachable: {str(exc).rstrip('.')}. "
                                                "Try again once it is back", {})

    def check(self) -> str | None:
        """Why the server cannot start on this store (unreachable, a wrong password, an eviction policy that could drop a
        running task), or None."""
        try:
            with redis.Redis.from_url(self.url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S) as sync:
                sync.ping()
                try:
                    policy = sync.config_get("maxmemory-policy").get("maxmemory-policy", "")
                except redis.exceptions.ResponseError:
                    return None  # CONFIG disabled (managed Redis): its policy is the operator's to set to noeviction
        except (redis.exceptions.RedisError, OSError, ValueError) as exc:
            return f"the shared state store {self.where()} is unreachable: {exc}"
        if isinstance(policy, str) and policy.startswith("allkeys-"):
            return (f"the shared state store {self.where()} has maxmemory-policy {policy}, which could drop a running task's "
                    "record: set it to noeviction (or a volatile-* policy)")
        return None


REDIS_ERRORS: tuple[type[Exception], ...] = (redis.exceptions.RedisError, OSError)

