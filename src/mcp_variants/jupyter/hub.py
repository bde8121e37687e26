"""Server-wide runtime state: the backends, which kernel serves which notebook, and each client's choices.

A client is a stdio connection or an HTTP session. `use_notebook`, `connect_to_jupyter` and
`use_sandbox` change that client's state only, so two clients never edit each other's
notebook by accident. A stateless request has no client state: it names its notebook.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from ..protocol.errors import ErrorKind, ToolError
from .runtime import Backend

if TYPE_CHECKING:
    from .sandboxes import Sandbox

EMBEDDED = "embedded"

logger = logging.getLogger(__name__)


@dataclass
class ClientState:
    backend_key: str = EMBEDDED
    notebook: str | None = None  # the default notebook set by use_notebook
    persistent: bool = True  # False for a stateless request: nothing it sets outlives the call
    notebook_names: dict[str, str] = field(default_factory=dict)  # name given in use_notebook -> path
    key: str | None = None  # "stdio", "http:<session>"; None when stateless: who made an edit (runtime.Origin)


class KeyedLocks:
    """One lock per key, held only while someone holds or waits for it: keys come and go."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, tuple[anyio.Lock, int]] = {}

    @asynccontextmanager
    async def hold(self, key: Hashable) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (anyio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)


@dataclass
class Hub:
    backends: dict[str, Backend]
    default_backend: str = EMBEDDED
    clients: dict[str, ClientState] = field(default_factory=dict)
    # (backend key, notebook path) → kernel id: one kernel per notebook in use.
    notebook_kernels: dict[tuple[str, str], str] = field(default_factory=dict)
    # (backend key, kernel id) of kernels use_notebook attached a notebook to: they ran before, so unuse leaves them running.
    attached_kernels: set[tuple[str, str]] = field(default_factory=set)
    sandboxes: dict[str, Sandbox] = field(default_factory=dict)
    notebook_locks: KeyedLocks = field(default_factory=KeyedLocks)  # by (backend key, notebook path)
    closed: bool = False  # aclose ran: the signal path and the exit path may both call it

    def client(self, key: str | None) -> ClientState:
        if key is None:
            return ClientState(backend_key=self.default_backend, persistent=False)
        if key not in self.clients:
            self.clients[key] = ClientState(backend_key=self.default_backend, key=key)
        return self.clients[key]

    def forget(self, key: str) -> None:
        """The client's connection or session ended: what it chose goes with it. Kernels, notebooks and
        sandboxes are the server's, not a client's: they stay (docs/reference/security.md)."""
        if self.clients.pop(key, None) is not None:
            logger.debug("client %s ended: its state is forgotten", key)

    def backend(self, client: ClientState) -> Backend:
        backend = self.backends.get(client.backend_key)
        if backend is None:
            raise ToolError(ErrorKind.NOT_FOUND,
                            f"The runtime {client.backend_key!r} is gone; use_sandbox or connect_to_jupyter to pick another.")
        return backend

    async def aclose(self) -> None:
        """Shut down every kernel and sandbox server we started, all at once: remote ones wait on the network."""
        if self.closed:
            return
        self.closed = True

        async def close(aclose: Callable[[], Awaitable[None]], what: str) -> None:
            try:
                await aclose()
            except Exception:  # one failure must not leave the others running
                logger.exception("shutting down %s failed", what)

        async with anyio.create_task_group() as tg:
            for key, backend in list(self.backends.items()):
                tg.start_soon(close, backend.contents.aclose, f"{key} notebooks")
                tg.start_soon(close, backend.kernels.aclose, key)
            for sandbox_id, sandbox in list(self.sandboxes.items()):
                tg.start_soon(close, sandbox.aclose, f"sandbox {sandbox_id}")
        self.sandboxes.clear()
