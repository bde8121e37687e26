"""Where a client's notebooks run, decided again at each call: on the Jupyter server this user runs on --root or
above it (live in its JupyterLab) when there is one, on the embedded kernels when there is none
(jupyter/found_servers.py). A client that chose its runtime (a sandbox, connect_to_jupyter) and a server
started with --embedded, --jupyter-url or --gateway-url keep theirs.

A server that serves --root but does not answer is refused: its JupyterLab may hold our notebooks in
rooms, which a write to the file would overwrite behind the people there.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import anyio

from ...jupyter.discovery import Finding
from ...jupyter.registry import EMBEDDED
from ...protocol.errors import ErrorKind, ToolError
from ...protocol.projection import Outcome
from .tool_context import ToolContext, ToolRun

logger = logging.getLogger(__name__)
CLOSE_GONE_S = 5.0  # closing a gone server's runtime: its sockets are dead, nothing to wait for


@dataclass(frozen=True)
class Where:
    """Where this client's notebooks run now: `finding` the Jupyter server, None for the embedded kernels."""

    finding: Finding | None
    root: str

    @property
    def server(self) -> str:
        """The server, for a sentence: " at <URL>", with where --root is on it when its root is above."""
        if self.finding is None:
            return ""
        below = f" (--root is {self.finding.prefix}/ there)" if self.finding.prefix else ""
        return f" at {self.finding.server.url}{below}"


async def follow_jupyter(ctx: ToolContext) -> Where | None:
    """Put this client on the Jupyter server that serves --root now, or back on the embedded kernels when none does;
    None when the client's runtime is not the finder's to choose."""
    registry, finder = ctx.registry, ctx.registry.finder
    if finder is None or not (ctx.client.backend_key == EMBEDDED or finder.owns(ctx.client.backend_key)):
        return None
    finding = await finder.look()
    if finding is None:
        registry.make_default(EMBEDDED)
        await _move(ctx, EMBEDDED)
        await _forget_gone(ctx)
        return Where(None, str(finder.root))
    if not finding.counts:
        raise ToolError(ErrorKind.UNREACHABLE, (
            f"{finding.server.describe()} serves {finder.root}, but cannot be joined: {finding.reason}. Its JupyterLab may "
            "have these notebooks open, and a write to the file would overwrite them behind the people there, so nothing "
            "was done. Stop that server (or let it finish starting) and call again; or restart mcp-variants with "
            "--jupyter-url and --jupyter-token for it (`jupyter server list` shows them), or with --embedded to work "
            "on the files regardless."))
    backend = finder.backend(finding)
    if backend.key not in registry.backends:
        registry.add_backend(backend)
        logger.info("working through %s, which serves %s", finding.server.describe(), finder.root)
    registry.make_default(backend.key)
    await _move(ctx, backend.key)
    await _forget_gone(ctx)
    return Where(finding, str(finder.root))


async def _forget_gone(ctx: ToolContext) -> None:
    """The runtimes of found servers that stopped, closed (after the move: their notebooks are noted as moved first)."""
    assert ctx.registry.finder is not None
    for backend in await ctx.registry.finder.gone():
        ctx.registry.remove_backend(backend.key)
        with anyio.move_on_after(CLOSE_GONE_S, shield=True):
            await backend.contents.aclose()
            await backend.kernels.aclose()


async def _move(ctx: ToolContext, key: str) -> None:
    """The client runs on `key` from now on; the kernels its notebooks had where it was are shut down when they are
    ours (those of a Jupyter server that stopped went with it), and each notebook's next run says its state is gone."""
    before = ctx.client.backend_key
    ctx.client.run_on(key)
    if before == key:
        return
    left = ctx.registry.move_notebooks(before, key)
    backend = ctx.registry.backends.get(before)
    if before == EMBEDDED and backend is not None:
        for kernel_id in left:
            try:
                await backend.kernels.shutdown_kernel(kernel_id)
            except ToolError:  # gone already
                logger.debug("kernel %s was gone before it was left", kernel_id)


def following_jupyter(run: ToolRun) -> ToolRun:
    """`run` (a tool's) on the runtime follow_jupyter puts the client on."""
    async def run_where_the_notebooks_are(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
        await follow_jupyter(ctx)
        return await run(ctx, args)
    return run_where_the_notebooks_are
