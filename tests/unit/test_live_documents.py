"""The live notebooks' pure parts, on real pycrdt documents in memory (no server): the y-sync
bookkeeping, text spans, reading the notebook schema as nbformat, applying the tools' edits by
cell id, and writing a run's outputs as they come.

Two documents stand for two parties (a person's JupyterLab and our server) editing the same
notebook at once; exchanging their updates is what a room does. The property tests check
that whatever both do at once, merging loses no cell and no character and duplicates nothing.
"""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jupyter_ydoc import YNotebook
from pycrdt import Doc, Encoder

from mcp_variants.jupyter.live import as_nbformat, cell_ids, frozen
from mcp_variants.jupyter.live.apply import apply
from mcp_variants.jupyter.live.edits import NotebookEdits
from mcp_variants.jupyter.live.kept_cells import ReadCells
from mcp_variants.jupyter.live.running import RunningCell
from mcp_variants.jupyter.live.sync import Barriers, ServerView, decode_state_vector
from mcp_variants.jupyter.live.text_spans import Span, byte_span, changed_span, rebase
from mcp_variants.jupyter.outputs import OutputCollector
from mcp_variants.protocol.errors import ToolError

# ---- helpers ------------------------------------------------------------------------------------


def code(cell_id: str, source: str, outputs: list[dict[str, Any]] | None = None, count: int | None = None) -> dict[str, Any]:
    return {"id": cell_id, "cell_type": "code", "source": source, "metadata": {}, "outputs": outputs or [], "execution_count": count}


def markdown(cell_id: str, source: str) -> dict[str, Any]:
    return {"id": cell_id, "cell_type": "markdown", "source": source, "metadata": {}}


def notebook(*cells_: dict[str, Any]) -> dict[str, Any]:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "cells": list(cells_)}


def shared(content: dict[str, Any]) -> YNotebook:
    """A document loaded the way a Jupyter room loads a file."""
    document = YNotebook(Doc())
    document.set(content)
    return document


def replica(source: YNotebook) -> YNotebook:
    other = YNotebook(Doc())
    other.ydoc.apply_update(source.ydoc.get_update())
    return other


def sync(a: YNotebook, b: YNotebook) -> None:
    """Exchange what each lacks, as the y-sync protocol does."""
    a_state, b_state = a.ydoc.get_state(), b.ydoc.get_state()
    a_update, b_update = a.ydoc.get_update(b_state), b.ydoc.get_update(a_state)
    b.ydoc.apply_update(a_update)
    a.ydoc.apply_update(b_update)


def edit(document: YNotebook, change: Any, kept: ReadCells | None = None) -> None:
    """A tool's edit: a copy as read, changed, the difference applied in one transaction; with `kept`, as
    NotebookEdits.editing makes it: the cells kept between reads, copied only where the change takes them."""
    if kept is None:
        before = as_nbformat.read(document)
        after = copy.deepcopy(before)
    else:
        before = as_nbformat.read(document, kept.read(document))
        after = frozen.editable(before)
    change(after)
    with document.ydoc.transaction():
        apply(document, before, after, kept.ids(document) if kept is not None else None)


def keep(document: YNotebook) -> ReadCells:
    """The cells of `document` kept between reads, told of its changes as NotebookEdits' subclasses tell them."""
    kept = ReadCells()
    document.ycells.observe_deep(kept.changed)
    kept.read(document)
    return kept


class InMemory(NotebookEdits):
    """NotebookEdits on a document in memory: nothing to wait for, nothing to confirm."""

    def __init__(self, document: YNotebook) -> None:
        super().__init__()
        self.notebook = document
        document.ycells.observe_deep(self._kept_cells.changed)

    def change(self, origin: Any, make: Callable[[YNotebook], Any]) -> Any:
        with self.notebook.ydoc.transaction():
            return make(self.notebook)

    async def _ready(self) -> None:
        pass


async def edit_in(document: InMemory, change: Callable[[dict[str, Any]], None]) -> None:
    async with document.editing(None) as after:
        change(after)


def ids(document: YNotebook) -> list[str]:
    return [cell["id"] for cell in as_nbformat.read(document)["cells"]]


def sources(document: YNotebook) -> dict[str, str]:
    return {cell["id"]: cell["source"] for cell in as_nbformat.read(document)["cells"]}


# ---- sync ---------------------------------------------------------------------------------------


def test_a_state_vector_decodes_to_clocks() -> None:
    doc: Doc[Any] = Doc()
    YNotebook(doc).append_cell(markdown("a", "hello"))
    state = decode_state_vector(doc.get_state())
    assert list(state) == [doc.client_id] and state[doc.client_id] > 0
    encoder = Encoder()
    for value in (2, 7, 300, 12, 5):  # two clients: 7 → 300, 12 → 5
        encoder.write_var_uint(value)
    assert decode_state_vector(encoder.to_bytes()) == {7: 300, 12: 5}


def test_a_rebuilt_room_is_told_by_a_clock_that_went_back() -> None:
    view = ServerView()
    view.saw({0: 25, 7: 10})
    view.saw({7: 4})  # older news changes nothing
    assert view.clocks == {0: 25, 7: 10}
    assert not view.rebuilt({0: 25, 7: 12, 9: 1})  # it grew: the same room
    assert view.rebuilt({0: 25})  # our changes are gone: rebuilt from the file
    assert view.rebuilt({0: 20, 7: 10})


def test_barriers_are_answered_in_order() -> None:
    barriers = Barriers()
    assert not barriers.joined
    assert barriers.ask(b"first") == 1 and barriers.ask(b"second") == 2
    assert barriers.answer() == b"first" and barriers.joined
    assert barriers.answer() == b"second"
    assert barriers.answer() is None  # an answer nobody asked for (never sent by a room)


# ---- text spans ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "span"), [
    ("abc", "abc", None),
    ("abc", "abXc", Span(2, 2, "X")),
    ("aa", "aaa", Span(2, 2, "a")),
    ("x = 1", "x = 2", Span(4, 5, "2")),
    ("hello world", "hello", Span(5, 11, "")),
    ("", "new", Span(0, 0, "new")),
])
def test_the_changed_span(old: str, new: str, span: Span | None) -> None:
    assert changed_span(old, new) == span
    if span is not None:
        assert old[:span.start] + span.replacement + old[span.end:] == new


def test_a_span_moves_past_what_someone_else_typed_before_it() -> None:
    span = changed_span("x = 1\ny = 2", "x = 1\ny = 3")
    assert span is not None
    moved = rebase(span, "x = 1\ny = 2", "# note\nx = 1\ny = 2")
    text = "# note\nx = 1\ny = 2"
    assert text[:moved.start] + moved.replacement + text[moved.end:] == "# note\nx = 1\ny = 3"
    assert rebase(span, "abc", "abc") == span


def test_byte_spans_count_utf8() -> None:
    assert byte_span("aé😀b", Span(2, 3, "")) == (3, 7)


@given(st.text(max_size=30), st.text(max_size=30))
def test_any_span_turns_old_into_new(old: str, new: str) -> None:
    span = changed_span(old, new)
    assert (old == new) == (span is None)
    if span is not None:
        assert old[:span.start] + span.replacement + old[span.end:] == new


# ---- reading -----------------------------------------------------------------------------------


def test_reading_gives_valid_nbformat_with_ids_even_below_4_5() -> None:
    content = notebook(markdown("m", "# Title"), code("c", "print(1)", [{"output_type": "stream", "name": "stdout", "text": "1\n"}], 3))
    content["nbformat_minor"] = 4
    read = as_nbformat.read(shared(content))
    assert [cell["id"] for cell in read["cells"]] == ["m", "c"]  # jupyter-ydoc itself drops them below 4.5
    assert read["cells"][1]["execution_count"] == 3 and isinstance(read["cells"][1]["execution_count"], int)
    assert read["cells"][1]["outputs"] == [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    read["nbformat_minor"] = 5
    nbformat.validate(nbformat.from_dict(read))


def test_the_shared_documents_own_keys_are_not_read() -> None:
    document = shared(notebook(code("c", "x")))
    document.ycells[0]["execution_state"] = "running"
    document.ycells[0]["metadata"]["trusted"] = True
    assert as_nbformat.read(document)["cells"][0] == code("c", "x")


def test_cells_without_an_id_or_with_a_repeated_one_get_their_own() -> None:
    document = shared(notebook(code("same", "a"), code("other", "b")))
    document.ycells[1]["id"] = "same"
    assert cell_ids.give_ids(document)
    first, second = ids(document)
    assert first == "same" and second != "same"
    assert not cell_ids.give_ids(document)


def test_numbers_read_as_nbformat_has_them() -> None:
    document = shared(notebook(code("c", "x", count=7)))
    document.ycells[0]["metadata"]["sizes"] = {"whole": 2.0, "half": 0.5, "big": 1e20}  # Yjs keeps floats
    cell = as_nbformat.read(document)["cells"][0]
    assert cell["execution_count"] == 7 and type(cell["execution_count"]) is int
    assert cell["metadata"]["sizes"] == {"whole": 2, "half": 0.5, "big": 10**20}
    assert all(type(cell["metadata"]["sizes"][key]) is int for key in ("whole", "big"))


# ---- the cells kept between reads ----------------------------------------------------------------


def test_cells_as_read_are_frozen_and_their_copies_plain() -> None:
    cell = as_nbformat.read(shared(notebook(code("c", "x", [{"output_type": "stream", "name": "stdout", "text": "1\n"}]))))["cells"][0]
    for change in (lambda: cell.update(source="y"), lambda: cell.__setitem__("source", "y"), lambda: cell.pop("id"),
                   lambda: cell["outputs"].append({}), lambda: cell["metadata"].setdefault("tags", []),
                   lambda: cell["outputs"][0].__setitem__("text", "2\n")):
        with pytest.raises(TypeError, match="shared with every reader"):
            change()
    for plain in (copy.copy(cell), copy.deepcopy(cell), frozen.thawed(cell), pickle.loads(pickle.dumps(cell))):
        assert plain == cell and type(plain) is dict and type(plain["outputs"]) is list and type(plain["outputs"][0]) is dict
        plain["outputs"][0]["text"] = "changed"
    assert cell["outputs"][0]["text"] == "1\n"
    assert json.loads(json.dumps(cell)) == cell


def test_kept_cells_see_every_change_someone_else_makes() -> None:
    filler = [markdown(f"f{n}", "filler") for n in range(16)]  # so that one change is read alone, not all again
    ours = shared(notebook(code("a", "x = 1", [{"output_type": "stream", "name": "stdout", "text": "1\n"}], 1),
                           markdown("b", "# B"), code("c", "y = 2"), markdown("d", "# D"), *filler))
    theirs = replica(ours)
    kept = keep(ours)

    def person(change: Callable[[], None]) -> None:
        with theirs.ydoc.transaction():
            change()
        sync(ours, theirs)
        assert kept.read(ours) == as_nbformat.read_cells(ours) and kept.ids(ours) == ids(ours)

    first = list(kept.read(ours))
    assert kept.read(ours)[1] is first[1], "a cell nobody changed is not read again"
    person(lambda: theirs.ycells[0]["source"].insert(0, "# typed\n"))
    assert kept.read(ours)[0]["source"] == "# typed\nx = 1" and kept.read(ours)[1] is first[1]
    person(lambda: theirs.ycells[0]["outputs"][0]["text"].insert(2, "more\n"))
    person(lambda: theirs.ycells[2].__setitem__("execution_count", 4))
    person(lambda: theirs.ycells[1]["metadata"].__setitem__("tags", ["x"]))
    person(lambda: theirs.ycells.insert(1, theirs.create_ycell(markdown("new", "new"))))
    person(lambda: theirs.ycells.__delitem__(3))
    person(lambda: (theirs.ycells.insert(0, theirs.create_ycell(code("e", "e"))), theirs.ycells[3]["source"].insert(0, "!")))
    assert [cell["id"] for cell in kept.read(ours)][:5] == ["e", "a", "new", "b", "d"]
    assert kept.read(ours)[4] is first[3], "cells that only moved along are still the ones read"
    person(lambda: theirs.ycells.clear())
    assert kept.read(ours) == []


def test_an_edit_copies_and_writes_only_the_cell_it_changes() -> None:
    document = InMemory(shared(notebook(*[code(f"c{n}", f"x = {n}") for n in range(20)])))  # one change of 20: read alone
    read = document.read()["cells"]
    updates: list[bytes] = []
    document.notebook.ydoc.observe(lambda event: updates.append(event.update))

    def change(nb: dict[str, Any]) -> None:
        assert type(nb["cells"][3]) is dict, "taken by index: a plain copy"
        nb["cells"][3]["source"] = "x = 30"
        for cell in nb["cells"]:  # the others, as read: frozen
            if cell["id"] != "c3":
                with pytest.raises(TypeError):
                    cell["source"] = "changed in a loop"

    asyncio.run(edit_in(document, change))
    now = document.read()["cells"]
    assert [cell["source"] for cell in now] == [f"x = {n}" if n != 3 else "x = 30" for n in range(20)]
    assert all(now[n] is read[n] for n in range(20) if n != 3) and now[3] is not read[3]
    assert len(updates) == 1 and b"x = 1" not in updates[0], "one transaction, with none of the other cells"
    asyncio.run(edit_in(document, lambda nb: nb["cells"].insert(2, code("new", "new"))))
    asyncio.run(edit_in(document, lambda nb: nb["cells"].insert(0, nb["cells"].pop(5))))  # a move, of a frozen cell
    assert [cell["id"] for cell in document.read()["cells"]][:7] == ["c4", "c0", "c1", "new", "c2", "c3", "c5"]
    assert document.read()["cells"] == as_nbformat.read_cells(document.notebook)


def test_an_edit_that_fails_changes_nothing_kept() -> None:
    document = InMemory(shared(notebook(code("a", "x"), code("b", "y"))))
    read = document.read()["cells"]

    def fail(nb: dict[str, Any]) -> None:
        nb["cells"][0]["source"] = "half done"
        raise RuntimeError("the tool's error")

    with pytest.raises(RuntimeError):
        asyncio.run(edit_in(document, fail))
    assert document.read()["cells"] == read and read[0]["source"] == "x"


def test_an_edit_judges_again_only_the_cells_it_may_have_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    document = InMemory(shared(notebook(*[code(f"c{n}", f"x = {n}") for n in range(20)])))
    judged: list[int] = []
    whole = frozen.check
    monkeypatch.setattr(frozen, "check", lambda nb: judged.append(len(nb["cells"])) or whole(nb))
    asyncio.run(edit_in(document, lambda nb: nb["cells"].insert(0, code("new", "y"))))
    asyncio.run(edit_in(document, lambda nb: nb["cells"][5].update(source="x = 50")))
    assert judged == [21, 2], "all the first time; then the cell taken, and the one inserted (as read since)"
    with pytest.raises(ToolError, match="refusing to write an invalid notebook"):  # the verdict and words of a whole check
        asyncio.run(edit_in(document, lambda nb: nb["cells"][3].update(source=7)))
    document.notebook.ycells[9]["unknown"] = 1  # a cell the schema refuses, not taken by the next edit
    with pytest.raises(ToolError, match="refusing to write an invalid notebook"):
        asyncio.run(edit_in(document, lambda nb: nb["cells"][3].update(source="x = 30")))
    assert document.read()["cells"][3]["source"] == "x = 2", "nothing written"


def test_ids_are_given_once_through_the_kept_cells() -> None:
    document = InMemory(shared(notebook(code("same", "a"), code("other", "b"))))
    document.notebook.ycells[1]["id"] = "same"
    first = [cell["id"] for cell in document.read()["cells"]]
    assert first[0] == "same" and first[1] != "same"
    assert [cell["id"] for cell in document.read()["cells"]] == first == ids(document.notebook)


# ---- applying edits ------------------------------------------------------------------------------


def test_an_untouched_cell_is_not_written() -> None:
    document = shared(notebook(code("a", "x = 1"), code("b", "y = 2")))
    changes: list[bytes] = []
    document.ydoc.observe(lambda event: changes.append(event.update))
    edit(document, lambda nb: None)
    assert changes == []


def test_insert_edit_move_delete_and_outputs() -> None:
    document = shared(notebook(markdown("a", "# A"), code("b", "x = 1"), code("c", "y = 2")))
    edit(document, lambda nb: nb["cells"].insert(1, markdown("new", "inserted")))
    assert ids(document) == ["a", "new", "b", "c"]
    edit(document, lambda nb: nb["cells"][2].update(source="x = 10"))
    assert sources(document)["b"] == "x = 10"
    edit(document, lambda nb: nb["cells"].insert(0, nb["cells"].pop(3)))
    assert ids(document) == ["c", "a", "new", "b"]
    edit(document, lambda nb: nb["cells"].pop(2))
    assert ids(document) == ["c", "a", "b"]
    output = {"output_type": "execute_result", "data": {"text/plain": "10"}, "metadata": {}, "execution_count": 4}
    edit(document, lambda nb: nb["cells"][2].update(outputs=[output], execution_count=4))
    assert as_nbformat.read(document)["cells"][2]["outputs"] == [output]
    edit(document, lambda nb: nb["metadata"].update(title="t"))
    assert as_nbformat.read(document)["metadata"]["title"] == "t"
    nbformat.validate(nbformat.from_dict(as_nbformat.read(document)))


def test_a_source_edit_keeps_what_a_person_typed_in_the_same_cell() -> None:
    ours = shared(notebook(code("a", "x = 1\ny = 2\n")))
    theirs = replica(ours)
    theirs.ycells[0]["source"].insert(0, "# by a person\n")
    edit(ours, lambda nb: nb["cells"][0].update(source="x = 1\ny = 3\n"))
    sync(ours, theirs)
    assert sources(ours) == sources(theirs) == {"a": "# by a person\nx = 1\ny = 3\n"}


def test_a_person_inserting_above_does_not_redirect_an_edit_by_id() -> None:
    ours = shared(notebook(code("a", "first"), code("b", "second")))
    theirs = replica(ours)
    with theirs.ydoc.transaction():
        for n in range(3):
            theirs.ycells.insert(0, theirs.create_ycell(markdown(f"p{n}", f"person {n}")))
    edit(ours, lambda nb: nb["cells"][1].update(source="second, edited"))  # the agent's copy: b at index 1
    sync(ours, theirs)
    assert ids(ours) == ["p2", "p1", "p0", "a", "b"]
    assert sources(ours)["b"] == "second, edited" and sources(ours)["a"] == "first"


def test_a_new_cell_goes_after_its_predecessor_where_that_is_now() -> None:
    ours = shared(notebook(code("a", "a"), code("b", "b")))
    with ours.ydoc.transaction():  # someone moved a below b since the agent read it
        before = as_nbformat.read(ours)
    ours.ycells.insert(0, ours.create_ycell(code("x", "x")))
    after = copy.deepcopy(before)
    after["cells"].insert(1, code("new", "new"))  # the agent: right after a
    with ours.ydoc.transaction():
        apply(ours, before, after)
    assert ids(ours) == ["x", "a", "new", "b"]


def test_a_cell_someone_deleted_is_not_brought_back_by_a_move() -> None:
    ours = shared(notebook(code("a", "a"), code("b", "b"), code("c", "c")))
    before = as_nbformat.read(ours)
    del ours.ycells[0]  # a person deleted a meanwhile
    after = copy.deepcopy(before)
    after["cells"].append(after["cells"].pop(0))
    with ours.ydoc.transaction():
        apply(ours, before, after)
    assert ids(ours) == ["b", "c"]


# ---- what both do at once ------------------------------------------------------------------------

OPS = st.lists(st.tuples(st.sampled_from(["insert", "edit", "move", "delete", "type"]), st.integers(0, 50), st.integers(0, 50)),
               max_size=8)


def agent_op(document: YNotebook, op: tuple[str, int, int], n: int, moved: set[str], kept: ReadCells | None = None) -> None:
    kind, i, j = op
    count = len(document.ycells)

    def change(nb: dict[str, Any]) -> None:
        if kind == "insert" or not count:
            nb["cells"].insert(i % (count + 1), code(f"agent{n}", f"agent {n}"))
        elif kind == "edit" or kind == "type":
            cell = nb["cells"][i % count]
            cell["source"] = cell["source"] + f" +agent{n}"
        elif kind == "move":
            source, target = i % count, j % count
            cell = nb["cells"].pop(source)
            nb["cells"].insert(target, cell)
            moved.add(cell["id"])
            if abs(source - target) == 1:  # a swap of neighbours: moving either one is the same change
                moved.add(nb["cells"][source]["id"])
        elif kind == "delete":
            nb["cells"].pop(i % count)

    edit(document, change, kept)


def person_op(document: YNotebook, op: tuple[str, int, int], n: int) -> None:
    kind, i, _ = op
    count = len(document.ycells)
    with document.ydoc.transaction():
        if kind in ("insert", "move") or not count:
            document.ycells.insert(i % (count + 1), document.create_ycell(markdown(f"person{n}", f"person {n}")))
        elif kind in ("edit", "type"):
            text = document.ycells[i % count]["source"]
            text.insert(len(str(text)), f" +person{n}")
        elif kind == "delete":
            del document.ycells[i % count]


@pytest.mark.parametrize("kept", [False, True], ids=["read whole", "cells kept"])
@settings(max_examples=60, deadline=None)
@given(OPS, OPS)
def test_concurrent_edits_merge_without_losing_or_doubling(kept: bool, agent_ops: list[tuple[str, int, int]],
                                                           person_ops: list[tuple[str, int, int]]) -> None:
    ours = shared(notebook(code("a", "a"), markdown("b", "b"), code("c", "c")))
    theirs = replica(ours)
    reader = keep(ours) if kept else None
    moved: set[str] = set()
    for n, op in enumerate(agent_ops):
        agent_op(ours, op, n, moved, reader)
    for n, op in enumerate(person_ops):
        person_op(theirs, op, n)
    agent_ids, person_ids = set(ids(ours)), set(ids(theirs))
    agent_texts, person_texts = sources(ours), sources(theirs)
    sync(ours, theirs)
    merged = ids(ours)
    assert merged == ids(theirs), "both sides converge"
    if reader is not None:
        assert reader.read(ours) == as_nbformat.read_cells(ours), "the kept cells saw the merge"
        assert reader.ids(ours) == ids(ours)
    assert len(merged) == len(set(merged)), f"a cell appears twice: {merged}"
    # Every cell either side added is there, unless one of them deleted it.
    deleted_by_person = {"a", "b", "c"} - person_ids
    deleted_by_agent = {"a", "b", "c"} - agent_ids
    for cell_id in (agent_ids | person_ids) - deleted_by_person - deleted_by_agent:
        assert cell_id in merged, f"{cell_id} was lost"
    # Every character either side typed in a surviving cell is there; but a move is a delete and an
    # insert (JupyterLab's Yjs 13 has no move), so what a person typed at the same moment into a
    # cell the agent moved stays in the copy that was deleted (docs/choices.md).
    texts = sources(ours)
    for cell_id in merged:
        for side in (agent_texts, person_texts) if cell_id not in moved else (agent_texts,):
            for word in side.get(cell_id, "").split():
                assert word in texts[cell_id], f"{word!r} lost from {cell_id}: {texts[cell_id]!r}"


# ---- a run's outputs as they come ----------------------------------------------------------------


def run_into(document: YNotebook, cell_id: str, messages: list[tuple[str, dict[str, Any]]]) -> tuple[RunningCell, OutputCollector]:
    running = RunningCell(cell_id)
    collector = OutputCollector(10_000)
    with document.ydoc.transaction():
        running.begin(document)
    for count, (kind, content) in enumerate(messages, 1):
        collector.add(kind, content)
        with document.ydoc.transaction():
            running.update(document, collector.outputs, count)
    return running, collector


def test_outputs_stream_into_their_cell_as_they_come() -> None:
    document = shared(notebook(code("a", "loop()", [{"output_type": "stream", "name": "stdout", "text": "old\n"}], 1)))
    viewer = replica(document)
    seen: list[str] = []

    def look() -> None:
        sync(document, viewer)
        seen.append("".join(o.get("text", "") for o in as_nbformat.read(viewer)["cells"][0]["outputs"]))

    running = RunningCell("a")
    collector = OutputCollector(10_000)
    with document.ydoc.transaction():
        running.begin(document)
    look()
    assert str(document.ycells[0]["execution_state"]) == "running"
    for line in ("1\n", "2\n", "3\n"):
        collector.add("stream", {"name": "stdout", "text": line})
        with document.ydoc.transaction():
            running.update(document, collector.outputs, 5)
        look()
    assert seen == ["", "1\n", "1\n2\n", "1\n2\n3\n"]  # the old output went at the start; one stream, growing
    assert as_nbformat.read(document)["cells"][0]["execution_count"] is None, "as in JupyterLab: [*] until the run ends"
    with document.ydoc.transaction():
        running.end(document)
    cell = as_nbformat.read(document)["cells"][0]
    assert cell["outputs"] == collector.outputs
    assert document.ycells[0]["execution_state"] == "idle"


def test_clear_output_rewrites_the_cell() -> None:
    document = shared(notebook(code("a", "")))
    _, collector = run_into(document, "a", [("stream", {"name": "stdout", "text": "10%\n"}), ("clear_output", {}),
                                            ("stream", {"name": "stdout", "text": "20%\n"}),
                                            ("display_data", {"data": {"text/plain": "done"}, "metadata": {}})])
    assert as_nbformat.read(document)["cells"][0]["outputs"] == collector.outputs
    assert [o["output_type"] for o in collector.outputs] == ["stream", "display_data"]


def test_a_deleted_cell_gets_nothing_and_no_other_cell_does() -> None:
    document = shared(notebook(code("a", "run()"), code("b", "other")))
    running = RunningCell("a")
    with document.ydoc.transaction():
        running.begin(document)
    del document.ycells[0]  # a person deleted the running cell
    with document.ydoc.transaction():
        running.update(document, [{"output_type": "stream", "name": "stdout", "text": "late\n"}], 2)
        running.end(document)
    assert running.gone
    assert as_nbformat.read(document)["cells"] == [code("b", "other")]


def test_apply_names_the_cell_the_agent_is_seen_on() -> None:
    """The cell an edit changed, else the one it put in; none for an edit that only deleted (presence marks it)."""
    def applied(change: Callable[[dict[str, Any]], Any]) -> str | None:
        document = shared(notebook(code("a", "a = 1"), code("b", "b = 1"), markdown("c", "# c")))
        kept = keep(document)
        before = as_nbformat.read(document, kept.read(document))
        after = frozen.editable(before)
        change(after)
        with document.ydoc.transaction():
            return apply(document, before, after, kept.ids(document))

    assert applied(lambda nb: nb["cells"][1].update(source="b = 2")) == "b"
    assert applied(lambda nb: nb["cells"].insert(1, code("new", "x"))) == "new"
    assert applied(lambda nb: nb["cells"].pop(0)) is None
    assert applied(lambda nb: nb["cells"][0]) is None, "taken but not changed"
