"""A person and the agent in the same notebook, in a real browser: JupyterLab 4.6 with real-time
collaboration (jupyter-collaboration 5), the notebook open in headless Chromium (Debian's, through
playwright-core: support.lab.LabPage, apps/harness/lab.mjs), and our server working through the
same JupyterLab over MCP (stdio, 2026-12-01, every output checked against its schema).

What the page types are real key events into JupyterLab's editor, so they reach the shared
document the way a person's do. Screenshots go to build/test-artifacts/apps/live/.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.apps import ARTIFACTS, apps_installed, chromium, node
from support.checked import AC, PS, CheckedClient, Outputs, through
from support.checked import text_of as text
from support.jupyter import on_disk
from support.lab import PANEL, LabError, LabPage, now_ms
from support.processes import Reaper
from support.waiting import until

pytestmark = pytest.mark.timeout(300)
SHOTS = ARTIFACTS / "live"
NO_RELOAD = "() => window.labSameLoad === true"


def notebook_file(lab: JupyterServerProcess, name: str, cells: list[dict[str, Any]]) -> str:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.from_dict(c) for c in cells]
    (lab.root / name).write_text(nbformat.writes(notebook))
    return name


def code(source: str, cell_id: str) -> dict[str, Any]:
    return {**nbformat.v4.new_code_cell(source), "id": cell_id}


@pytest.fixture
def mcp(jupyterlab: JupyterServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CheckedClient]:
    """One test's agent (a stateless client, so no session whose end takes it out of JupyterLab's collaborators): its
    server stops at the test's end, and the agent leaves with it, so a later test's page shows none of it (it would
    stay for two minutes idle, as a client still connected does)."""
    with through(jupyterlab, tmp_path_factory.mktemp("mcp-root")) as server:
        yield server


@pytest.fixture(scope="module")
def browser(jupyterlab: JupyterServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabPage]:
    """One Chromium and one JupyterLab page for the module: a person's JupyterLab, where each test opens its notebook
    (`opened`). A browser's start and a load of JupyterLab each cost more CPU than all a test does in most tests."""
    apps_installed()
    lab_page = LabPage(node(20), chromium(), tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield lab_page
    finally:
        lab_page.close()


@pytest.fixture
def page(browser: LabPage) -> Iterator[LabPage]:
    """The page, for one test's notebook: closed at its end; if that leaves a dialog, the next test loads a new page."""
    yield browser
    try:
        browser.close_notebook()
    except LabError:
        browser.close_page()
        raise


def opened(page: LabPage, lab: JupyterServerProcess, name: str) -> LabPage:
    if page.loaded:
        page.open_in_app(name)
    else:
        page.open(lab, name)
    page.eval("() => { window.labSameLoad = true; return true; }")
    return page


def all_cells(mcp: CheckedClient, name: str) -> list[str]:
    """The cell ids of the notebook as the agent reads it, page after page."""
    ids: list[str] = []
    cursor: str | None = "0"
    while cursor is not None:
        page = ok(mcp.call("read_notebook", {"notebook": name, "limit": 500, "cursor": cursor}))[PS]
        ids += [c["id"] for c in page["cells"]]
        cursor = page.get("nextCursor")
    return ids


def ok(out: Outputs) -> Outputs:
    assert not out.is_error, json.dumps(out.result)[:2000]
    return out


def agents_cell_and_output_show_within_two_seconds(lab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    """The agent inserts and runs a cell in the notebook the page has open: both show within 2 s, no reload, no
    conflict, and the page's model holds the cell, its output and its count (also tests/apps/test_jupyterlab_extension.py)."""
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
    assert [c["id"] for c in cells] == ["first", ran[PS]["cell"]["cellId"]]
    assert cells[1]["outputs"] == [f"output {marker}!\n"]
    assert "not trusted" not in (cells[1]["shown"] or "").lower()


def page_types_while_the_agent_edits(lab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    """The page types real keys into one cell while the agent edits the next ten times: both kept, in the page, in
    what the agent reads and in the file the room saves."""
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
    # After JupyterLab saves (about a second after the last change), the file holds both.
    on_disk(lab, name, lambda nb: [c.source for c in nb.cells] == [typed, "agent = 10"], timeout=30)
    assert page.eval(NO_RELOAD) and page.conflict_dialog() is None


def test_an_agents_cell_and_output_show_within_two_seconds(jupyterlab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    agents_cell_and_output_show_within_two_seconds(jupyterlab, page, mcp)


def test_the_page_types_while_the_agent_edits_and_both_are_kept(jupyterlab: JupyterServerProcess, page: LabPage,
                                                                mcp: CheckedClient) -> None:
    page_types_while_the_agent_edits(jupyterlab, page, mcp)


def test_two_hundred_mixed_operations_at_once_lose_and_double_nothing(jupyterlab: JupyterServerProcess, page: LabPage,
                                                                       mcp: CheckedClient) -> None:
    name = notebook_file(jupyterlab, "busy.ipynb", [code("# typed by the person:", "typed"), code("", "agent-own")])
    opened(page, jupyterlab, name)
    rounds = 50  # each side: 50 inserts and 50 edits, 200 operations in all

    def agent() -> list[str]:
        ids = []
        for n in range(rounds):
            ids.append(ok(mcp.call("insert_cell", {"notebook": name, "source": f"agent-{n}", "cell_index": -1}))[PS]["cellId"])
            ok(mcp.call("overwrite_cell_source", {"notebook": name, "cell_id": "agent-own", "source": f"agent edit {n}"}))
        return ids

    with ThreadPoolExecutor(1) as pool:
        agent_ids = pool.submit(agent)
        for n in range(rounds):
            page.select_cell(0)
            page.press("b")  # a new cell below the first, selected
            page.press("Enter")
            page.type(f"page-{n}")
            page.press("Escape")
            page.edit_cell(0)
            page.type(f" p{n}")
        inserted = agent_ids.result(timeout=240)
    expected = {f"agent-{n}" for n in range(rounds)} | {f"page-{n}" for n in range(rounds)}
    cells = page.wait(f"""(expected) => {{ const cells = {page.model};
        return cells && expected.every((s) => cells.some((c) => c.source === s)) ? cells : null; }}""", sorted(expected), timeout=30)
    sources = [c["source"] for c in cells]
    ids = [c["id"] for c in cells]
    assert len(ids) == len(set(ids)) == len(expected) + 2, "no cell lost, none twice (in the page's model)"
    assert sorted(s for s in sources if s in expected) == sorted(expected)
    assert sources[ids.index("agent-own")] == f"agent edit {rounds - 1}"
    for n in range(rounds):
        assert f" p{n}" in sources[ids.index("typed")], f"the page's keystrokes p{n} were lost"
    assert page.eval("() => document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell').length") == len(ids), (
        "the DOM shows every cell once")
    assert set(inserted) <= set(ids)
    until(lambda: all_cells(mcp, name) == ids, "the agent sees the same notebook (the page's edits reach the room after)", 10, every=0.2)
    on_disk(jupyterlab, name, lambda nb: [c.id for c in nb.cells] == ids and [c.source for c in nb.cells] == sources, timeout=30)
    assert page.conflict_dialog() is None


def test_a_person_inserting_cells_above_does_not_redirect_a_cell_id_edit(jupyterlab: JupyterServerProcess, page: LabPage,
                                                                        mcp: CheckedClient) -> None:
    name = notebook_file(jupyterlab, "above-page.ipynb", [code("top = 1", "top"), code("target = 'before'", "target")])
    opened(page, jupyterlab, name)
    seen = ok(mcp.call("read_notebook", {"notebook": name}))[PS]["cells"]
    assert [c["index"] for c in seen if c["id"] == "target"] == [1]
    for n in range(3):
        page.select_cell(0)
        page.press("a")  # insert above
        page.press("Enter")
        page.type(f"# inserted above by the person, {n}")
        page.press("Escape")
    page.wait(f"() => {page.model}.length === 5")
    ok(mcp.call("edit_cell_source", {"notebook": name, "cell_id": "target", "old_string": "'before'", "new_string": "'after'"}))
    cells = page.wait(f"() => {{ const cells = {page.model}; "
                      "return cells.some((c) => c.source === \"target = 'after'\") ? cells : null; }")
    assert [c["id"] for c in cells][-2:] == ["top", "target"]
    assert [c["source"] for c in cells][-2:] == ["top = 1", "target = 'after'"], "the cell the agent named, wherever it went"


def test_variables_cross_between_the_page_and_the_agent(jupyterlab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    name = notebook_file(jupyterlab, "shared-kernel.ipynb", [code("", "person"), code("print(person_value)", "agent-reads")])
    opened(page, jupyterlab, name)
    page.edit_cell(0)
    page.type("person_value = 6 * 7")
    page.press("Control+Enter")  # run it, as the person does
    page.wait(f"() => {page.model}[0].executionCount === 1", timeout=20)
    read = ok(mcp.call("execute_cell", {"notebook": name, "cell_id": "agent-reads"}))
    assert "42" in text(read[AC]) and read[PS]["executionCount"] == 2, "the person's variable, and their count goes on"
    ok(mcp.call("insert_execute_code_cell", {"notebook": name, "source": "agent_value = 'set by the agent'"}))
    page.edit_cell(0)
    page.press("Control+a")
    page.type("print(agent_value.upper())")
    page.press("Control+Enter")
    page.wait_shown("SET BY THE AGENT", timeout=20)
    assert page.cells()[0]["outputs"] == ["SET BY THE AGENT\n"]


def test_a_screenshot_of_an_agents_cell_as_it_arrives(jupyterlab: JupyterServerProcess, page: LabPage, mcp: CheckedClient) -> None:
    name = notebook_file(jupyterlab, "watch-the-agent.ipynb", [
        {**nbformat.v4.new_markdown_cell("# Watching the agent\nThe agent works in this notebook through mcp-variants; "
                                         "its cells and their output appear as it goes."), "id": "intro"},
        code("import math\nrows = [(n, math.factorial(n)) for n in range(1, 8)]", "setup"),
    ])
    opened(page, jupyterlab, name)
    source = ("import time\nfor n, value in rows:\n    print(f'{n}! = {value}', flush=True)\n    time.sleep(0.4)\nlen(rows)")
    ok(mcp.call("execute_cell", {"notebook": name, "cell_id": "setup"}))
    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(mcp.call, "insert_execute_code_cell", {"notebook": name, "source": "# by the agent\n" + source})
        page.wait_shown("4! = 24", timeout=30)
        shot = page.screenshot(SHOTS / "agent-cell-arriving.png")
        assert "7! = 5040" not in page.cells()[-1]["outputs"][0], "caught mid-run: the output streams in"
        pending.result(timeout=60)
    assert shot.stat().st_size > 10_000




def test_a_jupyterlab_on_the_folder_above_root_shows_the_agents_cell(
        jupyterlab: JupyterServerProcess, page: LabPage) -> None:
    """JupyterLab serves the folder above --root (a project in it): our server finds it by itself (its runtime
    folder) and works in the notebook's room and kernel, with its paths relative to --root."""
    project = jupyterlab.root / "above-root" / "project"
    project.mkdir(parents=True)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(jupyterlab.folder / "runtime")}
    server = CheckedClient.serve(project, stateless=True, env=env)
    try:
        notebook_file(jupyterlab, "above-root/project/found.ipynb", [
            {**nbformat.v4.new_markdown_cell("# Found by itself\nJupyterLab serves the folder above the server's --root."),
             "id": "intro"}])
        opened(page, jupyterlab, "above-root/project/found.ipynb")
        used = ok(server.call("use_notebook", {"notebook": "found.ipynb"}))
        assert "Live in JupyterLab at" in text(used[AC]) and "--root is above-root/project/ there" in text(used[AC])
        ok(server.call("insert_execute_code_cell", {"notebook": "found.ipynb", "source": "# by the agent\nimport os\nos.getcwd()"}))
        page.wait_shown(str(project), timeout=30)
        shot = page.screenshot(SHOTS / "agent-in-lab-above-root.png")
        assert shot.stat().st_size > 10_000
    finally:
        server.close()


# In the page: JupyterLab's collaborators panel, as a person reads it (each collaborator's name), and the remote
# selections and cursors drawn in one cell's editor (y-codemirror's, from the room's awareness), with their colours.
COLLABORATORS = ("() => Array.from(document.querySelectorAll('.jp-CollaboratorsList .jp-CollaboratorHeader > span'))"
                 ".map((e) => e.innerText.trim())")
MARKS = f"""([path, index]) => {{
  const cell = ({PANEL})(path).content.widgets[index].node;
  return Array.from(cell.querySelectorAll(".jp-remote-selection, .jp-remote-cursor")).map((e) =>
    e.className.includes("selection") ? e.style.backgroundColor : e.style.borderLeftColor);
}}"""
# Each collaborator's name in the panel, with the colour of its icon there.
LISTED = ("() => Array.from(document.querySelectorAll('.jp-CollaboratorsList .jp-CollaboratorHeader')).map((h) => "
          "[h.querySelector(':scope > span').innerText.trim(), h.querySelector('.jp-CollaboratorIcon').style.backgroundColor])")
FLAGS = ("() => Array.from(document.querySelectorAll('.jp-remote-userFlag:not(.jp-mod-idle) .jp-remote-userFlag-name'))"
         ".map((e) => e.innerText)")


def test_the_person_sees_the_agent_by_its_clients_name_on_the_cell_it_runs(jupyterlab: JupyterServerProcess, page: LabPage,
                                                                           tmp_path: Path) -> None:
    """A client of ours with a session (it says it is "Claude Desktop" in initialize) runs a cell: JupyterLab's
    collaborators panel lists it by that name, and the cell shows its colour while it runs, then not; when its session
    ends it is gone from the panel. Screenshots: build/test-artifacts/apps/live/agent-*.png."""
    name = notebook_file(jupyterlab, "who-is-here.ipynb", [
        {**nbformat.v4.new_markdown_cell("# Who is here\nThe agent runs the cell below through mcp-variants."), "id": "intro"},
        code("import time\ntime.sleep(4)  # the agent's run: long enough to see\nprint('done')", "slow"),
    ])
    opened(page, jupyterlab, name)
    page.eval("() => { window.jupyterapp.shell.activateById('jp-collaboration-panel'); return true; }")
    agent = "Claude Desktop via mcp-variants"
    reaper = Reaper()
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token, stateless=False,
                    reaper=reaper, client_info={"name": "claude-ai", "title": "Claude Desktop", "version": "1"})
    try:
        assert agent not in page.eval(COLLABORATORS)
        with ThreadPoolExecutor(1) as pool:
            run = pool.submit(server.call, "execute_cell", {"notebook": name, "cell_id": "slow"})
            page.wait(f"() => ({COLLABORATORS})().includes({json.dumps(agent)})", timeout=30)
            colours = page.wait(f"(arg) => {{ const marks = ({MARKS})(arg); return marks.length ? marks : null; }}",
                                [name, 1], timeout=30)
            flags = page.eval(FLAGS)
            shot = page.screenshot(SHOTS / "agent-on-its-cell.png")
            assert not run.done(), "seen while it runs"
            assert len(set(colours)) == 1 and colours[0].startswith("rgb"), colours
            assert flags == [agent], "its name on the cell"
            assert page.eval(MARKS, [name, 0]) == [], "only on the cell it runs"
            assert "done" in text(ok(run.result(timeout=60))[AC])
        page.wait(f"() => ({MARKS})({json.dumps([name, 1])}).length === 0", timeout=15)
        assert agent in page.eval(COLLABORATORS), "still a collaborator while its session lasts"
    finally:
        server.close()
        reaper.kill_all()
    page.wait(f"() => !({COLLABORATORS})().includes({json.dumps(agent)})", timeout=15)
    page.screenshot(SHOTS / "agent-gone.png")
    assert shot.stat().st_size > 10_000
    saved = (jupyterlab.root / name).read_text()
    assert agent not in saved and "mcp-variants-" not in saved and "cursors" not in saved, "nothing of it in the file"


def rgb(colour: str) -> tuple[int, ...]:
    """A CSS colour as the page gives it (`rgb(…)`, `rgba(…)`), without its alpha: a selection is its agent's colour
    made translucent."""
    return tuple(int(float(part)) for part in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])


def marked_while_running(page: LabPage, name: str, index: int, runs: list[Future[Any]], within: float = 300) -> Any:
    """Cell `index`'s agent marks, once they show. The runs hold until the test releases them, so a long wait costs a
    passing run nothing (each server's first call makes its room, the notebook's session and a kernel, which takes
    long on a loaded machine); a run that ends first, or marks that never show, fail with what was seen."""
    js = f"(arg) => {{ const marks = ({MARKS})(arg); return marks.length ? marks : null; }}"
    deadline = time.monotonic() + within
    while True:
        ended = [run for run in runs if run.done()]
        if ended:
            raise AssertionError(f"a run ended before cell {index} showed its agent's mark: "
                                 f"{[run.exception() or run.result() for run in ended]}")
        try:
            return page.wait(js, [name, index], timeout=10)
        except LabError as exc:
            if "Timeout" not in str(exc) or time.monotonic() > deadline:
                page.screenshot(SHOTS / "two-agents-unmarked.png")
                raise AssertionError(f"cell {index} never showed an agent's mark; collaborators shown: "
                                     f"{page.eval(FLAGS)}; cells: {page.cells()}") from exc


def test_two_agents_at_work_show_in_two_colours(jupyterlab: JupyterServerProcess, page: LabPage, tmp_path: Path) -> None:
    """Two clients of two servers of ours run a cell each at the same time: each cell is marked in its agent's colour,
    the two colours apart, and the collaborators panel lists exactly these two; when their sessions end, neither shows any
    more. Screenshots: build/test-artifacts/apps/live/two-agents.png, two-agents-gone.png."""
    release = tmp_path / "release"  # the runs go on until the test has seen both marks: no race with a fixed sleep
    wait = f"import pathlib, time\nwhile not pathlib.Path({str(release)!r}).exists():\n    time.sleep(0.05)"
    name = notebook_file(jupyterlab, "two-at-work.ipynb", [
        code(f"{wait}  # Claude's run\nprint('left done')", "left"),
        code(f"{wait}  # Cursor's run\nprint('right done')", "right"),
    ])
    opened(page, jupyterlab, name)
    page.eval("() => { window.jupyterapp.shell.activateById('jp-collaboration-panel'); return true; }")
    agents = ["Claude Desktop via mcp-variants", "Cursor via mcp-variants"]
    reaper = Reaper()
    servers = []
    for side, info in (("one", {"name": "claude-ai", "title": "Claude Desktop", "version": "1"}),
                       ("two", {"name": "cursor-vscode", "title": "Cursor", "version": "1"})):
        (tmp_path / side).mkdir()
        servers.append(CheckedClient.serve(tmp_path / side, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                                           stateless=False, reaper=reaper, client_info=info))
    try:
        with ThreadPoolExecutor(2) as pool:
            runs = [pool.submit(server.call, "execute_cell", {"notebook": name, "cell_id": cell})
                    for server, cell in zip(servers, ("left", "right"), strict=True)]
            marks = [marked_while_running(page, name, index, runs) for index in (0, 1)]
            listed = page.wait(f"() => {{ const names = ({COLLABORATORS})(); "
                               f"return {json.dumps(agents)}.every((a) => names.includes(a)) ? names : null; }}", timeout=30)
            page.screenshot(SHOTS / "two-agents.png")
            assert not any(run.done() for run in runs), "both seen while they run"
            assert sorted(listed) == agents, f"exactly the agents at work, no other: {listed}"
            assert marks[0][0] != marks[1][0], marks
            icons = dict(page.eval(LISTED))
            assert [rgb(icons[agent]) for agent in agents] == [rgb(cell[0]) for cell in marks], \
                f"each agent's cell in the colour the panel lists it in: {icons}, {marks}"
            release.touch()
            for run in runs:
                ok(run.result(timeout=60))
    finally:
        release.touch()
        for server in servers:
            server.close()
        reaper.kill_all()
    # Their sessions ended: the person sees neither any more, in the panel or on a cell.
    page.wait(f"() => ({COLLABORATORS})().length === 0 && ({MARKS})({json.dumps([name, 0])}).length === 0 "
              f"&& ({MARKS})({json.dumps([name, 1])}).length === 0", timeout=15)
    page.screenshot(SHOTS / "two-agents-gone.png")
