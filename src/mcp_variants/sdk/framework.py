"""The seams a layer for another Python MCP framework is built on, for whoever writes one: `mcp_variants.fastmcp`
(FastMCP 4) is built on these and the other public modules alone, as a layer for any framework on the official SDK
would be. A server author needs none of it (`mcp_variants.sdk`, or `mcp_variants.fastmcp`).

The framework registers the tools, runs them and serves them; the layer adds SEP-3279 where the framework lets it:

- its tools: a `VariantTool` (`mcp_variants.sdk.lowlevel`) per tool, its projectors from the tool's variants
  (`projectors_for`, with the framework's own conversion of a content value), in a `ToolSet`; a tool that raised what
  no tool meant to (`internal_failure`); the framework's plain tools as 2026-12-01 serves them (`PlainTools`); a
  migrated tool's variants by the SEP's inferences (`inferred_variants`, `StructuredAudience`) and the established
  shape older versions keep (`established_shape`, a `Legacy` given to `declaration` and `projectors_for`); a
  decorator's variants checked as given (`declared_specs`; `is_function`: a function there is a decorator used
  without its parentheses); a tool whose name the framework already has refused (`registered_twice`);
- each request, through the SDK's request context: its era (`request_era`, lowlevel's) and the extensions both sides
  negotiated (`negotiated_extensions`); a tools/call's selection carried from the framework's gate to the tool's
  wrapper (`ToolCall`) and its result handed back to the SDK (`finish`: tunnelled where the bridge presented the
  request as another version); tools/list given the variants and server/discover 2026-12-01 (`with_variants`, in an
  SDK `ServerMiddleware`; `listed_entry` for one entry);
- its transports: the message guard and the bridge in front of the framework's HTTP app (`message_guard`), uvicorn
  with `HttpLimits`' read deadline and connection cap (`uvicorn_http`), stdio by `mcp_variants.sdk.serve_stdio` on the
  framework's low-level `Server`; `ON_OUR_TRANSPORTS` set where the layer serves, so a server run otherwise can say
  why 2026-12-01 clients are refused (`bridge_needed`, `unbridged_warning`); a request to an HTTP app mounted
  without its lifespan answered with what to do (`LifespanGate`); `cli`'s options and their checks
  (`add_serving_options`, `serving_options`, `is_loopback`, `TOKEN_VARIABLE`: where `--token` is read by default)
  and its log where the server set up none (`set_up_log`);
- its package: a name imported when first named (`imported_when_named`, PEP 562), as `InProcessTransport` is.

What FastMCP's layer does, in short: an SDK middleware on the framework's low-level `Server` lists the variants, and
where the framework lets the layer answer a tools/call, the outputs are selected, projected and handed back:

    tools = ToolSet()                    # one VariantTool per tool the layer registers with the framework

    async def listing(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        return with_variants(ctx, await call_next(ctx), tools, served)

    framework_lowlevel_server.middleware.append(listing)

    era = request_era(ctx)               # for a tools/call, before the tool runs (ProtocolError: -32602)
    selectors = tools.select(name, ctx.params or {}, era, negotiated_extensions(ctx, served))
    outcome = Outcome(value=await tool(**arguments))         # or Outcome(failure=ToolError(...) / internal_failure(name))
    return finish(ctx, "tools/call", era, tools.project(name, selectors, era, outcome))
"""

from ._arguments import add_serving_options, serving_options
from ._connections import uvicorn_http
from ._declare import Legacy, declared_specs, is_function, projectors_for, registered_twice
from ._extension import ToolCall, listed_entry, with_variants
from ._guard import DEFAULT_MAX_MESSAGE_BYTES
from ._http import TOKEN_VARIABLE, is_loopback
from ._lazy import imported_when_named
from ._log import set_up_log
from ._migrate import PlainTools, StructuredAudience, established_shape, inferred_variants
from ._mountable import LifespanGate
from ._requests import finish, negotiated_extensions
from ._serve import DEFAULT_LIMITS, ON_OUR_TRANSPORTS, bridge_needed, message_guard, unbridged_warning
from ._toolset import internal_failure

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_MESSAGE_BYTES",
    "Legacy",
    "LifespanGate",
    "ON_OUR_TRANSPORTS",
    "PlainTools",
    "StructuredAudience",
    "TOKEN_VARIABLE",
    "ToolCall",
    "add_serving_options",
    "bridge_needed",
    "declared_specs",
    "established_shape",
    "finish",
    "imported_when_named",
    "inferred_variants",
    "internal_failure",
    "is_function",
    "is_loopback",
    "listed_entry",
    "message_guard",
    "negotiated_extensions",
    "projectors_for",
    "registered_twice",
    "serving_options",
    "set_up_log",
    "unbridged_warning",
    "uvicorn_http",
    "with_variants",
]
