"""The notebook file fast paths against nbformat and json, over random notebooks: the bytes written are
json's, what is refused is what nbformat refuses, what a save keeps parsed is what nbformat reads back."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import anyio
import nbformat
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from mcp_variants.jupyter.local_contents import LocalContents
from mcp_variants.jupyter.notebook_format import check, check_fresh
from mcp_variants.jupyter.notebook_json import encode, snapshot, splice, thaw
from mcp_variants.jupyter.notebook_model import make_cell
from mcp_variants.jupyter.parsed_notebooks import ParsedNotebooks, as_read
from mcp_variants.protocol.errors import ToolError

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
LINES = st.lists(TEXT, max_size=4)
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True), TEXT)
JSONISH = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
                       max_leaves=8)
# Mostly what the schema allows, sometimes not: both sides of every check get exercised.
METADATA = st.one_of(st.dictionaries(st.sampled_from(["x", "y", "trusted"]), st.one_of(TEXT, st.booleans()), max_size=2),
                     st.dictionaries(st.sampled_from(["tags", "trusted", "collapsed", "scrolled", "x", "jupyter"]), JSONISH, max_size=3))
IDS = st.text(alphabet="abcdef0123456789-_", min_size=1, max_size=12)


@st.composite
def outputs(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["stream"] * 3 + ["execute_result", "display_data", "error", "bogus"]))
    if kind == "stream":
        return {"output_type": kind, "name": draw(st.sampled_from(["stdout", "stderr", "stdout", "other"])),
                "text": draw(st.one_of(TEXT, LINES))}
    if kind == "error":
        return {"output_type": kind, "ename": draw(TEXT), "evalue": draw(TEXT), "traceback": draw(LINES)}
    data = draw(st.dictionaries(st.sampled_from(["text/plain", "text/html", "application/json", "image/png", "application/x+json"]),
                                st.one_of(TEXT, LINES, JSONISH), max_size=3))
    output: dict[str, Any] = {"output_type": kind, "data": data, "metadata": draw(st.dictionaries(TEXT, JSONISH, max_size=2))}
    if kind == "execute_result":
        output["execution_count"] = draw(st.one_of(st.none(), st.integers(-2, 50)))
    return output


@st.composite
def cells(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(["code", "code", "markdown", "raw", "heading"]))
    cell: dict[str, Any] = {"id": draw(IDS), "cell_type": kind, "metadata": draw(METADATA), "source": draw(st.one_of(TEXT, LINES))}
    if kind == "code":
        cell["outputs"] = draw(st.lists(outputs(), max_size=3))
        cell["execution_count"] = draw(st.one_of(st.none(), st.integers(-2, 50)))
    if kind == "markdown" and draw(st.booleans()):
        cell["attachments"] = {"a.png": {"image/png": draw(st.one_of(TEXT, LINES))}}
    if draw(st.integers(0, 19)) == 0:
        cell.pop(draw(st.sampled_from(sorted(cell))))
    return cell


@st.composite
def notebooks(draw: Any) -> dict[str, Any]:
    metadata = draw(st.one_of(st.dictionaries(st.sampled_from(["orig_nbformat", "signature", "x"]), st.one_of(TEXT, st.integers(1, 4))),
                              st.dictionaries(st.sampled_from(["kernelspec", "language_info", "orig_nbformat", "signature", "x"]),
                                              JSONISH, max_size=3)))
    notebook = {"nbformat": 4, "nbformat_minor": draw(st.sampled_from([4, 5, 5, 5, 6])), "metadata": metadata,
                "cells": draw(st.lists(cells(), max_size=5))}
    if draw(st.integers(0, 19)) == 0:
        notebook[draw(st.sampled_from(["extra", "nbformat", "cells"]))] = draw(JSONISH)
    return notebook


def nbformat_verdict(notebook: dict[str, Any]) -> str | None:
    try:
        nbformat.validate(nbformat.from_dict(notebook))
    except nbformat.ValidationError as exc:
        return str(exc.message)
    return None


def refused_as_nbformat_refuses(notebook: dict[str, Any]) -> None:
    try:
        expected = nbformat_verdict(notebook)
    except Exception as exc:  # nbformat failing outright: check fails alike
        with pytest.raises(type(exc)):
            check(notebook)
        return
    if expected is None:
        check(notebook)
    else:
        with pytest.raises(ToolError, match="refusing to write an invalid notebook"):
            check(notebook)


def written_as_json_dumps_indent_1(notebook: dict[str, Any]) -> None:
    expected = (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()
    assert encode(notebook).file == expected


def kept_as_nbformat_reads_it_back(notebook: dict[str, Any]) -> None:
    try:
        plain = check(notebook)
    except (ToolError, Exception):
        return
    encoded = encode(notebook)
    if not plain or encoded.frozen is None:
        return
    read_back = dict(nbformat.reads(encoded.file.decode(), as_version=4))
    assert thaw(as_read(notebook, encoded.frozen)) == read_back


# One test for the three, over the same 600 notebooks: drawing a random notebook costs more than the three checks
# together, so the three share each draw.
@settings(max_examples=600, deadline=None)
@given(notebooks())
def test_a_notebook_is_refused_as_nbformat_refuses_written_as_json_and_kept_as_nbformat_reads_it(notebook: dict[str, Any]) -> None:
    refused_as_nbformat_refuses(notebook)
    written_as_json_dumps_indent_1(notebook)
    kept_as_nbformat_reads_it_back(notebook)


def verdict(judge: Any, *args: Any) -> Any:
    """What `judge` answers or raises; in its words, ids as any (nbformat judges a repeated id replaced by a random one)."""
    try:
        return judge(*args)
    except Exception as exc:
        return type(exc), re.sub(r"'id': '[^']*'", "'id': ...", str(exc))


@st.composite
def valid_cells(draw: Any) -> dict[str, Any]:
    """A cell the schema allows (its id aside, drawn apart)."""
    kind = draw(st.sampled_from(["code", "markdown", "raw"]))
    cell: dict[str, Any] = {"cell_type": kind, "metadata": draw(st.dictionaries(st.sampled_from(["x", "y"]), st.lists(TEXT, max_size=2))),
                            "source": draw(TEXT)}
    if kind == "code":
        cell["execution_count"] = draw(st.one_of(st.none(), st.integers(0, 50)))
        stream = st.builds(lambda text: {"output_type": "stream", "name": "stdout", "text": text}, TEXT)
        cell["outputs"] = draw(st.lists(stream, max_size=2))
    return cell


@st.composite
def valid_notebooks(draw: Any) -> dict[str, Any]:
    every = draw(st.lists(valid_cells(), min_size=1, max_size=6))
    ids = draw(st.lists(IDS, min_size=len(every), max_size=len(every), unique=True))
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": draw(st.sampled_from([{}, {"kernelspec": {"name": "p", "display_name": "P"}}])),
            "cells": [{"id": i, **cell} for i, cell in zip(ids, every, strict=True)]}


@settings(max_examples=300, deadline=None)
@given(st.one_of(valid_notebooks(), notebooks()), st.data())
def test_an_edit_judged_and_kept_by_its_fresh_cells_as_whole(notebook: dict[str, Any], data: Any) -> None:
    """After a save of ours kept its cells as written, an edit's splice, judged by its fresh cells and the notebook's
    fields only, gets the whole check's verdict and message, and is kept as nbformat reads it back."""
    if verdict(check, notebook) is not True:
        return
    parsed, path = ParsedNotebooks(), Path("n.ipynb")
    parsed.keep(path, notebook, encode(notebook))
    written = parsed.written(path)
    if written is None:
        return
    every = list(notebook["cells"])
    ids = st.one_of(IDS, st.sampled_from([cell.get("id") for cell in every])) if every else IDS  # a repeated id, at times
    where = data.draw(st.integers(0, len(every)))
    if data.draw(st.booleans()) or not every:
        every.insert(where, data.draw(st.one_of(cells(), valid_cells().map(lambda cell: {"id": data.draw(ids), **cell}))))
    else:
        every[min(where, len(every) - 1)] = data.draw(st.one_of(cells(), valid_cells().map(lambda cell: {"id": data.draw(ids), **cell})))
    after = {**notebook, "cells": every}
    spliced = splice(after, written.cells)
    if spliced is None or spliced.fresh is None:  # a NaN in the new cell
        return
    plain = verdict(check_fresh, after, spliced.fresh, written.minor)
    assert plain == verdict(check, after)
    event(f"spliced, {'valid' if plain is True else 'refused'}")
    if plain is True and spliced.frozen is not None:
        assert as_read(after, spliced.frozen, spliced.fresh) == as_read(after, spliced.frozen)
        assert thaw(as_read(after, spliced.frozen, spliced.fresh)) == dict(nbformat.reads(spliced.file.decode(), as_version=4))


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_a_snapshot_gives_back_an_equal_value_or_none(value: Any) -> None:
    frozen = snapshot(value)
    if frozen is not None:
        assert thaw(frozen) == value
    else:
        assert _unfaithful(value)


def _unfaithful(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return not -(2**63) <= value < 2**64
    if isinstance(value, list):
        return any(_unfaithful(v) for v in value)
    if isinstance(value, dict):
        return any(_unfaithful(v) for v in value.values())
    return False


def test_reads_are_fresh_copies_and_see_every_change_to_the_file(tmp_path: Path) -> None:
    contents = LocalContents(tmp_path)
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"id": "a1", "cell_type": "markdown", "metadata": {"trusted": True}, "source": ["x\n", "y"]}]}

    async def scenario() -> None:
        (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
        first = await contents.read_notebook("n.ipynb")
        assert first["cells"][0]["source"] == "x\ny" and first["cells"][0]["metadata"] == {}
        first["cells"][0]["source"] = "changed in memory"
        assert (await contents.read_notebook("n.ipynb"))["cells"][0]["source"] == "x\ny"
        # the same size, at once, in place: still seen
        (tmp_path / "n.ipynb").write_text(json.dumps(notebook).replace('"x\\n"', '"z\\n"'))
        assert (await contents.read_notebook("n.ipynb"))["cells"][0]["source"] == "z\ny"
        saved = await contents.read_notebook("n.ipynb")
        saved["cells"].append({"id": "b2", "cell_type": "raw", "metadata": {}, "source": "r"})
        await contents.write_notebook("n.ipynb", saved)
        on_disk = (tmp_path / "n.ipynb").read_bytes()
        assert on_disk == (json.dumps(saved, indent=1, ensure_ascii=False) + "\n").encode()
        assert await contents.read_notebook("n.ipynb") == dict(nbformat.reads(on_disk.decode(), as_version=4))

    anyio.run(scenario)


def test_a_listing_is_the_same_walked_in_the_event_loop_or_in_a_thread(tmp_path: Path) -> None:
    """Small walks answer in the event loop, larger ones in a worker thread (INLINE_ENTRIES): one listing either way."""
    from datetime import UTC, datetime

    from mcp_variants.jupyter import local_contents

    (tmp_path / "sub").mkdir()
    for i in range(local_contents.INLINE_ENTRIES):
        (tmp_path / "sub" / f"f{i:03d}.txt").write_text("x" * i)
    (tmp_path / "top.ipynb").write_text("{}")
    contents = LocalContents(tmp_path)
    small = anyio.run(contents.list_entries, "", 1, None)
    large = anyio.run(contents.list_entries, "", 2, None)
    assert [e["path"] for e in small] == ["sub", "top.ipynb"]
    assert [e["path"] for e in large[:3]] == ["sub", "sub/f000.txt", "sub/f001.txt"]
    assert len(large) == local_contents.INLINE_ENTRIES + 2 and large[0] == small[0] and large[-1] == small[-1]
    assert large[-2]["size"] == local_contents.INLINE_ENTRIES - 1 and large[-1]["type"] == "notebook"
    mtime = (tmp_path / "top.ipynb").stat().st_mtime
    assert small[-1]["modified"] == datetime.fromtimestamp(mtime, UTC).isoformat(timespec="seconds")
    assert [e["path"] for e in anyio.run(contents.list_entries, "sub", 1, "f00*")] == [f"sub/f00{i}.txt" for i in range(10)]


def test_edits_spliced_write_what_json_writes_and_see_a_change_made_meanwhile(tmp_path: Path) -> None:
    """Inserts, an edit, a delete and a move through LocalContents, each after the last one's cells were kept as
    written: the file is json's every time, and a save by someone else between two edits is what the next one edits."""
    contents = LocalContents(tmp_path)
    cells = [{"id": f"c{i}", "cell_type": "markdown", "metadata": {}, "source": f"## {i}"} for i in range(40)]
    (tmp_path / "n.ipynb").write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, indent=1))

    def edit_source(notebook: dict[str, Any]) -> None:
        notebook["cells"][7]["source"] = "edited"

    edits = [lambda notebook: notebook["cells"].insert(20, make_cell("code", "x = 1")), edit_source,
             lambda notebook: notebook["cells"].pop(3), lambda notebook: notebook["cells"].insert(0, notebook["cells"].pop(30)),
             lambda notebook: notebook["metadata"].update(kernelspec={"name": "p", "display_name": "P"})]

    async def scenario() -> None:
        for index, edit in enumerate(edits * 2):
            if index == len(edits):  # someone else saves it meanwhile
                outside = json.loads((tmp_path / "n.ipynb").read_text())
                outside["cells"][1]["source"] = "theirs"
                (tmp_path / "n.ipynb").write_text(json.dumps(outside, indent=1, ensure_ascii=False) + "\n")
            async with contents.edit_notebook("n.ipynb", origin=None) as notebook:
                edit(notebook)
            on_disk = (tmp_path / "n.ipynb").read_bytes()
            assert on_disk == (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode()
            assert await contents.read_notebook("n.ipynb") == dict(nbformat.reads(on_disk.decode(), as_version=4))
        assert "theirs" in (tmp_path / "n.ipynb").read_text()

    anyio.run(scenario)
