"""A run's outputs written into its cell of a shared document as they come (no I/O)."""

from __future__ import annotations

import copy
from typing import Any

from jupyter_ydoc import YNotebook
from pycrdt import Array, Map, Text

from .cell_ids import find
from .kept_cells import ReadCells

YMap = Map[Any]


def shared_output(output: dict[str, Any]) -> YMap:
    """An nbformat output as the schema stores it: a map, a stream's text as a shared text (it grows)."""
    value = copy.deepcopy(output)
    if value.get("output_type") == "stream":
        text = value.get("text", "")
        value["text"] = Text("".join(text) if isinstance(text, list) else text)
    return Map(value)


def set_outputs(ycell: YMap, outputs: list[dict[str, Any]]) -> None:
    youtputs = ycell.get("outputs")
    if not isinstance(youtputs, Array):
        ycell["outputs"] = Array([shared_output(o) for o in outputs])
        return
    youtputs.clear()
    youtputs.extend([shared_output(o) for o in outputs])


class RunningCell:
    """A run's outputs written into the cell with `cell_id` as they come: a new output appended, a
    stream's new text appended to its shared text, everything rewritten after a clear_output.

    The cell is found by id at every write, wherever people moved it (among the ids `kept` has, when
    given). When it is gone, nothing is written anywhere (`gone`)."""

    def __init__(self, cell_id: str, kept: ReadCells | None = None) -> None:
        self.cell_id = cell_id
        self.gone = False
        self._kept_cells = kept
        self._written: list[tuple[dict[str, Any], int]] = []  # the run's own output dicts, and a stream's text length written

    def _cell(self, notebook: YNotebook) -> YMap | None:
        index = None if self.gone else find(notebook, self.cell_id, self._kept_cells.ids(notebook) if self._kept_cells else None)
        if index is None:
            self.gone = True
            return None
        ycell: YMap = notebook.ycells[index]
        return ycell

    def begin(self, notebook: YNotebook) -> None:
        """As JupyterLab starts a run: no outputs, no execution count, running."""
        ycell = self._cell(notebook)
        if ycell is None:
            return
        set_outputs(ycell, [])
        ycell["execution_count"] = None
        ycell["execution_state"] = "running"

    def update(self, notebook: YNotebook, outputs: list[dict[str, Any]], execution_count: int | None) -> None:
        """The outputs so far; the execution count waits for the end, as in JupyterLab (its prompt shows [*] until then)."""
        ycell = self._cell(notebook)
        if ycell is None:
            return
        youtputs = ycell.get("outputs")
        written = self._written
        rewrite = (
            not isinstance(youtputs, Array) or len(youtputs) != len(written) or len(outputs) < len(written)
            or any(outputs[i] is not output for i, (output, _) in enumerate(written))
        )
        if rewrite:
            set_outputs(ycell, outputs)
        else:
            assert isinstance(youtputs, Array)
            if written:
                last, length = written[-1]
                text = last.get("text") if last.get("output_type") == "stream" else None
                ytext = youtputs[len(written) - 1].get("text")
                if isinstance(text, str) and len(text) > length and isinstance(ytext, Text):
                    ytext += text[length:]
            youtputs.extend([shared_output(o) for o in outputs[len(written):]])
        self._written = [(o, len(o["text"]) if o.get("output_type") == "stream" else 0) for o in outputs]

    def end(self, notebook: YNotebook) -> None:
        ycell = self._cell(notebook)
        if ycell is not None:
            ycell["execution_state"] = "idle"
