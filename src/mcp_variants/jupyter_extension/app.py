"""The Jupyter server extension: MCP (streamable HTTP, every protocol era, every variant) at `{base_url}mcp`.

Loaded into `jupyter lab` or `jupyter server` (jupyter_server_config.d/mcp_variants.json turns it on when
the package is installed; `jupyter server extension disable mcp_variants.jupyter_extension` turns it off).
Its tools work on that server in process: its kernel manager and sessions, its contents manager and,
with jupyter-collaboration, the rooms JupyterLab edits (jupyter/inprocess). Options are traitlets of
`MCPVariants` (`c.MCPVariants.audit_log = "/var/log/mcp.jsonl"`, or `--MCPVariants.audit_log=…`).
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from jupyter_server.extension.application import ExtensionApp
from traitlets import Bool, Enum, Float, Int, TraitType, Unicode, default

from .. import __version__, telemetry
from ..jupyter.inprocess import SERVER, inprocess_backend
from ..jupyter.registry import RuntimeRegistry
from ..sdk import streamable_http_app
from ..server.app import ServerState, build_server
from ..server.compose import CannotStart, ServerConfig, compose, open_shared_store
from ..server.options import EXTENSION_OPTIONS, Option
from .asgi import AsgiApp
from .handler import MCPHandler

APP_PATH = "/mcp"  # the route of the SDK's app; the server's URL for it is the `path` option under base_url


def traitlet(option: Option) -> TraitType[Any, Any]:
    """A `serve` option as a configurable traitlet of the extension: its default and its help (`--help-all`)."""
    help_text = option.help[0].upper() + option.help[1:] + "."
    if option.kind == "flag":
        return Bool(bool(option.default), config=True, help=help_text)
    if option.kind == "int":
        return Int(option.default, config=True, help=help_text)
    if option.kind == "float":
        return Float(option.default, config=True, help=help_text)
    if option.kind == "choice":
        return Enum(option.choice_list(), option.default, config=True, help=help_text)
    return Unicode(option.default or "", config=True, help=help_text)


class MCPVariants(ExtensionApp):
    name = "mcp_variants"
    description = "MCP with SEP-3279 result variants: the Jupyter tools on this server, at {base_url}mcp"
    version = __version__
    load_other_extensions = True

    # Its own two; then a traitlet for each of `serve`'s options marked `in_extension` (server/options.py: name,
    # default and help there), put in the class's namespace as it is made, in the options' order.
    path = Unicode("mcp", config=True, help="Where the endpoint is, under the server's base_url (default: mcp, so /mcp).")
    kernel = Unicode("", config=True, help="The kernelspec execute_code's kernels start with (default: the server's default).")
    vars().update({option.name: traitlet(option) for option in EXTENSION_OPTIONS})

    @default("kernel")
    def _default_kernel(self) -> str:
        return str(self.serverapp.kernel_manager.default_kernel_name) if self.serverapp else "python3"

    def initialize_settings(self) -> None:
        telemetry.configure_from_environment()
        serverapp = self.serverapp
        assert serverapp is not None
        config = ServerConfig.from_options(self)  # the options it lacks (--compat, the HTTP deadlines) keep serve's defaults
        try:
            state = compose(config, lambda limits: RuntimeRegistry(
                {SERVER: inprocess_backend(serverapp, kernel_name=config.kernel, hard_cap_bytes=limits.hard_cap_bytes)},
                default_backend=SERVER), open_shared_store(config))
        except CannotStart as exc:
            raise RuntimeError(f"MCPVariants cannot start: {exc}") from None
        self.state: ServerState = state
        # Host and Origin are the Jupyter server's to check (its allow_remote_access, allow_origin), as for its own API.
        # Every protocol era: 2026-12-01 through the bridge where the installed SDK needs it.
        app: Any = streamable_http_app(build_server(state), limits=config.http_limits(), dns_rebinding_protection=False)
        self.asgi = AsgiApp(app)
        self.ready = asyncio.Event()

    def initialize_handlers(self) -> None:
        self.handlers.append((rf"/{self.path.strip('/')}", MCPHandler, {"app": self.asgi, "ready": self.ready, "mcp_path": APP_PATH}))

    async def _start_jupyter_server_extension(self, serverapp: Any) -> None:
        await self.asgi.start()
        self.ready.set()
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            # Without a terminal jupyter-server leaves SIGINT to Python: a KeyboardInterrupt out of its loop, and no
            # cleanup. JupyterHub stops a user's server with SIGINT first; the SDK's sessions (and the worker threads
            # the contents manager's calls start under them) would then keep the process from exiting. SIGINT is
            # made the graceful stop SIGTERM is: our kernels, sessions and audit trail are closed, then the server's.
            signal.signal(signal.SIGINT, serverapp._signal_stop)
        self.log.info("MCP (SEP-3279 result variants) at %s%s", serverapp.connection_url, self.path.strip("/"))

    async def stop_extension(self) -> None:
        """Open streams end first (each answered), then the sessions, then our kernels and the audit trail."""
        from sse_starlette.sse import AppStatus  # the SDK's SSE responses; uvicorn would tell them the server is exiting

        AppStatus.should_exit = True
        self.state.subscriptions.end_streams()
        await self.asgi.stop()
        await self.state.aclose()
