"""SEP-3279 for a FastMCP 4 server, through FastMCP's own extension API (`fastmcp.server.extensions.ServerExtension`).

    mcp = FastMCP("weather")
    variants = Variants(mcp)                   # mcp.add_extension(variants)

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str, ctx: Context) -> Results: ...

    run(mcp)                                   # mcp_variants.fastmcp.run: stdio or HTTP, 2026-12-01 included

The declarations, the result union, the selection and the projection are the SDK layer's (`mcp_variants.sdk`, on the
core in `protocol/`); this module only fits them to FastMCP's seams:

- `tool` registers the function with `FastMCP.add_tool` (so FastMCP derives its inputSchema, checks its arguments, injects
  its `Context`, applies `app=`, `tags=`, `timeout=`, `auth=`, ...) around a wrapper that projects the tool's return
  value for the request's era and selectors.
- `intercept_tool_call`, FastMCP's last gate before a tool body, selects the outputs before the tool runs (-32602 with
  the offered list) and answers with exactly those outputs, or the legacy pair, each structured one checked.
- tools/list and server/discover: the SDK-level middleware (`_lowlevel.py` reads FastMCP's low-level server to add it)
  adds each tool's `outputVariants` or its legacy `outputSchema` (their `$ref`s inlined where FastMCP inlines its
  own: `_schemas.py`), and 2026-12-01 among discover's versions; it also hands a tools/call's raw params to the
  interceptor (FastMCP's typed params drop `requestedOutputs`).
- FastMCP's own tools on the same server (a plain `@mcp.tool`) are served at 2026-12-01 as if migrated with
  `legacy_tool()` (`PlainTools`): listed with their variants, their calls' `requestedOutputs` checked and answered.
- A server with Variants mounted into this one (`parent.mount(child, namespace=...)`): its tools are listed and called
  under the names FastMCP gives them, each with its variants (`_owner`: the child's Variants declared it). FastMCP
  runs only the parent's interceptor for them (it skips a mounted server's extension the parent also has), so the
  parent selects and answers; the child's wrapper projects. Mounted into a server without Variants, `clone` refuses.

The SDK layer's pieces come through its public modules only (`mcp_variants.sdk`, `.lowlevel`, and `.framework`: the
seams of a framework's layer), as they would for a layer on any other framework.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import inspect
import logging
import weakref
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, TypeVar, overload

import anyio
from fastmcp import FastMCP
from fastmcp.apps.config import app_config_to_meta_dict
from fastmcp.exceptions import FastMCPError
from fastmcp.exceptions import ToolError as FastMCPToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.context import Context
from fastmcp.server.extensions import ServerExtension, ToolCallContinuation
from fastmcp.tools import InputRequiredToolResult, Tool, ToolResult
from fastmcp.tools.tool_transform import TransformedTool
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, CallToolResult, InputRequiredResult, ToolAnnotations
from mcp_types.methods import serialize_server_result
from pydantic import BaseModel

from ..protocol.errors import ProtocolError, unknown_tool
from ..protocol.projection import Outcome
from ..protocol.selection import select
from ..protocol.types import ASSISTANT_CONTENT, UI_EXTENSION
from ..protocol.versions import OUTPUTS_VERSION, Era
from ..sdk import DeclarationError, ErrorKind, SelectorName, ToolError, VariantSpec
from ..sdk.framework import (
    ON_OUR_TRANSPORTS,
    Legacy,
    PlainTools,
    StructuredAudience,
    ToolCall,
    bridge_needed,
    declared_specs,
    finish,
    internal_failure,
    is_function,
    listed_entry,
    negotiated_extensions,
    projectors_for,
    registered_twice,
    unbridged_warning,
    with_variants,
)
from ..sdk.lowlevel import ToolSet, VariantTool, declaration, request_era
from ._content import content_value
from ._lowlevel import lowlevel_server, mounted_origin
from ._migrate import migrated, with_wrap_mark
from ._schemas import dereferenced_entry, dereferences_schemas

logger = logging.getLogger(__name__)

IDENTIFIER: Final[str] = "io.github.mcp-variants/output-variants"
"""Advertised under `capabilities.extensions` (FastMCP advertises every registered extension): this server implements
the SEP-3279 draft (2026-12-01 `outputVariants` / `requestedOutputs` / `outputs`). The same as `mcp_variants.sdk`'s."""


_Fn = TypeVar("_Fn", bound=Callable[..., Any])


_REQUEST: contextvars.ContextVar[ServerRequestContext[Any, Any] | None] = contextvars.ContextVar(
    "mcp_variants_fastmcp_request", default=None)
_CURRENT: contextvars.ContextVar[ToolCall | None] = contextvars.ContextVar("mcp_variants_fastmcp_call", default=None)


class Variants(ServerExtension):
    """Tools with declared output variants, on a FastMCP server: `Variants(mcp)` registers the extension on it.

    `served_extensions`: extension audiences (SEP-2133 identifiers) whose variants a tool may declare; MCP Apps'
    `io.modelcontextprotocol/ui` is always among them (FastMCP serves it). A request sees an extension's variants only
    when it negotiated the extension.

    Its decorators are typed: `tool(...)`, `legacy_tool` and `legacy_tool(...)` each give back the function they
    decorate, its signature and return type intact (`legacy_tool`'s two forms are overloads), so a tool another one
    calls keeps its type under a type checker.
    """

    identifier = IDENTIFIER
    # Offered to a server this one is mounted into (FastMCP.mount): a parent with its own Variants keeps that one (and
    # serves these tools with their variants, `_owner`); a parent without calls `clone`, which refuses.
    auto_register = True

    def __init__(self, server: FastMCP[Any], served_extensions: frozenset[str] | set[str] = frozenset()) -> None:
        self.tools_by_name = ToolSet()
        self._served = frozenset(served_extensions) | {UI_EXTENSION}  # MCP Apps: FastMCP serves it on every server
        self._told_unbridged = False
        self._runners: dict[str, Callable[..., Any]] = {}  # what FastMCP runs for each of our tools
        self._legacy: set[str] = set()  # tools migrated by legacy_tool: their crashes read as FastMCP words them
        self._plain = PlainTools()  # FastMCP's own tools on this server, as 2026-12-01 sees them
        lowlevel = lowlevel_server(server)  # first: a FastMCP that moved it is refused before anything is registered
        server.add_extension(self)
        lowlevel.middleware.append(self._sdk_middleware)
        _VARIANTS[server] = self

    def settings(self) -> dict[str, Any]:
        return {"versions": [OUTPUTS_VERSION]}

    def clone(self) -> ServerExtension:
        """What FastMCP asks of an extension of a server mounted into one without Variants: refused, naming the fix (a
        parent with Variants keeps its own and never asks)."""
        raise ValueError(f"a FastMCP server with Variants ({self.server.name!r}) cannot be mounted into a server without "
                         "Variants: that server would serve its tools without their variants. Give the parent its own "
                         "Variants before mounting (Variants(parent), then parent.mount(child)): it serves the mounted "
                         "tools with their variants")

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """Entered as the server starts, whatever runs it. Run outside this package's transports (FastMCP's own
        `mcp.run()`, `fastmcp run`), the installed SDK refuses a 2026-12-01 client before any handler runs, so the
        server says so here, once, before any client, whichever version the first one speaks. And it does not start
        with a tool FastMCP would run without its variants (`_check_tools_are_ours`)."""
        if not ON_OUR_TRANSPORTS.get() and bridge_needed() and not self._told_unbridged:
            self._told_unbridged = True
            logger.warning("%s", unbridged_warning("mcp_variants.fastmcp", "FastMCP.run",
                                                   "mcp_variants.fastmcp.cli(mcp) or run(mcp) (http_app(mcp) to mount it)"))
        return self._check_tools_are_ours()

    @contextlib.asynccontextmanager
    async def _check_tools_are_ours(self) -> AsyncIterator[None]:
        await self.refuse_taken_over()
        yield

    async def refuse_taken_over(self) -> None:
        """DeclarationError naming the fix when another registration took one of our tools' names after `tool`
        (`@mcp.tool` above `@variants.tool`: FastMCP replaces a tool of the same name, warning), which only the start
        can see: the listing would offer the variants and FastMCP would run the other function, answering a 2026-12-01
        call without its outputs. (Below it, `tool` refuses the name as it is declared.) And when a transform renamed
        a variants tool, here or in a mounted server (`_refuse_renamed`)."""
        for name, runner in self._runners.items():
            served = await self.server.local_provider.get_tool(name)
            if served is not None and getattr(served, "fn", None) is not runner:
                raise registered_twice(name, "@mcp.tool")
        await self._refuse_renamed()

    async def _refuse_renamed(self) -> None:
        """DeclarationError naming the fix for a variants tool this server lists under a name a transform gave it
        (`ToolTransform`, `mount(..., tool_names=...)`, a `Namespace` on the server itself): its declaration is not
        found under that name, so FastMCP would serve it as a plain tool, without its variants. A mount's namespace
        is not such a name (`_owner` follows it)."""
        for tool in await self.server.list_tools(run_middleware=False):  # a check, not a listing the middleware should see
            behind = await self._behind(tool)
            if behind is not None and await self._owner(tool.name) is None:
                owner, name = behind
                raise DeclarationError(tool.name, "a variants tool is served under its own name (or a mount's namespace)",
                                       f"a transform renamed tool {name!r} of server {owner.server.name!r}, and it would "
                                       "be served without its variants. Give the tool that name where it is declared "
                                       "(@variants.tool(..., name=...)) instead of renaming it (mount's tool_names, "
                                       "ToolTransform, Namespace)")

    async def _behind(self, tool: Tool) -> tuple[Variants, str] | None:
        """The variants tool a tool this server lists runs, whatever it is named here: one of ours, or a mounted
        server's (at any depth), through any transforms (`TransformedTool.parent_tool`); None for a plain tool."""
        while isinstance(tool, TransformedTool):
            tool = tool.parent_tool
        runs = getattr(tool, "fn", None)
        for name, runner in self._runners.items():
            if runs is runner:
                return self, name
        mounted = _mounted_from(tool)
        if mounted is None:
            return None
        inner = await mounted[0]._tool_named(mounted[1])
        return await mounted[0]._behind(inner) if inner is not None else None

    async def _tool_named(self, name: str) -> Tool | None:
        """The tool this server serves as `name`, looked up as FastMCP looks up a mounted server's (in its Context)."""
        async with Context(fastmcp=self.server):
            return await self.server.get_tool(name)

    def tool(self, *variants: VariantSpec | SelectorName, name: str | None = None, **fastmcp_kwargs: Any) -> Callable[[_Fn], _Fn]:
        """Register a tool with these variants (`"assistant/content"` or `variant(selector, schema, project=...)`).

        The tool returns a `Results` (one entry per variant, a value or a function called only when that variant is
        requested) or one value each variant's `project` (else the value itself) turns into its output. Raise
        `ToolError` (this package's, or FastMCP's) for a failure the model should read. `fastmcp_kwargs` go to
        `FastMCP.tool` would take them (`title`, `description`, `annotations`, `meta`, `app`, `tags`, `timeout`,
        `auth`, `task`, ...); `output_schema` is not one of them: the variants say what the tool returns.
        """
        return self._registering(declared_specs("tool", variants), name, None, fastmcp_kwargs)

    def _registering(self, specs: list[VariantSpec], name: str | None, legacy: Legacy | None,
                     fastmcp_kwargs: dict[str, Any]) -> Callable[[_Fn], _Fn]:
        """The decorator that registers a tool of these variants; `legacy`: a migrated tool's established shape."""
        if "output_schema" in fastmcp_kwargs:
            raise TypeError("a variants tool declares its outputs as variants; FastMCP's output_schema does not apply")

        def decorator(fn: _Fn) -> _Fn:
            tool_name = name or fn.__name__
            self._refuse_taken(tool_name)
            self._runners[tool_name] = runner = self._runner(tool_name, fn)
            registered = self.server.add_tool(Tool.from_function(runner, name=tool_name, output_schema=None,
                                                                 **_tool_options(fastmcp_kwargs)))
            annotations = registered.annotations.model_dump(by_alias=True, exclude_none=True) if registered.annotations else None
            self.tools_by_name.add(VariantTool(
                declaration(tool_name, specs, input_schema=registered.parameters, description=registered.description or "",
                            title=registered.title, annotations=annotations, meta=registered.meta, legacy=legacy),
                projectors_for(tool_name, specs, content=content_value, legacy=legacy)))
            return fn

        return decorator

    def _refuse_taken(self, name: str) -> None:
        """A name FastMCP already has (`@mcp.tool` under `@variants.tool`, or another function) refused as the tool is
        declared: FastMCP would replace that tool with ours, warning, and serve the one the author did not mean."""
        try:
            self.server.local_provider.remove_tool(name)  # the public way to ask whether the name is taken; it is refused below
        except KeyError:
            return
        raise registered_twice(name, "@mcp.tool")

    @overload
    def legacy_tool(self, fn: _Fn, /) -> _Fn: ...

    @overload
    def legacy_tool(self, *more: VariantSpec | SelectorName, structured: StructuredAudience | None = None,
                    **tool_kwargs: Any) -> Callable[[_Fn], _Fn]: ...

    def legacy_tool(self, *more: Any, structured: StructuredAudience | None = None, **tool_kwargs: Any) -> Any:
        """An existing FastMCP tool, unchanged: what FastMCP made of its return value as assistant/content and, when
        `structured` names the audience, its outputSchema as that one structured variant; `more` variants beside
        them. `@legacy_tool` alone is `@legacy_tool()`, as `@mcp.tool` was. Every older version gets the
        outputSchema and structuredContent FastMCP gave it, whichever audience `structured` names (SEP-3279: a tool
        that already served older versions SHOULD keep them; check a programmatic one with `--established NAME`)."""
        if len(more) == 1 and is_function(more[0]) and structured is None and not tool_kwargs:
            return self.legacy_tool()(more[0])  # @variants.legacy_tool without parentheses
        specs = declared_specs("legacy_tool", more)
        name = tool_kwargs.pop("name", None)

        def decorator(fn: _Fn) -> _Fn:
            self._legacy.add(name or fn.__name__)
            inferred, established = migrated(fn, structured, specs)
            return self._registering([*inferred, *specs], name, established, tool_kwargs)(fn)

        return decorator

    def _runner(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """What FastMCP calls, with its checked arguments and its Context: the tool, then the projection."""
        is_async = inspect.iscoroutinefunction(fn)

        @functools.wraps(fn)  # FastMCP reads the signature (and the Context parameter) through __wrapped__
        async def run(**kwargs: Any) -> Any:
            call = _CURRENT.get()
            if call is None or call.name != name:  # called in process, not through the interceptor
                call = ToolCall(name, (ASSISTANT_CONTENT,), Era.LEGACY_ANY)
            outcome = await _outcome(name, fn, is_async, kwargs, legacy=name in self._legacy)
            if isinstance(outcome.value, InputRequiredResult):
                return outcome.value  # a round of the multi-round flow, not the tool's result: FastMCP answers it
            call.result = with_wrap_mark(self.tools_by_name.project(name, call.selectors, call.era, outcome),
                                         self.tools_by_name.tool(name).declaration)
            if _CURRENT.get() is call:
                return ToolResult(content=[])  # the interceptor answers with call.result
            return ToolResult.from_mcp_result(CallToolResult.model_validate(call.result))

        return run

    async def intercept_tool_call(self, params: CallToolRequestParams, context: Context,
                                  call_next: ToolCallContinuation) -> ToolResult | BaseModel:
        request = _REQUEST.get()
        if request is None:
            return await call_next()
        owned = await self._owner(params.name)
        if owned is None:
            return await self._plain_call(params.name, request, call_next)
        owner, name = owned  # a mounted tool's wrapper is its own server's and knows it by its own name
        era = request_era(request)
        try:  # against the declaration under the name the client called (a mounted tool's refusal names that one)
            declared = dataclasses.replace(owner.tools_by_name.tool(name).declaration, name=params.name)
            selectors = select(request.params or {}, declared, era, negotiated_extensions(request, owner._served))
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        call = ToolCall(name, selectors, era)
        token = _CURRENT.set(call)
        try:
            answered = await call_next()
        except (FastMCPValidationError, FastMCPToolError) as exc:
            if call.result is not None:
                raise
            # FastMCP refused the arguments, ended the call (its timeout), or worded a migrated tool's crash (its
            # "Error calling tool 'NAME': ...", masked or not) before the tool answered: in the outputs, in its words.
            call.result = owner.tools_by_name.project(name, selectors, era, Outcome(failure=_failure(exc)))
        finally:
            _CURRENT.reset(token)
        if call.result is None:
            return answered  # not a result of the tool's: FastMCP's own (input_required, a task, ...)
        return _wire(finish(request, "tools/call", era, call.result))

    async def _owner(self, name: str) -> tuple[Variants, str] | None:
        """The Variants that declared the tool this server serves as `name`, and its name there: this one, or that of
        a server mounted into this one (at any depth) whose tool it is; None for FastMCP's own tools."""
        if name in self.tools_by_name:
            return self, name
        if len(_VARIANTS) < 2:  # no other server with Variants to have mounted: FastMCP's own tool, without a lookup
            return None
        mounted = _mounted_from(await self._tool_named(name))
        return await mounted[0]._owner(mounted[1]) if mounted is not None else None

    async def _mounted_entries(self, ctx: ServerRequestContext[Any, Any], listed: list[Any]) -> dict[str, dict[str, Any]]:
        """The listed tools of mounted Variants servers, by the name this server lists: their entries (variants, or
        the legacy outputSchema) as their own server lists them."""
        era = request_era(ctx)
        entries: dict[str, dict[str, Any]] = {}
        by_owner: dict[int, dict[str, dict[str, Any]]] = {}  # each mounted server's entries, made once per listing
        for entry in listed:
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or name in self.tools_by_name:
                continue
            owned = await self._owner(name)
            if owned is not None:
                owner, own_name = owned
                if id(owner) not in by_owner:
                    listing = owner.tools_by_name.entries(era, negotiated_extensions(ctx, owner._served))
                    by_owner[id(owner)] = {e["name"]: e for e in listing}
                entries[name] = by_owner[id(owner)][own_name]
        return entries

    async def _plain_call(self, name: str, request: ServerRequestContext[Any, Any],
                          call_next: ToolCallContinuation) -> ToolResult | BaseModel:
        """A call of one of FastMCP's own tools: as FastMCP answers it before 2026-12-01; at 2026-12-01 its
        requestedOutputs checked before it runs, and what FastMCP made of its result as those outputs (`PlainTools`)."""
        era = request_era(request)
        if era.is_legacy:
            return await call_next()
        served = await self.server.get_tool(name)
        if served is None:  # -32602 at 2026-12-01, where a result without outputs is invalid
            exc = unknown_tool(name, [tool.name for tool in await self.server.list_tools()])
            raise MCPError(exc.code, exc.message, exc.data)
        tools = self._plain.tools({"name": name, "inputSchema": served.parameters, "outputSchema": served.output_schema})
        try:
            selectors = tools.select(name, request.params or {}, era, negotiated_extensions(request, self._served))
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        try:
            answered = await call_next()
        except (FastMCPValidationError, FastMCPToolError) as exc:
            outcome = Outcome(failure=_failure(exc))
        else:
            if not isinstance(answered, ToolResult) or isinstance(answered, InputRequiredToolResult):
                return answered  # not the tool's result: FastMCP's own (input_required, a task, ...)
            outcome = Outcome(value=answered)
        return _wire(finish(request, "tools/call", era, tools.project(name, selectors, era, outcome)))

    async def _sdk_middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """The SDK's `ServerMiddleware`, on FastMCP's low-level server: a tools/call's raw request for the interceptor;
        each tool's variants (or its legacy outputSchema) in tools/list; 2026-12-01 among server/discover's versions."""
        if ctx.method == "tools/call":
            token = _REQUEST.set(ctx)
            try:
                return await call_next(ctx)
            finally:
                _REQUEST.reset(token)
        result = await call_next(ctx)
        mounted: dict[str, dict[str, Any]] = {}
        if ctx.method == "tools/list" and isinstance(result, dict) and isinstance(result.get("tools"), list):
            mounted = await self._mounted_entries(ctx, result["tools"])

        def plain(entry: dict[str, Any], era: Era) -> dict[str, Any]:
            ours = mounted.get(entry.get("name", ""))
            return listed_entry(entry, ours) if ours is not None else self._plain_entry(entry, era)

        result = with_variants(ctx, result, self.tools_by_name, self._served, plain=plain)
        if ctx.method == "tools/list" and isinstance(result, dict) and dereferences_schemas(self.server):
            # FastMCP inlined the $refs of the schemas it listed; ours were added after it, so inlined here alike.
            result["tools"] = [dereferenced_entry(entry) if entry.get("name") in self.tools_by_name or
                               entry.get("name") in mounted else entry for entry in result["tools"]]
        if ctx.method == "tools/list" and isinstance(result, dict) and request_era(ctx).is_legacy:
            # The SDK wrote the entries (members in its wire models' order) before ours were set: written again as it
            # writes them, a migrated tool's legacy entry is FastMCP's byte for byte.
            result["tools"] = serialize_server_result("tools/list", ctx.protocol_version, result)["tools"]
        return result


    def _plain_entry(self, entry: dict[str, Any], era: Era) -> dict[str, Any]:
        """One of FastMCP's own tools as listed: at 2026-12-01 with its variants (`PlainTools`), else
        as FastMCP lists it."""
        if era is not Era.OUTPUTS:
            return entry
        (ours,) = self._plain.tools(entry).entries(era, frozenset())
        return listed_entry(entry, ours)


_VARIANTS: weakref.WeakKeyDictionary[FastMCP[Any], Variants] = weakref.WeakKeyDictionary()  # each server's, to check


def _mounted_from(tool: Tool | None) -> tuple[Variants, str] | None:
    """The Variants of the server a tool was mounted from (`FastMCP.mount`) and the tool's name there; None for a tool
    of the server's own, or of a mounted server without Variants."""
    origin = mounted_origin(tool) if tool is not None else None
    mounted = _VARIANTS.get(origin[0]) if origin is not None else None
    return (mounted, origin[1]) if origin is not None and mounted is not None else None


def check_before_serving(server: FastMCP[Any]) -> None:
    """What `run` and `cli` check before the server starts (its lifespan checks it too, whatever runs it): refused
    here, outside the server's event loop, a DeclarationError is not wrapped in FastMCP's start-up traceback."""
    variants = _VARIANTS.get(server)
    if variants is not None:
        anyio.run(variants.refuse_taken_over)


def _tool_options(given: dict[str, Any]) -> dict[str, Any]:
    """`FastMCP.tool`'s options as `Tool.from_function` takes them: `app=` (MCP Apps) merged into `meta["ui"]`, as
    `FastMCP.tool` merges it; `annotations` as a mapping made `ToolAnnotations`."""
    options = dict(given)
    app = options.pop("app", None)
    if app is not None and app is not False:
        options["meta"] = {**(options.get("meta") or {}), "ui": True if app is True else app_config_to_meta_dict(app)}
    if isinstance(options.get("annotations"), Mapping):
        options["annotations"] = ToolAnnotations.model_validate(options["annotations"])
    return options


def _wire(result: dict[str, Any]) -> ToolResult | CallToolResult:
    """The result as FastMCP passes it on: a ToolResult keeping the exact wire result (FastMCP's middleware reads
    ToolResults), or the CallToolResult itself where a ToolResult cannot hold it (2026-07-28's non-object
    structuredContent)."""
    wire = CallToolResult.model_validate(result)
    if wire.structured_content is not None and not isinstance(wire.structured_content, dict):
        return wire
    return ToolResult.from_mcp_result(wire)


async def _outcome(name: str, fn: Callable[..., Any], is_async: bool, kwargs: dict[str, Any], legacy: bool) -> Outcome:
    """The tool's return value, or its failure as the outputs carry it. A migrated (`legacy`) tool's crash is raised on
    to FastMCP, which words it as it words a plain `@mcp.tool`'s (its `mask_error_details` applied) and logs it."""
    try:
        value = await fn(**kwargs) if is_async else await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
    except ToolError as exc:
        return Outcome(failure=exc)
    except MCPError:
        raise  # a protocol error, as FastMCP answers it
    except FastMCPError as exc:  # FastMCP's ToolError, ValidationError, ...: its message is meant for the client
        return Outcome(failure=ToolError(ErrorKind.TOOL_ERROR, str(exc)))
    except Exception:
        if legacy:
            raise
        logger.exception("tool %s raised", name)
        return Outcome(failure=internal_failure(name))
    return Outcome(value=value)


def _failure(exc: FastMCPValidationError | FastMCPToolError) -> ToolError:
    """FastMCP's answer to a call that failed before a tool of ours answered, in FastMCP's words: arguments it refused;
    a tool's own exception it worded (`Error calling tool 'NAME': ...`, masked or not); else its ToolError."""
    if isinstance(exc, FastMCPValidationError):
        return ToolError(ErrorKind.INVALID_ARGUMENTS, str(exc) or type(exc).__name__)
    crashed = exc.__cause__ is not None and not isinstance(exc.__cause__, FastMCPError | MCPError)
    return ToolError(ErrorKind.INTERNAL if crashed else ErrorKind.TOOL_ERROR, str(exc) or type(exc).__name__)
