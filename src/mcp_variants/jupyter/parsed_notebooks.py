"""Notebooks kept parsed while their file holds the same bytes, so that a call does not parse the whole file again.

nbformat's read (and validation) of a large notebook costs the most of any step of a call; a copy of the
parsed notebook kept as compact JSON is back in a fraction of it (bench/notebook_size.py measures both).
Reading the file's bytes and comparing them with the ones parsed is cheap, and answers what a stat
(sizes and times, with their coarse clock) could only guess: a save by anyone, in place or by rename, is seen.
After a save of ours, the entry is what reading the file back would give, computed without reading it:
`as_read`, which does what nbformat's reader does to a valid nbformat 4 file. With it, the cells as written
(`Written`), for the next edit's `notebook_json.splice`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .notebook_json import Cells, Encoded, cells_in, thaw

LIMIT_BYTES = 256 * 1024 * 1024  # of file bytes and compact JSON, the least recently used dropped first


@dataclass(frozen=True)
class Written:
    """The cells of a notebook this server wrote, every one judged valid by nbformat 4.`minor`'s schema and
    read back by nbformat as written (`as_read` changed none)."""

    cells: Cells
    minor: int


class ParsedNotebooks:
    """Parsed notebooks by real path, each valid while its file holds the bytes it was read or written as."""

    def __init__(self, limit_bytes: int = LIMIT_BYTES) -> None:
        self._entries: OrderedDict[Path, tuple[bytes, bytes, Written | None]] = OrderedDict()  # path -> (file bytes, frozen, cells)
        self._bytes = 0
        self._limit = limit_bytes

    def get(self, path: Path, data: bytes) -> dict[str, Any] | None:
        """A fresh copy of the notebook at `path` when its file still holds `data`."""
        entry = self._entries.get(path)
        if entry is None or entry[0] != data:
            return None
        self._entries.move_to_end(path)
        notebook: dict[str, Any] = thaw(entry[1])
        return notebook

    def written(self, path: Path) -> Written | None:
        """The cells last written to `path`, whatever the file holds now: `splice` reuses a cell's text only for
        a cell equal to it, so they need not be the notebook's being edited."""
        entry = self._entries.get(path)
        return None if entry is None else entry[2]

    def put(self, path: Path, data: bytes, frozen: bytes | None, written: Written | None = None) -> None:
        """Keep `frozen` (from `notebook_json.snapshot` or `as_read`) as the notebook the file `data` holds, with
        its cells as written; forget `path` when it is None."""
        self.forget(path)
        if frozen is None or _size(data, frozen, written) > self._limit:
            return
        self._entries[path] = (data, frozen, written)
        self._bytes += _size(data, frozen, written)
        while self._bytes > self._limit:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= _size(*dropped)

    def keep(self, path: Path, notebook: dict[str, Any], encoded: Encoded) -> None:
        """Keep `notebook`, just written as `encoded` and valid by the schema alone (`notebook_format.check` True):
        as nbformat reads it back, and its cells as written when that is the notebook itself."""
        if encoded.frozen is None:
            self.forget(path)
            return
        frozen = as_read(notebook, encoded.frozen, encoded.fresh)
        cells = (encoded.cells or cells_in(notebook, encoded)) if frozen is encoded.frozen else None
        self.put(path, encoded.file, frozen, None if cells is None else Written(cells, notebook["nbformat_minor"]))

    def forget(self, path: Path) -> None:
        entry = self._entries.pop(path, None)
        if entry is not None:
            self._bytes -= _size(*entry)


def _size(data: bytes, frozen: bytes, written: Written | None) -> int:
    """An entry's bytes: the cells as written hold the file's text again (their compact JSON is `frozen`)."""
    return len(data) * (1 if written is None else 2) + len(frozen)


def as_read(notebook: dict[str, Any], frozen: bytes, fresh: list[Any] | None = None) -> bytes:
    """What `nbformat.reads(as_version=4)` gives back of the file `notebook` was written as, frozen for `put`;
    `frozen` and `fresh` are its `Encoded`'s: only the fresh cells are looked at when given (every other one is
    equal to a cell of a `Written`, which the reader left as it was). For a valid nbformat 4 notebook whose
    cells, from 4.5 on, have ids of their own (nbformat would replace a missing or repeated one): nbformat's
    reader rejoins split lines (nbformat.v4.rwbase.rejoin_lines) and drops transient keys (strip_transient).
    A notebook that has neither, as every one this server read and edited, is `frozen` itself."""
    if not _reader_changes(notebook, notebook["cells"] if fresh is None else fresh):
        return frozen
    copy: dict[str, Any] = thaw(frozen)
    for cell in copy["cells"]:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
        for attachment in cell.get("attachments", {}).values():
            _rejoin_mimebundle(attachment)
        if cell.get("cell_type") == "code":
            for output in cell.get("outputs", []):
                output_type = output.get("output_type", "")
                if output_type in {"execute_result", "display_data"}:
                    _rejoin_mimebundle(output.get("data", {}))
                elif output_type and isinstance(output.get("text", ""), list):
                    output["text"] = "".join(output["text"])
    for key in TRANSIENT_METADATA:
        copy["metadata"].pop(key, None)
    for cell in copy["cells"]:
        cell["metadata"].pop("trusted", None)
    return orjson.dumps(copy)


TRANSIENT_METADATA = ("orig_nbformat", "orig_nbformat_minor", "signature")


def _reader_changes(notebook: dict[str, Any], cells: list[Any]) -> bool:
    """Whether nbformat's reader would change anything in the notebook's fields or in `cells`: a list to rejoin,
    or a transient key to drop."""
    if any(key in notebook["metadata"] for key in TRANSIENT_METADATA):
        return True
    for cell in cells:
        if isinstance(cell.get("source"), list) or "trusted" in cell["metadata"] or cell.get("attachments"):
            return True
        if cell.get("cell_type") == "code":
            for output in cell.get("outputs", ()):
                if isinstance(output.get("text"), list) or any(isinstance(v, list) for v in output.get("data", {}).values()):
                    return True
    return False


def _rejoin_mimebundle(data: dict[str, Any]) -> None:
    for key, value in list(data.items()):
        is_json = key == "application/json" or (key.startswith("application/") and key.endswith("+json"))
        if not is_json and isinstance(value, list) and all(isinstance(line, str) for line in value):
            data[key] = "".join(value)
