"""The root folder the server runs on while the examples are recorded, and the code they run.

`chart.png` (next to this module) is a 640×400 line chart made once with matplotlib (two
series of 18 points, `savefig` without metadata, then quantized to 32 colours with Pillow)
and committed, so its bytes, and every size the pages show for it, never change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat

CHART = Path(__file__).resolve().with_name("chart.png")
NOTEBOOK = "analysis.ipynb"
NOTEBOOK_CELL_IDS = {"intro", "load", "total"}  # set by lay_out_root, so the pages show them as they are
PRINT_200K = 'for i in range(4000):\n    print(f"row {i:05d} " + "x" * 39)'
SHOW_CHART = "from IPython.display import Image, display\ndisplay(Image(filename='chart.png'))"


def write_notebook(path: Path, cells: list[dict[str, Any]]) -> None:
    """An nbformat 4.5 notebook (validated), as jupyter writes it: one-space indent, a final newline."""
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    nbformat.validate(notebook)
    path.write_text(json.dumps(notebook, indent=1) + "\n")


def code_cell(cell_id: str, source: str, outputs: list[dict[str, Any]] | None = None, count: int | None = None) -> dict[str, Any]:
    return {"id": cell_id, "cell_type": "code", "metadata": {}, "execution_count": count, "source": source, "outputs": outputs or []}


def markdown_cell(cell_id: str, source: str) -> dict[str, Any]:
    return {"id": cell_id, "cell_type": "markdown", "source": source, "metadata": {}}


def lay_out_root(root: Path) -> None:
    """What the chapter examples and the API pages find: three files and a three-cell notebook."""
    (root / "data.csv").write_text("city,temperature\nOslo,4\nLima,19\n")
    (root / "notes.md").write_text("# Notes\nRead me first.\n")
    (root / "chart.png").write_bytes(CHART.read_bytes())
    write_notebook(root / NOTEBOOK, [
        markdown_cell("intro", "# Analysis\nA small notebook for the examples."),
        code_cell("load", "data = [3, 1, 2]\nprint(sorted(data))"),
        code_cell("total", "2 + 2"),
    ])


def lay_out_measurements(root: Path) -> None:
    """What the measured calls read: 1,000 small files in bulk/ and a 100-cell notebook."""
    bulk = root / "bulk"
    bulk.mkdir()
    for i in range(1000):
        (bulk / f"record-{i:04d}.csv").write_text(f"id,value\n{i},{i * i}\n")
    cells: list[dict[str, Any]] = []
    for i in range(100):
        if i % 10 == 0:
            cells.append(markdown_cell(f"c{i:03d}", f"## Step {i // 10 + 1}\nWhat the next cells compute."))
        else:
            cells.append(code_cell(f"c{i:03d}", f"# cell {i}\nvalue_{i} = {i} * {i}\nprint(value_{i})",
                                   outputs=[{"output_type": "stream", "name": "stdout", "text": f"{i * i}\n"}],
                                   count=i))
    write_notebook(root / "hundred.ipynb", cells)
