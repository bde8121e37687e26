"""The server API's low-level half, for those who build their own toolsets: tools as data (`VariantTool`: a
checked declaration, one projector per variant, how it runs) in a `ToolSet`, served on the SDK's low-level
`Server` by `serve_tools`, with the context each request's tools run in. The Jupyter server's 27 tools run on it.

    tools = ToolSet([VariantTool(declaration("add", [variant("assistant/content")], input_schema=schema),
                                 ToolProjectors(success={ASSISTANT: str}), run=add)])
    server = Server("calc")
    serve_tools(server, tools, context=lambda ctx: None)
    run(server)                                   # mcp_variants.sdk.run: stdio or HTTP, 2026-12-01 included

And what a server that runs its own process needs of the request and of the network: the request's protocol version
and era (`request_version`, `request_era`; 2026-12-01 included), whose state it may use (`client_key`), the binding
rule (`check_binding`: beyond loopback only with a token) and a listening socket made before anything starts
(`listen`). The transports themselves (`serve_stdio`, `serve_http`, `streamable_http_app`, `HttpLimits`) are
`mcp_variants.sdk`'s; the long runs, `mcp_variants.sdk.tasks`'.
"""

from ..protocol.errors import DeclarationError, ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import Selector, ToolDeclaration
from ._declare import VariantSpec, declaration, variant
from ._http import InsecureBinding, check_binding
from ._lowlevel import serve_tools
from ._requests import client_key, request_era, request_version
from ._serve import CannotListen, listen, lowlevel_server
from ._toolset import Runner, ToolSet, VariantTool

__all__ = [
    "CannotListen",
    "DeclarationError",
    "ErrorKind",
    "InsecureBinding",
    "Outcome",
    "Runner",
    "Selector",
    "ToolDeclaration",
    "ToolError",
    "ToolProjectors",
    "ToolSet",
    "VariantSpec",
    "VariantTool",
    "check_binding",
    "client_key",
    "declaration",
    "listen",
    "lowlevel_server",
    "request_era",
    "request_version",
    "serve_tools",
    "variant",
]
