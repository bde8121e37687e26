"""The server API's low-level half, for those who build their own toolsets: tools as data (`VariantTool`: a
checked declaration, one projector per variant, how it runs) in a `ToolSet`, served on the SDK's low-level
`Server` by `serve_tools`, with the context each request's tools run in. The Jupyter server's 26 tools run on it.

    tools = ToolSet([VariantTool(declaration("add", [variant("assistant/content")], input_schema=schema),
                                 ToolProjectors(success={ASSISTANT: str}), run=add)])
    server = Server("calc")
    serve_tools(server, tools, context=lambda ctx: None)
    run(server)                                   # mcp_variants.sdk.run: stdio or HTTP, 2026-12-01 included
"""

from ..protocol.errors import DeclarationError, ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import Selector, ToolDeclaration
from ._declare import VariantSpec, declaration, variant
from ._lowlevel import serve_tools
from ._serve import lowlevel_server
from ._toolset import Runner, ToolSet, VariantTool

__all__ = [
    "DeclarationError",
    "ErrorKind",
    "Outcome",
    "Runner",
    "Selector",
    "ToolDeclaration",
    "ToolError",
    "ToolProjectors",
    "ToolSet",
    "VariantSpec",
    "VariantTool",
    "declaration",
    "lowlevel_server",
    "serve_tools",
    "variant",
]
