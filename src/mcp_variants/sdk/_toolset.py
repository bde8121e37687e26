"""A set of tools with declared output variants: what a server needs to list and call them in any era.

No I/O and no SDK here: the adapters (`_lowlevel.py` for the SDK's low-level `Server`, `_extension.py` for
`MCPServer`) read the era and the negotiated extensions off the request, and hand this module plain data.
Every SEP-3279 decision is the core's (`protocol/`): this module only keeps each tool's declaration,
projectors and compiled validators together, so that a server cannot list one thing and answer another.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jsonschema_rs

from ..protocol.errors import DeclarationError, ErrorKind, ProtocolError, ToolError, unknown_tool
from ..protocol.projection import Outcome, ToolProjectors, build_result
from ..protocol.selection import select
from ..protocol.tools_list import tool_entry
from ..protocol.types import Selector, ToolDeclaration
from ..protocol.validation import OutputValidators
from ..protocol.versions import Era

logger = logging.getLogger(__name__)

Runner = Callable[[Any, dict[str, Any]], Awaitable[Outcome]]
"""How a `VariantTool` runs: `await run(context, arguments)` with whatever context its server makes for the request
(`serve_tools(..., context=...)`) and the call's arguments, checked against its inputSchema; it returns an `Outcome`
(a value, or a failure), or raises `ToolError`."""
# How a tool reads a call's arguments before they are checked against its inputSchema (ToolError to refuse them).
ArgumentReader = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class VariantTool:
    """One tool: its declaration (name, inputSchema, outputVariants), one projector per declared selector,
    and how it runs. `run` is None for a tool the SDK's `MCPServer` runs itself (`Variants`). `task_support`:
    whether a call may run as a task (docs/reference/tasks.md), "optional" or "required"; None (the default) never.
    `read_arguments`: how it reads a call's arguments before they are checked (None: as given); `listed_input_schema`:
    the inputSchema tools/list shows, when it is not the declaration's own (the Jupyter server's drop-in: dropin.py)."""

    declaration: ToolDeclaration
    projectors: ToolProjectors
    run: Runner | None = None
    task_support: Literal["optional", "required"] | None = None
    read_arguments: ArgumentReader | None = None
    listed_input_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        missing = [str(v.selector) for v in self.declaration.variants if v.selector not in self.projectors.success]
        if missing:
            raise DeclarationError(self.declaration.name, "every declared variant has a projector", ", ".join(missing))

    @property
    def name(self) -> str:
        """The tool's name, as tools/list and tools/call say it."""
        return self.declaration.name


class ToolSet:
    """Tools by name, with every structured output validated against its own variant's schema.

    Built once; `add` compiles a tool's validators, so a tool is checked when it is added, not when it is
    first called.
    """

    def __init__(self, tools: Iterable[VariantTool] = (), error_schema: Mapping[str, Any] | None = None) -> None:
        self._tools: dict[str, VariantTool] = {}
        self._inputs: dict[str, Any] = {}
        self._told_empty: set[str] = set()  # tools whose empty assistant/content was logged (once each)
        self._validators = OutputValidators((), dict(error_schema) if error_schema is not None else default_error_schema())
        for tool in tools:
            self.add(tool)

    def add(self, tool: VariantTool) -> None:
        """One more tool, its input and output validators compiled now; DeclarationError for a name served already."""
        if tool.name in self._tools:
            raise DeclarationError(tool.name, "a tool name is served once", "added twice")
        self._tools[tool.name] = tool
        self._inputs[tool.name] = jsonschema_rs.validator_for(tool.declaration.input_schema)
        self._validators.add(tool.declaration)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Any:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def declarations(self) -> dict[str, ToolDeclaration]:
        """Each tool's checked declaration, by name."""
        return {name: tool.declaration for name, tool in self._tools.items()}

    def tool(self, name: str) -> VariantTool:
        """The tool of that name; a call naming another is -32602 with the names this server has."""
        tool = self._tools.get(name)
        if tool is None:
            raise unknown_tool(name, self._tools)
        return tool

    def entries(self, era: Era, negotiated_extensions: frozenset[str]) -> list[dict[str, Any]]:
        """tools/list's `tools` for this era: `outputVariants` at 2026-12-01, the legacy `outputSchema` before."""
        return [self._entry(tool, era, negotiated_extensions) for tool in self._tools.values()]

    @staticmethod
    def _entry(tool: VariantTool, era: Era, negotiated_extensions: frozenset[str]) -> dict[str, Any]:
        entry = tool_entry(tool.declaration, era, negotiated_extensions)
        if tool.listed_input_schema is not None:
            entry["inputSchema"] = tool.listed_input_schema
        return entry

    def select(self, name: str, params: Mapping[str, Any], era: Era, negotiated_extensions: frozenset[str]) -> tuple[Selector, ...]:
        """The selectors a tools/call asks for (raw params: `requestedOutputs` as sent), or ProtocolError -32602,
        before the tool runs."""
        return select(params, self.tool(name).declaration, era, negotiated_extensions)

    def project(self, name: str, selectors: tuple[Selector, ...], era: Era, outcome: Outcome) -> dict[str, Any]:
        """The wire CallToolResult: exactly the requested outputs, or the legacy pair. A success output that
        breaks its schema is answered as an invalid-output error (the tool ran) and logged here, naming the tool,
        the variant and the field: it is a bug of the tool's. So is a `Results` unlike the declaration
        (`ResultsMismatch`), answered as an exception no tool meant is (`internal_failure`) and logged."""
        tool = self.tool(name)
        try:
            result, breach = build_result(tool.declaration, selectors, era, outcome, tool.projectors, self._validators)
        except ProtocolError:
            raise
        except ResultsMismatch as exc:  # the tool's bug, for its author: the model reads what any other bug gives it
            logger.error("%s", exc)
            result, breach = build_result(tool.declaration, selectors, era, Outcome(failure=internal_failure(name)),
                                          tool.projectors, self._validators)
        except Exception:  # a projector that raised: as much a bug of the tool's as a breach
            logger.exception("tool %s: a projector of %s raised", name, ", ".join(map(str, selectors)))
            result, breach = build_result(tool.declaration, selectors, era, Outcome(failure=internal_failure(name)),
                                          tool.projectors, self._validators)
        if outcome.failure is not None and outcome.failure.malformed_kind is not None:
            logger.error("tool %s raised ToolError with the kind %r, which is no kind (lowercase words joined by hyphens: "
                         "not-found, ticket-closed; ToolError(kind, message), the kind first): the client got its message "
                         "%r as a tool-error", name, outcome.failure.malformed_kind, outcome.failure.message)
        if breach is not None:
            logger.error("%s", breach)
        elif outcome.failure is None and not tool.declaration.established:
            self._tell_if_empty(name, result)
        return result

    def _tell_if_empty(self, name: str, result: Mapping[str, Any]) -> None:
        """Once per tool: an answer whose assistant/content carries nothing (a tool's `[]` or `""`), which SEP-3279
        says MUST be a usable model representation; the model got nothing to read, and only a check would say so."""
        blocks = next((o["content"] for o in result.get("outputs", ()) if (o["audience"], o["format"]) == ("assistant", "content")),
                      result.get("content"))
        if blocks is None or name in self._told_empty:
            return
        if not any(block.get("type") != "text" or block.get("text") for block in blocks):
            self._told_empty.add(name)
            logger.warning("tool %s answered with an assistant/content that carries nothing (%s): the model MUST get a "
                           "usable representation (SEP-3279); say what the empty result means, e.g. 'No results.'",
                           name, blocks)

    def arguments(self, name: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments of a call as the tool reads them (`read_arguments`), checked against its inputSchema;
        ToolError(INVALID_ARGUMENTS) names at most five problems."""
        tool = self.tool(name)
        arguments = tool.read_arguments(given) if tool.read_arguments is not None else dict(given)
        problems = [e.message for e in self._inputs[name].iter_errors(arguments)]
        if problems:
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"Invalid arguments for {name}: {'; '.join(problems[:5])}")
        return arguments

    async def call(self, params: Mapping[str, Any], era: Era, negotiated_extensions: frozenset[str],
                   context: Callable[[], Any]) -> dict[str, Any]:
        """A whole tools/call: select, check the arguments, run once with `context()`, project. ProtocolError for
        the request refused; a failing tool is a result with isError (an exception no tool meant is INTERNAL, logged)."""
        name = str(params.get("name"))
        selectors = self.select(name, params, era, negotiated_extensions)
        return self.project(name, selectors, era, await self._run(name, params.get("arguments") or {}, context))

    async def _run(self, name: str, given: Mapping[str, Any], context: Callable[[], Any]) -> Outcome:
        run = self.tool(name).run
        if run is None:
            raise TypeError(f"tool {name} is run by the SDK's MCPServer; ToolSet.call serves tools that carry run")
        try:
            arguments = self.arguments(name, given)
        except ToolError as exc:
            return Outcome(failure=exc)
        try:
            return await run(context(), arguments)
        except ToolError as exc:
            return Outcome(failure=exc)
        except Exception:
            logger.exception("tool %s raised", name)
            return Outcome(failure=internal_failure(name))


class ResultsMismatch(TypeError):
    """A tool's `Results` names a selector it did not declare, or lacks one it did: the tool's bug, found on its
    first call whatever that call requested. The message names the tool and both sets, and for a migrated tool
    (`migrated`: `legacy_tool`'s), whose function returns its plain value, that a `Results` is `variants.tool`'s."""

    def __init__(self, tool: str, declared: frozenset[Selector], given: frozenset[Selector], *, migrated: bool = False) -> None:
        def names(selectors: frozenset[Selector]) -> str:
            return ", ".join(sorted(map(str, selectors))) or "nothing"

        problems = []
        if extra := given - declared:
            meant = {str(e): difflib.get_close_matches(str(e), [str(d) for d in declared - given], n=1) for e in extra}
            problems.append(f"{names(extra)} not declared" + "".join(f" (did you mean {m[0]}?)" for m in meant.values() if m))
        if missing := declared - given:
            problems.append(f"no entry for {names(missing)}")
        fix = ("legacy_tool's function returns its plain value (as @mcp.tool's did); declare the tool with "
               "@variants.tool to return Results" if migrated else "its Results holds exactly one entry for each")
        super().__init__(f"tool {tool} returned Results with {'; '.join(problems)}: it declares {names(declared)}, and {fix}")


def default_error_schema() -> dict[str, Any]:
    """The one shape of every structured error output, whoever's tool it is (docs/choices.md): the core's,
    variants/shapes/error.json, which mcp-variants-conformance ships beside protocol/ as its packaged data."""
    packaged = Path(__file__).resolve().parents[1] / "protocol" / "error.json"
    source = packaged if packaged.is_file() else Path(__file__).resolve().parents[3] / "variants" / "shapes" / "error.json"
    schema: dict[str, Any] = json.loads(source.read_text())
    schema.pop("$comment", None)
    return schema


def internal_failure(name: str) -> ToolError:
    """What a client is told of an exception no tool meant: that it happened, not what it said."""
    return ToolError(ErrorKind.INTERNAL, f"{name} failed inside the server; the server log has the details.")
