"""One cell of a notebook: finding it by index or id, naming it in messages, its record for code and views."""

from __future__ import annotations

from typing import Any

from ...jupyter.notebook_model import locate, source_text
from ...protocol.errors import ErrorKind, ToolError

SOURCE_HINT = "request programmatic/structured for the whole source"  # a source cut for the model: where it is whole


def locate_cell(notebook: dict[str, Any], args: dict[str, Any]) -> int:
    """The index of the cell `args` names by cell_index or cell_id (both, when they name the same cell)."""
    index, cell_id = args.get("cell_index"), args.get("cell_id")
    if not notebook["cells"] and (index is not None or cell_id is not None):
        raise ToolError(ErrorKind.NOT_FOUND, "The notebook has no cells yet; insert_cell adds one.")
    return locate(notebook, index, cell_id)


def cell_label(notebook: dict[str, Any], index: int) -> str:
    """'cell 3 (code, id 1a2b3c4d5e6f)', for messages."""
    cell = notebook["cells"][index]
    return f"cell {index} ({cell.get('cell_type')}, id {cell.get('id')})"


def plain_output(output: dict[str, Any]) -> dict[str, Any]:
    """An nbformat output with multi-line strings joined, as shapes/nbformat-output.json has them."""
    plain = dict(output)
    if isinstance(plain.get("text"), list):
        plain["text"] = "".join(plain["text"])
    if isinstance(plain.get("data"), dict):
        plain["data"] = {mime: "".join(v) if isinstance(v, list) and all(isinstance(x, str) for x in v) else v
                         for mime, v in plain["data"].items()}
    return plain


def cell_record(notebook: dict[str, Any], index: int, *, outputs: bool) -> dict[str, Any]:
    """One cell for code and for views (shapes/notebook-cell.json): whole source, whole outputs."""
    cell = notebook["cells"][index]
    code = cell.get("cell_type") == "code"
    record: dict[str, Any] = {
        "index": index,
        "id": cell["id"],
        "type": cell.get("cell_type"),
        "source": source_text(cell),
        "executionCount": cell.get("execution_count") if code else None,
        "metadata": dict(cell.get("metadata") or {}),
    }
    if outputs:
        record["outputs"] = [plain_output(o) for o in cell.get("outputs", [])] if code else []
    return record
