"""The extension inside a real JupyterLab with real-time collaboration: the agent edits the rooms' own
shared documents in process (jupyter-server-ydoc's), and runs in the notebook's session kernel.

The person is `support.person.Person`, a Yjs client of its own in the room, as JupyterLab is. What the
person types while the agent edits and runs stays; what the agent does reaches the person as it is
made; the room saves the file.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from mcp_variants.jupyter.runtime import COLOURS
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.awareness import GLOBAL_ROOM, Watcher, notebook_room
from support.checked import CheckedClient, text_of
from support.extension import ENDPOINT, extension_server
from support.jupyter import on_disk, sessions
from support.person import Person, cell_ids, output_texts

from .test_live_notebooks import code, notebook_file

pytestmark = pytest.mark.timeout(300)
AC, PS = "assistant/content", "programmatic/structured"


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    with extension_server(tmp_path_factory.mktemp("lab-extension"), lab=True).start(90) as process:
        yield process


@pytest.fixture(scope="module")
def client(lab: JupyterServerProcess) -> Iterator[CheckedClient]:
    with CheckedClient.http(lab.url + ENDPOINT, lab.auth_headers) as client:
        yield client


def ok(outputs: dict) -> dict:  # type: ignore[type-arg]
    assert not outputs.result.get("isError"), outputs.result  # type: ignore[attr-defined]
    return outputs


def test_the_agent_edits_the_room_and_what_the_person_types_meanwhile_stays(client: CheckedClient, lab: JupyterServerProcess) -> None:
    notebook_file(lab.root / "together.ipynb", [code("x = 6", "first")])
    person = Person(lab, "together.ipynb")
    typed: list[str] = []
    stop = threading.Event()

    def type_along() -> None:  # the person keeps typing into the first cell while the agent works
        while not stop.is_set() and len(typed) < 40:
            char = f"#{len(typed)}"
            person.change(lambda nb, c=char: nb.ycells[0]["source"].insert(len(str(nb.ycells[0]["source"])), c))
            typed.append(char)

    typist = threading.Thread(target=type_along)
    typist.start()
    try:
        opened = ok(client.call("use_notebook", {"notebook": "together.ipynb"}))
        assert "Live in JupyterLab" in text_of(opened[AC]), opened[AC]
        added = ok(client.call("insert_cell", {"notebook": "together.ipynb", "cell_index": 1, "cell_type": "markdown",
                                               "source": "# by the agent"}))
        person.wait_for(lambda n: added[PS]["cellId"] in cell_ids(n))
        ran = ok(client.call("insert_execute_code_cell", {"notebook": "together.ipynb", "cell_index": 2, "source": "print(6 * 7)"}))
        assert "42" in text_of(ran[AC])
        # The output and the execution count reach the page as two changes: wait for both (a count never set times out).
        seen = person.wait_for(lambda n: len(n["cells"]) == 3 and "42" in output_texts(n["cells"][2])
                               and n["cells"][2]["execution_count"] is not None)
        assert seen["cells"][2]["execution_count"] == ran[PS]["executionCount"]
    finally:
        stop.set()
        typist.join(30)
    try:
        final = person.wait_for(lambda n: str(n["cells"][0]["source"]).endswith(typed[-1]))
        assert final["cells"][0]["source"] == "x = 6" + "".join(typed), "every character the person typed is there, in order"
        read = ok(client.call("read_cell", {"notebook": "together.ipynb", "cell_id": "first"}))
        assert read[PS]["cell"]["source"] == final["cells"][0]["source"], "the agent reads the room, the person's typing included"
        saved = on_disk(lab, "together.ipynb", lambda n: len(n.cells) == 3 and n.cells[0].source == final["cells"][0]["source"])
        assert saved.cells[1].source == "# by the agent" and "42" in saved.cells[2].outputs[0]["text"]
        session = next(s for s in sessions(lab) if s["path"] == "together.ipynb")
        assert session["kernel"]["id"] == ran[PS]["kernelId"], "the agent runs in the notebook's session kernel"
    finally:
        person.close()


def test_a_person_deleting_the_cell_the_agent_runs_ends_the_run_cleanly(client: CheckedClient, lab: JupyterServerProcess) -> None:
    notebook_file(lab.root / "gone.ipynb", [code("import time\nfor i in range(30):\n    print(i, flush=True); time.sleep(0.1)", "runs")])
    person = Person(lab, "gone.ipynb")
    try:
        done: dict = {}  # type: ignore[type-arg]
        arguments = {"notebook": "gone.ipynb", "cell_id": "runs"}
        runner = threading.Thread(target=lambda: done.update(out=client.call("execute_cell", arguments)))
        runner.start()
        person.wait_for(lambda n: "3" in output_texts(n["cells"][0]))  # its outputs reach the room as they come
        person.change(lambda nb: nb.ycells.pop(0))
        runner.join(60)
        assert "out" in done
        assert person.notebook()["cells"] == [], "nothing is written back into a cell the person deleted"
    finally:
        person.close()


def test_the_agent_is_seen_on_the_cell_it_runs_as_through_a_websocket(client: CheckedClient, lab: JupyterServerProcess) -> None:
    """In process as through --jupyter-url (test_live_presence.py): the agent is in the notebook room's awareness by its
    client's name, with a colour, its selection on the cell it runs while it runs, cleared after; and in the global
    room, where JupyterLab's collaborators panel lists it with the notebook it works in."""
    notebook_file(lab.root / "seen.ipynb", [code("import time\ntime.sleep(2)\nseen = 1", "slow")])
    room = Watcher(lab, notebook_room(lab, "seen.ipynb"))
    lobby = Watcher(lab, GLOBAL_ROOM)

    def agents(states: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [s for s in states if str((s.get("user") or {}).get("username", "")).startswith("mcp-variants-")]

    try:
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(client.call, "execute_cell", {"notebook": "seen.ipynb", "cell_id": "slow"})
            marked = room.wait(lambda states: any(a.get("cursors") for a in agents(states)), timeout=60)
            (agent,) = agents(marked)
            assert agent["user"]["display_name"].endswith("via mcp-variants") and agent["user"]["color"] in COLOURS
            listed = lobby.wait(lambda states: any("RTC:seen.ipynb" in a.get("documents", []) for a in agents(states)), timeout=30)
            assert [a["user"]["username"] for a in agents(listed)] == [agent["user"]["username"]], "the same agent"
            ok(running.result(timeout=120))
        room.wait(lambda states: bool(agents(states)) and not any(a.get("cursors") for a in agents(states)), timeout=30)
    finally:
        room.close()
        lobby.close()
