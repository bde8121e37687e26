"""The agent a person sees in a live notebook: each MCP client of ours in the room's awareness by its own name, on
the cell it runs, and in the global room JupyterLab's collaborators panel lists, until its session ends; nothing
of it in the file. What the rooms say is heard by `support.awareness.Watcher` (pycrdt's Awareness, nothing of ours);
the browser test in tests/apps/test_jupyterlab_live.py shows the same in JupyterLab itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest
from pycrdt import Assoc, StickyIndex

from mcp_variants.client.stdio import envelope
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.awareness import GLOBAL_ROOM, Watcher, notebook_room
from support.checked import AC, OUTPUTS_VERSION, CheckedClient, Outputs
from support.checked import text_of as text
from support.person import Person
from support.processes import Reaper

pytestmark = pytest.mark.timeout(300)
CLAUDE = {"name": "claude-ai", "title": "Claude Desktop", "version": "1"}
CURSOR = {"name": "cursor-vscode", "version": "2"}
SHOWN_AT_LEAST_S = 2.0  # live/presence.py: a cell's mark stays this long at least


def notebook(lab: JupyterServerProcess, name: str, cells: list[tuple[str, str]]) -> str:
    document = nbformat.v4.new_notebook()
    document.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    document.cells = [nbformat.from_dict({**nbformat.v4.new_code_cell(source), "id": cell_id}) for cell_id, source in cells]
    (lab.root / name).write_text(nbformat.writes(document))
    return name


def session(lab: JupyterServerProcess, root: Path, reaper: Reaper, client_info: dict[str, Any], *extra: str) -> CheckedClient:
    """A client of ours with a session (2025-11-25 over stdio), saying who it is in initialize."""
    root.mkdir(exist_ok=True)
    return CheckedClient.serve(root, "--jupyter-url", lab.url, "--jupyter-token", lab.token, *extra, stateless=False, reaper=reaper,
                  client_info=client_info)


@pytest.fixture
def watchers(jupyterlab: JupyterServerProcess) -> Iterator[dict[str, Watcher]]:
    opened: dict[str, Watcher] = {}
    yield opened
    for watcher in opened.values():
        watcher.close()


def named(states: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [s for s in states if (s.get("user") or {}).get("display_name") == name]


def ok(out: Outputs) -> Outputs:
    assert not out.is_error, out.result
    return out


def test_a_client_is_seen_by_its_name_on_the_cell_it_runs_until_its_session_ends(
        jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper, watchers: dict[str, Watcher]) -> None:
    name = notebook(jupyterlab, "presence.ipynb", [("quick", "x = 1"), ("slow", "import time\ntime.sleep(3)\nprint('slept')")])
    watchers["room"] = room = Watcher(jupyterlab, notebook_room(jupyterlab, name))
    watchers["lobby"] = lobby = Watcher(jupyterlab, GLOBAL_ROOM)
    person = Person(jupyterlab, name)
    agent = "Claude Desktop via mcp-variants"
    server = session(jupyterlab, tmp_path, reaper, CLAUDE)
    try:
        assert not room.named(agent) and not lobby.named(agent), "not there before it works"
        with ThreadPoolExecutor(1) as pool:
            run = pool.submit(server.call, "execute_cell", {"notebook": name, "cell_id": "slow"})
            marked = room.wait(lambda states: any(s.get("cursors") for s in named(states, agent)), timeout=30)
            state = next(s for s in named(marked, agent) if s.get("cursors"))
            assert not run.done(), "marked while it runs"
            user = state["user"]
            assert user["name"] == agent and user["initials"] == "CD" and user["color"].startswith("#")
            assert user["username"].startswith("mcp-variants-"), "never taken for the person looking"
            source = person.notebook_doc.ycells[1]["source"]
            whole = [StickyIndex.new(source, 0, Assoc.AFTER).to_json()["item"],
                     StickyIndex.new(source, len(source), Assoc.BEFORE).to_json()["item"]]
            cursor = state["cursors"][0]
            assert [cursor["anchor"]["item"], cursor["head"]["item"]] == whole, "the whole of the running cell selected"
            listed = lobby.wait(lambda states: bool(named(states, agent)), timeout=10)
            assert [s["documents"] for s in named(listed, agent)] == [[f"RTC:{name}"]]
            assert "slept" in text(ok(run.result(timeout=60))[AC])
        room.wait(lambda states: [s.get("cursors") for s in named(states, agent)] == [[]], timeout=SHOWN_AT_LEAST_S + 10)
        assert room.named(agent) and lobby.named(agent), "still among the collaborators while its session lasts"
    finally:
        server.close()
        person.close()
    room.wait(lambda states: not named(states, agent), timeout=10)
    lobby.wait(lambda states: not named(states, agent), timeout=10)
    assert "mcp-variants" not in (jupyterlab.root / name).read_text(), "nothing of it in the file"


def test_two_clients_are_two_collaborators_each_by_its_own_name(
        jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper, watchers: dict[str, Watcher]) -> None:
    name = notebook(jupyterlab, "two-agents.ipynb", [("a", "a = 1"), ("b", "b = 2")])
    watchers["room"] = room = Watcher(jupyterlab, notebook_room(jupyterlab, name))
    claude = session(jupyterlab, tmp_path / "one", reaper, CLAUDE)
    cursor = session(jupyterlab, tmp_path / "two", reaper, CURSOR, "--agent-name", "{client} (agent)")
    try:
        ok(claude.call("overwrite_cell_source", {"notebook": name, "cell_id": "a", "source": "a = 10"}))
        ok(cursor.call("overwrite_cell_source", {"notebook": name, "cell_id": "b", "source": "b = 20"}))
        states = room.wait(lambda states: bool(named(states, "Claude Desktop via mcp-variants") and
                                               named(states, "cursor-vscode (agent)")))
        users = {s["user"]["display_name"]: s["user"] for s in states if "user" in s}
        assert users["Claude Desktop via mcp-variants"]["username"] != users["cursor-vscode (agent)"]["username"]
    finally:
        claude.close()
    room.wait(lambda states: not named(states, "Claude Desktop via mcp-variants") and bool(named(states, "cursor-vscode (agent)")))
    cursor.close()
    room.wait(lambda states: not named(states, "cursor-vscode (agent)"))


def test_a_person_who_opens_the_notebook_later_sees_the_agent_at_once(
        jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper, watchers: dict[str, Watcher]) -> None:
    """A room passes awareness on but keeps none: someone who joins after the agent said who it is hears it when it
    next renews (every 10 s), or at once, since the agent answers a newcomer's first state with its own."""
    name = notebook(jupyterlab, "later.ipynb", [("a", "a = 1")])
    room = notebook_room(jupyterlab, name)
    server = session(jupyterlab, tmp_path, reaper, CLAUDE)
    try:
        ok(server.call("overwrite_cell_source", {"notebook": name, "cell_id": "a", "source": "a = 2"}))
        watchers["later"] = later = Watcher(jupyterlab, room)
        # What the room would send a newcomer, it sends as it greets it: once greeted, what is not there was not kept.
        assert later.greeted.wait(30), "the room's sync step 1"
        assert not later.named("Claude Desktop via mcp-variants"), "nothing kept for newcomers"
        began = time.monotonic()
        later.announce({"user": {"username": "ada", "name": "Ada", "display_name": "Ada"}})
        later.wait(lambda states: bool(named(states, "Claude Desktop via mcp-variants")), timeout=5)
        assert time.monotonic() - began < 5, "before the next renewal"
    finally:
        server.close()


def test_a_stateless_request_is_seen_by_the_client_info_it_carries(
        jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper, watchers: dict[str, Watcher]) -> None:
    """At 2026-07-28 and later a request says who sends it in its own `_meta` (no initialize): that name is shown."""
    name = notebook(jupyterlab, "stateless.ipynb", [("a", "a = 1")])
    watchers["room"] = room = Watcher(jupyterlab, notebook_room(jupyterlab, name))
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                                 stateless=True, reaper=reaper)
    try:
        meta = {**envelope(OUTPUTS_VERSION), "io.modelcontextprotocol/clientInfo": {"name": "zed", "title": "Zed", "version": "1"}}
        result = server.request("tools/call", {"name": "overwrite_cell_source", "_meta": meta,
                                               "arguments": {"notebook": name, "cell_id": "a", "source": "a = 2"}})["result"]
        assert not result.get("isError"), result
        room.wait(lambda states: bool(named(states, "Zed via mcp-variants")))
    finally:
        server.close()
    room.wait(lambda states: not named(states, "Zed via mcp-variants"))


def apart(states: list[dict[str, Any]], agents: tuple[str, str]) -> bool:
    """Both agents are in the room, each in a colour of its own."""
    found = [named(states, f"{who} via mcp-variants") for who in agents]
    return all(found) and found[0][0]["user"]["color"] != found[1][0]["user"]["color"]


def test_two_agents_working_at_once_never_share_a_colour(
        jupyterlab: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    """Twenty pairings of two agents of two servers editing one notebook at the same moment (each a stateless request,
    so each an agent of its own, with a colour it prefers of its own): in each room, once both are there, each shows
    a colour of its own (the one with the higher client id moves when they met in one)."""
    for side in ("left", "right"):
        (tmp_path / side).mkdir()
    servers = [CheckedClient.serve(tmp_path / side, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token,
                                   stateless=True, reaper=reaper) for side in ("left", "right")]

    def edit(server: CheckedClient, name: str, cell: str, who: str) -> None:
        meta = {**envelope(OUTPUTS_VERSION), "io.modelcontextprotocol/clientInfo": {"name": who, "version": "1"}}
        result = server.request("tools/call", {"name": "overwrite_cell_source", "_meta": meta,
                                               "arguments": {"notebook": name, "cell_id": cell, "source": f"{cell} = 2"}})["result"]
        assert not result.get("isError"), result

    try:
        with ThreadPoolExecutor(2) as pool:
            for pairing in range(20):
                name = notebook(jupyterlab, f"colours-{pairing}.ipynb", [("a", "a = 1"), ("b", "b = 1")])
                room = Watcher(jupyterlab, notebook_room(jupyterlab, name))
                try:
                    agents = (f"left-{pairing}", f"right-{pairing}")
                    edits = [pool.submit(edit, server, name, cell, who) for server, cell, who in zip(servers, "ab", agents, strict=True)]
                    for done in edits:
                        done.result(timeout=120)
                    room.wait(lambda states, agents=agents: apart(states, agents))
                finally:
                    room.close()
    finally:
        for server in servers:
            server.close()
