"""One MCP server, one set of handlers, for every protocol era.

The handlers do I/O (the SDK context, the tools); all protocol decisions are
delegated to the sans-I/O core in mcp_variants.protocol.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
from mcp.server.caching import CacheHint
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CompleteRequestParams,
    PaginatedRequestParams,
    RequestParams,
    SetLevelRequestParams,
)

from .. import __version__
from ..apps.resources import ViewResources, check_view_links
from ..catalog import load_declarations, load_shape, variants_dir
from ..images import ImagePolicy
from ..jupyter.atomic_files import start_removing_stale_temporaries
from ..jupyter.embedded import EmbeddedRuntime
from ..jupyter.hub import EMBEDDED, ClientState, Hub
from ..jupyter.local_contents import LocalContents
from ..jupyter.remote import REMOTE, remote_backend
from ..jupyter.remote.gateway import gateway_backend
from ..jupyter.runtime import Backend
from ..protocol.arguments import canonical_arguments
from ..protocol.errors import INVALID_PARAMS, DeclarationError, ErrorKind, ProtocolError, ToolError
from ..protocol.projection import Outcome, build_result
from ..protocol.selection import select
from ..protocol.tools_list import tool_entry
from ..protocol.types import UI_EXTENSION, ToolDeclaration
from ..protocol.validation import OutputValidators
from ..protocol.versions import STATELESS_VERSIONS, SUPPORTED_VERSIONS, Era, era_for
from ..tools import TOOLS
from ..tools.shared.spec import Limits, ToolContext, ToolSpec
from . import bridge
from .image_resources import ImageResources
from .notebook_resources import NotebookResources
from .resources import Resources, register_resources
from .subscriptions import Subscriptions

logger = logging.getLogger(__name__)

# Extensions this server advertises (SEP-2133 capability map).
SERVER_EXTENSIONS: dict[str, dict[str, Any]] = {UI_EXTENSION: {"mimeTypes": ["text/html;profile=mcp-app"]}}
LIST_TTL_MS = 60_000


class CallToolParams(RequestParams):
    """tools/call params; the handler reads `requestedOutputs` from the raw params."""

    name: str
    arguments: dict[str, Any] | None = None


@dataclass
class ServerState:
    """Everything the handlers need, built once at start-up."""

    declarations: dict[str, ToolDeclaration]
    specs: dict[str, ToolSpec]
    validators: OutputValidators
    input_validators: dict[str, Any]
    hub: Hub
    limits: Limits
    images: ImagePolicy
    resources: Resources
    subscriptions: Subscriptions

    async def aclose(self) -> None:
        """At shutdown: no more notifications, then every kernel, document and sandbox of ours."""
        await self.subscriptions.aclose()
        await self.hub.aclose()


def load_state(root: Path, limits: Limits, *, jupyter_url: str | None = None, jupyter_token: str | None = None,
               gateway_url: str | None = None, gateway_token: str | None = None,
               kernel_name: str = "python3", images: ImagePolicy | None = None) -> ServerState:
    """Load and check the declarations; DeclarationError stops the server from starting, and so does
    ToolError for a `kernel_name` (the default kernelspec) the embedded runtime does not have.

    With `jupyter_url`, the default runtime is that Jupyter server ("remote") instead of the embedded one;
    `kernel_name` is its default kernelspec too. With `gateway_url`, kernels run on that Enterprise
    Gateway, and notebooks stay on the Jupyter server or, without one, under `root` ("gateway").
    """
    directory = variants_dir()
    declarations = load_declarations(directory)
    check_view_links(declarations)
    for name, declaration in declarations.items():
        spec = TOOLS.get(name)
        if spec is None:
            raise DeclarationError(name, "every declared tool has an implementation", "no tool of that name")
        missing = [str(v.selector) for v in declaration.variants if v.selector not in spec.projectors.success]
        if missing:
            raise DeclarationError(name, "every declared variant has a projector", ", ".join(missing))
    start_removing_stale_temporaries(root)
    runtime = EmbeddedRuntime(root, kernel_name=kernel_name, hard_cap_bytes=limits.hard_cap_bytes)
    hub = Hub({EMBEDDED: Backend(EMBEDDED, "the embedded kernels", runtime, LocalContents(root))})
    if gateway_url:
        backend = gateway_backend(gateway_url, gateway_token, root=root, jupyter_url=jupyter_url, jupyter_token=jupyter_token,
                                  kernel_name=kernel_name, hard_cap_bytes=limits.hard_cap_bytes)
        hub.backends[backend.key] = backend
        hub.default_backend = backend.key
    elif jupyter_url:
        hub.backends[REMOTE] = remote_backend(REMOTE, jupyter_url, jupyter_token, hard_cap_bytes=limits.hard_cap_bytes,
                                              kernel_name=kernel_name)
        hub.default_backend = REMOTE
    else:
        runtime.check_kernel_name()
    images = images or ImagePolicy()
    resources = Resources([ViewResources(), NotebookResources(hub), ImageResources(images.store)])
    return ServerState(
        declarations=declarations,
        specs={name: TOOLS[name] for name in declarations},
        validators=OutputValidators(declarations.values(), load_shape(directory, "error.json")),
        input_validators={n: jsonschema_rs.validator_for(d.input_schema) for n, d in declarations.items()},
        hub=hub,
        limits=limits,
        images=images,
        resources=resources,
        subscriptions=Subscriptions(resources.owner),
    )


def client_key(ctx: ServerRequestContext[Any, Any]) -> str | None:
    """Whose state this request may use: its stdio connection or HTTP session; None when stateless."""
    if ctx.protocol_version in STATELESS_VERSIONS:
        return None
    if ctx.request is None:
        return "stdio"
    session = ctx.request.headers.get("mcp-session-id")
    return f"http:{session}" if session else None


def client_state(ctx: ServerRequestContext[Any, Any], state: ServerState) -> ClientState:
    """The requesting client's state, created on first use and forgotten, with its subscriptions, when its
    connection ends (an HTTP session's DELETE or idle expiry, the end of stdio)."""
    hub = state.hub
    key = client_key(ctx)
    if key is not None and key not in hub.clients:
        # mcp 2.3.0 hands handlers no public way to the connection; its exit stack is unwound when the
        # connection ends, whether the client ended it or the SDK expired it.
        connection = getattr(ctx.session, "_connection", None)
        if connection is not None:
            connection.exit_stack.callback(hub.forget, key)
            connection.exit_stack.push_async_callback(state.subscriptions.forget, key)
        else:
            logger.warning("the SDK gives no connection to request %r: the state of %s is kept until exit", ctx.request_id, key)
    return hub.client(key)


def request_era(ctx: ServerRequestContext[Any, Any]) -> Era:
    if bridge.is_outputs_request(ctx.params):
        return Era.OUTPUTS
    return era_for(ctx.protocol_version)


def negotiated_extensions(ctx: ServerRequestContext[Any, Any]) -> frozenset[str]:
    """Extensions both sides advertised for this request (envelope or handshake)."""
    capabilities = ctx.session.client_capabilities
    client = set((capabilities.extensions or {}) if capabilities else {})
    return frozenset(client & SERVER_EXTENSIONS.keys())


def _finish(ctx: ServerRequestContext[Any, Any], method: str, era: Era, result: dict[str, Any]) -> dict[str, Any]:
    """Hand a result to the SDK: tunnelled at 2026-12-01, typed `resultType` at 2026-07-28."""
    if era is Era.OUTPUTS:
        result = bridge.tunnel(method, result)
    if ctx.protocol_version in STATELESS_VERSIONS:
        result["resultType"] = "complete"
    return result


def build_server(state: ServerState) -> Server[Any]:
    server: Server[Any] = Server(
        "mcp-variants",
        version=__version__,
        title="mcp-variants: SEP-3279 reference server (Jupyter tools)",
        instructions="Jupyter tools whose results come in audience-directed variants (SEP-3279).",
        cache_hints={
            method: CacheHint(ttl_ms=LIST_TTL_MS, scope="private")
            for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
        },
    )
    server.extensions = dict(SERVER_EXTENSIONS)

    async def list_tools(ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams) -> dict[str, Any]:
        era = request_era(ctx)
        extensions = negotiated_extensions(ctx)
        result = {"tools": [tool_entry(d, era, extensions) for d in state.declarations.values()]}
        return _finish(ctx, "tools/list", era, result)

    async def call_tool(ctx: ServerRequestContext[Any, Any], params: CallToolParams) -> dict[str, Any]:
        raw = dict(ctx.params or {})
        era = request_era(ctx)
        declaration = state.declarations.get(params.name)
        if declaration is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {params.name}", {"tool": params.name, "available": sorted(state.declarations)})
        try:
            selectors = select(raw, declaration, era, negotiated_extensions(ctx))
            outcome = await _run(ctx, state, declaration, params.arguments or {})
            result, breach = build_result(declaration, selectors, era, outcome, state.specs[declaration.name].projectors, state.validators)
            if breach is not None:  # answered as an internal error; the core does no logging
                logger.error("%s", breach)
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        return _finish(ctx, "tools/call", era, result)

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
            "resultType": "complete",
        }

    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", CallToolParams, call_tool)
    server.add_request_handler("server/discover", RequestParams, discover)
    _register_empty_features(server)
    # The MCP Apps views (ui://), the notebooks (notebook:///) with subscriptions, and images in link mode.
    register_resources(server, state.resources, state.subscriptions, lambda ctx: client_state(ctx, state))
    return server


def _register_empty_features(server: Server[Any]) -> None:
    """Prompts, completions and logging, empty: clients (and the official conformance
    suite) probe them, and an empty answer is truer than "method not found" for a server
    that simply has none. Resources are server/resources.py's."""

    def empty(key: str, value: Any) -> Any:
        async def handler(ctx: ServerRequestContext[Any, Any], params: Any) -> dict[str, Any]:
            result: dict[str, Any] = {key: value} if key else {}
            if ctx.protocol_version in STATELESS_VERSIONS:
                result["resultType"] = "complete"
            return result

        return handler

    server.add_request_handler("prompts/list", PaginatedRequestParams, empty("prompts", []))
    server.add_request_handler("completion/complete", CompleteRequestParams, empty("completion", {"values": [], "hasMore": False}))
    server.add_request_handler("logging/setLevel", SetLevelRequestParams, empty("", None))


async def _run(ctx: ServerRequestContext[Any, Any], state: ServerState, declaration: ToolDeclaration, given: dict[str, Any]) -> Outcome:
    try:
        arguments = canonical_arguments(declaration, given)
    except ToolError as exc:
        return Outcome(failure=exc)
    problems = [e.message for e in state.input_validators[declaration.name].iter_errors(arguments)]
    if problems:
        return Outcome(failure=ToolError(ErrorKind.INVALID_ARGUMENTS,
                                         f"Invalid arguments for {declaration.name}: {'; '.join(problems[:5])}"))

    async def progress(elapsed: float, message: str) -> None:
        await ctx.session.report_progress(elapsed, None, message)

    client = client_state(ctx, state)
    tool_ctx = ToolContext(limits=state.limits, hub=state.hub, client=client, progress=progress, images=state.images)
    try:
        return await state.specs[declaration.name].run(tool_ctx, arguments)
    except ToolError as exc:
        return Outcome(failure=exc)
    except Exception:
        logger.exception("tool %s raised", declaration.name)
        return Outcome(failure=ToolError(ErrorKind.INTERNAL,
                                         f"{declaration.name} failed inside the server; the server log has the details."))
