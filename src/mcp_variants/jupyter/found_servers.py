"""Live whenever a Jupyter server holds the notebooks: the runtimes of the Jupyter servers this user runs on
--root or a folder above it, looked for again at each call (discovery.survey), so a JupyterLab started after
our server, or on `~` while --root is a project in it, is worked through from the next call on.

A server found is one Backend (its kernels and rooms, paths mapped when its root is above --root:
below_root.py), made once per server process and kept while it runs; the tools layer decides which
client follows it (tools/shared/where.py).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import anyio

from .discovery import Finding, running_servers, runtime_folder, survey
from .runtime import Backend

logger = logging.getLogger(__name__)

FOUND = "found:"  # the backend keys of found servers


class JupyterFinder:
    def __init__(self, root: Path, *, kernel_name: str, hard_cap_bytes: int, folder: Path | None = None) -> None:
        self.root = root.resolve()
        self.folder = folder  # the runtime folder; None: the user's (JUPYTER_RUNTIME_DIR or the platform's)
        self.kernel_name = kernel_name
        self.hard_cap_bytes = hard_cap_bytes
        self._answered: set[tuple[int, str]] = set()  # servers that answered their token: not asked again
        self._backends: dict[str, tuple[Backend, int]] = {}  # key → its backend and its server's pid

    def owns(self, backend_key: str) -> bool:
        return backend_key.startswith(FOUND)

    async def look(self) -> Finding | None:
        """The server that serves --root (answering first, then the nearest root), or None when none does."""
        if not any((self.folder or runtime_folder()).glob("jpserver-*.json")):
            return None  # most calls of most users: no server runs, and no thread is needed to say so
        findings = [f for f in await anyio.to_thread.run_sync(survey, self.root, self.folder, self._answered) if f.serves_root]
        return next((f for f in findings if f.counts), findings[0] if findings else None)

    def backend(self, finding: Finding) -> Backend:
        """The runtime on `finding`'s server (one that counts), made on first use."""
        server = finding.server
        key = FOUND + hashlib.sha256(f"{server.url}\0{server.pid}\0{finding.prefix}".encode()).hexdigest()[:12]
        if key not in self._backends:
            self._backends[key] = (self._make(key, finding), server.pid)
        return self._backends[key][0]

    def _make(self, key: str, finding: Finding) -> Backend:
        # Imported here: they pull in httpx, websockets and pycrdt, which a start without a server never needs.
        from .below_root import ContentsBelow, KernelsBelow, PathsBelow
        from .server_backend import remote_backend

        server = finding.server
        backend = remote_backend(key, server.url, server.token, hard_cap_bytes=self.hard_cap_bytes, kernel_name=self.kernel_name)
        if not finding.prefix:
            return backend
        paths = PathsBelow(self.root, finding.prefix)
        return Backend(key, f"{backend.label} (--root is {finding.prefix}/ there)", KernelsBelow(backend.kernels, paths),
                       ContentsBelow(backend.contents, paths))

    async def gone(self) -> list[Backend]:
        """The runtimes of found servers that no longer run, forgotten here; the caller closes them."""
        if not self._backends:
            return []
        running = {s.pid for s in await anyio.to_thread.run_sync(running_servers, self.folder)}
        ended = [key for key, (_, pid) in self._backends.items() if pid not in running]
        return [self._backends.pop(key)[0] for key in ended]
