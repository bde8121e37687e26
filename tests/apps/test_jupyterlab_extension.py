"""A person in a real browser and the agent through the Jupyter server extension, in the same notebook: JupyterLab
4.6 with real-time collaboration and mcp-variants' extension in one server, the notebook open in headless
Chromium (support.lab.LabPage), the agent's calls POSTed to that server's /mcp with its token.

The agent's edits are transactions on the room's own document, in the server's process; what the page types
with real key events reaches the same document. Both are kept, and the agent's cell and output show at once.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mcp_variants.processes import JupyterServerProcess
from support.checked_server import PS
from support.extension import ENDPOINT, EndpointServer, extension_server
from support.lab import LabPage, now_ms

from .support import apps_installed, chromium, node
from .test_jupyterlab_live import NO_RELOAD, code, notebook_file, ok, on_disk, opened

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    with extension_server(tmp_path_factory.mktemp("lab-with-extension"), lab=True).start(90) as process:
        yield process


@pytest.fixture(scope="module")
def mcp(lab: JupyterServerProcess) -> Iterator[EndpointServer]:
    server = EndpointServer(lab.url + ENDPOINT, lab.auth_headers)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def page(lab: JupyterServerProcess, tmp_path: Path) -> Iterator[LabPage]:
    apps_installed()
    lab_page = LabPage(node(20), chromium(), tmp_path / "chromium-profile")
    try:
        yield lab_page
    finally:
        lab_page.close()


def test_the_agents_cell_and_output_show_at_once(lab: JupyterServerProcess, page: LabPage, mcp: EndpointServer) -> None:
    name = notebook_file(lab, "arrives.ipynb", [code("# the person's notebook", "first")])
    opened(page, lab, name)
    marker = uuid.uuid4().hex[:8]
    page.watch(cell=f"agent cell {marker}", output=f"output {marker}!")
    began = now_ms()
    source = f"# agent cell {marker}\nprint('output', '{marker}' + '!')"
    ran = ok(mcp.call("insert_execute_code_cell", {"notebook": name, "source": source}))
    page.wait_shown(f"output {marker}!", timeout=5)
    marks = page.marks()
    assert marks["cell"] - began < 2000 and marks["output"] - began < 2000, {k: v - began for k, v in marks.items()}
    assert page.eval(NO_RELOAD) and page.conflict_dialog() is None, "no reload, no conflict dialog"
    cells = page.wait(f"(count) => {{ const cells = {page.model}; return cells[1].executionCount === count ? cells : null; }}",
                      ran[PS]["executionCount"])
    assert [c["id"] for c in cells] == ["first", ran[PS]["cell"]["cellId"]] and cells[1]["outputs"] == [f"output {marker}!\n"]


def test_the_page_types_while_the_agent_edits_and_both_are_kept(lab: JupyterServerProcess, page: LabPage, mcp: EndpointServer) -> None:
    name = notebook_file(lab, "typing.ipynb", [code("", "person"), code("agent = 0", "agent")])
    opened(page, lab, name)
    page.edit_cell(0)
    typed = "# the person types this while the agent edits the next cell"

    def agent_edits() -> None:
        for n in range(1, 11):
            ok(mcp.call("edit_cell_source", {"notebook": name, "cell_id": "agent", "old_string": f"agent = {n - 1}",
                                             "new_string": f"agent = {n}"}))

    with ThreadPoolExecutor(1) as pool:
        edits = pool.submit(agent_edits)
        page.type(typed, delay_ms=25)
        edits.result(timeout=60)
    page.wait(f"""() => {{ const cells = {page.model}; return cells && cells[1].source === "agent = 10" &&
                          cells[0].source === {json.dumps(typed)}; }}""", timeout=10)
    read = ok(mcp.call("read_notebook", {"notebook": name, "detail": "detailed"}))[PS]["cells"]
    assert [c["source"] for c in read] == [typed, "agent = 10"]
    saved = on_disk(lab, name)
    assert [c.source for c in saved.cells] == [typed, "agent = 10"], "the room saved both"
    assert page.eval(NO_RELOAD) and page.conflict_dialog() is None
