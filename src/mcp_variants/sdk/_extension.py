"""SEP-3279 for the SDK's `MCPServer`, in its own extension style (SEP-2133, as `mcp.server.apps` is).

    mcp = MCPServer("weather")
    variants = Variants(mcp)                   # or MCPServer(..., extensions=[variants]), the SDK's own style

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str) -> Results: ...

    run(mcp)                                   # mcp_variants.sdk.run: stdio or HTTP, 2026-12-01 included

`Variants(mcp)` applies itself to a server already made, as `MCPServer(extensions=[...])` would at construction,
through the SDK's public surface (`add_tool`, `add_resource`, the low-level server's handlers, extensions and
lifespan, `middleware`), so a tool declared in any module after `mcp` exists is registered at once.

What fits the SDK's extension API, and what does not (docs/sdk-change.md):

- The tools are the extension's `tools()`: MCPServer registers them, derives their inputSchema from the
  signature, checks arguments and injects its `Context`, as for any tool of its own.
- `intercept_tool_call` selects the outputs before the tool runs (-32602 with the offered list), and
  answers with exactly those outputs, or the legacy pair, each structured one checked against its schema.
- tools/list and server/discover cannot be intercepted by an extension: `middleware` (the SDK's
  `ServerMiddleware`) adds each tool's `outputVariants` or its legacy `outputSchema` to the SDK's listing,
  and 2026-12-01 to the versions discover names. `Variants(mcp)` installs it; with `extensions=[variants]` our serve
  functions add it when it was left out (`before_serving`), and under the SDK's own `mcp.run()` a server that forgets
  it fails its first tools/call loudly rather than list tools without variants.
- 2026-12-01 itself, which mcp 2.3.0 refuses before any handler runs, is the bridge's (_bridge.py), behind
  `run` / `serve_stdio` / `streamable_http_app` (_serve.py).
- A tool may drive the 2026-07-28 multi-round flow itself (SEP-2322): it returns the SDK's `InputRequiredResult`,
  reads the answers on its `Context` (`ctx.input_responses`, `ctx.request_state`), and MCPServer answers that round
  as it is (its request-state boundary seals the state). Only the final, complete result is projected.
- An MCPServer whose `add_tool` takes `output_variants` (docs/sdk-change.md) is told each tool's variants,
  so that it lists them itself and leaves the tool's 2026-12-01 calls to this extension.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar, overload

import anyio
from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, Visibility
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, ResourceBinding, ToolBinding, compose_tool_call_handler
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, CallToolResult, InputRequiredResult, ToolAnnotations

from ..protocol.errors import DeclarationError, ErrorKind, ProtocolError, ToolError, unknown_tool
from ..protocol.projection import Outcome
from ..protocol.types import ASSISTANT_CONTENT, UI_EXTENSION, Selector
from ..protocol.versions import OUTPUTS_VERSION, Era
from ._declare import Legacy, SelectorName, VariantSpec, declaration, declared_specs, is_function, projectors_for, registered_twice
from ._migrate import PlainTools, StructuredAudience, legacy_variants
from ._requests import finish, naming_every_version, negotiated_extensions, request_era
from ._serve import BEFORE_SERVING, ON_OUR_TRANSPORTS, AnyServer, bridge_needed, lowlevel_server, unbridged_warning
from ._toolset import ToolSet, VariantTool, internal_failure

logger = logging.getLogger(__name__)

IDENTIFIER: Final[str] = "io.github.mcp-variants/output-variants"
"""Advertised under `capabilities.extensions` (the SDK advertises every extension it applies): this server
implements the SEP-3279 draft (2026-12-01 `outputVariants` / `requestedOutputs` / `outputs`)."""

_Fn = TypeVar("_Fn", bound=Callable[..., Any])

SDK_TAKES_VARIANTS: Final[bool] = "output_variants" in inspect.signature(MCPServer.add_tool).parameters
"""Whether the installed MCPServer accepts a tool's declared variants (mcp 2.3.0 does not)."""


@dataclass
class ToolCall:
    """One tools/call of a tool of ours, from the interceptor to the tool's wrapper and back (FastMCP's layer too)."""

    name: str
    selectors: tuple[Selector, ...]
    era: Era
    result: dict[str, Any] | None = None
    ran: bool = False  # the tool's wrapper ran: MCPServer called this extension's function, not another's


_CURRENT: contextvars.ContextVar[ToolCall | None] = contextvars.ContextVar("mcp_variants_call", default=None)


@dataclass(frozen=True)
class View:
    """An MCP Apps view of a tool's results: its `ui://` HTML resource (served as `text/html;profile=mcp-app`) and
    where hosts show the tool (`visibility`; default both the model and the app). `variants.tool(..., view=View(...))`
    links the tool to it (`_meta.ui`) and registers the resource on the `Apps` given to `Variants(apps=...)`; the
    view's data is the tool's `io.modelcontextprotocol/ui/structured` variant."""

    uri: str
    html: str
    name: str | None = None
    title: str | None = None
    description: str | None = None
    csp: ResourceCsp | None = None
    permissions: ResourcePermissions | None = None
    visibility: Sequence[Visibility] | None = None


class Variants(Extension):
    """Tools with declared output variants, on an `MCPServer`.

    `server`: the MCPServer that serves them (`Variants(mcp)`): this extension applies itself to it at once, its
    middleware included, and each tool declared later is added to it as it is declared. Without it, give the
    extension to the server (`MCPServer(..., extensions=[variants], middleware=[variants.middleware])`, the SDK's
    own style), which reads its tools once, as it is made: a tool declared after that is refused (`DeclarationError`),
    since the SDK never hands the server to an extension and its own `mcp.run()` would never list the tool.
    `apps`: the SDK's `Apps` extension, for tools with a `view=` (MCP Apps): their `ui://` resources are added to
    it, and the `io.modelcontextprotocol/ui` audience is served. This extension applies it: `MCPServer(extensions=
    [variants])` registers the Apps' resources and tools (`@apps.tool` ones too) and advertises
    `io.modelcontextprotocol/ui` in `initialize` and `server/discover`, so nothing is registered twice; listing
    the same `Apps` in `extensions` as well is harmless (the SDK keeps the first registration) and logged.
    `served_extensions`: other extension audiences (SEP-2133 identifiers) whose variants a tool may declare; a
    request sees them only when it negotiated the extension.

    Its decorators are typed: `tool(...)`, `legacy_tool` and `legacy_tool(...)` each give back the function they
    decorate, its signature and return type intact (`legacy_tool`'s two forms are overloads), so a tool another one
    calls keeps its type under a type checker.
    """

    identifier = IDENTIFIER

    def __init__(self, server: MCPServer[Any] | None = None, *, apps: Apps | None = None,
                 served_extensions: Iterable[str] = ()) -> None:
        self.tools_by_name = ToolSet()
        self._bindings: list[ToolBinding] = []
        self._apps = apps
        self._served = frozenset(served_extensions) | ({UI_EXTENSION} if apps is not None else frozenset())
        self._views: set[str] = set()
        self._functions: dict[Callable[..., Any], str] = {}  # each tool's own function, to spot it registered twice
        self._legacy: set[str] = set()  # tools migrated by legacy_tool: failures read as MCPServer words them
        self._applied = False  # MCPServer has read tools(): a tool declared later would never be listed
        self._listing_seen = False
        self._told_unbridged = False
        self._told_listed_twice = False
        self._declared_inputs: set[str] = set()  # tools whose inputSchema is given, not derived from the signature
        self._server: MCPServer[Any] | None = None  # the server this extension is served by (before_serving)
        self._apps_tools: set[Callable[..., Any]] = set()  # the Apps' own tools (@apps.tool) the server has been given
        self._apps_pages: set[str] = set()  # the uris of the Apps' pages the server has been given (Variants(mcp))
        self._plain = PlainTools()  # the server's own plain tools (@mcp.tool), as 2026-12-01 serves them
        # One object: MCPServer keeps what settings() returns among its capabilities' extensions, which tells at serve
        # time whether this extension was given to the server being served (before_serving).
        self._settings: dict[str, Any] = {"versions": [OUTPUTS_VERSION]}
        BEFORE_SERVING.add(self)
        if server is not None:
            self._apply_to(server)

    def _apply_to(self, server: MCPServer[Any]) -> None:
        """What `MCPServer(extensions=[self])` does at construction, on a server already made: the Apps' tools and
        pages registered, this extension advertised, its interceptor around the server's tools/call handler; and
        what only a serve function of ours does otherwise: the middleware installed, and a word at start when the
        server runs where 2026-12-01 is refused."""
        if not isinstance(server, MCPServer):
            raise TypeError(f"Variants(server) takes the SDK's MCPServer, not {type(server).__name__} (FastMCP: "
                            "mcp_variants.fastmcp.Variants(mcp); the low-level Server: mcp_variants.sdk.lowlevel)")
        lowlevel = lowlevel_server(server)
        if IDENTIFIER in lowlevel.extensions:
            raise ValueError(f"{server.name} already has a Variants: make one per server and declare every tool on it")
        for binding in self._apply():
            server.add_tool(binding.fn, meta=binding.meta, **binding.kwargs)
        self._server = server
        self._add_apps_pages()
        lowlevel.extensions[IDENTIFIER] = self._settings
        call_tool = lowlevel.get_request_handler("tools/call")
        assert call_tool is not None  # MCPServer registers it as it is made
        lowlevel.add_request_handler("tools/call", CallToolRequestParams,
                                     compose_tool_call_handler([self], call_tool.handler))
        server.middleware.append(self.middleware)
        lowlevel.lifespan = self._saying_where_it_runs(lowlevel.lifespan)

    def _saying_where_it_runs(self, lifespan: Callable[[Server[Any]], contextlib.AbstractAsyncContextManager[Any]]
                              ) -> Callable[[Server[Any]], contextlib.AbstractAsyncContextManager[Any]]:
        """The server's lifespan, entered as it starts whatever runs it: run outside our transports (the SDK's own
        `mcp.run()`), the server says at start, before any client, that 2026-12-01 clients will be refused."""

        @contextlib.asynccontextmanager
        async def lifespan_saying_where(server: Server[Any]) -> AsyncIterator[Any]:
            self._tell_if_unbridged()
            self._add_apps_tools()
            self._add_apps_pages()
            async with lifespan(server) as state:
                yield state

        return lifespan_saying_where

    def _tell_if_unbridged(self) -> None:
        if not ON_OUR_TRANSPORTS.get() and bridge_needed() and not self._told_unbridged:
            self._told_unbridged = True
            logger.warning("%s", unbridged_warning("mcp_variants.sdk", "MCPServer.run",
                                                   "mcp_variants.sdk.cli(mcp) or run(mcp) (streamable_http_app(mcp) to mount it)"))

    def settings(self) -> dict[str, Any]:
        return self._settings

    def before_serving(self, server: AnyServer) -> None:
        """At `cli`/`run`/`serve_stdio`/`streamable_http_app`: tools declared here but never given to a server are
        refused, with the fix; a server given this extension gets the Apps' tools declared after it was made, and its
        middleware if it was left out."""
        if not isinstance(server, MCPServer) or not len(self.tools_by_name):
            return
        served_here = lowlevel_server(server).extensions.get(IDENTIFIER)
        if served_here is self._settings:
            self._server = server
            self._add_apps_tools()
            if self.middleware not in server.middleware:
                server.middleware.append(self.middleware)
                logger.info("Variants.middleware added to %s's middleware (MCPServer(..., middleware=[variants.middleware]) "
                            "says it in the code)", server.name)
            return
        if served_here is None and not self._applied:
            tools = ", ".join(sorted(tool.declaration.name for tool in self.tools_by_name))
            raise DeclarationError(tools, "a Variants is given to the server that serves its tools",
                                   f"{server.name} would list none of them: variants = Variants(mcp) once mcp is made "
                                   f"(or MCPServer({server.name!r}, ..., extensions=[variants]))")

    def tool(self, *variants: VariantSpec | SelectorName, name: str | None = None, title: str | None = None,
             description: str | None = None, annotations: ToolAnnotations | Mapping[str, Any] | None = None,
             meta: dict[str, Any] | None = None, input_schema: Mapping[str, Any] | None = None,
             view: View | None = None) -> Callable[[_Fn], _Fn]:
        """Register a tool with these variants (`"assistant/content"` or `variant(selector, schema, project=...)`).

        The tool returns a `Results` (one entry per variant, a value or a function called only when that variant
        is requested) or one value each variant's `project` (else the value itself) turns into its output; or, at
        2026-07-28 and later, the SDK's `InputRequiredResult` to ask the client first (MCPServer answers that round).
        Raise `ToolError` (this package's, or the SDK's) for a failure the model should read.

        `input_schema`: the tool's inputSchema as listed, instead of the one MCPServer derives from the signature,
        for JSON Schema 2020-12 a signature cannot say (`$defs` with `$anchor`, `allOf`, `if`/`then`/`else`,
        `additionalProperties: false`). A call's arguments are checked against it before the tool runs (a mismatch
        is the tool's invalid-arguments error, in the requested outputs); MCPServer then binds them to the signature
        as usual, so the signature must accept whatever the schema does.

        `view`: the tool's MCP Apps view (`View`); needs `Variants(apps=...)` and an
        `io.modelcontextprotocol/ui/structured` variant, the view's data.
        """
        specs = declared_specs("tool", variants)
        return self._registering(specs, name=name, title=title, description=description, annotations=annotations,
                                 meta=meta, input_schema=input_schema, view=view)

    def _registering(self, specs: list[VariantSpec], *, name: str | None = None, title: str | None = None,
                     description: str | None = None, annotations: ToolAnnotations | Mapping[str, Any] | None = None,
                     meta: dict[str, Any] | None = None, input_schema: Mapping[str, Any] | None = None,
                     view: View | None = None, legacy: Legacy | None = None) -> Callable[[_Fn], _Fn]:
        """The decorator that registers a tool of these variants; `legacy`: a migrated tool's established shape."""

        def decorator(fn: _Fn) -> _Fn:
            sdk_annotations = ToolAnnotations.model_validate(annotations) if isinstance(annotations, Mapping) else annotations
            info = Tool.from_function(fn, name=name, title=title, description=description, annotations=sdk_annotations,
                                      meta=meta, structured_output=False)
            if self._applied and self._server is None:
                # MCPServer read tools() as it was made and never hands itself to an extension (mcp.server.extension):
                # the SDK's own mcp.run() would never list this tool, so it is refused here, whatever runs the server.
                raise DeclarationError(info.name, "a tool is declared before MCPServer(..., extensions=[variants]) is made",
                                       "MCPServer reads an extension's tools once, as it is made, so it would never "
                                       "list this one: make the server first and write variants = Variants(mcp), "
                                       "which adds each tool as it is declared, in any module")
            self._check_audiences(info.name, specs, view)
            tool_meta = self._with_view(info.name, meta, view) if view is not None else meta
            listed_input = dict(input_schema) if input_schema is not None else info.parameters
            self.tools_by_name.add(VariantTool(
                declaration(info.name, specs, input_schema=listed_input, description=info.description, title=title,
                            annotations=sdk_annotations.model_dump(by_alias=True, exclude_none=True) if sdk_annotations else None,
                            meta=tool_meta, legacy=legacy),
                projectors_for(info.name, specs, legacy=legacy)))
            if input_schema is not None:
                self._declared_inputs.add(info.name)
            kwargs: dict[str, Any] = {"name": info.name, "title": title, "description": info.description,
                                      "annotations": sdk_annotations, "structured_output": False}
            if SDK_TAKES_VARIANTS:
                kwargs["output_variants"] = [spec.to_wire() for spec in specs]
            binding = ToolBinding(fn=self._runner(info.name, fn), meta=tool_meta, kwargs=kwargs)
            if self._server is not None:  # Variants(mcp), or served already: the server takes it now
                self._add_tool(binding)
            else:
                self._bindings.append(binding)
            self._functions[fn] = info.name
            return fn

        return decorator

    @overload
    def legacy_tool(self, fn: _Fn, /) -> _Fn: ...

    @overload
    def legacy_tool(self, *more: VariantSpec | SelectorName, structured: StructuredAudience | None = None,
                    **tool_kwargs: Any) -> Callable[[_Fn], _Fn]: ...

    def legacy_tool(self, *more: Any, structured: StructuredAudience | None = None, **tool_kwargs: Any) -> Any:
        """An existing MCPServer tool, unchanged: its legacy content as assistant/content and, when `structured` names
        the audience, its outputSchema as that one structured variant; `more` variants beside them. `@legacy_tool`
        alone is `@legacy_tool()`, as `@mcp.tool()` was; `structured_output=False` reads the tool as
        `@mcp.tool(structured_output=False)` registered it (no outputSchema). Every older version gets what MCPServer answered, its
        outputSchema and structuredContent included, whichever audience `structured` names (SEP-3279: a tool that
        already served older versions SHOULD keep them; check a programmatic one with `--established NAME`), its
        content too (an empty one, for a None return, says `null` at 2026-12-01 only); its failures read there as
        MCPServer worded them (`Error
        executing tool NAME: ...`), whichever `ToolError` it raises (this package's keeps its kind, the SDK's is
        `tool-error`), and its results say `"isError": false` as before."""
        if len(more) == 1 and is_function(more[0]) and structured is None and not tool_kwargs:
            return self.legacy_tool()(more[0])  # @variants.legacy_tool without parentheses
        specs = declared_specs("legacy_tool", more)
        structured_output = tool_kwargs.pop("structured_output", None)  # as @mcp.tool(structured_output=...) had it

        def decorator(fn: _Fn) -> _Fn:
            inferred, established = legacy_variants(fn, structured, specs, structured_output)
            registered = self._registering([*inferred, *specs], legacy=established, **tool_kwargs)(fn)
            self._legacy.add(self._functions[fn])
            return registered

        return decorator

    def tools(self) -> list[ToolBinding]:
        """What MCPServer(extensions=[...]) registers: the tools declared so far, and the Apps' own."""
        if self._server is not None:
            raise ValueError(f"this Variants already serves {self._server.name}: Variants(mcp) applies it, so leave it "
                             "out of MCPServer(extensions=[...]); a second server needs its own Variants")
        return self._apply()

    def _apply(self) -> list[ToolBinding]:
        self._applied = True
        return [*self._bindings, *self._new_apps_tools()]  # the Apps' own tools, as MCPServer would add them were it listed

    def _new_apps_tools(self) -> list[ToolBinding]:
        """The Apps' own tools (`@apps.tool`) not yet given to the server; one stacked on a tool of ours is refused."""
        if self._apps is None:
            return []
        apps_tools = [binding for binding in self._apps.tools() if binding.fn not in self._apps_tools]
        twice = sorted(self._functions[binding.fn] for binding in apps_tools if binding.fn in self._functions)
        if twice:
            raise DeclarationError(", ".join(twice), "a tool is registered once",
                                   "registered with @apps.tool too: give its view with variants.tool(..., view=View(...))")
        self._apps_tools.update(binding.fn for binding in apps_tools)
        return apps_tools

    def _add_tool(self, binding: ToolBinding) -> None:
        """One of our tools, given to the server that already exists: refused if the server has a tool of that name
        (MCPServer would keep that one and drop ours, warning; its calls would run the other function)."""
        assert self._server is not None
        name = str(binding.kwargs["name"])
        try:
            self._server.remove_tool(name)  # the public way to ask whether the name is taken; it is refused below
        except SdkToolError:
            self._server.add_tool(binding.fn, meta=binding.meta, **binding.kwargs)
            return
        raise registered_twice(name, "@mcp.tool()")

    def _add_apps_tools(self) -> None:
        """As the server starts: the Apps' own tools declared after it was given this extension (MCPServer reads an
        extension's tools once, when it is made)."""
        assert self._server is not None
        for binding in self._new_apps_tools():
            self._server.add_tool(binding.fn, meta=binding.meta, **binding.kwargs)

    def _add_apps_pages(self) -> None:
        """The Apps' pages (each view's, and any other `ui://` resource of the Apps) not yet given to the server:
        `Variants(mcp)` gives each as it is added, and as the server starts any added to the Apps directly."""
        assert self._server is not None
        for binding in self.resources():
            uri = str(binding.resource.uri)
            if uri not in self._apps_pages:
                self._apps_pages.add(uri)
                self._server.add_resource(binding.resource)

    def resources(self) -> list[ResourceBinding]:
        """The views' `ui://` pages (and any other resource of the `Apps` given): this extension applies the Apps."""
        return list(self._apps.resources()) if self._apps is not None else []

    def _check_audiences(self, name: str, specs: Sequence[VariantSpec], view: View | None) -> None:
        """An extension audience is declared only where this server serves the extension, and a view comes with
        its data (the ui variant) and an `Apps` to serve it."""
        for spec in specs:
            if not spec.selector.is_core and spec.selector.audience not in self._served:
                fix = ("Variants(mcp, apps=Apps()) and variants.tool(..., view=View(...))" if spec.selector.audience == UI_EXTENSION
                       else f"Variants(served_extensions={{{spec.selector.audience!r}}})")
                raise DeclarationError(name, "a variant's extension audience is one this server serves",
                                       f"{spec.selector} is declared, but the extension is not served: {fix}")
        if view is not None:
            if self._apps is None:
                raise DeclarationError(name, "a view is served by the SDK's Apps", "view= needs Variants(mcp, apps=Apps())")
            if not any(spec.selector.audience == UI_EXTENSION for spec in specs):
                raise DeclarationError(name, "a tool with a view declares the view's data",
                                       f"add variant({UI_EXTENSION + '/structured'!r}, ViewSchema)")

    def _with_view(self, name: str, meta: Mapping[str, Any] | None, view: View) -> dict[str, Any]:
        """The tool's `_meta` with its `ui` link; the view's resource added to the Apps once."""
        assert self._apps is not None
        if meta and "ui" in meta:
            raise DeclarationError(name, "a tool's view is given once", "both view= and meta['ui']: keep view=")
        if view.uri not in self._views:
            self._apps.add_html_resource(view.uri, view.html, name=view.name, title=view.title, description=view.description,
                                         csp=view.csp, permissions=view.permissions)
            self._views.add(view.uri)
            if self._server is not None:  # Variants(mcp): the server takes it now
                self._add_apps_pages()
        ui: dict[str, Any] = {"resourceUri": view.uri}
        if view.visibility is not None:
            ui["visibility"] = list(view.visibility)
        return {**(meta or {}), "ui": ui}

    def _runner(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """What MCPServer calls, with its checked arguments and its Context: the tool, then the projection."""
        is_async = inspect.iscoroutinefunction(fn)

        @functools.wraps(fn)  # MCPServer reads the signature (and the Context parameter) through __wrapped__
        async def run(**kwargs: Any) -> Any:
            call = _CURRENT.get()
            if call is None or call.name != name:  # called in process (MCPServer.call_tool), not over the wire
                call = ToolCall(name, (ASSISTANT_CONTENT,), Era.LEGACY_ANY)
            call.ran = True
            # A migrated tool's failures read as MCPServer worded them where a client may have read them before.
            outcome = await self._outcome(name, fn, is_async, kwargs, legacy=name in self._legacy and call.era.is_legacy)
            if isinstance(outcome.value, InputRequiredResult):
                return outcome.value  # a round of the multi-round flow, not the tool's result: MCPServer answers it
            call.result = self.tools_by_name.project(name, call.selectors, call.era, outcome)
            if name in self._legacy:
                call.result.setdefault("isError", False)  # a migrated tool's results say it, as MCPServer's did
            if _CURRENT.get() is call:
                return CallToolResult(content=[])  # the interceptor answers with call.result
            return CallToolResult.model_validate(call.result)

        return run

    @staticmethod
    async def _outcome(name: str, fn: Callable[..., Any], is_async: bool, kwargs: dict[str, Any], legacy: bool) -> Outcome:
        try:
            value = await fn(**kwargs) if is_async else await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
        except ToolError as exc:  # its kind, and for a migrated tool the words MCPServer put before its message
            return Outcome(failure=exc.reworded(f"{sdk_failure(name)}: {exc.message}") if legacy else exc)
        except MCPError:
            raise  # a protocol error, as MCPServer answers it
        except SdkToolError as exc:
            text = f"{sdk_failure(name)}: {exc}" if legacy else str(exc)
            return Outcome(failure=ToolError(ErrorKind.TOOL_ERROR, text))
        except Exception:
            logger.exception("tool %s raised", name)
            # A migrated tool's crash reads as MCPServer's did; neither says what the exception said.
            return Outcome(failure=ToolError(ErrorKind.INTERNAL, sdk_failure(name)) if legacy else internal_failure(name))
        return Outcome(value=value)

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if params.name not in self.tools_by_name:
            return await self._plain_call(params.name, ctx, call_next)
        if not self._listing_seen:
            raise MCPError(-32603, "Variants.middleware is not installed: Variants(mcp) installs it (or MCPServer(..., "
                                   "extensions=[variants], middleware=[variants.middleware])); it lists the tools' outputVariants")
        era = request_era(ctx)
        try:
            selectors = self.tools_by_name.select(params.name, ctx.params or {}, era, negotiated_extensions(ctx, self._served))
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        if params.name in self._declared_inputs:
            try:
                self.tools_by_name.arguments(params.name, params.arguments or {})
            except ToolError as exc:
                return finish(ctx, "tools/call", era, self.tools_by_name.project(params.name, selectors, era, Outcome(failure=exc)))
        call = ToolCall(params.name, selectors, era)
        token = _CURRENT.set(call)
        try:
            answered = await call_next(ctx)
        finally:
            _CURRENT.reset(token)
        if call.result is None:
            if not (isinstance(answered, CallToolResult) and answered.is_error):
                if not call.ran and isinstance(answered, CallToolResult):
                    raise MCPError(-32603, f"tool {params.name} is registered twice (another extension's decorator on a "
                                           "Variants tool, e.g. @apps.tool): MCPServer ran the other one. Give a view with "
                                           "variants.tool(..., view=View(...)) and Variants(apps=apps)")
                return answered  # not a result of the tool's: MCPServer's own (input_required, ...)
            # MCPServer refused the arguments before the tool ran: its words, in the requested outputs; the
            # `Error executing tool NAME: ` before them kept only where a migrated tool's old clients read it.
            text = " ".join(getattr(block, "text", "") for block in answered.content) or "Invalid arguments"
            if not (params.name in self._legacy and era.is_legacy):
                text = text.removeprefix(f"{sdk_failure(params.name)}: ")
            call.result = self.tools_by_name.project(params.name, selectors, era,
                                                     Outcome(failure=ToolError(ErrorKind.INVALID_ARGUMENTS, text)))
        return finish(ctx, "tools/call", era, call.result)

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """The SDK's `ServerMiddleware` for what an extension cannot intercept: each tool's variants (or its legacy
        outputSchema) in tools/list, and 2026-12-01 among server/discover's versions."""
        self._listing_seen = True
        self._tell_if_unbridged()
        result = with_variants(ctx, await call_next(ctx), self.tools_by_name, self._served, self._declared_inputs,
                               plain=self._plain_entry)
        if self._apps is not None:
            self._advertise_apps(ctx.method, result)
        return result

    def _plain_entry(self, sdk_entry: dict[str, Any], era: Era) -> dict[str, Any]:
        """A tool of the server's own (`@mcp.tool`) as listed at 2026-12-01, where a tool without outputVariants is
        invalid (SEP-3279): what `legacy_tool()` would declare of it. Other eras, and an SDK that serves 2026-12-01
        itself (its own legacy adapter lists such a tool): as the SDK lists it."""
        if era is not Era.OUTPUTS or SDK_TAKES_VARIANTS:
            return sdk_entry
        (adapted,) = self._plain.tools(sdk_entry).entries(era, frozenset())
        return listed_entry(sdk_entry, adapted)

    async def _plain_call(self, name: str, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """A call of one of the server's own tools: at 2026-12-01 its requestedOutputs checked and its result as
        outputs (its content as assistant/content, its structuredContent as assistant/structured); other eras as is."""
        era = request_era(ctx)
        if era is not Era.OUTPUTS or self._server is None or SDK_TAKES_VARIANTS:
            return await call_next(ctx)
        tools = self._plain.made(name)
        if tools is None:
            listed = {tool.name: tool for tool in await self._server.list_tools()}
            if name not in listed:  # -32602 at 2026-12-01, where a result without outputs is invalid
                exc = unknown_tool(name, listed)
                raise MCPError(exc.code, exc.message, exc.data)
            tools = self._plain.tools(listed[name].model_dump(mode="json", by_alias=True, exclude_none=True))
        try:
            selectors = tools.select(name, ctx.params or {}, era, frozenset())
        except ProtocolError as exc:
            raise MCPError(exc.code, exc.message, exc.data) from None
        answered = await call_next(ctx)
        if not isinstance(answered, CallToolResult):
            return answered
        if answered.is_error:
            text = " ".join(getattr(block, "text", "") for block in answered.content)
            outcome = Outcome(failure=ToolError(ErrorKind.TOOL_ERROR, text or f"{name} failed"))
        else:
            outcome = Outcome(value=answered)
        return finish(ctx, "tools/call", era, tools.project(name, selectors, era, outcome))

    def _advertise_apps(self, method: str, result: HandlerResult) -> None:
        """`io.modelcontextprotocol/ui` among the capabilities' extensions (SEP-2133) of initialize and discover,
        beside this extension's own wherever MCPServer advertises extensions: the Apps is applied by this extension,
        so MCPServer does not advertise it itself."""
        if method not in ("initialize", "server/discover") or not isinstance(result, dict):
            return
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict):
            return
        extensions = capabilities.get("extensions")
        if not isinstance(extensions, dict):
            return  # a version whose capabilities carry no extensions: MCPServer advertises none there
        if UI_EXTENSION in extensions:
            if not self._told_listed_twice:
                self._told_listed_twice = True
                logger.info("the Apps given to Variants(apps=...) is also in MCPServer(extensions=[...]): Variants applies "
                            "it, so list it once (extensions=[variants])")
            return
        assert self._apps is not None
        extensions[UI_EXTENSION] = self._apps.settings()


def with_variants(ctx: ServerRequestContext[Any, Any], result: HandlerResult, tools: ToolSet, served: frozenset[str],
                  declared_inputs: Iterable[str] = (),
                  plain: Callable[[dict[str, Any], Era], dict[str, Any]] | None = None) -> HandlerResult:
    """A framework's tools/list with each of our tools' variants (`listed_entry`), and its server/discover with
    2026-12-01 among the versions: what an extension cannot intercept, for MCPServer and FastMCP alike. `plain`:
    how a tool of the framework's own is listed (None: as the framework lists it)."""
    if not isinstance(result, dict):
        return result
    if ctx.method == "tools/list" and isinstance(result.get("tools"), list):
        era = request_era(ctx)
        ours = {e["name"]: e for e in tools.entries(era, negotiated_extensions(ctx, served))}
        result["tools"] = [listed_entry(entry, ours[entry["name"]], entry["name"] in declared_inputs)
                           if entry.get("name") in ours else plain(entry, era) if plain is not None else entry
                           for entry in result["tools"]]
        return result
    return naming_every_version(ctx, result)


def listed_entry(sdk_entry: dict[str, Any], ours: dict[str, Any] | None, declared_input: bool = False) -> dict[str, Any]:
    """The SDK's entry (its inputSchema, icons, `_meta`) with our output declaration for the era: `outputVariants`
    at 2026-12-01, else the legacy outputSchema when assistant/structured gives one; and the tool's own inputSchema
    where it declared one."""
    if ours is None:
        return sdk_entry
    entry = {k: v for k, v in sdk_entry.items() if k != "outputSchema"}
    for key in ("outputVariants", "outputSchema", *(("inputSchema",) if declared_input else ())):
        if key in ours:
            entry[key] = ours[key]
    return entry


def sdk_failure(name: str) -> str:
    """How MCPServer words a failure of the tool `name` (mcp.server.mcpserver.tools.base), before the failure's own
    words: what a migrated tool keeps where its old clients read it, and what every other answer leaves out."""
    return f"Error executing tool {name}"
