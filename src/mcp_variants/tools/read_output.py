"""read_output: any part of an output a result showed cut, by lines or by a pattern, through a tool (the cut names
the call: shared/output_notices.py), where many hosts let a model call tools but never read a resource.

The output is the one a cut names by its resource (output_links.py): an execute_code run's, kept for the client that
ran it, or a notebook cell's as the notebook has it now. Its text is the one the model was shown (the text/plain of a
bundle, ANSI escapes removed); a page is at most the text budget, and `nextCursor` goes on from where it ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..catalog import declared
from ..output_links import OutputNotKept, parse_cell_output_uri, parse_run_uri
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED
from ..sdk.lowlevel import VariantTool
from .shared.arguments import cursor_offset
from .shared.cells import plain_output
from .shared.executions import output_text
from .shared.notebooks import notebook_path
from .shared.output_notices import read_call
from .shared.output_pages import Page, Text
from .shared.tool_context import ToolContext

TOOL_NAME = "read_output"
KIND = "output.read"
DEFAULT_CONTEXT = 3


@dataclass(frozen=True)
class OutputPage:
    uri: str
    page: Page
    total_bytes: int
    pattern: str | None
    context: int

    @property
    def next_call(self) -> str | None:
        """The call that reads the next page."""
        if self.page.next is None:
            return None
        search = {"pattern": self.pattern, "context": self.context} if self.pattern is not None else {}
        return read_call(self.uri, **search, cursor=str(self.page.next))

    def heading(self) -> str:
        page = self.page
        if not page.lines:
            where = f"no line of {page.total_lines} matches {self.pattern!r}" if self.pattern is not None else "nothing"
            return f"{self.uri}: {where} from there."
        span = f"{page.lines[0].number}-{page.lines[-1].number}"
        if self.pattern is None:
            return f"{self.uri}, lines {span} of {page.total_lines}:"
        return (f"{self.uri}: {page.total_matches} line{'s' if page.total_matches != 1 else ''} of {page.total_lines} match "
                f"{self.pattern!r}; {len(page.matches)} shown (lines {span}):")

    def body(self) -> str:
        if self.pattern is None:
            return "\n".join(line.text for line in self.page.lines)
        lines, previous = [], None
        for line in self.page.lines:
            if previous is not None and line.number != previous + 1:
                lines.append("--")
            lines.append(f"{line.number}: {line.text}")
            previous = line.number
        return "\n".join(lines)


def assistant_content(view: OutputPage) -> list[dict[str, Any]]:
    text = view.heading()
    if view.page.lines:
        text += "\n" + view.body()
    if view.next_call is not None:
        text += f"\n[more: {view.next_call}]"
    return [{"type": "text", "text": text}]


def assistant_structured(view: OutputPage) -> dict[str, Any]:
    """An object of its own (the Results contract's exception: no `result`): the page once, and where it is."""
    lines = view.page.lines
    result: dict[str, Any] = {"kind": KIND, "uri": view.uri, "firstLine": lines[0].number if lines else None,
                              "lastLine": lines[-1].number if lines else None, "totalLines": view.page.total_lines,
                              "text": view.body()}
    if view.pattern is not None:
        result["matches"] = list(view.page.matches)
    if view.page.next is not None:
        result["nextCursor"] = str(view.page.next)
    return result


def programmatic_structured(view: OutputPage) -> dict[str, Any]:
    page = view.page
    result: dict[str, Any] = {"uri": view.uri, "totalLines": page.total_lines, "totalBytes": view.total_bytes,
                              "lines": [{"number": line.number, "text": line.text} for line in page.lines]}
    if view.pattern is not None:
        result.update(matches=list(page.matches), totalMatches=page.total_matches)
    if page.next is not None:
        result["nextCursor"] = str(page.next)
    return result


PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: assistant_content,
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: programmatic_structured,
    }
)


async def _output(ctx: ToolContext, uri: str) -> dict[str, Any]:
    """The output `uri` names, as its resource reads it now."""
    run = parse_run_uri(uri)
    if run is not None:
        try:
            return await ctx.outputs.store.get(*run, ctx.outputs.owner)
        except OutputNotKept:
            raise ToolError(ErrorKind.NOT_FOUND, "This output is not kept for this client any more (the server keeps each "
                                                 "client's recent execute_code outputs while its session lasts). Run the code "
                                                 "again.") from None
    cell = parse_cell_output_uri(uri)
    if cell is None:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "uri must name an output as a cut result does: "
                                                     "mcp-variants://runs/<run>/outputs/<n> or cell-output:///<notebook>/cells/<id>/outputs/<n>.")
    path, cell_id, index = cell
    path = notebook_path(ctx, {"notebook": path})
    notebook = await ctx.backend.contents.read_notebook(path)
    found = next((c for c in notebook.get("cells", []) if c.get("id") == cell_id), None)
    if found is None:
        raise ToolError(ErrorKind.NOT_FOUND, f"{path} has no cell with id {cell_id} now.")
    outputs = found.get("outputs", [])
    if not 0 <= index < len(outputs):
        raise ToolError(ErrorKind.NOT_FOUND, f"Cell {cell_id} of {path} has {len(outputs)} outputs now; read_cell shows them.")
    return plain_output(outputs[index])


def _start(text: Text, args: dict[str, Any]) -> int:
    """The character the page starts at: the cursor's, else line `line`'s start."""
    if args.get("cursor") is not None and "line" in args:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "Pass line or cursor, not both; cursor is the nextCursor of the previous page.")
    offset = cursor_offset(args, TOOL_NAME)
    if offset is not None:
        if offset > len(text.text):
            raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"cursor must be a nextCursor value returned by {TOOL_NAME}.")
        return offset
    try:
        return text.offset_of(int(args.get("line", 1)))
    except ValueError as exc:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"line is past the end: {exc}.") from None


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    uri = str(args["uri"])
    whole = output_text(await _output(ctx, uri))
    if whole is None:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, "That output has no text (an image): read_cell shows it, or resources/read.")
    text = Text(whole)
    start = _start(text, args)
    budget = ctx.limits.assistant_text_bytes
    pattern = args.get("pattern")
    if pattern is None:
        page = text.read(start, budget, args.get("lines"))
        return Outcome(value=OutputPage(uri, page, len(whole.encode()), None, 0))
    try:
        compiled = re.compile(str(pattern))
    except re.error as exc:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"pattern is not a regular expression: {exc}.") from None
    context = int(args.get("context", DEFAULT_CONTEXT))
    return Outcome(value=OutputPage(uri, text.search(compiled, start, budget, context), len(whole.encode()), str(pattern), context))


TOOL = VariantTool(declared(TOOL_NAME), PROJECTORS, run)
