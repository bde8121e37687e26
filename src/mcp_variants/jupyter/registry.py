"""Server-wide runtime state: the backends, which kernel serves which notebook, and each client's choices.

A client is a stdio connection or an HTTP session. `use_notebook`, `connect_to_jupyter` and
`use_sandbox` change that client's state only, so two clients never edit each other's
notebook by accident. A stateless request has no client state: it names its notebook.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import anyio

from ..protocol.errors import ErrorKind
from .keyed_locks import KeyedLocks
from .refusals import Recourse, RuntimeRefusal
from .runtime import Backend

if TYPE_CHECKING:
    from .found_servers import JupyterFinder
    from .sandbox_server import Sandbox

EMBEDDED = "embedded"

logger = logging.getLogger(__name__)


class ClientState:
    """One client's choices. Read through the properties; changed only through the methods, by the tools that
    make those choices (use_notebook, unuse_notebook, use_sandbox, connect_to_jupyter, terminate_sandbox)."""

    def __init__(self, backend_key: str = EMBEDDED, *, persistent: bool = True, key: str | None = None) -> None:
        self._backend_key = backend_key
        self._notebook: str | None = None
        self._notebook_names: dict[str, str] = {}
        self._persistent = persistent
        self._key = key

    @property
    def backend_key(self) -> str:
        """The runtime this client's calls run on."""
        return self._backend_key

    @property
    def notebook(self) -> str | None:
        """The default notebook set by use_notebook."""
        return self._notebook

    @property
    def notebook_names(self) -> Mapping[str, str]:
        """Name given in use_notebook -> path."""
        return MappingProxyType(self._notebook_names)

    @property
    def persistent(self) -> bool:
        """False for a stateless request: nothing it sets outlives the call."""
        return self._persistent

    @property
    def key(self) -> str | None:
        """Who the client is, "stdio" or "http:<session>"; None when stateless: who made an edit (runtime.Origin)."""
        return self._key

    def run_on(self, backend_key: str) -> None:
        self._backend_key = backend_key

    def use_notebook(self, path: str, name: str | None = None) -> None:
        """`path` becomes the default notebook, also known as `name` when one is given."""
        self._notebook = path
        if name:
            self._notebook_names[name] = path

    def let_go_of(self, path: str) -> None:
        """`path` is no longer the default notebook, nor known by any name."""
        if self._notebook == path:
            self._notebook = None
        for name in [n for n, named in self._notebook_names.items() if named == path]:
            del self._notebook_names[name]


class RuntimeRegistry:
    """Read through the properties (read-only views); changed only through the methods, so what depends on what
    (a sandbox and its backend, a backend and its notebooks' kernels) changes together, here."""

    def __init__(self, backends: Mapping[str, Backend], default_backend: str = EMBEDDED) -> None:
        self._backends = dict(backends)
        self._default_backend = default_backend
        self._clients: dict[str, ClientState] = {}
        # (backend key, notebook path) → kernel id: one kernel per notebook in use.
        self._notebook_kernels: dict[tuple[str, str], str] = {}
        # (backend key, kernel id) of kernels use_notebook attached a notebook to: they ran before, so unuse leaves them running.
        self._attached_kernels: set[tuple[str, str]] = set()
        self._sandboxes: dict[str, Sandbox] = {}
        # (backend key, notebook path) of notebooks whose kernel was left on another runtime (move_notebooks): the next
        # kernel they get there is new to them.
        self._arrived: set[tuple[str, str]] = set()
        self.notebook_locks = KeyedLocks()  # by (backend key, notebook path)
        self._closed = False  # aclose ran: the signal path and the exit path may both call it
        # The Jupyter servers serving --root, looked for at each call; None where the runtime was chosen (--embedded,
        # --jupyter-url, --gateway-url).
        self.finder: JupyterFinder | None = None

    @property
    def backends(self) -> Mapping[str, Backend]:
        return MappingProxyType(self._backends)

    @property
    def default_backend(self) -> str:
        return self._default_backend

    @property
    def clients(self) -> Mapping[str, ClientState]:
        return MappingProxyType(self._clients)

    @property
    def notebook_kernels(self) -> Mapping[tuple[str, str], str]:
        return MappingProxyType(self._notebook_kernels)

    @property
    def attached_kernels(self) -> frozenset[tuple[str, str]]:
        return frozenset(self._attached_kernels)

    @property
    def sandboxes(self) -> Mapping[str, Sandbox]:
        return MappingProxyType(self._sandboxes)

    def add_backend(self, backend: Backend, *, default: bool = False) -> None:
        """Register `backend` under its key; with `default`, clients created from now on start on it."""
        self._backends[backend.key] = backend
        if default:
            self._default_backend = backend.key

    def make_default(self, key: str) -> None:
        """Clients created from now on start on the backend `key` (one registered)."""
        if key not in self._backends:
            raise KeyError(key)
        self._default_backend = key

    def remove_backend(self, key: str) -> Backend | None:
        """Forget a backend and which kernels served its notebooks (they went with it); the caller closes it."""
        for notebook in [n for n in self._notebook_kernels if n[0] == key]:
            del self._notebook_kernels[notebook]
        return self._backends.pop(key, None)

    def add_sandbox(self, sandbox: Sandbox, backend: Backend) -> None:
        self._sandboxes[sandbox.id] = sandbox
        self.add_backend(backend)

    def remove_sandbox(self, sandbox_id: str) -> tuple[Sandbox, Backend | None]:
        """Forget a sandbox and its backend; the caller stops them."""
        sandbox = self._sandboxes.pop(sandbox_id)
        return sandbox, self.remove_backend(sandbox.key)

    def set_notebook_kernel(self, backend_key: str, path: str, kernel_id: str, *, attached: bool = False) -> None:
        """`kernel_id` serves the notebook from now on; `attached`: it is a running kernel the notebook was
        attached to, not one started for it, so letting go of the notebook leaves it running."""
        self._notebook_kernels[(backend_key, path)] = kernel_id
        if attached:
            self._attached_kernels.add((backend_key, kernel_id))

    def move_notebooks(self, from_key: str, to_key: str) -> list[str]:
        """Clients left runtime `from_key` for `to_key` (the Jupyter server found for --root, or back): the notebooks'
        kernels there are forgotten, returned (but for those attached to, which others run) for the caller to shut
        down, and each of those notebooks is noted as arrived on `to_key` (`arrived`)."""
        left = []
        for key in [k for k in self._notebook_kernels if k[0] == from_key]:
            kernel_id = self._notebook_kernels.pop(key)
            self._arrived.add((to_key, key[1]))
            if (from_key, kernel_id) not in self._attached_kernels:
                left.append(kernel_id)
        return left

    def arrived(self, backend_key: str, path: str) -> bool:
        """Whether the notebook came from another runtime (move_notebooks) since it last got a kernel on this one."""
        if (backend_key, path) in self._arrived:
            self._arrived.discard((backend_key, path))
            return True
        return False

    def drop_notebook_kernel(self, backend_key: str, path: str) -> str | None:
        """The notebook has no kernel any more; the one it had, if any (the caller decides whether it stops)."""
        return self._notebook_kernels.pop((backend_key, path), None)

    def client(self, key: str | None) -> ClientState:
        if key is None:
            return ClientState(self._default_backend, persistent=False)
        if key not in self._clients:
            self._clients[key] = ClientState(self._default_backend, key=key)
        return self._clients[key]

    def forget(self, key: str) -> None:
        """The client's connection or session ended: what it chose goes with it. Kernels, notebooks and
        sandboxes are the server's, not a client's: they stay (docs/reference/security.md)."""
        if self._clients.pop(key, None) is not None:
            logger.debug("client %s ended: its state is forgotten", key)

    async def agent_left(self, key: str) -> None:
        """The client's session ended: its agent leaves every live notebook it was seen in, on every runtime."""
        for backend in list(self._backends.values()):
            try:
                await backend.contents.agent_left(key)
            except Exception:  # one runtime's failure must not keep the agent in the others
                logger.exception("the agent of %s could not leave %s", key, backend.key)

    def backend(self, client: ClientState) -> Backend:
        backend = self._backends.get(client.backend_key)
        if backend is None:
            raise RuntimeRefusal(ErrorKind.NOT_FOUND, f"The runtime {client.backend_key!r} is gone.", recourse=Recourse.OTHER_RUNTIME)
        return backend

    async def aclose(self) -> None:
        """Shut down every kernel and sandbox server we started, all at once: remote ones wait on the network."""
        if self._closed:
            return
        self._closed = True

        async def close(aclose: Callable[[], Awaitable[None]], what: str) -> None:
            try:
                await aclose()
            except Exception:  # one failure must not leave the others running
                logger.exception("shutting down %s failed", what)

        async with anyio.create_task_group() as tg:
            for key, backend in list(self._backends.items()):
                tg.start_soon(close, backend.contents.aclose, f"{key} notebooks")
                tg.start_soon(close, backend.kernels.aclose, key)
            for sandbox_id, sandbox in list(self._sandboxes.items()):
                tg.start_soon(close, sandbox.aclose, f"sandbox {sandbox_id}")
        self._sandboxes.clear()
