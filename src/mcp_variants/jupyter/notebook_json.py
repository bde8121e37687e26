"""A notebook file's bytes at orjson's speed, and fresh copies of a parsed notebook.

The layout on disk stays exactly `json.dumps(notebook, indent=1, ensure_ascii=False) + "\\n"` (what this
server has always written), byte for byte. json's indented encoder is pure Python; orjson writes the same
tokens, two spaces per level, and halving each line's leading spaces gives json's bytes (bench/tricks.py, row
encode), except for numbers orjson writes otherwise: some floats below 1e-4 (1e-05 as 0.00001, 1e-07
as 1e-7), NaN and the infinities (as null). A notebook that may hold one of them goes to json, as does one
that orjson refuses (an integer past 64 bits, a key that is not a string, a lone surrogate). Values that are not
JSON at all (a UUID, an Enum) orjson writes where json raises: a notebook holds only what a JSON parser
and the tools put in it.

An edit of a notebook written before (`splice`) encodes only the cells that differ from the ones written, and
puts their text among the others' bytes as they were: the same file, without indenting 5,000 cells again.
"""

from __future__ import annotations

import gc
import itertools
import json
import operator
import re
import threading
from dataclasses import dataclass
from typing import Any

import orjson

# Where orjson's floats may differ from repr's: any number in exponent form (in compact JSON a number ends
# at ',', ']' or '}'), and any below 1e-4 in fixed form (repr writes 1e-05). Over 1.5M random floats every
# difference was one of them; the same text in a string only sends the notebook to json needlessly.
_EXPONENT = re.compile(rb"e[-+0-9][0-9]*[,\]}]")
_FIXED_BELOW_1E_4 = b"0.0000"
_TABS_AS_SPACES = bytes.maketrans(b"\t", b" ")


# In the file the cells are at depth 2: each one is `{`, its lines, and `\n  }`, and `,\n  ` comes between two.
# No other line starts with fewer than three spaces inside the cells list, and no string holds a raw newline,
# so `_SEPARATOR` is found only between two cells, and `_CELLS_CLOSE` only at the list's end.
_SEPARATOR = b"\n  },\n  {"
_CELLS_OPEN = b"[\n  {"
_CELLS_CLOSE = b"\n  }\n ]"
_CELLS_KEY = b'\n "cells": '  # a key of the notebook: the only line that starts with one space and this key
# The cells' stand-in to encode the rest of the notebook: json and orjson both write \x00 as \u0000.
_MARK = "\x00cells\x00"
_MARK_IN_FILE = b'[\n  "\\u0000cells\\u0000"\n ]'
_MARK_COMPACT = b'["\\u0000cells\\u0000"]'


@dataclass(frozen=True)
class Cells:
    """The cells of a notebook as written: the notebook's compact JSON (orjson) and where each cell's starts in it
    (`starts[i]` to `starts[i + 1] - 1`: a comma or the list's end follows each), and each cell's text in the file,
    less its first `{` and its last line (`_SEPARATOR` joins them). Not each cell's compact JSON as orjson made it:
    thousands of those kept slow every later orjson.dumps (some 20-fold, by glibc's heap as they leave it)."""

    frozen: bytes
    starts: list[int]
    texts: list[bytes]

    def every_compact(self) -> list[bytes]:
        """Each cell's compact JSON, in order."""
        return list(map(self.frozen.__getitem__, map(slice, self.starts, map(operator.sub, self.starts[1:], itertools.repeat(1)))))


@dataclass(frozen=True)
class Encoded:
    """A notebook's file bytes, and the notebook frozen as compact JSON (orjson) when parsing that gives
    exactly what parsing the file would (not when a NaN or an infinity is in it, nor an integer orjson refuses).
    From `splice`: its cells as written, and the ones encoded anew (`fresh`; None: all of them)."""

    file: bytes
    frozen: bytes | None
    cells: Cells | None = None
    fresh: list[Any] | None = None


def encode(notebook: dict[str, Any]) -> Encoded:
    """The file's bytes: `json.dumps(notebook, indent=1, ensure_ascii=False) + "\\n"`, UTF-8."""
    try:
        compact = orjson.dumps(notebook)
    except TypeError:  # an integer past 64 bits, a key that is not a string, a lone surrogate
        return Encoded(_by_json(notebook), None)
    if _FIXED_BELOW_1E_4 not in compact and not _EXPONENT.search(compact) and _no_nan(notebook, compact):
        return Encoded(_halved(orjson.dumps(notebook, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)), compact)
    file = _by_json(notebook)
    # json writes NaN and Infinity (the words in a string are refused alike: a copy is only slower).
    return Encoded(file, None if b"NaN" in file or b"Infinity" in file else compact)


def splice(notebook: dict[str, Any], written: Cells) -> Encoded | None:
    """`encode(notebook)`, byte for byte, from the cells of a notebook written before: a cell whose compact JSON is
    one of `written`'s keeps that one's text; only the others are encoded (`fresh`), and the notebook's other
    fields. Equal compact JSON is an equal value, so the same text (orjson's numbers are exact), except a NaN or
    an infinity, written null as None is: a notebook that may hold one is not spliced. None when it cannot be."""
    parts = _compact_parts(notebook)
    rest_file = encode({**notebook, "cells": [_MARK]}).file
    if parts is None or rest_file.count(_MARK_IN_FILE) != 1:
        return None
    compact, frozen, starts = parts
    if not _no_nan(notebook, frozen):
        return None
    cells, known_texts = notebook["cells"], written.texts
    known = written.every_compact()
    same_start = _how_many_equal(compact, known)
    same_end = _how_many_equal(compact[same_start:][::-1], known[same_start:][::-1])
    between = dict(zip(known[same_start:len(known) - same_end], known_texts[same_start:len(known) - same_end], strict=True))
    middle: list[bytes] = []
    fresh: list[Any] = []
    for cell, cell_compact in zip(cells[same_start:len(cells) - same_end], compact[same_start:len(compact) - same_end], strict=True):
        text = between.get(cell_compact)
        if text is None:
            if type(cell) is not dict or not cell:
                return None  # only a dict with keys has such a text
            text = encode(cell).file[1:-1].replace(b"\n", b"\n  ")[:-len(b"\n  }")]  # json's text of it, two levels deeper
            fresh.append(cell)
        middle.append(text)
    texts = known_texts[:same_start] + middle + known_texts[len(known_texts) - same_end:]
    head_file, _, tail_file = rest_file.partition(_MARK_IN_FILE)
    file = b"".join((head_file, _CELLS_OPEN, _SEPARATOR.join(texts), _CELLS_CLOSE, tail_file))
    return Encoded(file, frozen, Cells(frozen, starts, texts), fresh)


def _how_many_equal(first: list[bytes], second: list[bytes]) -> int:
    """How many items from the start are equal in both (a loop in C: 5,000 in Python cost more than the rest)."""
    return len(list(itertools.takewhile(bool, map(operator.eq, first, second))))


def cells_in(notebook: dict[str, Any], encoded: Encoded) -> Cells | None:
    """The cells of `notebook` as `encoded` (`encode(notebook)`) holds them, for a later `splice`; None when they
    are not all dicts with keys, or it has no compact JSON."""
    cells = notebook.get("cells")
    if encoded.frozen is None or type(cells) is not list or not cells or not all(type(cell) is dict and cell for cell in cells):
        return None
    parts = _compact_parts(notebook)
    start = encoded.file.find(_CELLS_KEY + _CELLS_OPEN)
    end = encoded.file.find(_CELLS_CLOSE, start)
    if parts is None or parts[1] != encoded.frozen or start < 0 or end < 0:
        return None
    texts = encoded.file[start + len(_CELLS_KEY + _CELLS_OPEN):end].split(_SEPARATOR)
    return Cells(encoded.frozen, parts[2], texts) if len(texts) == len(cells) else None


def _compact_parts(notebook: dict[str, Any]) -> tuple[list[bytes], bytes, list[int]] | None:
    """Each cell's compact JSON, the notebook's (the same as orjson.dumps(notebook): a list is its items joined),
    and where each cell's starts in it; None when orjson refuses it (an integer past 64 bits, a key that is not a
    string, a lone surrogate), or the cells' stand-in is in it too."""
    cells = notebook.get("cells")
    if type(cells) is not list or not cells:
        return None
    try:
        compact = [orjson.dumps(cell) for cell in cells]
        rest = orjson.dumps({**notebook, "cells": [_MARK]})  # the same keys in the same order
    except TypeError:
        return None
    if rest.count(_MARK_COMPACT) != 1:
        return None
    head, _, tail = rest.partition(_MARK_COMPACT)
    starts = list(itertools.accumulate(map((1).__add__, map(len, compact)), initial=len(head) + 1))  # each then a comma
    return compact, b"".join((head, b"[", b",".join(compact), b"]", tail)), starts


def _by_json(notebook: dict[str, Any]) -> bytes:
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()


def _no_nan(notebook: dict[str, Any], compact: bytes) -> bool:
    """Whether no NaN or infinity became one of `compact`'s nulls: none did when the nulls (the word, in
    strings too) are as many as the Nones counted, an unrun code cell's execution count, the one a
    notebook routinely holds. Otherwise a parse of `compact` is compared with the notebook."""
    nulls = compact.count(b"null")
    if not nulls:
        return True
    cells = notebook.get("cells")
    # dict.get: what orjson wrote, whatever a subclass's own get answers
    if isinstance(cells, list) and nulls == sum(1 for c in cells if isinstance(c, dict) and dict.get(c, "execution_count", 0) is None):
        return True
    return bool(thaw(compact) == notebook)


def _halved(indented: bytes) -> bytes:
    """orjson's indentation, two spaces per level, as json's, one: the file json's pure-Python indented encoder
    would write, at orjson's speed (bench/tricks.py, row encode). A line's leading spaces are all indentation
    (no string holds a raw newline), and no raw tab or \\x01 is in JSON text (strings escape them): a \\x01
    put after each newline moves right over the spaces it halves into tabs, the largest power of two first:
    a depth d takes log2(d) + 1 passes, not d."""
    top = 1
    while b"\n" + b"  " * (2 * top) in indented:
        top *= 2
    text = indented.replace(b"\n", b"\n\x01")
    while top:
        text = text.replace(b"\x01" + b"  " * top, b"\t" * top + b"\x01")
        top //= 2
    return text.translate(_TABS_AS_SPACES, b"\x01")


def snapshot(value: Any) -> bytes | None:
    """`value` frozen as compact JSON, when `thaw` gives back an equal value (not for NaN, big integers,
    tuples, keys that are not strings): a fresh copy costs a parse instead of a deep copy."""
    try:
        frozen = orjson.dumps(value)
    except TypeError:
        return None
    return frozen if orjson.loads(frozen) == value else None


class _CollectorHold:
    """The collector held off while any thaw runs, in any thread: the first hold turns it off, the last one turns it
    back on if it was on when the first began. Counted under a lock: with each thaw reading `gc.isenabled()` for
    itself, a thaw that began inside another's hold and ended after it turned the collector off for good."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holds = 0
        self._was_enabled = False

    def __enter__(self) -> None:
        with self._lock:
            if self._holds == 0:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._holds += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._holds -= 1
            if self._holds == 0 and self._was_enabled:
                gc.enable()


_COLLECTOR_HOLD = _CollectorHold()


def thaw(frozen: bytes) -> Any:
    """A fresh copy of what `snapshot` froze, made with the collector held off (bench/tricks.py, rows thaw): the
    copy has no cycles, and the collections its many new containers set off would scan every other copy that
    calls in flight hold. The hold is the process's (`_CollectorHold`): thaws in any threads leave the collector as
    the first of them found it. Code that turns the collector off for good must not do so while a thaw may be in
    flight, or the last thaw turns it on again; nothing else in this server turns it off."""
    with _COLLECTOR_HOLD:
        return orjson.loads(frozen)
