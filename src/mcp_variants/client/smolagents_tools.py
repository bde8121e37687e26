"""smolagents' CodeAgent on a SEP-3279 server: its MCP tools give the agent's code the programmatic records.

smolagents' own way to MCP, `ToolCollection.from_mcp`, goes through mcpadapt on the official MCP SDK's client,
which cannot speak 2026-12-01 nor send `requestedOutputs`, and mcpadapt 0.1.19 does not import beside mcp 2.3
(docs/choices.md). So the collection is made here, of smolagents `Tool`s as mcpadapt's adapter makes them with
`structured_output=True` (output type "object", the output schema in the prompt), each presented with its
`programmatic/structured` schema and called through `CodeModeTools` on the reference client. A failed call
raises `ToolCallError` in the agent's code; give the class to the run so the program can catch it by name:
`agent.run(task, additional_args={"ToolCallError": ToolCallError})`.

Needs the `smolagents` extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smolagents import Tool, ToolCollection

from .codemode import CodeModeTools
from .stubs import argument_names, python_name, returned_schema
from .tools import ToolInfo

# smolagents checks each input's `type` against its own list (JSON Schema's names and "any").
_INPUT_TYPES = {"string", "boolean", "integer", "number", "image", "audio", "array", "object", "any", "null"}


class CodeModeTool(Tool):  # type: ignore[misc]  # smolagents has no type information
    """One MCP tool for a CodeAgent: returns its value for code (see the module's docstring)."""

    output_type = "object"
    skip_forward_signature_validation = True  # forward takes the tool's arguments as **kwargs

    def __init__(self, tools: CodeModeTools, info: ToolInfo) -> None:
        raw = info.raw or {}
        self.tools, self.tool = tools, info.name
        self.name = python_name(info.name)
        self.description = str(raw.get("description") or info.name)
        self.inputs = _inputs(raw.get("inputSchema"))
        self.output_schema = returned_schema(info)
        self.wire_names = argument_names(info)
        super().__init__()

    def forward(self, **arguments: Any) -> Any:
        return self.tools.call(self.tool, {self.wire_names.get(k, k): v for k, v in arguments.items()})


def _inputs(schema: Any) -> dict[str, dict[str, Any]]:
    """smolagents' `inputs` from a JSON Schema: each needs a type and a description; optional ones say so."""
    schema = schema if isinstance(schema, Mapping) else {}
    required = set(schema.get("required") or ())
    inputs: dict[str, dict[str, Any]] = {}
    for name, sub in (schema.get("properties") or {}).items():
        sub = sub if isinstance(sub, Mapping) else {}
        kind = sub.get("type")
        entry: dict[str, Any] = {
            "type": kind if isinstance(kind, str) and kind in _INPUT_TYPES else "any",
            "description": str(sub.get("description") or "see the tool's description"),
        }
        if name not in required:
            entry["nullable"] = True
        inputs[python_name(name)] = entry
    return inputs


def tool_collection(tools: CodeModeTools) -> ToolCollection:
    """Every listed tool as a CodeModeTool: `CodeAgent(tools=tool_collection(tools).tools, model=...)`."""
    return ToolCollection([CodeModeTool(tools, info) for info in tools.session.list_tools()])
