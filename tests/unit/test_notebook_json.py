"""notebook_json.encode against json over arbitrary JSON-like notebooks: the bytes are json.dumps(indent=1,
ensure_ascii=False) + "\\n" exactly, whichever way they were made (orjson's output halved, or json's where
orjson would write otherwise), and the frozen form, when there is one, parses as the file does."""

from __future__ import annotations

import gc
import json
import math
import threading
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_variants.jupyter.notebook_json import encode, thaw

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


def notebooks(scalar: st.SearchStrategy[Any], keys: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    jsonish = st.recursive(scalar, lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=2).map(tuple),
                                                           st.dictionaries(keys, inner, max_size=4)), max_leaves=20)
    code = st.fixed_dictionaries({"cell_type": st.just("code"), "execution_count": st.one_of(st.none(), scalar),
                                  "source": scalar, "outputs": st.lists(jsonish, max_size=2)})
    return st.builds(lambda cells, rest: {"cells": cells, **rest}, st.lists(st.one_of(code, jsonish), max_size=6),
                     st.dictionaries(keys, jsonish, max_size=3))


NOTEBOOKS = st.one_of(notebooks(SCALAR, KEYS), notebooks(TAME_SCALAR, TAME_TEXT))


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
    threads = [threading.Thread(target=lambda: [thaw(frozen) for _ in range(20)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert gc.isenabled(), "thaws in threads at once turn it back on"
