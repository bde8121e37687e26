"""The connection to the shared state store: one Redis (`redis://` or `rediss://`, a password in the URL), or the primary
of a Sentinel deployment (`redis+sentinel://`, state/sentinel_url.py), its keys under one namespace per deployment.

Every exchange with the store is bounded by one deadline (`deadline_s`, `--state-timeout`), however the store fails:
refusing, frozen (a stopped process, a long fork for a snapshot, a partition: the socket connects and nothing answers),
or slow. A call that needs the store and does not get its answer in time fails with `StateUnavailable`; the client
connects again on the next call (redis-py drops a connection whose command was cancelled, so no late answer is read
as the next one's). Redis must never evict our keys on its own, so the server refuses to start on a `maxmemory-policy`
of `allkeys-*` (`check`), and on a Redis Cluster, whose slots the multi-key scripts here would cross. A full Redis
(`noeviction`) refuses writes: the call that wrote fails, and says so.

Through Sentinel, every new connection asks the sentinels where the primary is, so a connection the old primary dropped
is made again to the one they promoted (the retry below, or the next call); the task channel's listener reconnects
the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis
import redis.asyncio
import redis.asyncio.sentinel
import redis.sentinel
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff

from ..protocol.errors import INTERNAL_ERROR, ProtocolError
from . import DEADLINE_S
from .sentinel_url import SCHEME, SentinelAddress, sentinel_address

DEFAULT_NAMESPACE = "mcp-variants"
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.exceptions.RedisError, OSError)


class StateUnavailable(ProtocolError):
    """The shared state store could not be reached, or refused the write (full)."""


@dataclass(frozen=True)
class RedisNamespace:
    """Where the shared state is, on one Redis: the URL (its password never shown) and the namespace its keys live under;
    its clients, its keys and the start-up check. It stores nothing itself: the stores of redis_*.py do."""

    url: str
    namespace: str = DEFAULT_NAMESPACE
    deadline_s: float = DEADLINE_S

    def key(self, *parts: str) -> str:
        return ":".join((self.namespace, *parts))

    def where(self) -> str:
        """The store for messages: scheme, host and port (a Sentinel deployment's sentinels and service), no password."""
        parts = urlsplit(self.url)
        if parts.scheme == SCHEME:
            try:
                return self.sentinel().where()  # type: ignore[union-attr]  # the scheme says it is one
            except ValueError:
                return f"{SCHEME}://…"
        return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}"

    def sentinel(self) -> SentinelAddress | None:
        """The Sentinel deployment the URL names, or None for `redis://` and `rediss://` (ValueError: a bad one)."""
        return sentinel_address(self.url)

    def client(self) -> redis.asyncio.Redis:
        # A pooled connection a restarted Redis (or a failed-over primary) closed fails once: it is retried on a new one.
        # The retry, the reconnect and the health check all fall within the caller's one deadline (`exchange`,
        # `within`), not each its own.
        settings: dict[str, Any] = {"decode_responses": True, "socket_timeout": self.deadline_s,
                                    "socket_connect_timeout": self.deadline_s, "health_check_interval": 10,
                                    "retry": Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
                                    "retry_on_error": [redis.exceptions.ConnectionError]}
        if (address := self.sentinel()) is None:
            return redis.asyncio.Redis.from_url(self.url, **settings)
        sentinels = redis.asyncio.sentinel.Sentinel(address.sentinels, sentinel_kwargs=self._sentinel_settings(address),
                                                    db=address.db, username=address.username, password=address.password)
        primary: redis.asyncio.Redis = sentinels.master_for(address.service, redis_class=redis.asyncio.Redis, **settings)
        return primary

    @staticmethod
    async def close(client: redis.asyncio.Redis) -> None:
        """Close a `client()`'s connections, and through Sentinel the connections to the sentinels it asked."""
        await client.aclose()
        if isinstance(pool := client.connection_pool, redis.asyncio.sentinel.SentinelConnectionPool):
            await pool.sentinel_manager.aclose()

    def _sentinel_settings(self, address: SentinelAddress) -> dict[str, Any]:
        return {"socket_timeout": self.deadline_s, "socket_connect_timeout": self.deadline_s, "password": address.sentinel_password}

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
        running task, a Cluster; through Sentinel: no sentinel answers, a service they do not know, no primary), or None."""
        try:
            address = self.sentinel()
        except ValueError as exc:
            return f"the shared state store URL ({SCHEME}://…) {exc}"
        try:
            primary = self._sync_client() if address is None else self._sentinel_primary(address)
            if isinstance(primary, str):
                return f"the shared state store {self.where()} {primary}"
            with primary as sync:
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

    def _sync_client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=self.deadline_s, socket_connect_timeout=self.deadline_s)

    def _sentinel_primary(self, address: SentinelAddress) -> redis.Redis | str:
        """A client of the primary the sentinels name, or what keeps them from naming one."""
        sentinels = redis.sentinel.Sentinel(address.sentinels, sentinel_kwargs=self._sentinel_settings(address),
                                            socket_timeout=self.deadline_s, socket_connect_timeout=self.deadline_s,
                                            db=address.db, username=address.username, password=address.password)
        answering, said = [], []
        for node in sentinels.sentinels:
            try:
                node.ping()
                answering.append(node)
            except (redis.exceptions.RedisError, OSError) as exc:
                said.append(exc)
        try:
            if not answering:
                if any(auth_problem(exc) is not None for exc in said):
                    return ("refused its sentinels' password: give theirs as ?sentinel_password=SECRET in --state-url (the "
                            "password before the @ is the primary's)")
                return f"is unreachable: no sentinel answers ({said[0]})"
            try:
                answering[0].sentinel_master(address.service)
            except redis.exceptions.ResponseError:
                return (f"has no service named {address.service!r}: its sentinels monitor none by that name (the name in "
                        "their `sentinel monitor NAME ...`)")
            try:
                sentinels.discover_master(address.service)
            except redis.sentinel.MasterNotFoundError:
                return f"has no primary up for the service {address.service!r} (its sentinels know the service, and no primary)"
        finally:
            for node in sentinels.sentinels:
                node.close()
        primary: redis.Redis = sentinels.master_for(address.service, socket_timeout=self.deadline_s,
                                                    socket_connect_timeout=self.deadline_s)
        return primary


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

