"""Two `mcp-variants serve --http` workers pointed at one Jupyter server, behind no balancer at all: the test
alternates between their URLs, with stateless 2026-12-01 requests that name their notebook.

Against a stock jupyter-server (notebooks as files: REST with a conflict check) and a JupyterLab with
real-time collaboration (notebooks as shared documents):

- `x = 6` through one worker and `print(x*7)` through the other, in the same notebook, give 42: the
  notebook's kernel is its session on the Jupyter server (GET /api/sessions), not a worker's memory;
- 100 inserts alternating between the workers lose nothing and double nothing;
- a worker that stops does not take the notebook's kernel with it: the other goes on in it.

And on the stock server, an edit whose notebook changed on the server since it was read (another
worker, a person) is refused, `conflict`, and the other change is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import nbformat
import pytest

from mcp_variants.jupyter.remote.contents import RemoteContents
from mcp_variants.jupyter.remote.server_client import JupyterServerClient
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.protocol.errors import ErrorKind, ToolError
from support.checked import AC, PS, CheckedClient, text_of
from support.jupyter import jupyterlab_server, on_disk
from support.servers import HttpServer

from .conftest import code, write_notebook

pytestmark = pytest.mark.timeout(300)

SELECT = [{"audience": "assistant", "format": "content"}, {"audience": "programmatic", "format": "structured"}]


@pytest.fixture(scope="module", params=["files", "shared documents"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    """A stock jupyter-server, then a JupyterLab with real-time collaboration."""
    folder = tmp_path_factory.mktemp("workers-jupyter")
    process = JupyterServerProcess(folder) if request.param == "files" else jupyterlab_server(folder)
    with process.start() as started:
        yield started


class Worker:
    """One worker; `call` is a stateless request for assistant/content and programmatic/structured."""

    def __init__(self, http: HttpServer) -> None:
        self.http = http
        self.client = CheckedClient.http(http.url)

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str, dict[str, Any]]:
        out = self.client.call(tool, arguments, SELECT)
        return out.result, text_of(out[AC]), out[PS]


@pytest.fixture(scope="module")
def workers(server: JupyterServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Worker]]:
    logs = tmp_path_factory.mktemp("worker-logs")
    started: list[HttpServer] = []
    try:
        for n in (1, 2):
            root = tmp_path_factory.mktemp(f"worker-{n}")
            started.append(HttpServer(root, "--jupyter-url", server.url, "--jupyter-token", server.token, log=logs / f"worker-{n}.log"))
        yield [Worker(http) for http in started]
    finally:
        for http in started:
            http.close()


def cells_of(server: JupyterServerProcess, name: str) -> list[str]:
    return [cell["source"] for cell in nbformat.read(server.root / name, as_version=4).cells]


def test_x_in_one_worker_and_x_times_7_in_the_other_is_42(server: JupyterServerProcess, workers: list[Worker]) -> None:
    write_notebook(server.root / "answer.ipynb", [code("# the answer")])
    first, second = workers
    result, text, set_x = first.call("insert_execute_code_cell", {"notebook": "answer.ipynb", "source": "x = 6"})
    assert not result.get("isError"), text
    result, text, printed = second.call("insert_execute_code_cell", {"notebook": "answer.ipynb", "source": "print(x*7)"})
    assert not result.get("isError"), text
    assert "42" in text
    assert printed["kernelId"] == set_x["kernelId"], "one kernel for the notebook, whichever worker asks"
    result, text, _ = first.call("read_notebook", {"notebook": "answer.ipynb"})
    assert "x = 6" in text and "print(x*7)" in text, "both workers read the same notebook"


def test_100_alternating_inserts_lose_nothing_and_double_nothing(server: JupyterServerProcess, workers: list[Worker]) -> None:
    write_notebook(server.root / "many.ipynb", [code("# start")])
    ids = []
    for i in range(100):
        result, text, record = workers[i % 2].call("insert_cell", {"notebook": "many.ipynb", "source": f"cell {i}"})
        assert not result.get("isError"), (i, text)
        ids.append(record["cellId"])
    assert len(set(ids)) == 100
    _, text, read = workers[0].call("read_notebook", {"notebook": "many.ipynb", "limit": 200})
    expected = ["# start", *(f"cell {i}" for i in range(100))]
    assert [cell["source"] for cell in read["cells"]] == expected, "what a worker reads"
    on_disk(server, "many.ipynb", lambda notebook: [cell.source for cell in notebook.cells] == expected)  # what the server keeps


def test_use_notebook_is_a_default_of_one_worker_s_session(server: JupyterServerProcess, workers: list[Worker]) -> None:
    """Per-connection state lives in the worker that holds the connection: another worker's session has none of it."""
    write_notebook(server.root / "mine.ipynb", [code("1")])
    first, second = (CheckedClient.http(w.http.url, stateless=False) for w in workers)
    assert not first.call("use_notebook", {"notebook": "mine.ipynb"}).is_error
    assert not first.call("read_cell", {"cell_index": 0}).is_error, "the default, on the worker that has the session"
    elsewhere = second.call("read_cell", {"cell_index": 0})
    assert elsewhere.is_error and "use_notebook" in text_of(elsewhere[AC])


def test_a_rest_edit_of_a_notebook_saved_since_it_was_read_is_a_conflict(jupyter: JupyterServerProcess) -> None:
    """No shared document: the edit reads the file, and just before its PUT asks whether the file is still what it read."""
    write_notebook(jupyter.root / "contended.ipynb", [code("# before")])
    theirs = nbformat.v4.new_notebook()
    theirs.cells = [nbformat.v4.new_code_cell("# theirs")]

    async def edit_while_someone_saves() -> None:
        contents = RemoteContents(JupyterServerClient(jupyter.url, jupyter.token))
        try:
            async with contents.edit_notebook("contended.ipynb", origin=None) as notebook:
                notebook["cells"].append(dict(nbformat.v4.new_code_cell("# ours")))
                saved = await contents.server.request("PUT", "api/contents/contended.ipynb",
                                                      json={"type": "notebook", "format": "json", "content": theirs})
                assert saved.status_code == 200
        finally:
            await contents.server.aclose()

    with pytest.raises(ToolError) as refused:
        anyio.run(edit_while_someone_saves)
    assert refused.value.kind is ErrorKind.CONFLICT
    assert "nothing was written" in refused.value.message
    assert cells_of(jupyter, "contended.ipynb") == ["# theirs"], "the other save is kept, ours not written over it"


def test_a_worker_that_stops_leaves_the_notebook_s_kernel_to_the_others(server: JupyterServerProcess, workers: list[Worker],
                                                                       tmp_path: Path) -> None:
    write_notebook(server.root / "lasting.ipynb", [code("# lasting")])
    third = HttpServer(tmp_path, "--jupyter-url", server.url, "--jupyter-token", server.token, log=tmp_path / "worker-3.log")
    try:
        result, text, started = Worker(third).call("insert_execute_code_cell", {"notebook": "lasting.ipynb", "source": "y = 5"})
        assert not result.get("isError"), text
        result, text, _ = workers[0].call("insert_execute_code_cell", {"notebook": "lasting.ipynb", "source": "y += 1"})
        assert not result.get("isError"), text
    finally:
        third.close()  # it started the notebook's session; another worker is connected to its kernel
    result, text, after = workers[1].call("insert_execute_code_cell", {"notebook": "lasting.ipynb", "source": "print(y * 7)"})
    assert not result.get("isError") and "42" in text, text
    assert after["kernelId"] == started["kernelId"]
