"""One MCP server, one set of handlers, for every protocol era.

The handlers do I/O (the SDK context, the tools); all protocol decisions are
delegated to the sans-I/O core in mcp_variants.protocol.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import anyio
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp_types import (
    CompleteRequestParams,
    PaginatedRequestParams,
    RequestParams,
    SetLevelRequestParams,
)

from .. import __version__
from ..apps.resources import check_view_links
from ..catalog import CatalogEntry, packaged_catalog
from ..dropin import ForeignSchema, canonical_arguments, compat_schemas
from ..images import ImagePolicy
from ..jupyter.registry import ClientState, RuntimeRegistry
from ..jupyter.runtime import DEFAULT_AGENT_NAME
from ..limits import Limits
from ..output_links import OutputKeeper, OutputStore
from ..protocol.errors import DeclarationError
from ..protocol.types import UI_EXTENSION, ui_capability
from ..protocol.versions import COMPLETE, SUPPORTED_VERSIONS, complete
from ..sdk.lowlevel import ToolSet, VariantTool, client_key, serve_tools
from ..sdk.tasks import MemoryTaskStore, TaskStore
from ..tools import CHOOSE_THEIR_RUNTIME, TOOLS
from ..tools.shared.hints import with_hints
from ..tools.shared.tool_context import ToolContext
from ..tools.shared.where import following_jupyter
from .callers import agent_of, call_info
from .observe import CallObserver
from .resources import Resources, link_owner, register_resources
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

# Extensions this server advertises (SEP-2133 capability map).
SERVER_EXTENSIONS: dict[str, dict[str, Any]] = {UI_EXTENSION: ui_capability()}
LIST_TTL_MS = 60_000


@dataclass
class ServerState:
    """Everything the handlers need, built once at start-up (server/compose.py)."""

    tools: ToolSet
    registry: RuntimeRegistry
    limits: Limits
    images: ImagePolicy
    resources: Resources
    subscriptions: Subscriptions
    observer: CallObserver
    tasks: TaskStore = field(default_factory=MemoryTaskStore)  # the long runs of execute_code & co. (sdk.tasks)
    outputs: OutputStore = field(default_factory=OutputStore)  # execute_code's outputs, for resources/read (output_links.py)
    agent_name: str = DEFAULT_AGENT_NAME  # what people see a client called in a live notebook ({client}: its own name)

    async def aclose(self) -> None:
        """At shutdown: no more notifications or runs, then every kernel, document and sandbox of ours; the audit trail
        written out."""
        await self.subscriptions.aclose()
        await self.tasks.aclose()
        await self.outputs.aclose()
        await self.images.store.aclose()
        await self.registry.aclose()
        await anyio.to_thread.run_sync(self.observer.close)


def load_tools(observer: CallObserver, compat: str | None = None) -> ToolSet:
    """The Jupyter tools (tools/: each a `VariantTool` on its declaration in variants/), each decorated for serving
    here, in one step (`served`): served through the public server API (mcp_variants.sdk), as any other server's are.
    With `compat` (a server of variants/compat/), that server's inputSchemas are listed and calls taken by them.
    DeclarationError stops the server from starting."""
    catalog = packaged_catalog()
    foreign = compat_schemas(catalog, compat) if compat is not None else {}
    check_view_links({name: entry.declaration for name, entry in catalog.items()})
    return ToolSet(served(name, entry, foreign.get(name), observer) for name, entry in catalog.items())


def served(name: str, entry: CatalogEntry, foreign: ForeignSchema | None, observer: CallObserver) -> VariantTool:
    """Tool `name` as the server serves it: working through a Jupyter server found on --root at the call
    (tools/shared/where.py), a runtime's refusals hinted with the tool to call (tools/shared/hints.py),
    each run observed (spans, the audit trail), a call's arguments read as the drop-in layer reads them (aliases,
    nulls, another server's defaults: dropin.py), and with `foreign` that server's inputSchema listed."""
    tool = TOOLS.get(name)
    if tool is None or tool.run is None:
        raise DeclarationError(name, "every declared tool has an implementation", "no tool of that name")
    run = tool.run if name in CHOOSE_THEIR_RUNTIME else following_jupyter(tool.run)  # a JupyterLab started later
    return replace(tool, run=observer.wrap(name, with_hints(run)),
                   read_arguments=partial(canonical_arguments, entry, foreign=foreign),
                   listed_input_schema=foreign.input_schema if foreign is not None else None)


def client_state(ctx: ServerRequestContext[Any, Any], state: ServerState) -> ClientState:
    """The requesting client's state, created on first use and forgotten, with its subscriptions, when its
    connection ends (an HTTP session's DELETE or idle expiry, the end of stdio)."""
    registry = state.registry
    key = client_key(ctx)
    if key is not None and key not in registry.clients:
        # mcp 2.3.0 hands handlers no public way to the connection; its exit stack is unwound when the
        # connection ends, whether the client ended it or the SDK expired it.
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            connection.exit_stack.callback(registry.forget, key)
            connection.exit_stack.push_async_callback(state.outputs.forget, key)  # link_owner() of a client with a key is its key
            connection.exit_stack.push_async_callback(state.subscriptions.forget, key)
            connection.exit_stack.push_async_callback(state.registry.agent_left, key)  # it leaves the notebooks people see it in
        else:
            logger.warning("the SDK gives no connection to request %r: the state of %s is kept until exit", ctx.request_id, key)
    return registry.client(key)


# What a person sees the server as in their client, and what the model is told about working with it. What the
# server is to SDK authors (the SEP-3279 reference) is in the docs (docs/guides/sdk-authors.md), not in every
# conversation's context.
TITLE = "Jupyter notebooks and kernels"
INSTRUCTIONS = """\
Work in the user's Jupyter notebooks and kernels. Paths are relative to the server's folder.
- Open a notebook with use_notebook (create: true makes a new one); later calls use it unless they name another.
  Its answer says where it runs: live in the user's JupyterLab (they see each edit as you make it and share the
  kernel) or in the server's own kernels.
- Refer to cells by cell_id (read_notebook and insert_cell give them), not by index: indexes shift when the
  user or you add or remove cells.
- insert_execute_code_cell adds a cell and runs it; execute_code runs code in the kernel without adding a cell.
- A long run (training, a large load): give it a larger timeout, or run it as a task where the client can, so the
  conversation goes on meanwhile; a run past its timeout is interrupted and the kernel keeps its state.
- ModuleNotFoundError: the kernel's environment lacks the package. list_kernels says which Python each kernel
  runs; ask the user to install it there or to choose another kernel."""


def build_server(state: ServerState) -> Server[Any]:
    server: Server[Any] = Server(
        "mcp-variants",
        version=__version__,
        title=TITLE,
        instructions=INSTRUCTIONS,
        cache_hints={
            method: CacheHint(ttl_ms=LIST_TTL_MS, scope="private")
            for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
        },
    )

    async def discover(ctx: ServerRequestContext[Any, Any], params: RequestParams) -> dict[str, Any]:
        capabilities = server.get_capabilities(protocol_version=ctx.protocol_version).model_dump(
            by_alias=True, mode="json", exclude_none=True)
        # Serving subscriptions/listen makes the SDK claim every listChanged at 2026-07-28; this
        # server sends resource updates only (its tools, prompts and resource list are not announced).
        for feature in ("tools", "prompts", "resources"):
            if feature in capabilities:
                capabilities[feature]["listChanged"] = False
        return {
            "supportedVersions": list(SUPPORTED_VERSIONS),
            "capabilities": capabilities,
            "instructions": server.instructions,
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "private",
            "resultType": COMPLETE,
        }

    serve_tools(server, state.tools, lambda ctx: tool_context(ctx, state), SERVER_EXTENSIONS, state.tasks)
    server.add_request_handler("server/discover", RequestParams, discover)
    _register_empty_features(server)
    # The MCP Apps views (ui://), the notebooks (notebook:///) with subscriptions, images in link mode, and outputs.
    register_resources(server, state.resources, state.subscriptions, lambda ctx: client_state(ctx, state))
    return server


def _register_empty_features(server: Server[Any]) -> None:
    """Prompts, completions and logging, empty: clients (and the official conformance
    suite) probe them, and an empty answer is truer than "method not found" for a server
    that simply has none. Resources are server/resources.py's."""

    def empty(key: str, value: Any) -> Any:
        async def handler(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
            return complete({key: value} if key else {}, ctx.protocol_version)

        return handler

    server.add_request_handler("prompts/list", PaginatedRequestParams, empty("prompts", []))
    server.add_request_handler("completion/complete", CompleteRequestParams, empty("completion", {"values": [], "hasMore": False}))
    server.add_request_handler("logging/setLevel", SetLevelRequestParams, empty("", None))


def tool_context(ctx: ServerRequestContext[Any, Any], state: ServerState) -> ToolContext:
    """What a Jupyter tool runs with: the server's limits and runtimes, this client's state, and progress
    notifications to this request's token."""

    async def progress(elapsed: float, message: str) -> None:
        await ctx.session.report_progress(elapsed, None, message)

    client = client_state(ctx, state)
    return ToolContext(limits=state.limits, registry=state.registry, client=client, progress=progress,
                       images=state.images.for_owner(link_owner(client)), call=call_info(ctx, client.key),
                       outputs=OutputKeeper(state.outputs, link_owner(client)), agent=agent_of(ctx, client.key, state.agent_name))
