"""SEP-3279 for the SDK's `MCPServer`, in its own extension style (SEP-2133, as `mcp.server.apps` is).

    variants = Variants()

    @variants.tool("assistant/content", variant("programmatic/structured", Forecast))
    async def forecast(city: str) -> Results: ...

    mcp = MCPServer("weather", extensions=[variants], middleware=[variants.middleware])
    run(mcp)                                   # mcp_variants.sdk.run: stdio or HTTP, 2026-12-01 included

What fits the SDK's extension API, and what does not (docs/sdk-change.md):

- The tools are the extension's `tools()`: MCPServer registers them, derives their inputSchema from the
  signature, checks arguments and injects its `Context`, as for any tool of its own.
- `intercept_tool_call` selects the outputs before the tool runs (-32602 with the offered list), and
  answers with exactly those outputs, or the legacy pair, each structured one checked against its schema.
- tools/list and server/discover cannot be intercepted by an extension: `middleware` (the SDK's
  `ServerMiddleware`) adds each tool's `outputVariants` or its legacy `outputSchema` to the SDK's listing,
  and 2026-12-01 to the versions discover names. A server that forgets it fails its first tools/call
  loudly rather than list tools without variants.
- 2026-12-01 itself, which mcp 2.3.0 refuses before any handler runs, is the bridge's (bridge.py), behind
  `run` / `serve_stdio` / `streamable_http_app` (serve.py).
- A tool may drive the 2026-07-28 multi-round flow itself (SEP-2322): it returns the SDK's `InputRequiredResult`,
  reads the answers on its `Context` (`ctx.input_responses`, `ctx.request_state`), and MCPServer answers that round
  as it is (its request-state boundary seals the state). Only the final, complete result is projected.
- An MCPServer whose `add_tool` takes `output_variants` (docs/sdk-change.md) is told each tool's variants,
  so that it lists them itself and leaves the tool's 2026-12-01 calls to this extension.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, ToolBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolRequestParams, CallToolResult, InputRequiredResult, ToolAnnotations

from ..protocol.errors import ErrorKind, ProtocolError, ToolError
from ..protocol.projection import Outcome
from ..protocol.types import ASSISTANT_CONTENT, Selector
from ..protocol.versions import OUTPUTS_VERSION, SUPPORTED_VERSIONS, Era
from .declare import VariantSpec, declaration, projectors_for, variant
from .migrate import StructuredAudience, legacy_variants
from .requests import finish, negotiated_extensions, request_era
from .toolset import ToolSet, VariantTool, internal_failure

logger = logging.getLogger(__name__)

IDENTIFIER: Final[str] = "io.github.mcp-variants/output-variants"
"""Advertised under `capabilities.extensions` (the SDK advertises every extension it applies): this server
implements the SEP-3279 draft (2026-12-01 `outputVariants` / `requestedOutputs` / `outputs`)."""

_Fn = TypeVar("_Fn", bound=Callable[..., Any])

SDK_TAKES_VARIANTS: Final[bool] = "output_variants" in inspect.signature(MCPServer.add_tool).parameters
"""Whether the installed MCPServer accepts a tool's declared variants (mcp 2.3.0 does not)."""


@dataclass
class _Call:
    """One tools/call of a tool of ours, from the interceptor to the tool's wrapper and back."""

    name: str
    selectors: tuple[Selector, ...]
    era: Era
    result: dict[str, Any] | None = None


_CURRENT: contextvars.ContextVar[_Call | None] = contextvars.ContextVar("mcp_variants_call", default=None)


class Variants(Extension):
    """Tools with declared output variants, on an `MCPServer`.

    `served_extensions`: extension audiences (SEP-2133 identifiers) whose variants a tool may declare, e.g.
    `{"io.modelcontextprotocol/ui"}` beside the SDK's `Apps`; a request sees them only when it negotiated
    the extension.
    """

    identifier = IDENTIFIER

    def __init__(self, served_extensions: frozenset[str] | set[str] = frozenset()) -> None:
        self.tools_by_name = ToolSet()
        self._bindings: list[ToolBinding] = []
        self._served = frozenset(served_extensions)
        self._listing_seen = False
        self._declared_inputs: set[str] = set()  # tools whose inputSchema is given, not derived from the signature

    def settings(self) -> dict[str, Any]:
        return {"versions": [OUTPUTS_VERSION]}

    def tool(self, *variants: VariantSpec | str, name: str | None = None, title: str | None = None,
             description: str | None = None, annotations: ToolAnnotations | Mapping[str, Any] | None = None,
             meta: dict[str, Any] | None = None, input_schema: Mapping[str, Any] | None = None) -> Callable[[_Fn], _Fn]:
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
        """
        specs = [variant(v) if isinstance(v, str) else v for v in variants]

        def decorator(fn: _Fn) -> _Fn:
            sdk_annotations = ToolAnnotations.model_validate(annotations) if isinstance(annotations, Mapping) else annotations
            info = Tool.from_function(fn, name=name, title=title, description=description, annotations=sdk_annotations,
                                      meta=meta, structured_output=False)
            listed_input = dict(input_schema) if input_schema is not None else info.parameters
            self.tools_by_name.add(VariantTool(
                declaration(info.name, specs, input_schema=listed_input, description=info.description, title=title,
                            annotations=sdk_annotations.model_dump(by_alias=True, exclude_none=True) if sdk_annotations else None,
                            meta=meta),
                projectors_for(specs)))
            if input_schema is not None:
                self._declared_inputs.add(info.name)
            kwargs: dict[str, Any] = {"name": info.name, "title": title, "description": info.description,
                                      "annotations": sdk_annotations, "structured_output": False}
            if SDK_TAKES_VARIANTS:
                kwargs["output_variants"] = [spec.to_wire() for spec in specs]
            self._bindings.append(ToolBinding(fn=self._runner(info.name, fn), meta=meta, kwargs=kwargs))
            return fn

        return decorator

    def legacy_tool(self, *more: VariantSpec | str, structured: StructuredAudience | None = None,
                    **tool_kwargs: Any) -> Callable[[_Fn], _Fn]:
        """An existing MCPServer tool, unchanged: its legacy content as assistant/content and, when `structured` names
        the audience, its outputSchema as that one structured variant (migrate.py); `more` variants beside them."""

        def decorator(fn: _Fn) -> _Fn:
            return self.tool(*legacy_variants(fn, structured), *more, **tool_kwargs)(fn)

        return decorator

    def tools(self) -> list[ToolBinding]:
        return list(self._bindings)

    def _runner(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """What MCPServer calls, with its checked arguments and its Context: the tool, then the projection."""
        is_async = inspect.iscoroutinefunction(fn)

        @functools.wraps(fn)  # MCPServer reads the signature (and the Context parameter) through __wrapped__
        async def run(**kwargs: Any) -> Any:
            call = _CURRENT.get()
            if call is None or call.name != name:  # called in process (MCPServer.call_tool), not over the wire
                call = _Call(name, (ASSISTANT_CONTENT,), Era.LEGACY_ANY)
            outcome = await self._outcome(name, fn, is_async, kwargs)
            if isinstance(outcome.value, InputRequiredResult):
                return outcome.value  # a round of the multi-round flow, not the tool's result: MCPServer answers it
            call.result = self.tools_by_name.project(name, call.selectors, call.era, outcome)
            if _CURRENT.get() is call:
                return CallToolResult(content=[])  # the interceptor answers with call.result
            return CallToolResult.model_validate(call.result)

        return run

    @staticmethod
    async def _outcome(name: str, fn: Callable[..., Any], is_async: bool, kwargs: dict[str, Any]) -> Outcome:
        try:
            value = await fn(**kwargs) if is_async else await anyio.to_thread.run_sync(functools.partial(fn, **kwargs))
        except ToolError as exc:
            return Outcome(failure=exc)
        except MCPError:
            raise  # a protocol error, as MCPServer answers it
        except SdkToolError as exc:
            return Outcome(failure=ToolError(ErrorKind.TOOL_ERROR, str(exc)))
        except Exception:
            logger.exception("tool %s raised", name)
            return Outcome(failure=internal_failure(name))
        return Outcome(value=value)

    async def intercept_tool_call(self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any],
                                  call_next: CallNext) -> HandlerResult:
        if params.name not in self.tools_by_name:
            return await call_next(ctx)
        if not self._listing_seen:
            raise MCPError(-32603, "Variants.middleware is not installed: MCPServer(..., extensions=[variants], "
                                   "middleware=[variants.middleware]) lists the tools' outputVariants")
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
        call = _Call(params.name, selectors, era)
        token = _CURRENT.set(call)
        try:
            answered = await call_next(ctx)
        finally:
            _CURRENT.reset(token)
        if call.result is None:
            if not (isinstance(answered, CallToolResult) and answered.is_error):
                return answered  # not a result of the tool's: MCPServer's own (input_required, ...)
            # MCPServer refused the arguments before the tool ran: its words, in the requested outputs.
            text = " ".join(getattr(block, "text", "") for block in answered.content) or "Invalid arguments"
            call.result = self.tools_by_name.project(params.name, selectors, era,
                                                     Outcome(failure=ToolError(ErrorKind.INVALID_ARGUMENTS, text)))
        return finish(ctx, "tools/call", era, call.result)

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """The SDK's `ServerMiddleware` for what an extension cannot intercept: each tool's variants (or its legacy
        outputSchema) in tools/list, and 2026-12-01 among server/discover's versions."""
        self._listing_seen = True
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "tools/list" and isinstance(result.get("tools"), list):
            era = request_era(ctx)
            ours = {e["name"]: e for e in self.tools_by_name.entries(era, negotiated_extensions(ctx, self._served))}
            result["tools"] = [_listed(entry, ours.get(entry.get("name")), entry.get("name") in self._declared_inputs)
                               for entry in result["tools"]]
        elif ctx.method == "server/discover" and isinstance(result.get("supportedVersions"), list):
            result["supportedVersions"] = list(SUPPORTED_VERSIONS)
        return result


def _listed(sdk_entry: dict[str, Any], ours: dict[str, Any] | None, declared_input: bool = False) -> dict[str, Any]:
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
