"""Tools as functions for code-mode runtimes: each call asks for the data a program computes with.

`CodeModeTools(session)` calls a tool with `requestedOutputs: [programmatic/structured]` where the tool declares
it (the code mode of `modes.select`) and returns that value; a tool without it is asked for nothing and returns
its `assistant/content` blocks. At a version before 2026-12-01 (an older server: no `outputVariants`) nothing can
be selected, and the legacy result gives its `structuredContent` when there is one, else its `content`.
A result with isError raises `ToolCallError`, carrying the error output as it came, so a program branches on
`error.type` in an `except`. `stubs.generate_stubs` writes the matching types for the program's type checker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..protocol.types import ASSISTANT_CONTENT
from .errors import ClientError
from .modes import Mode, Selection, select
from .results import CallResult
from .session import ClientSession
from .stubs import argument_names, generate_stubs, python_name


class ToolCallError(ClientError):
    """A tool answered with isError. `output` is its error output (a structured value, or content blocks);
    `error` is the structured output's `error` object, or for content `{"type": "content", "message": text}`."""

    def __init__(self, tool: str, output: Any, error: Mapping[str, Any]) -> None:
        super().__init__(f"{tool} failed: {error.get('type')}: {error.get('message')}")
        self.tool = tool
        self.output = output
        self.error: dict[str, Any] = dict(error)


class CodeModeTools:
    """The tools of one session, called for a program (see the module's docstring)."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self.calls = 0  # round trips made through call(): what a code-mode task costs in requests

    def selection(self, tool: str) -> Selection:
        """What a call of `tool` asks for, and why it fell back when it does."""
        session = self.session
        return select(Mode.CODE, session.list_tools().get(tool), session.era, session.negotiated)

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """Call `tool`; its value for code, or ToolCallError."""
        selectors = self.selection(tool).selectors
        result = self.session.call(tool, arguments, None if selectors == (ASSISTANT_CONTENT,) else selectors)
        self.calls += 1
        value = _value(result)
        if result.is_error:
            raise ToolCallError(tool, value, _error_of(value))
        return value

    def function(self, tool: str) -> Callable[..., Any]:
        """`tool` as a keyword-only Python function (its arguments are the tool's), named as the stubs name it."""
        names = argument_names(self.session.list_tools().get(tool))  # an unknown tool fails here, not when called

        def call(**arguments: Any) -> Any:
            return self.call(tool, {names.get(name, name): value for name, value in arguments.items()})

        call.__name__ = python_name(tool)
        return call

    def functions(self) -> dict[str, Callable[..., Any]]:
        """Every listed tool as a function, by its Python name: the namespace a program runs in."""
        return {python_name(tool.name): self.function(tool.name) for tool in self.session.list_tools()}

    def stubs(self, server: str = "the server") -> str:
        """The typed bindings of these functions (stubs.generate_stubs)."""
        return generate_stubs(self.session.list_tools(), server)


def _value(result: CallResult) -> Any:
    if result.legacy:
        return result.structured_content if result.has_structured_content else list(result.content or ())
    return result.outputs[0].value


def _error_of(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping) and isinstance(value.get("error"), Mapping):
        return dict(value["error"])
    text = "\n".join(str(b.get("text", "")) for b in value if isinstance(b, Mapping)) if isinstance(value, list) else str(value)
    return {"type": "content", "message": text}
