"""Kernels on a Jupyter Enterprise Gateway (`--gateway-url`): the jupyter-server kernels REST and
websocket API at another base URL, so they are remote kernels with two differences.

- A kernel is started for a user: KERNEL_USERNAME goes in the request's env, as jupyter-server's
  own GatewayClient sends it (the gateway refuses the users in its unauthorized_users, root by
  default, and impersonates when configured to).
- The gateway lists its kernels only when allowed (EG_LIST_KERNELS): otherwise list_kernels
  shows the kernels this process started, each asked for by id.
"""

from __future__ import annotations

import getpass
import os
from typing import Any

from ...protocol.errors import ErrorKind, ToolError
from ..runtime import KernelInfo
from .kernels import RemoteKernels
from .server_client import JupyterServerClient, split_url


def kernel_username() -> str:
    """Whom the gateway starts kernels for: KERNEL_USERNAME when set (GatewayClient reads it too), else this process's user."""
    return os.environ.get("KERNEL_USERNAME") or getpass.getuser()


class GatewayKernels(RemoteKernels):
    """Kernels an Enterprise Gateway runs (on Kubernetes, YARN, Docker or, locally, as processes)."""

    def __init__(self, url: str, token: str | None, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        base, url_token = split_url(url)
        super().__init__(JupyterServerClient(base, token or url_token, what="the Enterprise Gateway"),
                         kernel_name=kernel_name, hard_cap_bytes=hard_cap_bytes)
        self.username = kernel_username()

    def _start_body(self, name: str) -> dict[str, Any]:
        return {**super()._start_body(name), "env": {"KERNEL_USERNAME": self.username}}

    async def list_kernels(self) -> list[KernelInfo]:
        try:
            return await super().list_kernels()
        except ToolError as exc:
            if exc.kind != ErrorKind.UNAUTHORIZED:
                raise
        # Listing refused (EG_LIST_KERNELS is off by default): ours, each still on the gateway.
        ours = [kernel_id for kernel_id in list(self._kernels) if await self._exists(kernel_id)]
        return [KernelInfo(kernel_id=k.kernel_id, name=k.name, state="unknown", started=k.started.isoformat(timespec="seconds"),
                           last_activity=k.last_activity.isoformat(timespec="seconds"), execution_count=k.execution_count)
                for k in (self._kernels[kernel_id] for kernel_id in ours)]
