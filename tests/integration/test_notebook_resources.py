"""Notebooks as MCP resources, and subscriptions to them, on real servers: listed, read, and
`notifications/resources/updated` when someone else changes one (debounced; a client's own edits
not echoed back), at the handshake versions (resources/subscribe, stdio and HTTP sessions) and
at 2026-07-28 and later (subscriptions/listen).

Embedded notebooks change through our own server (another client); live notebooks also when a
person types in JupyterLab (support.person.Person, in the shared document).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest

from mcp_variants.client.stdio import StdioConnection, envelope
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.server.subscriptions import CEILING_S
from mcp_variants.sse import read_sse
from support.checked import LEGACY_VERSION, OUTPUTS_VERSION, CheckedClient
from support.person import Person
from support.servers import HttpServer, serve_stdio
from support.waiting import until

from .conftest import code, write_notebook

pytestmark = pytest.mark.timeout(240)
UPDATED = "notifications/resources/updated"


def uri(path: str) -> str:
    return f"notebook:///{path}"


def handshake(root: Path, *extra: str) -> StdioConnection:
    connection = serve_stdio(root, *extra)
    assert connection.initialize(LEGACY_VERSION)["result"]["capabilities"]["resources"]["subscribe"] is True
    return connection


def updates_until(connection: StdioConnection, last: str, timeout: float = 30) -> list[str]:
    """The URIs of the resource updates the server sends up to and including the first for `last`, the test's marker.

    Each URI has its own debounce of the same quiet time, so an update that a change made before the marker's own
    would cause comes before the marker's: what is absent here was not sent."""
    heard: list[str] = []
    while not heard or heard[-1] != last:
        message = connection.notification(UPDATED, timeout)
        assert message is not None, f"no update for {last} within {timeout:g} s; heard {heard}"
        heard.append(message["params"]["uri"])
    return heard


@pytest.fixture
def notebooks(tmp_path: Path) -> Path:
    write_notebook(tmp_path / "top.ipynb", [code("x = 1")])
    write_notebook(tmp_path / "sub" / "deeper" / "inner.ipynb", [code("y = 2")])
    (tmp_path / "notes.txt").write_text("not a notebook")
    return tmp_path


# ---- listed and read ---------------------------------------------------------------------------------


def test_notebooks_are_listed_and_read_at_every_era(notebooks: Path) -> None:
    with handshake(notebooks) as connection:
        listed = connection.request("resources/list", {})["result"]["resources"]
        mine = {r["uri"]: r for r in listed if r["uri"].startswith("notebook:")}
        assert set(mine) == {uri("top.ipynb"), uri("sub/deeper/inner.ipynb")}
        assert mine[uri("top.ipynb")]["mimeType"] == "application/x-ipynb+json"
        assert [t["uriTemplate"] for t in connection.request("resources/templates/list", {})["result"]["resourceTemplates"]] == [
            "notebook:///{+path}", "mcp-variants://runs/{run}/outputs/{index}", "cell-output:///{+path}/cells/{cell}/outputs/{index}"]
        (content,) = connection.request("resources/read", {"uri": uri("sub/deeper/inner.ipynb")})["result"]["contents"]
        notebook = nbformat.from_dict(json.loads(content["text"]))
        nbformat.validate(notebook)
        assert notebook.cells[0].source == "y = 2" and content["uri"] == uri("sub/deeper/inner.ipynb")
        for bad, kind in [(uri("missing.ipynb"), "not-found"), ("notebook:///../out.ipynb", None), ("notebook:///notes.txt", None)]:
            error = connection.request("resources/read", {"uri": bad})["error"]
            assert error["code"] == -32602, (bad, error)
            if kind:
                assert error["data"]["type"] == kind
        # At 2026-12-01, stateless: the same notebook, with the cache hints a stateless read carries.
        read = connection.request("resources/read", {"uri": uri("top.ipynb"), "_meta": envelope(OUTPUTS_VERSION)})
        assert "error" in read, "a connection's era is fixed by its first request (the handshake)"
    with serve_stdio(notebooks) as stateless:
        result = stateless.request("resources/read", {"uri": uri("top.ipynb"), "_meta": envelope(OUTPUTS_VERSION)})["result"]
        assert result["resultType"] == "complete" and result["ttlMs"] == 0 and result["cacheScope"] == "private"
        assert json.loads(result["contents"][0]["text"])["cells"][0]["source"] == "x = 1"
        refused = stateless.request("resources/subscribe", {"uri": uri("top.ipynb"), "_meta": envelope(OUTPUTS_VERSION)})
        assert "error" in refused, "no resources/subscribe without a session: subscriptions/listen instead"
        discovered = stateless.request("server/discover", {"_meta": envelope(OUTPUTS_VERSION)})["result"]
        assert discovered["capabilities"]["resources"] == {"listChanged": False, "subscribe": True}


# ---- subscriptions on the embedded runtime ---------------------------------------------------------------


class EventStream:
    """A response's event stream (a session's GET stream, a subscriptions/listen POST), read in a thread while it stays
    open, which conformance.wire.HttpTarget, reading each answer to its end, does not do."""

    def __init__(self, client: httpx.Client, response: httpx.Response) -> None:
        self.client, self.response = client, response
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream"), response
        self.messages: list[Any] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    @classmethod
    def standalone(cls, server: HttpServer, headers: dict[str, str]) -> EventStream:
        """The session's GET stream, where its notifications go."""
        client = httpx.Client(timeout=httpx.Timeout(60, read=None))
        return cls(client, client.send(client.build_request("GET", server.url, headers={**headers, "Accept": "text/event-stream"}),
                                       stream=True))

    def _read(self) -> None:
        """Each event as it ends (read_sse parses it), so what came is there even while the stream stays open."""
        event: list[bytes] = []
        pending = b""
        with contextlib.suppress(Exception):  # closed under it: the stream ends here
            for chunk in self.response.iter_raw():
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    event.append(line + b"\n")
                    if not line.strip():
                        self.messages += read_sse(event)[0]
                        event = []

    def close(self) -> list[Any]:
        self.response.close()
        self.client.close()
        return list(self.messages)


def test_an_http_session_hears_of_other_clients_edits_not_its_own(notebooks: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    server = HttpServer(notebooks, log=tmp_path_factory.mktemp("http-logs") / "server.log")
    top, marker = uri("top.ipynb"), uri("sub/deeper/inner.ipynb")
    try:
        watcher, editor = (CheckedClient.http(server.url, stateless=False) for _ in range(2))
        stream = EventStream.standalone(server, watcher.session_headers)
        for subscribed in (top, marker):
            assert watcher.request("resources/subscribe", {"uri": subscribed})["result"] == {}

        def heard(count: int) -> list[str]:
            """The URIs told so far, once the marker notebook has been told `count` times."""
            told = [m["params"]["uri"] for m in stream.messages if m.get("method") == UPDATED]
            return told if told.count(marker) >= count else []

        def mark() -> None:
            editor.call("insert_cell", {"notebook": "sub/deeper/inner.ipynb", "source": "the marker"})

        watcher.call("insert_cell", {"notebook": "top.ipynb", "source": "by the watcher itself"})
        mark()
        assert until(lambda: heard(1), "the marker's update") == [marker], "the watcher's own edit is not told to it"
        # Sent together, so that they come within the debounce's quiet time of each other, as a burst does.
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda source: editor.call("insert_cell", {"notebook": "top.ipynb", "source": source}),
                          ["by another client", "and again, at once"]))
        until(lambda: top in heard(1), "the other client's edits told")
        mark()
        assert until(lambda: heard(2), "the marker's second update") == [marker, top, marker], "one update for the two edits"
        watcher.request("resources/unsubscribe", {"uri": top})
        editor.call("insert_cell", {"notebook": "top.ipynb", "source": "after the unsubscribe"})
        mark()
        assert until(lambda: heard(3), "the marker's third update") == [marker, top, marker, marker], "none after unsubscribing"
        assert all(m == {"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": m["params"]["uri"]}}
                   for m in stream.close() if m.get("method") == UPDATED)
    finally:
        server.close()


def test_a_cell_output_subscriber_hears_another_clients_run(notebooks: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A cell output resource (docs/choices.md "Outputs as resources") watches its notebook: another client running
    the cell is a notification with the output's URI, and a read then has the new output."""
    server = HttpServer(notebooks, log=tmp_path_factory.mktemp("http-logs") / "server.log")
    try:
        watcher, runner = (CheckedClient.http(server.url, stateless=False) for _ in range(2))
        cell_id = json.loads((notebooks / "top.ipynb").read_text())["cells"][0]["id"]
        output = f"cell-output:///top.ipynb/cells/{cell_id}/outputs/0"
        stream = EventStream.standalone(server, watcher.session_headers)
        assert watcher.request("resources/subscribe", {"uri": output})["result"] == {}
        runner.call("overwrite_cell_source", {"notebook": "top.ipynb", "cell_index": 0, "source": "print('ran by another')"})
        runner.call("execute_cell", {"notebook": "top.ipynb", "cell_index": 0})
        until(lambda: any(m.get("method") == UPDATED for m in stream.messages), "the run told to the output's subscriber")
        heard = [m for m in stream.close() if m.get("method") == UPDATED]
        assert all(m["params"] == {"uri": output} for m in heard), heard
        (content,) = watcher.request("resources/read", {"uri": output})["result"]["contents"]
        assert content == {"uri": output, "mimeType": "text/plain", "text": "ran by another\n"}
    finally:
        server.close()


# ---- subscriptions on a live notebook -------------------------------------------------------------------


@pytest.fixture
def live_notebook(jupyterlab: JupyterServerProcess, request: pytest.FixtureRequest) -> Iterator[str]:
    path = f"{request.node.name.split('[')[0][5:40]}.ipynb"
    write_notebook(jupyterlab.root / path, [{**code("typed = ''"), "id": "the-cell"}])
    yield path


def test_a_person_typing_is_a_few_notifications_not_one_per_key(jupyterlab: JupyterServerProcess, live_notebook: str,
                                                                tmp_path: Path) -> None:
    server = ("--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token)
    marker_path = live_notebook.replace(".ipynb", "-marker.ipynb")
    write_notebook(jupyterlab.root / marker_path, [code("marker = 0")])
    typed, marker = uri(live_notebook), uri(marker_path)
    with handshake(tmp_path, *server) as connection, serve_stdio(tmp_path, *server) as other:
        for subscribed in (typed, marker):
            assert connection.request("resources/subscribe", {"uri": subscribed})["result"] == {}

        def mark() -> list[str]:
            """The updates told before another client's edit of the marker notebook is."""
            inserted = other.request("tools/call", {"name": "insert_cell", "arguments": {"notebook": marker_path, "source": "marked"},
                                                    "_meta": envelope(OUTPUTS_VERSION)})
            assert not inserted["result"].get("isError")
            return updates_until(connection, marker)[:-1]

        def server_sees(text: str) -> None:
            """Until the person's edits, which reach the server through JupyterLab, are in the server's notebook."""
            def source() -> str:
                (content,) = connection.request("resources/read", {"uri": typed})["result"]["contents"]
                return str(json.loads(content["text"])["cells"][0]["source"])

            until(lambda: text in source(), f"the server sees {text!r}")

        person = Person(jupyterlab, live_notebook)
        try:
            person.change(lambda nb: nb.ycells[0]["source"].insert(0, "# one change\n"))
            server_sees("# one change")
            assert mark() == [typed]
            began = time.monotonic()
            for _ in range(40):  # a person's pace, a key every 50 ms: the burst the debounce is for
                person.change(lambda nb: nb.ycells[0]["source"].insert(0, "k"))
                time.sleep(0.05)
            typed_for = time.monotonic() - began
            server_sees("k" * 40)
            heard = mark()
            assert set(heard) == {typed} and len(heard) <= typed_for / CEILING_S + 2, (
                f"{len(heard)} notifications for 40 keys in {typed_for:.1f} s")
            ran = connection.request("tools/call", {"name": "insert_execute_code_cell",
                                                    "arguments": {"notebook": live_notebook, "source": "print('mine')"}})
            assert not ran["result"].get("isError")
            assert mark() == [], "its own edit and run are not echoed back to it"
            inserted = other.request("tools/call", {"name": "insert_cell", "arguments": {"notebook": live_notebook, "source": "theirs"},
                                                    "_meta": envelope(OUTPUTS_VERSION)})
            assert not inserted["result"].get("isError")
            assert mark() == [typed], "another client's edit is"
        finally:
            person.close()


def test_a_stateless_client_listens_with_subscriptions_listen(jupyterlab: JupyterServerProcess, live_notebook: str, tmp_path: Path) -> None:
    connection = serve_stdio(tmp_path, "--jupyter-url", jupyterlab.url, "--jupyter-token", jupyterlab.token)
    try:
        connection.send({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen",
                         "params": {"notifications": {"resourceSubscriptions": [uri(live_notebook)]}, "_meta": envelope(OUTPUTS_VERSION)}})
        ack = connection.notification("notifications/subscriptions/acknowledged", 30)
        assert ack is not None and ack["params"]["notifications"] == {"resourceSubscriptions": [uri(live_notebook)]}
        person = Person(jupyterlab, live_notebook)
        try:
            person.change(lambda nb: nb.ycells.append(nb.create_ycell(dict(nbformat.v4.new_markdown_cell("by a person")))))
            heard = connection.notification(UPDATED, 5)
        finally:
            person.close()
        assert heard is not None and heard["params"]["uri"] == uri(live_notebook)
        assert heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7
    finally:
        began = time.monotonic()
        connection.close()
    assert time.monotonic() - began < 5, "at EOF the open listen stream ends (answered), so the server exits at once"


def test_a_listen_stream_over_http_and_a_prompt_sigterm(notebooks: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    server = HttpServer(notebooks, log=tmp_path_factory.mktemp("http-logs") / "server.log")
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28"}
    meta = envelope("2026-07-28")
    try:
        client = httpx.Client(timeout=httpx.Timeout(30, read=None))
        request = client.build_request("POST", server.url, headers={**headers, "Mcp-Method": "subscriptions/listen"}, json={
            "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": [uri("top.ipynb")]}, "_meta": meta}})
        stream = EventStream(client, client.send(request, stream=True))
        acknowledged = "notifications/subscriptions/acknowledged"
        until(lambda: any(m.get("method") == acknowledged for m in stream.messages), "the listen acknowledged")
        server.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "insert_cell", "arguments": {"notebook": "top.ipynb", "source": "by a stateless client"}, "_meta": meta}},
            {**headers, "Mcp-Method": "tools/call", "Mcp-Name": "insert_cell"})
        heard = until(lambda: [m["params"]["uri"] for m in stream.messages if m.get("method") == UPDATED], "the edit told")
        assert heard == [uri("top.ipynb")]
        began = time.monotonic()
        os.kill(server.pid, signal.SIGTERM)
        server.process.wait(15)
        assert time.monotonic() - began < 10, "the open listen stream does not hold the graceful shutdown"
        stream.close()
    finally:
        server.close()
