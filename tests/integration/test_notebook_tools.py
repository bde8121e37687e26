"""The notebook and cell tools on a real server: every declared variant at 2026-12-01, the legacy
shape at 2025-11-25, per-client defaults, bad input, and the notebook on disk after every edit."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.client.stdio import envelope
from support.checked import OUTPUTS_VERSION, UI_EXTENSIONS, CheckedClient, text_of
from support.servers import HttpServer, serve_stdio

from .conftest import CACHE_META, CELL_META, code, markdown, read_valid, sample_cells, write_notebook

pytestmark = pytest.mark.timeout(240)

MY_TOOLS = (
    "use_notebook", "unuse_notebook", "list_notebooks", "read_notebook", "read_cell", "insert_cell",
    "delete_cell", "move_cell", "edit_cell_source", "overwrite_cell_source", "clear_cell_output",
)
KINDS = {
    "use_notebook": "notebook.use", "unuse_notebook": "notebook.unuse", "list_notebooks": "notebooks.list",
    "read_notebook": "notebook.read", "read_cell": "cell.read", "insert_cell": "cell.insert", "delete_cell": "cell.delete",
    "move_cell": "cell.move", "edit_cell_source": "cell.edit", "overwrite_cell_source": "cell.overwrite",
    "clear_cell_output": "cell.clear_output",
}
AC, AS, PS, UC, US, UIS = (
    "assistant/content", "assistant/structured", "programmatic/structured",
    "user/content", "user/structured", "io.modelcontextprotocol/ui/structured",
)
EXPECTED_VARIANTS = {
    **{name: {AC, AS, PS} for name in MY_TOOLS},
    "list_notebooks": {AC, AS, PS, US, UIS},
    "read_notebook": {AC, AS, PS, US, UIS},
    "read_cell": {AC, AS, PS, UC, UIS},
}


def ids(notebook: Any) -> list[str]:
    return [cell["id"] for cell in notebook.cells]


# ---- declarations -------------------------------------------------------------------------------


def test_every_tool_declares_its_variants_with_schemas(stateless: CheckedClient) -> None:
    for name in MY_TOOLS:
        tool = stateless.tools[name]
        declared = {f"{v['audience']}/{v['format']}" for v in tool["outputVariants"]}
        assert declared == EXPECTED_VARIANTS[name], name
        for variant in tool["outputVariants"]:
            assert ("schema" in variant) == (variant["format"] == "structured"), (name, variant)
        assert tool["inputSchema"]["additionalProperties"] is False, name
        assert tool["description"], name


# ---- every tool, every variant, at 2026-12-01 ----------------------------------------------------


def test_use_notebook_creates_opens_and_starts_a_kernel(stateless: CheckedClient, root: Path) -> None:
    out = stateless.call("use_notebook", {"notebook": "made/new.ipynb", "create": True})
    assert out.is_error and "No folder" in text_of(out[AC])
    (root / "made").mkdir()
    out = stateless.call("use_notebook", {"notebook": "made/new.ipynb", "create": True})
    assert not out.is_error, out.result
    record = out[PS]
    assert record["created"] is True and record["cellCount"] == 0 and record["kernelId"]
    # A stateless request keeps no default, and says so.
    assert record["isDefault"] is False
    assert "pass notebook='made/new.ipynb' on each call" in text_of(out[AC])
    assert out[AS] == {"kind": "notebook.use", "result": text_of(out[AC])}
    assert CACHE_META not in out.meta and CELL_META not in out.meta
    assert read_valid(root / "made/new.ipynb").cells == []

    again = stateless.call("use_notebook", {"notebook": "made/new.ipynb", "create": True})
    assert again[PS]["created"] is False and again[PS]["kernelId"] == record["kernelId"]

    listed = stateless.call("list_kernels", {}, [{"audience": "programmatic", "format": "structured"}])
    assert record["kernelId"] in {k["id"] for k in listed[PS]["kernels"]}


def test_use_notebook_says_when_the_counts_shown_are_not_its_kernels(stateless: CheckedClient, root: Path) -> None:
    """A notebook saved with execution counts (a previous server's, before a client restart) in a kernel that has run
    nothing: its variables are gone, and use_notebook says so until it has run something."""
    write_notebook(root / "ran-before.ipynb", [code("x = 1", count=3)])
    opened = stateless.call("use_notebook", {"notebook": "ran-before.ipynb"})
    assert not opened.is_error and "Its kernel is fresh" in text_of(opened[AC]), text_of(opened[AC])
    cell_id = read_valid(root / "ran-before.ipynb").cells[0].id
    assert not stateless.call("execute_cell", {"notebook": "ran-before.ipynb", "cell_id": cell_id}).is_error
    again = stateless.call("use_notebook", {"notebook": "ran-before.ipynb"})
    assert "fresh" not in text_of(again[AC])


def test_use_notebook_gives_an_old_notebook_stable_ids(stateless: CheckedClient, root: Path) -> None:
    path = write_notebook(root / "old.ipynb", [markdown("# Old"), code("1 + 1")], minor=4)
    out = stateless.call("use_notebook", {"notebook": "old.ipynb"})
    assert out[PS]["upgraded"] is True and "upgraded" in text_of(out[AC])
    on_disk = read_valid(path)
    first = stateless.call("read_notebook", {"notebook": "old.ipynb"})
    second = stateless.call("read_notebook", {"notebook": "old.ipynb"})
    assert [c["id"] for c in first[PS]["cells"]] == [c["id"] for c in second[PS]["cells"]] == ids(on_disk)
    assert stateless.call("use_notebook", {"notebook": "old.ipynb"})[PS]["upgraded"] is False


def test_reading_an_old_notebook_keeps_its_ids_stable(stateless: CheckedClient, root: Path) -> None:
    path = write_notebook(root / "older.ipynb", [code("a = 1"), code("b = 2")], minor=4)
    seen = stateless.call("read_notebook", {"notebook": "older.ipynb"})[PS]["cells"]
    cell_id = seen[1]["id"]
    read = stateless.call("read_cell", {"notebook": "older.ipynb", "cell_id": cell_id})
    assert not read.is_error and read[PS]["cell"]["source"] == "b = 2"
    assert ids(read_valid(path)) == [c["id"] for c in seen]


def test_insert_read_edit_move_clear_delete(stateless: CheckedClient, root: Path) -> None:
    path = write_notebook(root / "walk.ipynb", sample_cells())
    original = ids(read_valid(path))

    # insert_cell: at the end by default, at an index, of each type
    out = stateless.call("insert_cell", {"notebook": "walk.ipynb", "source": "y = 2"})
    new_id = out[PS]["cellId"]
    assert out[PS] == {"notebook": "walk.ipynb", "cellId": new_id, "cellIndex": 3, "cellType": "code", "cellCount": 4}
    assert out.meta[CELL_META] == new_id and CACHE_META not in out.meta
    assert out[AS]["kind"] == "cell.insert" and new_id in out[AS]["result"]
    notebook = read_valid(path)
    assert ids(notebook) == [*original, new_id] and notebook.cells[3].source == "y = 2"
    out = stateless.call("insert_cell", {"notebook": "walk.ipynb", "source": "raw text", "cell_type": "raw", "cell_index": 0})
    raw_id = out[PS]["cellId"]
    notebook = read_valid(path)
    assert ids(notebook) == [raw_id, *original, new_id] and notebook.cells[0].cell_type == "raw"

    # read_cell, by id, with outputs: text, the image as an image block, the result
    image_cell = original[1]
    out = stateless.call("read_cell", {"notebook": "walk.ipynb", "cell_id": image_cell})
    assert out.meta[CELL_META] == image_cell and CACHE_META not in out.meta
    assistant = out[AC]
    assert "print('hello')" in assistant[0]["text"] and "execution count 3" in assistant[0]["text"]
    assert [b["type"] for b in assistant[1:]] == ["text", "image", "text"]
    assert "hello\nworld" in assistant[1]["text"] and "42" in assistant[3]["text"]
    structured = out[AS]
    assert structured["kind"] == "cell.read" and structured["count"] == 3 and structured["images"] == 1
    assert structured["outputs"][1] == {"type": "image", "mimeType": "image/png",
                                        "bytes": len(base64.b64decode(out[PS]["cell"]["outputs"][1]["data"]["image/png"])),
                                        "uri": f"cell-output:///walk.ipynb/cells/{image_cell}/outputs/1"}
    assert structured["cell"] == {"index": 2, "id": image_cell, "type": "code", "executionCount": 3}
    assert structured["source"] == "print('hello')\nplot()"
    record = out[PS]["cell"]
    assert [o["output_type"] for o in record["outputs"]] == ["stream", "display_data", "execute_result"]
    assert record["outputs"][0]["text"] == "hello\nworld\n"  # multi-line strings joined
    assert out[UIS]["view"] == "cell" and out[UIS]["cell"]["outputs"] == record["outputs"]
    assert out[UC][0]["text"].startswith("In [3]:\nprint('hello')") and any(b["type"] == "image" for b in out[UC])

    out = stateless.call("read_cell", {"notebook": "walk.ipynb", "cell_index": 2, "include_outputs": False})
    assert len(out[AC]) == 1 and out[AS]["outputs"] == [] and out[AS]["count"] == 0
    assert "outputs" not in out[PS]["cell"] and "outputs" not in out[UIS]["cell"]
    out = stateless.call("read_cell", {"notebook": "walk.ipynb", "cell_index": 1})
    assert out[PS]["cell"]["type"] == "markdown" and out[PS]["cell"]["outputs"] == [] and out[AS]["cell"]["executionCount"] is None

    # read_notebook: brief, detailed, paged
    out = stateless.call("read_notebook", {"notebook": "walk.ipynb"})
    assert CACHE_META not in out.meta
    brief = out[AS]
    assert brief["kind"] == "notebook.read" and brief["count"] == 5 and brief["columns"] == ["Index", "ID", "Type", "Exec", "Source"]
    assert [i["ID"] for i in brief["items"]] == ids(read_valid(path))
    assert brief["items"][1]["Source"] == "# Sample…" and brief["items"][2]["Exec"] == 3
    assert "nextCursor" not in brief and "nextCursor" not in out[PS]
    assert all("outputs" not in c for c in out[PS]["cells"]) and out[PS]["cells"][1]["source"] == "# Sample\nSome prose."
    assert out[US]["columns"][0] == {"key": "index", "label": "Index"} and len(out[US]["rows"]) == 5
    assert out[UIS]["view"] == "notebook" and len(out[UIS]["cells"][2]["outputs"]) == 3
    assert raw_id in text_of(out[AC])

    out = stateless.call("read_notebook", {"notebook": "walk.ipynb", "detail": "detailed", "limit": 2})
    detailed = out[AS]
    assert detailed["count"] == 2 and detailed["nextCursor"] == "2" and detailed["items"][1]["Source"] == "# Sample\nSome prose."
    assert "\\n" in detailed["result"]  # the tab-separated text escapes newlines inside sources
    assert out[PS]["nextCursor"] == "2" and out[PS]["cells"][0]["outputs"] == []
    assert "# Sample\nSome prose." in text_of(out[AC]) and "start=2" in text_of(out[AC])
    rest = stateless.call("read_notebook", {"notebook": "walk.ipynb", "detail": "detailed", "cursor": "2"})
    assert [c["index"] for c in rest[PS]["cells"]] == [2, 3, 4] and "nextCursor" not in rest[PS]
    assert len(rest[PS]["cells"][0]["outputs"]) == 3
    same = stateless.call("read_notebook", {"notebook": "walk.ipynb", "start": 2, "limit": 1})
    assert [c["index"] for c in same[PS]["cells"]] == [2] and same[PS]["nextCursor"] == "3"

    # edit_cell_source: the one occurrence
    out = stateless.call("edit_cell_source", {"notebook": "walk.ipynb", "cell_id": image_cell, "old_string": "plot()",
                                              "new_string": "show()"})
    assert out.meta[CELL_META] == image_cell and out[PS]["source"] == "print('hello')\nshow()"
    assert read_valid(path).cells[2].source == "print('hello')\nshow()"

    # overwrite_cell_source
    out = stateless.call("overwrite_cell_source", {"notebook": "walk.ipynb", "cell_index": 4, "source": "z = 3\nz"})
    assert out[PS] == {"notebook": "walk.ipynb", "cellId": new_id, "cellIndex": 4, "source": "z = 3\nz", "previousSource": "y = 2"}
    assert read_valid(path).cells[4].source == "z = 3\nz"

    # move_cell: by id, to an index
    out = stateless.call("move_cell", {"notebook": "walk.ipynb", "cell_id": new_id, "target_index": 0})
    assert out[PS] == {"notebook": "walk.ipynb", "cellId": new_id, "fromIndex": 4, "toIndex": 0, "cellCount": 5}
    assert out.meta[CELL_META] == new_id
    assert ids(read_valid(path)) == [new_id, raw_id, *original]

    # clear_cell_output
    out = stateless.call("clear_cell_output", {"notebook": "walk.ipynb", "cell_id": image_cell})
    assert out[PS]["clearedOutputs"] == 3 and out.meta[CELL_META] == image_cell
    cleared = read_valid(path).cells[3]
    assert cleared.outputs == [] and cleared.execution_count is None

    # delete_cell
    out = stateless.call("delete_cell", {"notebook": "walk.ipynb", "cell_index": 1})
    assert out[PS] == {"notebook": "walk.ipynb", "cellId": raw_id, "cellIndex": 1, "cellType": "raw", "source": "raw text", "cellCount": 4}
    assert out.meta[CELL_META] == raw_id
    assert ids(read_valid(path)) == [new_id, *original]


def test_every_result_names_its_kind(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "kinds.ipynb", sample_cells())
    calls = [
        ("use_notebook", {"notebook": "kinds.ipynb"}),
        ("list_notebooks", {}),
        ("read_notebook", {"notebook": "kinds.ipynb"}),
        ("read_cell", {"notebook": "kinds.ipynb", "cell_index": 0}),
        ("insert_cell", {"notebook": "kinds.ipynb", "source": "q = 1"}),
        ("edit_cell_source", {"notebook": "kinds.ipynb", "cell_index": 3, "old_string": "q", "new_string": "r"}),
        ("overwrite_cell_source", {"notebook": "kinds.ipynb", "cell_index": 3, "source": "s = 1"}),
        ("move_cell", {"notebook": "kinds.ipynb", "cell_index": 3, "target_index": 3}),
        ("clear_cell_output", {"notebook": "kinds.ipynb", "cell_index": 1}),
        ("delete_cell", {"notebook": "kinds.ipynb", "cell_index": 3}),
        ("unuse_notebook", {"notebook": "kinds.ipynb"}),
    ]
    assert sorted(name for name, _ in calls) == sorted(MY_TOOLS)
    for name, arguments in calls:
        out = stateless.call(name, arguments)
        assert not out.is_error, (name, out.result)
        assert out[AS]["kind"] == KINDS[name], name
        read_valid(root / "kinds.ipynb")


def test_text_budgets_hold_for_big_notebooks(stateless: CheckedClient, root: Path) -> None:
    big = "b" * 100_000
    cells = [code(f"value_{i} = {i}  # " + "x" * 60) for i in range(400)]
    cells[3] = code(big, count=1, outputs=[{"output_type": "stream", "name": "stdout", "text": big}])
    write_notebook(root / "big.ipynb", cells)
    limit = 20_000  # the server's default --output-cap

    out = stateless.call("read_notebook", {"notebook": "big.ipynb", "limit": 500})
    for key in (AC, AS, US):
        assert len(json.dumps(out[key]).encode()) < 2 * limit, key
    cursor = out[AS]["nextCursor"]
    assert 3 < int(cursor) < 400 and out[PS]["nextCursor"] == cursor and len(out[PS]["cells"]) == int(cursor)
    assert out[PS]["cells"][3]["source"] == big  # code gets the whole source

    out = stateless.call("read_notebook", {"notebook": "big.ipynb", "detail": "detailed", "start": 3})
    for key in (AC, AS, US):
        assert len(json.dumps(out[key]).encode()) < 2 * limit, key
    assert "read_cell" in out[AS]["items"][0]["Source"] and out[PS]["cells"][0]["outputs"][0]["text"] == big

    # read_cell: the source and each output are cut to the cap (per output, as for executions)
    out = stateless.call("read_cell", {"notebook": "big.ipynb", "cell_index": 3})
    for key in (AC, UC):
        assert all(len(b["text"].encode()) < limit + 300 for b in out[key]), key
    assert len(out[AS]["source"].encode()) < limit + 300
    assert all(len(item.encode()) < limit + 300 for item in out[AS]["outputs"])
    assert "programmatic/structured" in text_of(out[AC]) and out[AS]["truncated"] is True
    assert out[PS]["cell"]["source"] == big and out[PS]["cell"]["outputs"][0]["text"] == big


def test_list_and_unuse_notebooks(stateless: CheckedClient, root: Path) -> None:
    write_notebook(root / "listed.ipynb", [code("1")])
    kernel = stateless.call("use_notebook", {"notebook": "listed.ipynb"})[PS]["kernelId"]
    out = stateless.call("list_notebooks", {})
    assert out.meta[CACHE_META] == {"ttlMs": 30000, "cacheScope": "private"}
    row = next(r for r in out[PS]["notebooks"] if r["path"] == "listed.ipynb")
    assert row == {"path": "listed.ipynb", "kernelId": kernel, "kernelState": row["kernelState"], "isDefault": False}
    assert row["kernelState"] != "not running" and out[PS]["default"] is None
    assert {"Path": "listed.ipynb", "Kernel": kernel, "State": row["kernelState"], "Default": "no"} in out[AS]["items"]
    assert out[AS]["count"] == len(out[PS]["notebooks"]) and out[AS]["columns"] == ["Path", "Kernel", "State", "Default"]
    assert any(r["path"] == "listed.ipynb" for r in out[US]["rows"]) and out[UIS]["view"] == "table"
    assert "listed.ipynb" in text_of(out[AC])

    out = stateless.call("unuse_notebook", {"notebook": "listed.ipynb"})
    assert out[PS] == {"notebook": "listed.ipynb", "kernelId": kernel, "kernelStopped": True, "wasDefault": False}
    assert CACHE_META not in out.meta
    kernels = stateless.call("list_kernels", {}, [{"audience": "programmatic", "format": "structured"}])[PS]["kernels"]
    assert kernel not in {k["id"] for k in kernels}
    out = stateless.call("list_notebooks", {})
    assert "listed.ipynb" not in {r["path"] for r in out[PS]["notebooks"]}


def test_an_empty_list_of_notebooks_is_a_message(tmp_path: Path) -> None:

    with serve_stdio(tmp_path) as connection:
        client = CheckedClient(connection, stateless=True)
        out = client.call("list_notebooks", {})
        assert text_of(out[AC]).startswith("No notebooks are open.")
        assert out[AS]["result"].startswith("No notebooks are open.") and out[AS]["items"] == [] and out[AS]["count"] == 0
        assert out[PS] == {"notebooks": [], "default": None}


def test_concurrent_edits_are_all_kept(stateless: CheckedClient, root: Path) -> None:
    path = write_notebook(root / "busy.ipynb", [])
    connection = stateless.stdio
    count = 12
    # Send every request before reading any answer: the server handles them concurrently.
    messages = [
        {"jsonrpc": "2.0", "id": f"busy-{i}", "method": "tools/call", "params": {
            "name": "insert_cell", "arguments": {"notebook": "busy.ipynb", "source": f"cell_{i} = {i}"},
            "requestedOutputs": [{"audience": "programmatic", "format": "structured"}],
            "_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)}}
        for i in range(count)
    ]
    for message in messages:
        connection.send(message)
    results = [connection.wait_response(message["id"], timeout=60) for message in messages]
    assert all(not r["result"].get("isError") for r in results), results
    notebook = read_valid(path)
    assert sorted(c.source for c in notebook.cells) == sorted(f"cell_{i} = {i}" for i in range(count))


# ---- bad input: isError, a message that says what to do, nothing changed on disk ------------------


@pytest.fixture(scope="module")
def bad_root(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    write_notebook(root / "bad.ipynb", sample_cells())
    outside = tmp_path_factory.mktemp("outside")
    write_notebook(outside / "secret.ipynb", sample_cells())
    (root / "link.ipynb").symlink_to(outside / "secret.ipynb")
    (root / "notes.txt").write_text("not a notebook\n")
    return outside


BAD_INPUT = [
    ("read_notebook", {"notebook": "missing.ipynb"}, "not-found", "list_files"),
    ("use_notebook", {"notebook": "missing.ipynb"}, "not-found", "create: true"),
    ("insert_cell", {"notebook": "missing.ipynb", "source": "x"}, "not-found", "list_files"),
    ("read_cell", {"notebook": "bad.ipynb", "cell_index": 99}, "not-found", "0 to 2"),
    ("delete_cell", {"notebook": "bad.ipynb", "cell_index": 3}, "not-found", "0 to 2"),
    ("read_cell", {"notebook": "bad.ipynb", "cell_id": "no-such-id"}, "not-found", "read_notebook lists the cell ids"),
    ("delete_cell", {"notebook": "bad.ipynb", "cell_id": "no-such-id"}, "not-found", "read_notebook lists the cell ids"),
    ("move_cell", {"notebook": "bad.ipynb", "cell_id": "no-such-id", "target_index": 0}, "not-found", "read_notebook"),
    ("move_cell", {"notebook": "bad.ipynb", "cell_index": 0, "target_index": 7}, "not-found", "0 to 2"),
    ("insert_cell", {"notebook": "bad.ipynb", "source": "x", "cell_index": 9}, "not-found", "-1 to append"),
    ("edit_cell_source", {"notebook": "bad.ipynb", "cell_index": 2, "old_string": "nowhere", "new_string": "y"}, "invalid-arguments",
     "does not occur"),
    ("edit_cell_source", {"notebook": "bad.ipynb", "cell_index": 2, "old_string": "x = 1", "new_string": "y"}, "invalid-arguments",
     "occurs 2 times"),
    ("overwrite_cell_source", {"notebook": "bad.ipynb", "cell_index": 0, "cell_id": "x", "source": "y"}, "invalid-arguments",
     "cell_index or by cell_id"),
    ("clear_cell_output", {"notebook": "bad.ipynb"}, "invalid-arguments", "cell_index or by cell_id"),
    ("clear_cell_output", {"notebook": "bad.ipynb", "cell_index": 0}, "invalid-arguments", "only code cells"),
    ("read_notebook", {"notebook": "bad.ipynb", "start": 3}, "not-found", "past the last cell"),
    ("read_notebook", {"notebook": "bad.ipynb", "cursor": "abc"}, "invalid-arguments", "nextCursor"),
    ("insert_cell", {"notebook": "bad.ipynb", "source": "x", "cell_type": "sql"}, "invalid-arguments", "\"code\", \"markdown\" or \"raw\""),
    ("read_notebook", {"notebook": "../outside/secret.ipynb"}, "path-outside-root", "relative path without '..'"),
    ("delete_cell", {"notebook": "/etc/secret.ipynb", "cell_index": 0}, "path-outside-root", "relative path"),
    ("delete_cell", {"notebook": "link.ipynb", "cell_index": 0}, "path-outside-root", "symbolic link"),
    ("use_notebook", {"notebook": "link.ipynb"}, "path-outside-root", "symbolic link"),
    ("read_notebook", {"notebook": "notes.txt"}, "invalid-arguments", "end in .ipynb"),
    ("read_cell", {"cell_index": 0}, "no-notebook", "notebook: 'path/to.ipynb'"),
    ("unuse_notebook", {}, "no-notebook", "stateless"),
    ("unuse_notebook", {"notebook": "bad.ipynb"}, "not-found", "list_notebooks"),
]


@pytest.mark.parametrize(("tool", "arguments", "error_type", "hint"), BAD_INPUT, ids=[f"{t}-{i}" for i, (t, *_) in enumerate(BAD_INPUT)])
def test_bad_input_is_a_helpful_error_and_changes_nothing(
    stateless: CheckedClient, root: Path, bad_root: Path, tool: str, arguments: dict[str, Any], error_type: str, hint: str
) -> None:
    watched = [root / "bad.ipynb", bad_root / "secret.ipynb", root / "notes.txt"]
    before = {p: p.read_bytes() for p in watched}
    out = stateless.call(tool, arguments)
    assert out.is_error, out.result
    message = text_of(out[AC])
    assert hint in message, message
    assert "Traceback" not in message
    for key, value in out.items():
        if key.endswith("/structured"):
            assert value["error"]["type"] == error_type, (key, value)
            assert value["error"]["message"] == message
        else:
            assert text_of(value) == message
    assert CELL_META not in out.meta and CACHE_META not in out.meta
    assert {p: p.read_bytes() for p in watched} == before
    assert not (root / "missing.ipynb").exists()


# ---- legacy shape at 2025-11-25, and a connection's own default notebook -------------------------


def test_legacy_connection_has_a_default_notebook(legacy: CheckedClient, root: Path) -> None:
    for name in MY_TOOLS:
        tool = legacy.tools[name]
        assert "outputVariants" not in tool and tool["outputSchema"]["type"] == "object", name

    result = legacy.call("use_notebook", {"notebook": "legacy.ipynb", "create": True})
    assert result[AS]["kind"] == "notebook.use"
    assert "default notebook" in result[AC][0]["text"]

    result = legacy.call("insert_cell", {"source": "print('legacy')"})  # no notebook: the default
    cell_id = result.meta[CELL_META]
    assert ids(read_valid(root / "legacy.ipynb")) == [cell_id]
    assert result[AS] == {"kind": "cell.insert", "result": result[AC][0]["text"]}

    result = legacy.call("read_notebook", {"notebook": "legacy.ipynb"})
    assert result[AS]["items"][0]["ID"] == cell_id and result[AS]["count"] == 1
    result = legacy.call("read_cell", {"cell_id": cell_id})  # no notebook: the default
    assert result[AS]["kind"] == "cell.read" and result[AS]["source"] == "print('legacy')"

    result = legacy.call("list_notebooks", {})
    assert {"Path": "legacy.ipynb", "Default": "yes"}.items() <= next(
        i for i in result[AS]["items"] if i["Path"] == "legacy.ipynb").items()
    assert result.meta[CACHE_META] == {"ttlMs": 30000, "cacheScope": "private"}

    result = legacy.call("unuse_notebook", {})
    assert "no longer this client's default" in result[AC][0]["text"]
    result = legacy.call("read_cell", {"cell_id": cell_id})
    assert result.is_error and "use_notebook" in result[AC][0]["text"]
    result = legacy.call("delete_cell", {"notebook": "legacy.ipynb", "cell_index": 5})
    assert result.is_error and "out of range" in result[AC][0]["text"]


def test_defaults_belong_to_one_client(http_server: HttpServer, root: Path) -> None:
    a, b = (CheckedClient.http(http_server.url, stateless=False) for _ in range(2))
    write_notebook(root / "shared.ipynb", [code("1")])

    used = a.call("use_notebook", {"notebook": "shared.ipynb"})
    assert not used.is_error and used[AS]["kind"] == "notebook.use"

    # B has no default: it is told to name one, and A's notebook is not touched.
    before = (root / "shared.ipynb").read_bytes()
    result = b.call("insert_cell", {"source": "from B"})
    assert result.is_error and "use_notebook" in result[AC][0]["text"]
    assert (root / "shared.ipynb").read_bytes() == before
    listed = b.call("list_notebooks", {})[AS]["items"]
    assert {"Path": "shared.ipynb", "Default": "no"}.items() <= next(i for i in listed if i["Path"] == "shared.ipynb").items()

    # A stateless request on the same server sees no default either.
    with CheckedClient.http(http_server.url) as stateless:
        result = stateless.call("read_cell", {"cell_index": 0}, [{"audience": "assistant", "format": "content"}])
        assert result.is_error and "Name the notebook" in result[AC][0]["text"]
        programmatic = stateless.call("list_notebooks", {}, [{"audience": "programmatic", "format": "structured"}])[PS]
    assert programmatic["default"] is None and not any(n["isDefault"] for n in programmatic["notebooks"])

    # A's default works for A.
    result = a.call("insert_cell", {"source": "from A"})
    assert not result.is_error
    assert [c.source for c in read_valid(root / "shared.ipynb").cells] == ["1", "from A"]

    # Both use it; the kernel outlives A's unuse, and stops with B's.
    assert b.call("use_notebook", {"notebook": "shared.ipynb"})[AS]["kind"] == "notebook.use"
    result = a.call("unuse_notebook", {})
    assert "keeps running" in result[AC][0]["text"], result
    result = b.call("unuse_notebook", {})
    assert "shut down" in result[AC][0]["text"], result
