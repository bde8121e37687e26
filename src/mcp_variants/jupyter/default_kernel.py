"""The kernel a call without a kernel id runs in, the same bookkeeping for every runtime."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Container

import anyio


class DefaultKernel:
    """Started on first use; replaced when it died, and the next run is told that state was lost."""

    def __init__(self) -> None:
        self.kernel_id: str | None = None
        self._lost = False
        self._lock = anyio.Lock()

    async def get(self, start: Callable[[], Awaitable[str]], running: Container[str]) -> tuple[str, bool]:
        """Its id, and True when it replaced one that died."""
        async with self._lock:
            if self.kernel_id is not None and self.kernel_id in running:
                return self.kernel_id, False
            self.kernel_id = await start()
            replaced, self._lost = self._lost, False
            return self.kernel_id, replaced

    def shut_down(self, kernel_id: str) -> None:
        """`kernel_id` was shut down on purpose: the next default starts fresh, with nothing to report."""
        if kernel_id == self.kernel_id:
            self.kernel_id = None

    def died(self, kernel_id: str) -> None:
        if kernel_id == self.kernel_id:
            self.kernel_id, self._lost = None, True
