"""Live notebooks: our server through a real JupyterLab 4 with real-time collaboration
(jupyter-collaboration 5), the notebook's shared document and its JupyterLab session kernel.

The person is `support.person.Person`: a Yjs client of its own in the same room, as JupyterLab
is (the browser tests in tests/apps/ do the same with a real JupyterLab page). Faults come from
`support.proxy.Proxy`, which holds back and cuts the rooms' websockets between our server and
JupyterLab. One JupyterLab serves the whole module, and one server of ours its tests that need no process of their
own; every notebook has a name of its own.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess, TokenEndpoint
from support.checked import AC, AS, PS, CheckedClient, Outputs, through
from support.checked import text_of as text
from support.jupyter import on_disk, sessions
from support.person import Person, cell_ids, output_texts
from support.processes import Reaper
from support.proxy import Proxy
from support.servers import serve_command
from support.waiting import until

pytestmark = pytest.mark.timeout(300)
AUTOSAVE_S = 1.0  # jupyter-server-ydoc saves a room's document this long after the last change


def notebook_file(path: Path, cells: list[dict[str, Any]]) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook.cells = [nbformat.from_dict(c) for c in cells]
    path.write_text(nbformat.writes(notebook))


def code(source: str, cell_id: str | None = None) -> dict[str, Any]:
    cell = dict(nbformat.v4.new_code_cell(source))
    if cell_id:
        cell["id"] = cell_id
    return cell


def contents_writes(server: CheckedClient, since: int = 0) -> list[str]:
    """The writes our server made through the contents API (its httpx log at INFO), from byte `since` of its stderr on."""
    log = server.stdio.stderr_tail[since:].decode(errors="replace")
    return re.findall(r"HTTP Request: (?:PUT|PATCH|POST|DELETE) \S+/api/contents/(\S+)", log)


LOGGED = ("--log-level", "INFO")  # its requests in its stderr (contents_writes)


@pytest.fixture(scope="module")
def live(jupyterlab: JupyterServerProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CheckedClient]:
    """One server for the module's tests that need no process of their own: its requests are stateless and each test
    has notebooks of its own, so a fresh process would only add its start-up (the SDK's import, most of its CPU)."""
    with through(jupyterlab, tmp_path_factory.mktemp("live"), *LOGGED) as server:
        yield server


@pytest.fixture
def own_live(jupyterlab: JupyterServerProcess, tmp_path: Path) -> Iterator[CheckedClient]:
    """A server of the test's own, for a test that ends it."""
    with through(jupyterlab, tmp_path, *LOGGED) as server:
        yield server


def ok(out: Outputs) -> Outputs:
    assert not out.is_error, json.dumps(out.result)[:2000]
    return out


# ---- every notebook tool, every variant, on the shared document -----------------------------------


def test_every_notebook_tool_works_on_the_shared_document(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    nb = "every-tool.ipynb"
    log_start = len(live.stdio.stderr_tail)  # the module's server: what it logged before is other tests'
    opened = ok(live.call("use_notebook", {"notebook": nb, "create": True}))
    assert "Live in JupyterLab" in text(opened[AC]) and opened[PS]["created"]
    assert "empty cell JupyterLab gives a notebook without cells was removed" in text(opened[AC])
    assert opened[PS]["cellCount"] == 0
    kernel_id = opened[PS]["kernelId"]
    person = Person(jupyterlab, nb)
    try:
        assert person.notebook()["cells"] == [], "the empty cell a room gives a notebook without cells (jupyter-ydoc) is gone"
        inserted = ok(live.call("insert_cell", {"notebook": nb, "cell_type": "markdown", "source": "# Title"}))
        title = inserted[PS]["cellId"]
        person.wait_for(lambda n: title in cell_ids(n))
        ran = ok(live.call("insert_execute_code_cell", {"notebook": nb, "source": "x = 41\nprint('x is', x)\nx + 1"}))
        assert ran[PS]["kernelId"] == kernel_id and ran[PS]["executionCount"] == 1
        run_id = ran[PS]["cell"]["cellId"]
        seen = person.wait_for(lambda n: "42" in output_texts(n["cells"][-1]) and n["cells"][-1]["execution_count"] == 1)
        assert output_texts(seen["cells"][-1]) == "x is 41\n42"
        assert seen["cells"][-1]["execution_count"] == 1

        brief = ok(live.call("read_notebook", {"notebook": nb}))
        assert [c["id"] for c in brief[PS]["cells"]] == cell_ids(person.notebook())
        ok(live.call("read_notebook", {"notebook": nb, "detail": "detailed"}))
        ok(live.call("read_notebook_page", {"notebook": nb}))
        cell = ok(live.call("read_cell", {"notebook": nb, "cell_id": run_id}))
        assert cell[PS]["cell"]["source"].startswith("x = 41")
        ok(live.call("edit_cell_source", {"notebook": nb, "cell_id": title, "old_string": "Title", "new_string": "Live title"}))
        ok(live.call("overwrite_cell_source", {"notebook": nb, "cell_id": run_id, "source": "x = 1\nx * 2"}))
        again = ok(live.call("execute_cell", {"notebook": nb, "cell_id": run_id}))
        assert again[PS]["executionCount"] == 2, "the execution count goes on in the notebook's kernel"
        moved = ok(live.call("move_cell", {"notebook": nb, "cell_id": run_id, "target_index": 0}))
        assert moved[PS]["toIndex"] == 0
        ok(live.call("clear_cell_output", {"notebook": nb, "cell_id": run_id}))
        ok(live.call("list_notebooks", {}))
        ok(live.call("insert_cell", {"notebook": nb, "source": "scratch"}))
        ok(live.call("delete_cell", {"notebook": nb, "cell_index": 2}))
        seen = person.wait_for(lambda n: len(n["cells"]) == 2 and n["cells"][0].get("outputs") == [])
        assert [c["source"] for c in seen["cells"]] == ["x = 1\nx * 2", "# Live title"]
        saved = on_disk(jupyterlab, nb, lambda n: [c.source for c in n.cells] == ["x = 1\nx * 2", "# Live title"])
        assert [c.id for c in saved.cells] == cell_ids(seen)

        restarted = ok(live.call("restart_notebook", {"notebook": nb}))
        assert "session on the Jupyter server" in text(restarted[AC]) and restarted[PS]["kernelId"] == kernel_id
        unused = ok(live.call("unuse_notebook", {"notebook": nb}))
        assert unused[PS]["kernelStopped"] is False and "JupyterLab session" in text(unused[AC])
    finally:
        person.close()
    # The notebook was created through the contents API (no room can be in use for a file that does
    # not exist); every edit after that went through the shared document.
    assert contents_writes(live, log_start) == [nb]
    assert [s["kernel"]["id"] for s in sessions(jupyterlab) if s["path"] == nb] == [kernel_id], "the session stays for the person"


def test_legacy_clients_get_the_same_notebook(jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    notebook_file(jupyterlab.root / "legacy.ipynb", [code("print('hi')", "legacy-1")])
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                                 stateless=False, reaper=reaper)
    try:
        for tool, arguments in [("use_notebook", {"notebook": "legacy.ipynb"}), ("read_notebook", {"notebook": "legacy.ipynb"}),
                                ("read_cell", {"cell_index": 0}),
                                ("execute_cell", {"cell_id": "legacy-1"}), ("insert_cell", {"source": "y = 2"})]:
            result = server.call(tool, arguments).result
            assert not result.get("isError"), (tool, result)
    finally:
        server.close()


# ---- the notebook's own kernel ---------------------------------------------------------------------


def test_runs_go_to_the_notebooks_session_and_share_its_variables(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    notebook_file(jupyterlab.root / "session.ipynb", [code("")])
    # The person opened it first: JupyterLab made a session, and ran code in its kernel.
    response = httpx.post(f"{jupyterlab.url}api/sessions", headers=jupyterlab.auth_headers,
                          json={"path": "session.ipynb", "name": "session.ipynb", "type": "notebook", "kernel": {"name": "python3"}})
    kernel_id = response.json()["kernel"]["id"]
    before = ok(live.call("execute_code", {"code": "1"}))
    assert before[PS]["kernelId"] != kernel_id, "execute_code keeps a kernel of its own"
    # Set a variable in the person's kernel the way their JupyterLab does: its websocket.
    from jupyter_kernel_client import JupyterKernelClient

    with JupyterKernelClient(server_url=jupyterlab.url, token=jupyterlab.token, kernel_id=kernel_id) as person_kernel:
        assert person_kernel.execute("shared = 'set by the person'")["status"] == "ok"
        ran = ok(live.call("insert_execute_code_cell", {"notebook": "session.ipynb", "source": "print(shared)\nagent = 7"}))
        assert ran[PS]["kernelId"] == kernel_id and "set by the person" in text(ran[AC])
        assert ran[PS]["executionCount"] == 2, "it goes on from the person's count"
        back = person_kernel.execute("print(agent)")
        assert "7" in "".join(o.get("text", "") for o in back["outputs"])


def test_a_run_queued_behind_the_persons_failing_run_is_run_not_dropped(live: CheckedClient, jupyterlab: JupyterServerProcess,
                                                                        tmp_path: Path) -> None:
    """The agent asks to run while the person's run fails: its code runs all the same (ipykernel drops, unrun, the
    requests queued behind a failed run; tests/integration/test_run_loop.py stages that exactly)."""
    notebook_file(jupyterlab.root / "queued.ipynb", [code("")])
    response = httpx.post(f"{jupyterlab.url}api/sessions", headers=jupyterlab.auth_headers,
                          json={"path": "queued.ipynb", "name": "queued.ipynb", "type": "notebook", "kernel": {"name": "python3"}})
    kernel_id = response.json()["kernel"]["id"]
    from jupyter_kernel_client import JupyterKernelClient

    begun = tmp_path / "begun"
    with JupyterKernelClient(server_url=jupyterlab.url, token=jupyterlab.token, kernel_id=kernel_id) as person_kernel, \
            ThreadPoolExecutor(1) as person:
        failing = person.submit(person_kernel.execute, f"import time; open({str(begun)!r}, 'w').close(); time.sleep(2); "
                                                       "raise ValueError('by the person')")
        until(begun.exists, "the person's run has begun")
        ran = ok(live.call("insert_execute_code_cell", {"notebook": "queued.ipynb", "source": "print('ran after all')"}))
        assert failing.result(timeout=30)["status"] == "error"
    assert ran[PS]["kernelId"] == kernel_id
    assert text(ran[AC]).strip() == "ran after all", ran.result


def test_a_run_past_its_timeout_in_the_shared_kernel_is_not_interrupted(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    """An interrupt in the person's kernel would also drop the runs they queued after ours: the deadline leaves it running."""
    nb = "not-interrupted.ipynb"
    notebook_file(jupyterlab.root / nb, [])
    slow = live.call("insert_execute_code_cell", {"notebook": nb, "source": "import time\nprint('began', flush=True)\n"
                                                                           "time.sleep(4)\nfinished = True", "timeout": 1})
    assert slow.is_error and slow[PS]["error"]["type"] == "timeout", slow.result
    assert "not interrupted" in text(slow[AC]) and "began" in text(slow[AC])
    after = ok(live.call("insert_execute_code_cell", {"notebook": nb, "source": "print(finished)", "timeout": 60}))
    assert text(after[AC]).strip() == "True", "the slow run went on to its end"


def test_a_notebook_without_a_session_gets_one_the_person_joins_later(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    notebook_file(jupyterlab.root / "fresh-session.ipynb", [code("")])
    ran = ok(live.call("insert_execute_code_cell", {"notebook": "fresh-session.ipynb", "source": "made_by_agent = 1"}))
    ours = [s for s in sessions(jupyterlab) if s["path"] == "fresh-session.ipynb"]
    assert len(ours) == 1 and ours[0]["kernel"]["id"] == ran[PS]["kernelId"]  # type: ignore[index]
    assert ours[0]["type"] == "notebook"


# ---- cell ids are the address -----------------------------------------------------------------------


def test_a_person_inserting_above_does_not_redirect_a_cell_id_edit(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    notebook_file(jupyterlab.root / "above.ipynb", [code("first", "c-first"), code("target = 1", "c-target")])
    ok(live.call("read_notebook", {"notebook": "above.ipynb"}))
    person = Person(jupyterlab, "above.ipynb")
    try:
        person.change(lambda nb: [nb.ycells.insert(0, nb.create_ycell(dict(nbformat.v4.new_markdown_cell(f"person {i}"))))
                                  for i in range(3)])
        ok(live.call("edit_cell_source", {"notebook": "above.ipynb", "cell_id": "c-target", "old_string": "1", "new_string": "2"}))
        seen = person.wait_for(lambda n: any(c["source"] == "target = 2" for c in n["cells"]))
        assert [c["source"] for c in seen["cells"]] == ["person 2", "person 1", "person 0", "first", "target = 2"]
    finally:
        person.close()


# ---- faults -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("held", ["up", "down"], ids=["the-edit-never-arrived", "its-confirmation-was-lost"])
def test_a_dropped_websocket_mid_edit_is_rejoined_and_the_edit_applied_once(
        held: str, jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    nb = f"dropped-{held}.ipynb"
    notebook_file(jupyterlab.root / nb, [code("a = 1", "only")])
    proxy = Proxy(jupyterlab.port)
    server = CheckedClient.serve(tmp_path, "--jupyter-url", proxy.url, "--jupyter-token", jupyterlab.token, stateless=True, reaper=reaper)
    try:
        ok(server.call("read_notebook", {"notebook": nb}))
        assert proxy.room_connections == 2, "a short connection that loads the room (Rooms._prime), then the one that stays"
        proxy.hold(held)
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(server.call, "insert_cell", {"notebook": nb, "source": "inserted once"})
            until(lambda: proxy.kept_back[held], f"the edit's traffic held back ({held})")
            assert not pending.done(), "the edit waits for the server to confirm it"
            proxy.cut_rooms()
            proxy.release()
            inserted = ok(pending.result(timeout=30))
        assert proxy.room_connections == 4, "it joined the room again (loaded by a short connection first, as before)"
        cells = ok(server.call("read_notebook", {"notebook": nb}))[PS]["cells"]
        assert [c["source"] for c in cells] == ["a = 1", "inserted once"]
        assert cells[1]["id"] == inserted[PS]["cellId"]
        saved = on_disk(jupyterlab, nb, lambda n: len(n.cells) == 2)
        assert [c.source for c in saved.cells] == ["a = 1", "inserted once"]
    finally:
        server.close()
        proxy.close()


def test_outputs_that_reached_the_document_stay_when_our_server_dies(own_live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    notebook_file(jupyterlab.root / "dies.ipynb", [code("")])
    person = Person(jupyterlab, "dies.ipynb")
    try:
        with ThreadPoolExecutor(1) as pool:
            pool.submit(own_live.call, "insert_execute_code_cell",
                        {"notebook": "dies.ipynb", "source": "print('streamed before', flush=True)\nimport time\ntime.sleep(60)"})
            person.wait_for(lambda n: "streamed before" in output_texts(n["cells"][-1]), timeout=30)
            own_live.stdio.process.kill()
            own_live.stdio.process.wait(10)
        saved = on_disk(jupyterlab, "dies.ipynb", lambda n: len(n.cells) == 2 and bool(n.cells[1].outputs))
        assert saved.cells[1].outputs[0]["text"] == "streamed before\n"
        assert output_texts(person.notebook()["cells"][-1]) == "streamed before\n"
    finally:
        person.close()


def test_a_person_deleting_the_running_cell_ends_the_run_with_an_error(live: CheckedClient, jupyterlab: JupyterServerProcess) -> None:
    notebook_file(jupyterlab.root / "deleted.ipynb", [code("keep = 1", "keep")])
    person = Person(jupyterlab, "deleted.ipynb")
    try:
        with ThreadPoolExecutor(1) as pool:
            source = "print('start', flush=True)\nimport time\ntime.sleep(2)\nprint('end')"
            pending = pool.submit(live.call, "insert_execute_code_cell", {"notebook": "deleted.ipynb", "source": source})
            running = person.wait_for(lambda n: "start" in output_texts(n["cells"][-1]), timeout=30)
            assert len(running["cells"]) == 2
            person.change(lambda nb: nb.ycells.pop(1))
            out = pending.result(timeout=30)
        assert out.is_error and out[PS]["error"]["type"] == "not-found"
        assert "was deleted" in text(out[AC]) and "end" in text(out[AC]), "the outputs come back in the result"
        # A marker edit after the run: the server's edits reach the document in order, so an output it put into
        # another cell would be there before the marker.
        ok(live.call("insert_cell", {"notebook": "deleted.ipynb", "source": "marker", "cell_index": 1}))
        person.wait_for(lambda n: len(n["cells"]) == 2 and n["cells"][1]["source"] == "marker", timeout=30)
        assert person.notebook()["cells"][:1] == [{**person.notebook()["cells"][0], "outputs": []}], "no output went into another cell"
    finally:
        person.close()


def test_two_clients_of_ours_and_a_person_at_once_lose_nothing(live: CheckedClient, jupyterlab: JupyterServerProcess, tmp_path: Path,
                                                               reaper: Reaper) -> None:
    nb = "three-writers.ipynb"
    notebook_file(jupyterlab.root / nb, [code("shared = ''", "shared")])
    other = CheckedClient.serve(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                                stateless=True, reaper=reaper)
    servers = [live, other]  # two processes, each with its own copy of the room
    person = Person(jupyterlab, nb)
    rounds = 15
    try:
        def agent(n: int) -> None:
            for i in range(rounds):
                ok(servers[n].call("insert_cell", {"notebook": nb, "source": f"agent{n}-{i}", "cell_index": -1}))
                ok(servers[n].call("edit_cell_source",
                                   {"notebook": nb, "cell_id": "shared", "old_string": "''", "new_string": f"'' + 'a{n}{i}'"}))

        def typist() -> None:
            for i in range(rounds):
                person.change(lambda doc, i=i: doc.ycells.append(doc.create_ycell(dict(nbformat.v4.new_markdown_cell(f"person-{i}")))))
                person.change(lambda doc, i=i: doc.ycells[0]["source"].insert(0, f"#p{i} "))

        with ThreadPoolExecutor(3) as pool:
            for future in [pool.submit(agent, 0), pool.submit(agent, 1), pool.submit(typist)]:
                future.result(timeout=240)
        expected = {f"agent{n}-{i}" for n in range(2) for i in range(rounds)} | {f"person-{i}" for i in range(rounds)}
        marks = [f"#p{i} " for i in range(rounds)] + [f"'a{n}{i}'" for n in range(2) for i in range(rounds)]

        def lost(notebook: dict[str, Any]) -> list[str]:
            """What the person's copy lacks. An agent's last edit follows its last insert, so the copy can hold every
            cell a moment before it holds every mark: wait for both (CI once read 'a114' lost that way)."""
            shared = notebook["cells"][0]["source"]
            return sorted(expected - {c["source"] for c in notebook["cells"]}) + [m for m in marks if m not in shared]

        try:
            final = person.wait_for(lambda n: not lost(n), timeout=20)
        except AssertionError:
            pytest.fail(f"lost, 20 s after the last call returned: {lost(person.notebook())}")
        sources = [c["source"] for c in final["cells"]]
        assert len(sources) == len(set(sources)) == len(expected) + 1, "no cell lost, none twice"
        assert sum(final["cells"][0]["source"].count(m) for m in marks) == len(marks), "no mark twice in the shared cell"
        for server in servers:
            read = ok(server.call("read_notebook", {"notebook": nb, "limit": 100}))
            assert [c["id"] for c in read[PS]["cells"]] == cell_ids(final)
    finally:
        person.close()
        other.close()


def test_a_restarted_jupyterlab_is_joined_afresh_without_duplicates(tmp_path: Path, reaper: Reaper) -> None:
    from support.jupyter import jupyterlab_server

    lab = jupyterlab_server(tmp_path / "lab")
    lab.start()
    nb = "restarted.ipynb"
    notebook_file(lab.root / nb, [code("one", "one"), code("two", "two")])
    server = CheckedClient.serve(tmp_path, "--jupyter-url", lab.url, "--jupyter-token", lab.token, stateless=True, reaper=reaper)
    try:
        ok(server.call("insert_cell", {"notebook": nb, "source": "three"}))
        on_disk(lab, nb, lambda n: len(n.cells) == 3)
        lab.stop()
        lab.restart()
        after = ok(server.call("insert_cell", {"notebook": nb, "source": "four"}))
        cells = ok(server.call("read_notebook", {"notebook": nb}))[PS]["cells"]
        assert [c["source"] for c in cells] == ["one", "two", "three", "four"], "the copy from before the restart was not merged"
        assert cells[-1]["id"] == after[PS]["cellId"]
        on_disk(lab, nb, lambda n: [c.source for c in n.cells] == ["one", "two", "three", "four"])
    finally:
        server.close()
        lab.stop()


def test_jupyterlab_stops_on_sigterm_while_our_server_is_live_in_it(tmp_path: Path, reaper: Reaper) -> None:
    """A room's first connection loads it in its own task, and the worker thread of that read lives as long as the
    task: a connection of ours still open at SIGTERM kept JupyterLab from exiting (live/rooms.py, Rooms._prime)."""
    from support.jupyter import jupyterlab_server

    lab = jupyterlab_server(tmp_path / "lab")
    lab.start()
    server = CheckedClient.serve(tmp_path, "--jupyter-url", lab.url, "--jupyter-token", lab.token, stateless=True, reaper=reaper)
    try:
        opened = ok(server.call("use_notebook", {"notebook": "stops.ipynb", "create": True}))
        assert "Live in JupyterLab" in text(opened[AC])
        ok(server.call("insert_execute_code_cell", {"notebook": "stops.ipynb", "source": "print('live')"}))
        lab.process.send_signal(signal.SIGTERM)
        try:
            lab.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pytest.fail("JupyterLab did not stop within 10 s of SIGTERM while our server was in its room and kernel")
    finally:
        server.close()
        lab.stop()


# ---- sandboxes ---------------------------------------------------------------------------------------


def test_a_sandbox_is_a_live_jupyterlab(tmp_path: Path, reaper: Reaper) -> None:
    server = CheckedClient.serve(tmp_path, stateless=False, reaper=reaper)
    try:
        launched = server.call("launch_sandbox")
        record = launched[AS]["sandbox"]
        reaper.watch(record["pid"])
        sandbox = TokenEndpoint(record["url"], (Path(record["root"]).parent / "token").read_text())
        assert f"watch its notebooks live at {record['url']}lab" in text(launched[AC])
        assert httpx.get(f"{record['url']}lab", headers=sandbox.auth_headers, timeout=30).status_code == 200
        server.call("use_sandbox", {"sandbox_id": record["id"]})
        opened = server.call("use_notebook", {"notebook": "in-sandbox.ipynb", "create": True})
        assert "Live in JupyterLab" in text(opened[AC])
        person = Person(sandbox, "in-sandbox.ipynb")
        try:
            server.call("insert_execute_code_cell", {"source": "print('from the agent')"})
            person.wait_for(lambda n: "from the agent" in output_texts(n["cells"][-1]))
        finally:
            person.close()
    finally:
        server.close()
    server.assert_secret_kept(sandbox.token)


# ---- without collaboration --------------------------------------------------------------------------


def test_without_collaboration_use_notebook_says_edits_are_not_live(jupyter: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token, stateless=True, reaper=reaper)
    try:
        opened = ok(server.call("use_notebook", {"notebook": "rest.ipynb", "create": True}))
        assert "will not appear live" in text(opened[AC])
        inserted = ok(server.call("insert_cell", {"notebook": "rest.ipynb", "source": "x"}))
        assert "live" not in text(inserted[AC]), "said once, in use_notebook"
        assert nbformat.read(jupyter.root / "rest.ipynb", as_version=4).cells[0].source == "x", "written through the contents API"
    finally:
        server.close()


# ---- the conformance suite, through a collaborative JupyterLab --------------------------------------


def test_mcp_variants_check_passes_through_a_collaborative_jupyterlab(jupyterlab: JupyterServerProcess, tmp_path: Path) -> None:
    """The SEP-3279 server scenarios, the tools bound to live notebooks (their calls go through rooms)."""
    notebook_file(jupyterlab.root / "checked.ipynb", [code("print('checked')", "checked-cell")])
    command = shlex.join(serve_command(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token))
    card = tmp_path / "scorecard.json"
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-cmd", command, "--kind", "server", "-q",
                           "--no-default-calls", "--scorecard", str(card),
                           "--call", 'read_notebook={"notebook": "checked.ipynb"}',
                           "--call", 'read_cell={"notebook": "checked.ipynb", "cell_id": "checked-cell"}',
                           "--call", 'execute_cell={"notebook": "checked.ipynb", "cell_id": "checked-cell"}',
                           "--call", 'insert_cell={"notebook": "checked.ipynb", "source": "# by the suite"}',
                           "--error-call", 'read_cell={"notebook": "checked.ipynb", "cell_index": 99}'],
                          check=False, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    scorecard = json.loads(card.read_text())
    assert scorecard["totals"]["fail"] == 0 and scorecard["totals"]["pass"] >= 30, scorecard["totals"]
    called = {t["name"] for t in scorecard["tools"] if t["called"] and not t["failed"]}
    assert {"read_notebook", "read_cell", "execute_cell", "insert_cell"} <= called, f"the scenarios ran every named tool: {called}"
