"""A notebook file's bytes at orjson's speed, and fresh copies of a parsed notebook.

The layout on disk stays exactly `json.dumps(notebook, indent=1, ensure_ascii=False) + "\\n"` (what this
server has always written), byte for byte. json's indented encoder is pure Python; orjson writes the same
tokens, two spaces per level, and halving each line's leading spaces gives json's bytes (bench/tricks.py, row
encode), except for numbers orjson writes otherwise: some floats below 1e-4 (1e-05 as 0.00001, 1e-07
as 1e-7), NaN and the infinities (as null). A notebook that may hold one of them goes to json, as does one
that orjson refuses (an integer past 64 bits, a key that is not a string, a lone surrogate). Values that are not
JSON at all (a UUID, an Enum) orjson writes where json raises: a notebook holds only what a JSON parser
and the tools put in it.
"""

from __future__ import annotations

import gc
import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

# Where orjson's floats may differ from repr's: any number in exponent form (in compact JSON a number ends
# at ',', ']' or '}'), and any below 1e-4 in fixed form (repr writes 1e-05). Over 1.5M random floats every
# difference was one of them; the same text in a string only sends the notebook to json needlessly.
_EXPONENT = re.compile(rb"e[-+0-9][0-9]*[,\]}]")
_FIXED_BELOW_1E_4 = b"0.0000"
_TABS_AS_SPACES = bytes.maketrans(b"\t", b" ")


@dataclass(frozen=True)
class Encoded:
    """A notebook's file bytes, and the notebook frozen as compact JSON (orjson) when parsing that gives
    exactly what parsing the file would (not when a NaN or an infinity is in it, nor an integer orjson refuses)."""

    file: bytes
    frozen: bytes | None


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


def thaw(frozen: bytes) -> Any:
    """A fresh copy of what `snapshot` froze, made with the collector held off (bench/tricks.py, rows thaw): the
    copy has no cycles, and the collections its many new containers set off would scan every other copy that
    calls in flight hold. The hold is the process's: a thaw turns the collector back on only if it was on when
    that thaw began, so thaws in any threads leave it as they found it (one may end another's hold early: slower,
    never wrong). Code that turns the collector off for good must not do so while a thaw may be in flight, or
    that thaw turns it on again; nothing else in this server turns it off."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return orjson.loads(frozen)
    finally:
        if enabled:
            gc.enable()
