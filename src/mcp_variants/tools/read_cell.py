"""read_cell: one cell's source, and its outputs unless include_outputs is false."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog import declared
from ..images import ImagePolicy
from ..output_links import cell_output_uri
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED, USER_CONTENT
from ..sdk.lowlevel import VariantTool
from .shared.cells import SOURCE_HINT, cell_record, locate_cell
from .shared.executions import output_blocks, outputs_structured
from .shared.meta import cell_meta
from .shared.notebooks import load_stable, notebook_path
from .shared.text import cap_text
from .shared.tool_context import ToolContext


@dataclass(frozen=True)
class CellView:
    path: str
    record: dict[str, Any]  # shapes/notebook-cell.json, outputs always present (empty when not asked for)
    include_outputs: bool
    text_limit: int
    images: ImagePolicy

    @property
    def shown_outputs(self) -> list[dict[str, Any]]:
        return self.record["outputs"] if self.include_outputs else []

    @property
    def uris(self) -> list[str]:
        """The resource of each shown output: the cell's, as the notebook has it now."""
        return [cell_output_uri(self.path, self.record["id"], i) for i in range(len(self.shown_outputs))]

    @property
    def shows_outputs(self) -> bool:
        """Asked for, and a code cell: only those have outputs to show (or to say there are none)."""
        return self.include_outputs and self.record["type"] == "code"


def _heading(view: CellView) -> str:
    record = view.record
    heading = f"Cell {record['index']} of {view.path} ({record['type']}, id {record['id']}"
    if record["type"] == "code":
        count = record["executionCount"]
        heading += f", execution count {count}" if count is not None else ", not run"
    return heading + ")"


def assistant_content(view: CellView) -> list[dict[str, Any]]:
    source = cap_text(view.record["source"], view.text_limit, hint=SOURCE_HINT).text
    heading = {"type": "text", "text": f"{_heading(view)}:\n{source}" if source else f"{_heading(view)}: empty source."}
    if not view.shows_outputs:
        return [heading]
    outputs = output_blocks(view.shown_outputs, view.text_limit, for_model=True, images=view.images, uris=view.uris)
    if not outputs:
        return [heading, {"type": "text", "text": "Outputs:"}, {"type": "text", "text": "No outputs."}]
    if outputs[0]["type"] == "text":
        outputs[0] = {"type": "text", "text": "Outputs:\n" + outputs[0]["text"]}
    else:
        outputs.insert(0, {"type": "text", "text": "Outputs:"})
    return [heading, *outputs]


def user_content(view: CellView) -> list[dict[str, Any]]:
    record = view.record
    if record["type"] == "code":
        count = record["executionCount"]
        prompt = f"In [{count if count is not None else ' '}]:"
    else:
        prompt = f"[{record['type']}]"
    source = cap_text(record["source"], view.text_limit, hint="the whole source is available to programs").text
    cell = {"type": "text", "text": f"{prompt}\n{source}"}
    if not view.shows_outputs:
        return [cell]
    outputs = output_blocks(view.shown_outputs, view.text_limit, for_model=False, images=view.images, uris=view.uris)
    return [cell, *(outputs or [{"type": "text", "text": "(no output)"}])]


def assistant_structured(view: CellView) -> dict[str, Any]:
    result = outputs_structured("cell.read", view.shown_outputs, view.text_limit, images=view.images, uris=view.uris)
    record = view.record
    result["cell"] = {"index": record["index"], "id": record["id"], "type": record["type"], "executionCount": record["executionCount"]}
    result["source"] = cap_text(record["source"], view.text_limit, hint=SOURCE_HINT).text
    return result


def _record(view: CellView) -> dict[str, Any]:
    if view.include_outputs:
        return view.record
    return {k: v for k, v in view.record.items() if k != "outputs"}


PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: assistant_content,
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: lambda view: {"notebook": view.path, "cell": _record(view)},
        USER_CONTENT: user_content,
        UI_STRUCTURED: lambda view: {"view": "cell", "notebook": view.path, "cell": _record(view)},
    }
)


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    notebook, _ = await load_stable(ctx, path)
    index = locate_cell(notebook, args)
    include_outputs = bool(args.get("include_outputs", True))
    record = cell_record(notebook, index, outputs=True)
    view = CellView(path, record, include_outputs, ctx.limits.assistant_text_bytes, ctx.images)
    return Outcome(value=view, meta=cell_meta(record["id"]))


TOOL = VariantTool(declared("read_cell"), PROJECTORS, run)
