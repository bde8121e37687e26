"""What jupyter-mcp-server's callers rely on, on real kernels (issue 11): its argument names and their meanings
(served with --compat jupyter-mcp-server, which lists its schemas; refused without), several cells deleted at
once with their sources told to the model, replace_all, moving by id, names for notebooks, kernel_id,
execute_code in the current notebook's kernel (issue 21), paging defaults, images as links or scaled, and the
hint a missing module gets. Every declared variant is requested and checked against its schema
(CheckedClient, stateless) or the legacy shape (a 2025-11-25 client, with state)."""

from __future__ import annotations

import base64
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.client.stdio import envelope
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.checked import OUTPUTS_VERSION, CheckedClient, text_of
from support.checked import text_of as text
from support.processes import Reaper
from support.servers import serve_stdio

from .conftest import code, markdown, read_valid, write_notebook

AC, AS, PS, UC = "assistant/content", "assistant/structured", "programmatic/structured", "user/content"
# A 2000 x 1000 PNG displayed by the kernel (Pillow is in the server's environment, which the default kernel runs).
BIG_IMAGE = ("from PIL import Image as I; import io; from IPython.display import Image, display\n"
             "b = io.BytesIO(); I.new('RGB', (2000, 1000), 'teal').save(b, format='PNG'); display(Image(b.getvalue()))")

pytestmark = pytest.mark.timeout(180)
SERVE_ARGS = ("--compat", "jupyter-mcp-server")  # the stateless and legacy fixtures' servers (conftest.serve_args)


def ids(path: Path) -> list[str]:
    return [c["id"] for c in read_valid(path).cells]


@pytest.fixture
def five(root: Path, request: pytest.FixtureRequest) -> str:
    name = f"dropin-{request.node.name[:40]}.ipynb".replace("[", "-").replace("]", "")
    write_notebook(root / name, [markdown("# one"), code("a = 1\na = 1"), code("b = 2"), markdown("four"), code("e = 5")])
    return name


def test_their_argument_names_work_in_our_tools(stateless: CheckedClient, root: Path, five: str) -> None:
    out = stateless.call("insert_cell", {"notebook_name": five, "cell_index": 1, "cell_type": "code", "cell_source": "z = 0"})
    assert not out.is_error, out.result
    assert read_valid(root / five).cells[1]["source"] == "z = 0"
    out = stateless.call("overwrite_cell_source", {"notebook_name": five, "cell_index": 1, "cell_source": "z = 1", "cell_id": None})
    assert not out.is_error and read_valid(root / five).cells[1]["source"] == "z = 1"
    page = stateless.call("read_notebook", {"notebook_name": five, "response_format": "detailed", "start_index": 2, "limit": 2})
    assert page[PS]["detail"] == "detailed" and [c["index"] for c in page[PS]["cells"]] == [2, 3]


def test_an_alias_that_disagrees_with_its_canonical_name_is_an_error(stateless: CheckedClient, five: str) -> None:
    out = stateless.call("read_notebook", {"notebook": five, "notebook_name": "other.ipynb"})
    assert out.is_error and out[AS]["error"]["type"] == "invalid-arguments"
    assert "notebook_name is another name for notebook" in text_of(out[AC])


def test_delete_several_cells_by_id_or_index(stateless: CheckedClient, root: Path, five: str) -> None:
    path = root / five
    before = ids(path)
    out = stateless.call("delete_cell", {"notebook_name": five, "cell_ids_to_delete": [before[3], before[1]]})
    assert not out.is_error, out.result
    assert [d["cellId"] for d in out[PS]["deleted"]] == [before[1], before[3]]
    assert out[PS]["deleted"][0]["source"] == "a = 1\na = 1" and out[PS]["cellCount"] == 3
    assert ids(path) == [before[0], before[2], before[4]]
    # The model is told the sources too (as jupyter-mcp-server tells them), so that it can undo its deletion.
    assert "a = 1\na = 1" in text_of(out[AC]) and "four" in text_of(out[AC]) and "insert_cell" in text_of(out[AC])
    assert [(d["cellIndex"], d["source"]) for d in out[AS]["deleted"]] == [(1, "a = 1\na = 1"), (3, "four")]

    out = stateless.call("delete_cell", {"notebook": five, "cell_indices": [0, 2], "include_source": False})
    assert not out.is_error and all("source" not in d for d in out[PS]["deleted"]) and "source" not in out[PS]
    assert all("source" not in d for d in out[AS]["deleted"]) and "# one" not in text_of(out[AC])
    assert ids(path) == [before[2]]


def test_deleted_sources_share_the_models_text_budget(root: Path, reaper: Reaper) -> None:
    write_notebook(root / "long.ipynb", [code("x" * 5000), code("short = 1"), code("y" * 5000)])
    server = CheckedClient.serve(root, "--output-cap", "2000", stateless=True, reaper=reaper)
    try:
        out = server.call("delete_cell", {"notebook": "long.ipynb", "cell_indices": [0, 1, 2]})
    finally:
        server.close()
    told = text(out[AC])
    assert "short = 1" in told and "request programmatic/structured for the whole source" in told
    assert len(told.encode()) < 2000 + 1000, "the sources within the cap, the labels and markers beside them"
    assert [d["source"] for d in out[AS]["deleted"]][1] == "short = 1"
    assert [len(d["source"]) for d in out[PS]["deleted"]] == [5000, 9, 5000], "code gets them whole"


def test_a_bad_cell_among_several_deletes_none(stateless: CheckedClient, root: Path, five: str) -> None:
    before = (root / five).read_bytes()
    for arguments in ({"cell_ids": [ids(root / five)[0], "nope"]}, {"cell_indices": [0, 9]}, {"cell_indices": [1, 1]},
                      {"cell_index": 0, "cell_indices": [1]}):
        out = stateless.call("delete_cell", {"notebook": five, **arguments})
        assert out.is_error, arguments
    assert (root / five).read_bytes() == before


def test_replace_all_replaces_every_occurrence(stateless: CheckedClient, root: Path, five: str) -> None:
    once = stateless.call("edit_cell_source", {"notebook": five, "cell_index": 1, "old_string": "a = 1", "new_string": "a = 2"})
    assert once.is_error and "replace_all" in text_of(once[AC])
    out = stateless.call("edit_cell_source", {"notebook_name": five, "cell_index": 1, "old_string": "a = 1", "new_string": "a = 2",
                                              "replace_all": True})
    assert not out.is_error and out[PS]["replacements"] == 2
    assert read_valid(root / five).cells[1]["source"] == "a = 2\na = 2"


def test_move_by_ids(stateless: CheckedClient, root: Path, five: str) -> None:
    before = ids(root / five)
    out = stateless.call("move_cell", {"notebook_name": five, "source_cell_id": before[0], "target_cell_id": before[3]})
    assert not out.is_error and out[PS]["toIndex"] == 3
    assert ids(root / five) == [before[1], before[2], before[3], before[0], before[4]]
    out = stateless.call("move_cell", {"notebook": five, "source_index": 0})
    assert out.is_error and "target_index, or target_cell_id" in text_of(out[AC])


def test_paging_defaults_are_theirs(stateless: CheckedClient, root: Path) -> None:
    folder = root / "paging"
    (folder / "sub" / "deep").mkdir(parents=True, exist_ok=True)
    for i in range(30):
        (folder / f"f{i:02}.txt").write_text("x")
    (folder / "sub" / "inner.ipynb").write_text("{}")
    (folder / "sub" / "deep" / "deepest.ipynb").write_text("{}")
    first = stateless.call("list_files", {"path": "paging"})
    assert len(first[PS]["files"]) == 25 and first[PS]["nextCursor"] == "25"
    listed = {f["path"] for f in stateless.call("list_files", {"path": "paging", "limit": 0})[PS]["files"]}
    assert "paging/sub/inner.ipynb" in listed and "paging/sub/deep/deepest.ipynb" not in listed, "depth 2: one level below"
    alone = stateless.call("list_files", {"path": "paging", "max_depth": 0, "limit": 0})[PS]["files"]
    assert {f["path"] for f in alone} == {f"paging/f{i:02}.txt" for i in range(30)} | {"paging/sub"}
    second = stateless.call("list_files", {"path": "paging", "start_index": 25, "limit": 25})[PS]
    assert len(second["files"]) == len(listed) - 25
    deep = stateless.call("list_files", {"path": "paging", "depth": 5, "pattern": "paging/**/*.ipynb"})[PS]["files"]
    assert {f["path"] for f in deep} == {"paging/sub/inner.ipynb", "paging/sub/deep/deepest.ipynb"}

    write_notebook(root / "thirty.ipynb", [code(f"n = {i}") for i in range(30)])
    page = stateless.call("read_notebook", {"notebook": "thirty.ipynb"})[PS]
    assert len(page["cells"]) == 20 and page["nextCursor"] == "20"
    assert len(stateless.call("read_notebook", {"notebook": "thirty.ipynb", "limit": 0})[PS]["cells"]) == 30


def test_names_kernel_id_and_kernelspecs_on_a_client_with_state(legacy: CheckedClient, root: Path) -> None:
    made = legacy.call("use_notebook", {"notebook_name": "nb", "notebook_path": "named.ipynb", "mode": "create"})
    assert not made.is_error, made
    assert made[AS]["result"].count("notebook='nb'") == 1
    assert read_valid(root / "named.ipynb").metadata["kernelspec"]["name"] == "python3"
    legacy.call("insert_execute_code_cell", {"cell_index": -1, "cell_source": "shared = 'from the cell'"})
    listed = legacy.stdio.request("tools/call", {"name": "list_notebooks", "arguments": {}})["result"]
    assert "nb" in text_of(listed["content"])

    kernels = legacy.call("list_kernels", {})
    text = text_of(kernels[AC])
    assert "Kernelspecs: " in text and "python3" in text
    notebook_kernel = next(r for r in kernels[AS]["items"] if r["State"])["ID"]
    echoed = legacy.call("execute_code", {"code": "print(shared)", "kernel_id": notebook_kernel, "timeout": 0, "progress_interval": 5})
    assert "from the cell" in text_of(echoed[AC]), "kernel_id runs in the notebook's kernel"

    # A second notebook attached to the same running kernel shares its variables; unusing it leaves the kernel running.
    legacy.call("use_notebook", {"notebook_name": "twin", "notebook_path": "twin.ipynb", "mode": "create", "kernel_id": notebook_kernel})
    twin = legacy.call("insert_execute_code_cell", {"cell_index": 0, "cell_source": "print(shared)"})
    assert "from the cell" in text_of(twin[AC])
    unused = legacy.call("unuse_notebook", {"notebook_name": "twin"})
    assert "keeps running" in text_of(unused[AC])
    again = legacy.call("read_cell", {"notebook_name": "nb", "cell_index": 0})
    assert "shared" in text_of(again[AC])

    missing = legacy.stdio.request("tools/call", {"name": "execute_code", "arguments": {"code": "1", "kernel_id": "no-such-kernel"}})
    assert missing["result"]["isError"] and "list_kernels" in text_of(missing["result"]["content"])


def kernels(server: CheckedClient) -> set[str]:
    """The ids of the running kernels list_kernels shows."""
    return {row["ID"] for row in server.call("list_kernels")[AS]["items"] if row["ID"]}


@pytest.mark.parametrize("runtime", ["embedded", "jupyter-server"])
def test_execute_code_runs_in_the_current_notebooks_kernel(runtime: str, root: Path, reaper: Reaper,
                                                           request: pytest.FixtureRequest) -> None:
    """As jupyter-mcp-server's execute_code does, which its callers rely on: what a cell defined is there; a kernel
    of its own without a current notebook; kernel_id picks any."""
    extra: tuple[str, ...] = ()
    if runtime == "jupyter-server":
        jupyter: JupyterServerProcess = request.getfixturevalue("jupyter")
        extra = ("--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token)
    session = CheckedClient.serve(root, *extra, stateless=False, reaper=reaper)
    stateless = CheckedClient.serve(root, *extra, stateless=True, reaper=reaper)
    try:
        before = kernels(session)
        assert not session.call("execute_code", {"code": "scratch = 'own'"}).result.get("isError")
        (own,) = kernels(session) - before
        made = session.call("use_notebook", {"notebook": f"follow-{runtime}.ipynb", "create": True})
        assert not made.is_error and own not in text(made[AC]), made.result
        session.call("insert_execute_code_cell", {"source": "z = 99"})
        assert text(session.call("execute_code", {"code": "print(z)"})[AC]).strip() == "99"
        assert text(session.call("execute_code", {"code": "print(scratch)", "kernel_id": own})[AC]).strip() == "own"
        # A stateless request has no current notebook: its own kernel, where no cell ran.
        assert "NameError" in text(stateless.call("execute_code", {"code": "print(z)"})[AC])
        session.call("unuse_notebook", {})
        assert text(session.call("execute_code", {"code": "print(scratch)"})[AC]).strip() == "own"
    finally:
        session.close()
        stateless.close()


def test_without_compat_their_names_are_refused_naming_ours(root: Path, five: str, reaper: Reaper) -> None:
    server = CheckedClient.serve(root, stateless=True, reaper=reaper)
    try:
        assert "cell_source" not in server.tools["insert_cell"]["inputSchema"]["properties"]
        out = server.call("insert_cell", {"notebook": five, "cell_source": "z = 0"})
    finally:
        server.close()
    assert out.result["isError"] and out[AS]["error"]["type"] == "invalid-arguments"
    assert "cell_source is not one of its arguments but another server's name for source; pass source." in text(out[AC])
    assert len(ids(root / five)) == 5


def test_only_jupyter_documents_are_served(stateless: CheckedClient) -> None:
    out = stateless.call("connect_to_jupyter", {"jupyter_url": "http://127.0.0.1:9/", "document_provider": "datalayer"})
    assert out.is_error and out[AS]["error"]["type"] == "invalid-arguments" and "'datalayer'" in text_of(out[AC])


def test_a_missing_module_names_the_kernels_python_and_the_way_out(stateless: CheckedClient) -> None:
    out = stateless.call("execute_code", {"code": "import cowsay_is_not_installed_anywhere"})
    assert out.is_error
    message = out[AS]["error"]["message"]
    assert message.startswith("ModuleNotFoundError: No module named 'cowsay_is_not_installed_anywhere'")
    assert sys.executable in message and "--kernel" in message and "pip install" in message


def test_inline_images_for_the_model_are_scaled(stateless: CheckedClient) -> None:
    out = stateless.call("execute_code", {"code": BIG_IMAGE})
    model = next(b for b in out[AC] if b["type"] == "image")
    person = next(b for b in out[UC] if b["type"] == "image")
    assert len(model["data"]) < len(person["data"])
    assert base64.b64decode(model["data"])[16:24] == (1024).to_bytes(4, "big") + (512).to_bytes(4, "big"), "IHDR 1024 x 512"
    assert base64.b64decode(person["data"])[16:20] == (2000).to_bytes(4, "big")


@pytest.fixture(scope="module")
def linking(root: Path) -> Iterator[CheckedClient]:
    connection = serve_stdio(root, "--images", "link")
    try:
        yield CheckedClient(connection, stateless=True)
    finally:
        connection.close()


def read_resource(client: CheckedClient, uri: str) -> dict[str, Any]:
    return client.request("resources/read", {"uri": uri, "_meta": envelope(OUTPUTS_VERSION)})


def test_link_mode_gives_resource_links_that_resources_read_returns(linking: CheckedClient) -> None:
    out = linking.call("execute_code", {"code": BIG_IMAGE})
    links = [b for b in out[AC] if b["type"] == "resource_link"]
    assert links and not [b for b in out[AC] if b["type"] == "image"] and [b for b in out[UC] if b["type"] == "resource_link"]
    uri = links[0]["uri"]
    item = next(i for i in out[AS]["outputs"] if isinstance(i, dict))
    assert item["uri"] == uri
    original = next(o for o in out[PS]["outputs"] if o["output_type"] == "display_data")["data"]["image/png"]
    read = read_resource(linking, uri)["result"]
    assert read["contents"][0]["mimeType"] == "image/png" and read["contents"][0]["blob"] == original.replace("\n", "")
    assert read["cacheScope"] == "private"
    gone = read_resource(linking, uri.replace(uri.rsplit("/", 1)[-1][:8], "00000000"))
    assert gone["error"]["code"] == -32602 and "not kept for this client" in gone["error"]["message"]
    listed = linking.request("resources/list", {"_meta": envelope(OUTPUTS_VERSION)})["result"]["resources"]
    assert listed and not [r for r in listed if r["uri"].startswith("mcp-variants://images/")], "image links are not listed"
