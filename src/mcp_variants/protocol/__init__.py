"""The sans-I/O core of SEP-3279: plain functions over plain data.

Nothing in this package reads a socket, a file or a clock. The MCP SDK, the transports and Jupyter sit around it;
another SDK can reuse it as it is, through the names below (its modules are the implementation: importable, but
these are the ones to use). One tool call, in order:

    declaration = parse_declaration(raw)                 # a tool's variants, checked (DeclarationError)
    entry = tool_entry(declaration, era_for(version), negotiated)   # its tools/list entry at that version
    selectors = select(params, declaration, era, negotiated)        # requestedOutputs checked (ProtocolError)
    built = build_result(declaration, selectors, era, Outcome(value), projectors, OutputValidators(...))
    built.result                                          # the CallToolResult: `outputs`, or the legacy shape

`ToolProjectors` turns the tool's value into each variant's output; a failure is `Outcome(failure=ToolError(...))`,
projected per requested selector with its `ErrorKind`.
"""

from .declarations import parse_declaration
from .errors import DeclarationError, ErrorKind, ProtocolError, ToolError
from .projection import BuiltResult, Outcome, ToolProjectors, build_result
from .selection import select
from .tools_list import tool_entry
from .types import Output, Selector, ToolDeclaration, Variant
from .validation import OutputValidators
from .versions import OUTPUTS_VERSION, SUPPORTED_VERSIONS, Era, era_for

__all__ = [
    "OUTPUTS_VERSION",
    "SUPPORTED_VERSIONS",
    "BuiltResult",
    "DeclarationError",
    "Era",
    "ErrorKind",
    "Outcome",
    "Output",
    "OutputValidators",
    "ProtocolError",
    "Selector",
    "ToolDeclaration",
    "ToolError",
    "ToolProjectors",
    "Variant",
    "build_result",
    "era_for",
    "parse_declaration",
    "select",
    "tool_entry",
]
