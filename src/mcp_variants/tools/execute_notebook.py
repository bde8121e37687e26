"""execute_notebook: run a notebook's code cells (all, or those from start_index to before end_index) in order,
each exactly as execute_cell runs it (shared/cell_execution.run_cell: the notebook's kernel, its outputs into
the cell, live as they come in a shared document), stopping at the first that fails unless stop_on_error is false."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from ..catalog import declared
from ..images import ImagePolicy
from ..jupyter.errors import JupyterErrorKind
from ..jupyter.outputs import strip_ansi
from ..output_links import cell_output_uri
from ..protocol.errors import ErrorKind, ToolError
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED, USER_CONTENT
from ..sdk.lowlevel import VariantTool
from .shared.cell_execution import run_cell
from .shared.cells import cell_record, plain_output
from .shared.executions import ExecutionView, is_image, output_blocks, outputs_structured, text_pieces
from .shared.hints import hinted
from .shared.notebooks import load_stable, notebook_path
from .shared.output_notices import cut_notice
from .shared.text import Hint, cap_each, cap_text, plural
from .shared.tool_context import ToolContext

KIND = "notebook.execute"
OUTPUT_HINT = "request programmatic/structured for every output, or read_cell for one cell"  # the summary cut
IMAGES_HINT = "read_cell shows a cell's images; user/content has them for people"
STATUS: dict[str, str] = {JupyterErrorKind.EXECUTION_ERROR: "error", ErrorKind.TIMEOUT: "timeout", JupyterErrorKind.KERNEL_DIED: "died"}


@dataclass(frozen=True)
class CellRun:
    """One code cell of the range: its run (or why it did not run), as run_cell left it."""

    record: dict[str, Any]  # shapes/notebook-cell.json without outputs, as the notebook was read before the run
    status: str  # ok, error, timeout, died, failed (another ToolError), not-run
    view: ExecutionView | None = None
    failure: ToolError | None = None

    @property
    def outputs(self) -> list[dict[str, Any]]:
        return self.view.execution.outputs if self.view is not None else []

    @property
    def index(self) -> int:
        """Where the cell is now: it may have moved while earlier cells ran."""
        return int(self.view.cell["cellIndex"]) if self.view is not None and self.view.cell else int(self.record["index"])

    @property
    def execution_count(self) -> int | None:
        return self.view.execution.execution_count if self.view is not None else None


@dataclass(frozen=True)
class NotebookRun:
    path: str
    start: int
    end: int
    total: int  # cells in the notebook
    cells: list[CellRun]
    text_limit: int
    images: ImagePolicy

    @property
    def failed(self) -> list[CellRun]:
        return [c for c in self.cells if c.status not in ("ok", "not-run")]

    @property
    def ran(self) -> list[CellRun]:
        return [c for c in self.cells if c.status != "not-run"]

    def summary(self) -> str:
        ran, failed = self.ran, self.failed
        text = (f"Ran {len(ran)} of {plural(len(self.cells), 'code cell')} of {self.path} (cells {self.start} to {self.end - 1}): "
                f"{len(ran) - len(failed)} ok, {len(failed)} failed.")
        not_run = [c for c in self.cells if c.status == "not-run"]
        if not_run:
            indices = ", ".join(str(c.index) for c in not_run)
            text += f" Stopped after cell {failed[-1].index}: {plural(len(not_run), 'cell')} not run ({indices})."
        return text


def _label(cell: CellRun) -> str:
    count = cell.execution_count
    return f"[{cell.index}] {cell.status}" + (f" (In [{count}])" if count is not None else "") + f" id {cell.record['id']}"


def _uris(path: str, cell: CellRun) -> list[str]:
    return [cell_output_uri(path, cell.record["id"], i) for i in range(len(cell.outputs))]


def _text(cell: CellRun, path: str) -> tuple[str, Hint]:
    """What a cell printed, for a model: its outputs' text, or why it failed when it has none; and what a cut of it
    says: the read_output call of the cell's output it cut."""
    pieces = text_pieces(cell.outputs, _uris(path, cell))
    joined = "".join(piece.text for piece in pieces)
    # Only blank lines go from the front: a printed table's first line starts with its alignment (DataFrame.describe()).
    printed = joined.lstrip("\n").rstrip()
    lead = len(joined.encode()) - len(joined.lstrip("\n").encode())
    notice = cut_notice(pieces, fallback=OUTPUT_HINT)
    lines = [printed] if printed else []
    images = sum(map(is_image, cell.outputs))
    if images:
        lines.append(f"[{plural(images, 'image')}: {IMAGES_HINT}]")
    if cell.failure is not None and cell.failure.kind not in STATUS:
        lines.append(cell.failure.message)
    return "\n".join(lines), lambda start, stop: notice(start + lead, stop + lead)


def _lines(run: NotebookRun, *, first: str) -> str:
    shown = [_text(c, run.path) for c in run.ran]
    texts = cap_each([text for text, _ in shown], max(run.text_limit - len(first.encode()) - 200 * len(run.cells), 1000),
                     hint=[hint for _, hint in shown], tail=True)
    lines = [first]
    for cell, text in zip(run.ran, texts, strict=True):
        lines.append(_label(cell) + (":\n" + text.text if text.text else ": no output"))
    return cap_text("\n".join(lines), run.text_limit, hint=OUTPUT_HINT).text


def assistant_content(run: NotebookRun, first: str | None = None) -> list[dict[str, Any]]:
    return [{"type": "text", "text": _lines(run, first=first or run.summary())}]


def _cell_entry(cell: CellRun, text_limit: int, images: ImagePolicy, path: str) -> dict[str, Any]:
    return {"index": cell.index, "cellId": cell.record["id"], "status": cell.status, "executionCount": cell.execution_count,
            "outputs": outputs_structured(KIND, cell.outputs, text_limit, images=images, uris=_uris(path, cell))["outputs"]}


def assistant_structured(run: NotebookRun) -> dict[str, Any]:
    limit = max(run.text_limit // max(len(run.cells), 1), 2000)
    return {"kind": KIND, "result": run.summary(), "notebook": run.path, "count": len(run.ran), "failed": len(run.failed),
            "cells": [_cell_entry(c, limit, run.images, run.path) for c in run.cells]}


def _record(cell: CellRun) -> dict[str, Any]:
    record: dict[str, Any] = {"index": cell.index, "cellId": cell.record["id"], "status": cell.status,
                              "executionCount": cell.execution_count, "outputs": cell.outputs}
    if cell.view is not None:
        execution = cell.view.execution
        record.update(kernelId=execution.kernel_id, truncatedBytes=execution.truncated_bytes,
                      durationMs=round(execution.duration_ms, 3))
        if execution.kernel_restarted:
            record["kernelRestarted"] = True
    if cell.failure is not None:
        record["error"] = {"type": str(cell.failure.kind), "message": cell.failure.message,
                           **{k: v for k, v in cell.failure.details.items() if k in ("ename", "evalue", "traceback")}}
    return record


def programmatic_structured(run: NotebookRun) -> dict[str, Any]:
    return {"notebook": run.path, "start": run.start, "end": run.end, "ran": len(run.ran), "failed": len(run.failed),
            "cells": [_record(c) for c in run.cells]}


def user_content(run: NotebookRun) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": run.summary()}]
    for cell in run.ran:
        count = cell.execution_count
        blocks.append({"type": "text", "text": f"In [{count if count is not None else ' '}]: (cell {cell.index})\n{cell.record['source']}"})
        blocks += output_blocks(cell.outputs, run.text_limit, for_model=False, images=run.images, uris=_uris(run.path, cell))
    return blocks


def ui_structured(run: NotebookRun) -> dict[str, Any]:
    cells = [{**c.record, "index": c.index, "executionCount": c.execution_count, "outputs": [plain_output(o) for o in c.outputs]}
             for c in run.ran]
    return {"view": "notebook", "notebook": run.path, "start": run.start, "total": run.total, "cells": cells}


def _error_projector(selector: Any) -> Any:
    def project(failure: ToolError) -> Any:
        run: NotebookRun | None = failure.partial
        if selector.format == "content":
            if run is None:
                return [{"type": "text", "text": failure.message}]
            if selector == ASSISTANT_CONTENT:
                return assistant_content(run, failure.message)
            return [{"type": "text", "text": failure.message}, *user_content(run)[1:]]
        error = {"error": {"type": str(failure.kind), "message": failure.message, **failure.details}}
        if run is None:
            return error
        if selector == ASSISTANT_STRUCTURED:
            return {**error, "cells": assistant_structured(run)["cells"]}
        if selector == PROGRAMMATIC_STRUCTURED:
            return {**error, **programmatic_structured(run)}
        return {**error, "outputs": [o for c in run.ran for o in c.outputs]}  # the views' error shape

    return project


SELECTORS = (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, USER_CONTENT, UI_STRUCTURED)
PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: assistant_content,
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: programmatic_structured,
        USER_CONTENT: user_content,
        UI_STRUCTURED: ui_structured,
    },
    errors={s: _error_projector(s) for s in SELECTORS},
)


def _range(args: dict[str, Any], count: int) -> tuple[int, int]:
    start = int(args.get("start_index", 0))
    end = min(int(args.get("end_index", count)), count)
    if count and start >= count:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"start_index {start} is out of range: the notebook has {plural(count, 'cell')} "
                                                     f"(0 to {count - 1}).")
    if end < start:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS, f"end_index {end} is before start_index {start}; end_index is the first cell not run.")
    return start, end


def _progress(ctx: ToolContext, began: float) -> Any:
    """The call's progress for one cell's run: seconds since the whole run began, so the values keep increasing across cells."""
    report = ctx.progress
    if report is None:
        return None

    async def progress(_elapsed: float, message: str) -> None:
        await report(time.perf_counter() - began, message)

    return progress


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    path = notebook_path(ctx, args)
    notebook, _ = await load_stable(ctx, path)
    start, end = _range(args, len(notebook["cells"]))
    chosen = [i for i in range(start, end) if notebook["cells"][i].get("cell_type") == "code"]
    if not chosen:
        raise ToolError(ErrorKind.INVALID_ARGUMENTS,
                        f"No code cells in {path} from cell {start} to before {end}; read_notebook lists its cells.")
    stop_on_error = bool(args.get("stop_on_error", True))
    began = time.perf_counter()
    cell_ctx = replace(ctx, progress=_progress(ctx, began))
    cells: list[CellRun] = []
    stopped = False
    for n, index in enumerate(chosen):
        record = cell_record(notebook, index, outputs=False)
        if stopped:
            cells.append(CellRun(record, "not-run"))
            continue
        if cell_ctx.progress is not None:
            await cell_ctx.progress(0, f"cell {index} ({n + 1} of {len(chosen)}, id {record['id']}): running")
        try:
            outcome = await run_cell(cell_ctx, path, notebook["cells"][index], KIND, args)
            view, failure = outcome.value, outcome.failure
        except ToolError as error:  # deleted while it ran, its kernel could not start...
            view, failure = error.partial if isinstance(error.partial, ExecutionView) else None, hinted(error)
        status = "ok" if failure is None else STATUS.get(failure.kind, "failed")
        cells.append(CellRun(record, status, view, failure))
        # A kernel that died took the earlier cells' state with it: the next cells would run in a new, empty one.
        stopped = failure is not None and (stop_on_error or failure.kind == JupyterErrorKind.KERNEL_DIED)
    result = NotebookRun(path, start, end, len(notebook["cells"]), cells, ctx.limits.assistant_text_bytes, ctx.images)
    failed = result.failed
    if not failed:
        return Outcome(value=result)
    first = failed[0].failure
    assert first is not None
    said = strip_ansi(first.message)
    if len(failed) == 1:
        what = f"Cell {failed[0].index} failed: {said}"
    else:
        what = f"Cells {', '.join(str(c.index) for c in failed)} failed; the first, cell {failed[0].index}: {said}"
    message = f"{result.summary()} {what}"
    details = {k: v for k, v in first.details.items() if k in ("ename", "evalue", "traceback")}
    return Outcome(failure=ToolError(first.kind, message, details=details, partial=result))


TOOL = VariantTool(declared("execute_notebook"), PROJECTORS, run, task_support="optional")
