"""A notebook file's bytes, written cell by cell from what the last save wrote, and fresh copies of a parsed
notebook at orjson's speed.

The layout on disk stays exactly `json.dumps(notebook, indent=1, ensure_ascii=False) + "\\n"` (what this
server has always written), byte for byte, and json still writes every byte: json's indented encoder is
pure Python (35 ms for 5,000 cells), but a cell's indented text depends only on its tokens, which json's C
encoder writes compactly in a fraction of that. So each cell is encoded compactly, and its indented text
is taken from the cells already seen (an edit changes one cell; the others were written by the save
before) or made by json once.
"""

from __future__ import annotations

import gc
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import orjson

CELL_TEXTS_LIMIT_BYTES = 128 * 1024 * 1024  # of compact keys and indented texts, least recently used dropped first
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # json's C encoder: no indent


@dataclass(frozen=True)
class Encoded:
    """A notebook's file bytes, and the notebook frozen as compact JSON (orjson) when parsing that gives
    exactly what parsing the file would (not when a NaN or an infinity is in it, nor an integer orjson refuses)."""

    file: bytes
    frozen: bytes | None


class CellTexts:
    """Each cell's indented text, by its compact JSON."""

    def __init__(self, limit_bytes: int = CELL_TEXTS_LIMIT_BYTES) -> None:
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0
        self._limit = limit_bytes

    def encode(self, notebook: dict[str, Any]) -> Encoded:
        """The file's bytes: `json.dumps(notebook, indent=1, ensure_ascii=False) + "\\n"`, UTF-8."""
        cells = notebook.get("cells")
        if not notebook or not isinstance(cells, list) or not cells or not all(isinstance(key, str) for key in notebook):
            text = json.dumps(notebook, indent=1, ensure_ascii=False)
            return Encoded((text + "\n").encode(), _frozen(notebook, [text]))
        compacts = [_COMPACT.encode(cell) for cell in cells]
        items = ",\n".join("  " + self._indented(compact, cell) for compact, cell in zip(compacts, cells, strict=True))
        members = []
        for key, value in notebook.items():
            value_text = f"[\n{items}\n ]" if key == "cells" else json.dumps(value, indent=1, ensure_ascii=False).replace("\n", "\n ")
            if key != "cells":
                compacts.append(value_text)
            members.append(f" {json.dumps(key, ensure_ascii=False)}: {value_text}")
        return Encoded(("{\n" + ",\n".join(members) + "\n}\n").encode(), _frozen(notebook, compacts))

    def _indented(self, compact: str, cell: Any) -> str:
        """The cell as json indents it one level deeper than a member of the notebook: two spaces more per line."""
        text = self._texts.get(compact)
        if text is not None:
            self._texts.move_to_end(compact)
            return text
        text = json.dumps(cell, indent=1, ensure_ascii=False).replace("\n", "\n  ")
        self._texts[compact] = text
        self._bytes += len(compact) + len(text)
        while self._bytes > self._limit and self._texts:
            old, dropped = self._texts.popitem(last=False)
            self._bytes -= len(old) + len(dropped)
        return text


def _frozen(notebook: dict[str, Any], json_texts: list[str]) -> bytes | None:
    """orjson writes NaN and the infinities as null, where json writes NaN and Infinity: then there is no faithful
    frozen form. (The words in a string are refused alike: a copy is only slower.)"""
    if any("NaN" in text or "Infinity" in text for text in json_texts):
        return None
    try:
        return orjson.dumps(notebook)
    except TypeError:  # an integer past 64 bits, a key that is not a string
        return None


def snapshot(value: Any) -> bytes | None:
    """`value` frozen as compact JSON, when `thaw` gives back an equal value (not for NaN, big integers,
    tuples, keys that are not strings): a fresh copy costs a parse instead of a deep copy."""
    try:
        frozen = orjson.dumps(value)
    except TypeError:
        return None
    return frozen if orjson.loads(frozen) == value else None


def thaw(frozen: bytes) -> Any:
    """A fresh copy of what `snapshot` froze. The collector is held off meanwhile: the copy has no cycles, and
    the full collections that its 100,000 new objects (5,000 cells) would set off scan the whole heap (15 ms
    for the copy with them, 6 without)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return orjson.loads(frozen)
    finally:
        if enabled:
            gc.enable()
