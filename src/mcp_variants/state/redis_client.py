"""The connection to the shared state store: one Redis (`redis://` or `rediss://`, a password in the URL), its keys
under one namespace per deployment.

Every exchange with the store is bounded by one deadline (`deadline_s`, `--state-timeout`), however the store fails:
refusing, frozen (a stopped process, a long fork for a snapshot, a partition: the socket connects and nothing answers),
or slow. A call that needs the store and does not get its answer in time fails with `StateUnavailable`; the client
connects again on the next call (redis-py drops a connection whose command was cancelled, so no late answer is read
as the next one's). Redis must never evict our keys on its own, so the server refuses to start on a `maxmemory-policy`
of `allkeys-*` (`check`), and on a Redis Cluster, whose slots the multi-key scripts here would cross. A full Redis
(`noeviction`) refuses writes: the call that wrote fails, and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import redis
import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from ..protocol.errors import INTERNAL_ERROR, ProtocolError
from . import DEADLINE_S

DEFAULT_NAMESPACE = "mcp-variants"
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.exceptions.RedisError, OSError)


class StateUnavailable(ProtocolError):
    """The shared state store could not be reached, or refused the write (full)."""


@dataclass(frozen=True)
class StateStore:
    """Where the shared state is: the URL (its password never shown) and the namespace its keys live under."""

    url: str
    namespace: str = DEFAULT_NAMESPACE
    deadline_s: float = DEADLINE_S

    def key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def where(self) -> str:
        """The store for messages: scheme, host and port, no password."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"

    def client(self) -> redis.asyncio.Redis:
        # A pooled connection a restarted Redis closed fails once: it is retried on a new one. The retry, the reconnect
        # and the health check all fall within the caller's one deadline (`exchange`, `within`), not each its own.
        return redis.asyncio.Redis.from_url(self.url, decode_responses=True, socket_timeout=self.deadline_s,
                                            socket_connect_timeout=self.deadline_s, health_check_interval=10,
                                            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
                                            retry_on_error=[redis.exceptions.ConnectionError])

    def within(self) -> asyncio.Timeout:
        """The deadline of one exchange with the store, for writes whose failure is only logged."""
        return asyncio.timeout(self.deadline_s)

    @contextlib.asynccontextmanager
    async def exchange(self) -> AsyncIterator[None]:
        """One exchange a call needs: its answer within the deadline, or `StateUnavailable` saying why."""
        try:
            async with self.within():
                yield
        except REDIS_ERRORS as exc:  # TimeoutError (the deadline) is an OSError
            raise self.unavailable(exc) from None

    def unavailable(self, exc: BaseException) -> StateUnavailable:
        where = f"The shared state store ({self.where()})"
        if isinstance(exc, redis.exceptions.OutOfMemoryError) or "maxmemory" in str(exc):  # a script's OOM is a plain ResponseError
            return StateUnavailable(INTERNAL_ERROR, f"{where} is full and refused the write: free memory there, or raise its maxmemory", {})
        if (refused := auth_problem(exc)) is not None:
            return StateUnavailable(INTERNAL_ERROR, f"{where} {refused}", {})
        if isinstance(exc, TimeoutError) and not isinstance(exc, redis.exceptions.RedisError):
            return StateUnavailable(INTERNAL_ERROR, f"{where} did not answer within {self.deadline_s:g} s. Try again once it answers", {})
        return StateUnavailable(INTERNAL_ERROR, f"{where} is unreachable: {str(exc).rstrip('.')}. Try again once it is back", {})

    def check(self) -> str | None:
        """Why the server cannot start on this store (unreachable, a wrong password, an eviction policy that could drop a
        running task), or None."""
        try:
            with redis.Redis.from_url(self.url, socket_timeout=self.deadline_s, socket_connect_timeout=self.deadline_s) as sync:
                sync.ping()
                if sync.info("cluster").get("cluster_enabled"):
                    return (f"the shared state store {self.where()} is a Redis Cluster, which is not supported (a task's keys "
                            "would span slots): use one Redis primary, with replicas and Sentinel for failover")
                try:
                    policy = sync.config_get("maxmemory-policy").get("maxmemory-policy", "")
                except redis.exceptions.ResponseError:
                    return None  # CONFIG disabled (managed Redis): its policy is the operator's to set to noeviction
        except (redis.exceptions.RedisError, OSError, ValueError) as exc:
            if (refused := auth_problem(exc)) is not None:
                return f"the shared state store {self.where()} {refused}"
            return f"the shared state store {self.where()} is unreachable: {exc}"
        if isinstance(policy, str) and policy.startswith("allkeys-"):
            return (f"the shared state store {self.where()} has maxmemory-policy {policy}, which could drop a running task's "
                    "record: set it to noeviction (or a volatile-* policy)")
        return None


# What Redis says when a password is needed but none was given (the RESP3 handshake or a plain command), and when the
# one given is wrong: worded as what to fix, never with the password.
_NO_PASSWORD = ("NOAUTH", "Authentication required", "HELLO must be called with the client already authenticated")
_WRONG_PASSWORD = ("WRONGPASS", "invalid password", "invalid username-password pair")


def auth_problem(exc: BaseException) -> str | None:
    """What to fix when `exc` is Redis refusing the credentials, or None."""
    said = str(exc)
    if any(words in said for words in _WRONG_PASSWORD):
        return "refused the password in --state-url (wrong password, or a user without access): check it"
    if any(words in said for words in _NO_PASSWORD):
        return "needs a password: give it in --state-url (redis://:PASSWORD@HOST:PORT)"
    return None

