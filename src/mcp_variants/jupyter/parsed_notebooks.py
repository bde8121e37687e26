"""Notebooks kept parsed while their file holds the same bytes, so that a call does not parse the whole file again.

nbformat reads (and validates) a 5,000-cell notebook in some 200-270 ms; a copy of the parsed notebook kept
as compact JSON is back in 5. Reading the file's bytes and comparing them with the ones parsed costs a
millisecond and answers what a stat (sizes and times, with their coarse clock) could only guess: a save
by anyone, in place or by rename, is seen. After a save of ours, the entry is what reading the file back
would give, computed without reading it: `as_read`, which does what nbformat's reader does to a valid
nbformat 4 file.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path
from typing import Any

import orjson

from .notebook_json import thaw

LIMIT_BYTES = 256 * 1024 * 1024  # of file bytes and compact JSON, the least recently used dropped first


class ParsedNotebooks:
    """Parsed notebooks by real path, each valid while its file holds the bytes it was read or written as."""

    def __init__(self, limit_bytes: int = LIMIT_BYTES) -> None:
        self._entries: OrderedDict[Path, tuple[bytes, bytes]] = OrderedDict()  # path -> (file bytes, frozen)
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

    def put(self, path: Path, data: bytes, frozen: bytes | None) -> None:
        """Keep `frozen` (from `notebook_json.snapshot` or `as_read`) as the notebook the file `data` holds;
        forget `path` when it is None."""
        self.forget(path)
        size = len(data) + len(frozen or b"")
        if frozen is None or size > self._limit:
            return
        self._entries[path] = (data, frozen)
        self._bytes += size
        while self._bytes > self._limit:
            _, (old, dropped) = self._entries.popitem(last=False)
            self._bytes -= len(old) + len(dropped)

    def forget(self, path: Path) -> None:
        entry = self._entries.pop(path, None)
        if entry is not None:
            self._bytes -= len(entry[0]) + len(entry[1])


def as_read(notebook: dict[str, Any], frozen: bytes) -> bytes:
    """What `nbformat.reads(as_version=4)` gives back of the file `notebook` was written as, frozen for `put`;
    `frozen` is its `Encoded.frozen`. For a valid nbformat 4 notebook whose
    cells, from 4.5 on, have ids of their own (nbformat would replace a missing or repeated one): nbformat's
    reader rejoins split lines (nbformat.v4.rwbase.rejoin_lines) and drops transient keys (strip_transient).
    A notebook that has neither, as every one this server read and edited, is `frozen` itself."""
    if not _reader_changes(notebook):
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


def _reader_changes(notebook: dict[str, Any]) -> bool:
    """Whether nbformat's reader would change anything: a list to rejoin, or a transient key to drop."""
    if any(key in notebook["metadata"] for key in TRANSIENT_METADATA):
        return True
    for cell in notebook["cells"]:
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
