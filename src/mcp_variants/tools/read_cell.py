"""read_cell: one cell's source, and its outputs unless include_outputs is false."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..jupyter.runtime import Execution, RunStatus
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED, USER_CONTENT
from .shared import executions
from .shared.cells import cell_record, locate_cell
from .shared.executions import ExecutionView
from .shared.meta import cell_meta
from .shared.notebooks import load_stable, notebook_path
from .shared.spec import ToolContext, ToolSpec
from .shared.text import cap_text

SOURCE_HINT = "request programmatic/structured for the whole source"
NO_OUTPUT = "Ran without output."  # what the execution projectors say about an empty run
NO_OUTPUTS = "No outputs."


@dataclass(frozen=True)
class CellView:
    path: str
    record: dict[str, Any]  # shapes/notebook-cell.json, outputs always present (empty when not asked for)
    include_outputs: bool
    outputs: ExecutionView  # the stored outputs, seen as a run, for the execution projectors

    @property
    def text_limit(self) -> int:
        return self.outputs.text_limit


def _heading(view: CellView) -> str:
    record = view.record
    heading = f"Cell {record['index']} of {view.path} ({record['type']}, id {record['id']}"
    if record["type"] == "code":
        count = record["executionCount"]
        heading += f", execution count {count}" if count is not None else ", not run"
    return heading + ")"


def _output_blocks(view: CellView, *, for_model: bool) -> list[dict[str, Any]]:
    if not view.include_outputs or view.record["type"] != "code":
        return []
    blocks = executions._blocks(view.outputs, for_model=for_model)
    if blocks == [{"type": "text", "text": NO_OUTPUT}]:
        return [{"type": "text", "text": NO_OUTPUTS if for_model else "(no output)"}]
    return blocks


def assistant_content(view: CellView) -> list[dict[str, Any]]:
    source = cap_text(view.record["source"], view.text_limit, hint=SOURCE_HINT)
    text = f"{_heading(view)}:\n{source}" if source else f"{_heading(view)}: empty source."
    outputs = _output_blocks(view, for_model=True)
    if outputs and outputs[0]["type"] == "text" and outputs[0]["text"] != NO_OUTPUTS:
        outputs[0] = {"type": "text", "text": "Outputs:\n" + outputs[0]["text"]}
    elif outputs:
        outputs.insert(0, {"type": "text", "text": "Outputs:"})
    return [{"type": "text", "text": text}, *outputs]


def user_content(view: CellView) -> list[dict[str, Any]]:
    record = view.record
    if record["type"] == "code":
        count = record["executionCount"]
        prompt = f"In [{count if count is not None else ' '}]:"
    else:
        prompt = f"[{record['type']}]"
    source = cap_text(record["source"], view.text_limit, hint="the whole source is available to programs")
    return [{"type": "text", "text": f"{prompt}\n{source}"}, *_output_blocks(view, for_model=False)]


def assistant_structured(view: CellView) -> dict[str, Any]:
    result = executions.assistant_structured(view.outputs)
    record = view.record
    result["cell"] = {"index": record["index"], "id": record["id"], "type": record["type"], "executionCount": record["executionCount"]}
    result["source"] = cap_text(record["source"], view.text_limit, hint=SOURCE_HINT)
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
    shown = record["outputs"] if include_outputs else []
    run_view = ExecutionView(
        Execution(kernel_id="", status=RunStatus.OK, execution_count=record["executionCount"], outputs=shown, duration_ms=0.0),
        "cell.read",
        ctx.limits.assistant_text_bytes,
    )
    view = CellView(path, record, include_outputs, run_view)
    return Outcome(value=view, meta=cell_meta(record["id"]))


TOOL = ToolSpec("read_cell", run, PROJECTORS)
