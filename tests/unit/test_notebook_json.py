"""notebook_json.encode against json over arbitrary JSON-like notebooks: the bytes are json.dumps(indent=1,
ensure_ascii=False) + "\\n" exactly, whichever way they were made (orjson's output halved, or json's where
orjson would write otherwise, or spliced into the bytes of cells written before), and the frozen form, when there
is one, parses as the file does."""

from __future__ import annotations

import gc
import json
import math
import sys
import threading
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_variants.jupyter.notebook_json import Cells, cells_in, encode, splice, thaw

# Where orjson and json part: floats below 1e-4 or in exponent form, NaN and the infinities, integers past
# 64 bits, keys that are not strings, lone surrogates; and text in strings that looks like them.
TRICKY_FLOATS = st.sampled_from([1e16, 1.5e16, -0.0, 0.0, 1e22, 5e-324, -5e-324, 1e-5, 1e-7, 2.5e-5, 1e-4, 9.999e-5,
                                 1.7976931348623157e308, 2.2250738585072014e-308, 123456789012345.6, 1e15])
FLOATS = st.one_of(st.floats(), TRICKY_FLOATS)
LOOKALIKES = st.sampled_from(["1e-05", ",1e5]", ":0.00001,", "null", "NaN", "Infinity", "e-7}", '\\":null', "  two  spaces  ",
                              "\n  indented\n    twice", "\t\x01\x00\x1f\x7f\u2028\u2029", "é😀\ufeff", "\ud800", '"\\/'])
TEXT = st.one_of(st.text(st.characters(), max_size=20), LOOKALIKES)
INTEGERS = st.one_of(st.integers(-(2**63), 2**64 - 1), st.integers(-(2**80), 2**80))
SCALAR = st.one_of(st.none(), st.booleans(), INTEGERS, FLOATS, TEXT)
KEYS = st.one_of(TEXT, TEXT, TEXT, st.integers(-5, 5), st.booleans(), st.none(), FLOATS)
# As most notebooks are, and so written by orjson: string keys, no lone surrogates, floats repr writes in fixed form.
TAME_TEXT = st.one_of(st.text(st.characters(exclude_categories=["Cs"]), max_size=20), LOOKALIKES.filter(lambda t: t != "\ud800"))
TAME_FLOATS = st.floats(-1e15, 1e15).filter(lambda f: not 0 < abs(f) < 1e-4)
TAME_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), TAME_FLOATS, TAME_TEXT)


def jsonish(scalar: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=2).map(tuple),
                                                        st.dictionaries(keys, inner, max_size=4)), max_leaves=20)


def cells(scalar: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    code = st.fixed_dictionaries({"cell_type": st.just("code"), "execution_count": st.one_of(st.none(), scalar),
                                  "source": scalar, "outputs": st.lists(jsonish(scalar, keys), max_size=2)})
    return st.one_of(code, jsonish(scalar, keys))


def notebooks(scalar: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda cells, rest: {"cells": cells, **rest}, st.lists(cells(scalar, keys), max_size=6),
                     st.dictionaries(keys, jsonish(scalar, keys), max_size=3))


NOTEBOOKS = st.one_of(notebooks(SCALAR, KEYS), notebooks(TAME_SCALAR, TAME_TEXT))
CELLS = st.one_of(cells(SCALAR, KEYS), cells(TAME_SCALAR, TAME_TEXT))


def expected(notebook: dict[str, Any]) -> bytes:
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()


def check_encoding(notebook: dict[str, Any]) -> None:
    try:
        want = expected(notebook)
    except UnicodeEncodeError:  # a lone surrogate: json writes it, UTF-8 cannot hold it
        with pytest.raises(UnicodeEncodeError):
            encode(notebook)
        return
    encoded = encode(notebook)
    assert encoded.file == want
    if encoded.frozen is not None:
        assert _same(thaw(encoded.frozen), json.loads(want))


def _same(a: Any, b: Any) -> bool:
    """Equal, and a float's sign too (-0.0 == 0.0)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=1500, deadline=None)
@given(NOTEBOOKS)
@example({"cells": [{"cell_type": "code", "execution_count": None, "x": math.nan}]})  # as many nulls as Nones counted
@example({"cells": [{"execution_count": math.inf}], "metadata": None})
@example({"cells": [{"cell_type": "markdown"}], "metadata": {"x": -math.inf}})  # a cell without an execution count
@example({"cells": [1e-05]})
@example({"cells": [{"x": -2.5e-05}]})
@example({"cells": [], "a": [[], {}, [[]], [{}], {"b": {}}]})
@example({"cells": [1e-05, 1e16, -0.0, 5e-324, 2**64 - 1, -(2**63)]})
@example({"cells": [2**64], "x": "\ud800"})
def test_the_bytes_are_json_dumps_indent_1(notebook: dict[str, Any]) -> None:
    check_encoding(notebook)


def written_cells(notebook: dict[str, Any]) -> Cells | None:
    """The cells of `notebook` as a save of it would keep them (None: it cannot be written, or they cannot be kept)."""
    try:
        return cells_in(notebook, encode(notebook))
    except UnicodeEncodeError:
        return None


@st.composite
def edited(draw: Any, notebook: dict[str, Any]) -> dict[str, Any]:
    """`notebook` after some edits a tool makes: cells put in, taken out, replaced, moved or changed in place, and
    the notebook's other fields changed."""
    after = {**notebook, "cells": list(notebook["cells"])}
    for _ in range(draw(st.integers(0, 4))):
        every = after["cells"]
        where = draw(st.integers(0, len(every)))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "change", "move", "field"]))
        if kind == "insert" or not every:
            every.insert(where, draw(CELLS))
        elif kind == "field":
            after[draw(st.sampled_from(["metadata", "nbformat_minor", "cells!"]))] = draw(jsonish(TAME_SCALAR, TAME_TEXT))
        else:
            where = min(where, len(every) - 1)
            if kind == "delete":
                del every[where]
            elif kind == "replace":
                every[where] = draw(CELLS)
            elif kind == "move":
                every.insert(draw(st.integers(0, len(every) - 1)), every.pop(where))
            elif isinstance(every[where], dict):
                every[where] = {**every[where], draw(st.sampled_from(["source", "metadata", "new"])): draw(SCALAR)}
    return after


def check_splice(written: Cells | None, after: dict[str, Any]) -> None:
    """A splice is the file the whole encode writes, byte for byte, or not made; its cells are the file's, for the next
    splice, and only the cells written before are not fresh."""
    try:
        spliced = None if written is None else splice(after, written)
    except UnicodeEncodeError:  # a lone surrogate outside the cells, which no UTF-8 file holds: the whole encode refuses it too
        with pytest.raises(UnicodeEncodeError):
            expected(after)
        return
    if spliced is None:
        return
    assert written is not None and spliced.cells is not None
    assert spliced.file == expected(after)
    assert spliced.frozen is not None and _same(thaw(spliced.frozen), json.loads(spliced.file))
    assert spliced.cells == cells_in(after, spliced)
    kept = {*written.every_compact(), *(orjson.dumps(cell) for cell in spliced.fresh or [])}
    assert all(text in kept for text in spliced.cells.every_compact())


@settings(max_examples=500, deadline=None)
@given(NOTEBOOKS, st.data())
def test_a_splice_writes_what_the_whole_encode_writes(notebook: dict[str, Any], data: Any) -> None:
    """Whatever was written before (this notebook's cells, or another's) and whatever the edit."""
    written = written_cells(data.draw(NOTEBOOKS) if data.draw(st.booleans()) else notebook)
    check_splice(written, data.draw(edited(notebook)))


@pytest.mark.parametrize(("before", "after"), [
    ({"cells": [{"a": 1}]}, {"cells": [{"a": 1}], "\ud800": 1}),  # a lone surrogate outside the cells
    ({"cells": [{"a": 1}, {"b": [1, {"c": None}]}]}, {"cells": [{"a": 1}, {"x": "new"}, {"b": [1, {"c": None}]}]}),
    ({"cells": [{"execution_count": None}]}, {"cells": [{"execution_count": math.nan}]}),  # a NaN is null too
    ({"cells": [{"x": "\x00cells\x00"}]}, {"cells": [{"a": 1}], "m": "\x00cells\x00"}),  # the stand-in itself
    ({"cells": [{"a": 1e-05}]}, {"cells": [{"a": 1e-05}, {"b": 1e-07}, {}], "c": 2.5e-5}),
    ({"m": [{"a": 1}], "cells": [{"a": 1}, {"a": 2}]}, {"m": [{"a": 2}], "cells": [{"a": 2}, {"a": 1}]}),
])
def test_a_splice_of_these(before: dict[str, Any], after: dict[str, Any]) -> None:
    check_splice(written_cells(before), after)


def test_an_insert_encodes_the_new_cell_alone() -> None:
    cells = [{"id": f"c{i}", "cell_type": "markdown", "metadata": {}, "source": f"## {i}\n\ntext"} for i in range(50)]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}}, "cells": cells}
    written = written_cells(notebook)
    assert written is not None
    new = {"id": "new", "cell_type": "code", "metadata": {}, "source": "print(1)", "outputs": [], "execution_count": None}
    after = {**notebook, "cells": [*cells[:25], new, *cells[25:]]}
    spliced = splice(after, written)
    assert spliced is not None and spliced.fresh == [new] and spliced.file == expected(after)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 40, 300])
def test_any_depth_is_halved_right(depth: int) -> None:
    """Each power of two of the depth is a pass of its own; orjson refuses past 254 levels (json writes them)."""
    value: Any = ["  a  b  ", 1.5, None]
    for level in range(depth):
        value = {"k  ": value, "n": level} if level % 2 else [value, "x\n  y", [], {}]
    check_encoding({"cells": [value], "metadata": {"deep": value}})


def test_thaw_leaves_the_collector_as_it_found_it() -> None:
    frozen = orjson.dumps({"cells": [{"source": str(i), "outputs": [{"text": [str(i)]}]} for i in range(2_000)]})
    gc.disable()
    try:
        thaw(frozen)
        assert not gc.isenabled(), "a collector turned off stays off"
    finally:
        gc.enable()
    thaw_in_threads(frozen, 20)
    assert gc.isenabled(), "thaws in threads at once turn it back on"


def thaw_in_threads(frozen: bytes, each: int, threads: int = 4) -> None:
    """`each` thaws of `frozen` in each of `threads` threads at once, until all are done."""
    started = [threading.Thread(target=lambda: [thaw(frozen) for _ in range(each)]) for _ in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()


def test_thaws_interleaved_in_threads_never_leave_the_collector_off() -> None:
    """A thaw that began while another held the collector off, and ends after it, must not keep it off for good."""
    small = orjson.dumps({"cells": [{"source": "x"}]})
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads between any two bytecodes: the interleavings that leave it off
    try:
        for _ in range(2_000):
            thaw_in_threads(small, 5)
            assert gc.isenabled(), "the collector was left off"
    finally:
        sys.setswitchinterval(interval)
        gc.enable()
