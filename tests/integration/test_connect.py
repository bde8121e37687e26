"""`mcp-variants connect URL` (issue 49): a client that only launches commands reaches a streamable HTTP endpoint.

A real client on the bridge's stdio, the bridge POSTing to a real server: `serve --http` with a token, and the Jupyter
server extension in a real jupyter-server. 2026-12-01 requests (their SEP-3279 fields) and a 2025-11-25 handshake both
pass; what the bridge returns is what the endpoint returns directly; a missing or wrong token is answered, and the
answer says "token".
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants.client.stdio import StdioConnection, envelope
from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.processes import free_port
from support.checked import OUTPUTS_VERSION, UI_EXTENSIONS, CheckedClient, stdout_of
from support.desktop_configs import desktop_entries
from support.extension import ENDPOINT, extension_server
from support.servers import REQUEST_TIMEOUT, HttpServer

pytestmark = pytest.mark.timeout(300)

TOKEN = secrets.token_hex(16)


def bridge(url: str, *extra: str, token: str | None = None) -> StdioConnection:
    """`mcp-variants connect URL` as a desktop client launches it: the token in its environment, never in argv."""
    env = {k: v for k, v in os.environ.items() if k != "MCP_VARIANTS_TOKEN"}
    if token is not None:
        env["MCP_VARIANTS_TOKEN"] = token
    return StdioConnection([sys.executable, "-m", "mcp_variants", "connect", url, *extra], env=env, stderr_keep=None)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("connect-http")
    server = HttpServer(root, "--embedded", log=root.parent / "connect-http.log", env={**os.environ, "MCP_VARIANTS_TOKEN": TOKEN})
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    with extension_server(tmp_path_factory.mktemp("connect-extension")).start(60) as process:
        yield process


def test_a_2026_client_works_through_the_bridge_as_directly(http_server: HttpServer) -> None:
    direct = CheckedClient.http(http_server.url, {"Authorization": f"Bearer {TOKEN}"})
    with CheckedClient(bridge(http_server.url, token=TOKEN), stateless=True) as client:
        assert client.tools == direct.tools, "tools/list (outputVariants and all) is the endpoint's, unchanged"
        ran = client.call("execute_code", {"code": "print(6 * 7)"})  # requestedOutputs: every declared variant
        assert not ran.is_error and "42" in stdout_of(ran), ran.result
        listed = {"name": "list_kernels", "arguments": {}, "requestedOutputs": [{"audience": "programmatic", "format": "structured"}]}
        through = client.request("tools/call", listed)["result"]
        assert through == direct.request("tools/call", listed)["result"]
        assert [o["audience"] for o in through["outputs"]] == ["programmatic"]


def test_a_2025_client_gets_its_session_through_the_bridge(http_server: HttpServer) -> None:
    with CheckedClient(bridge(http_server.url, token=TOKEN), stateless=False) as client:
        ran = client.call("execute_code", {"code": "print(6 * 7)"})
        assert not ran.is_error and "42" in str(ran.result["content"]), ran.result


def test_a_2025_client_hears_of_a_subscribed_notebooks_changes_through_the_bridge(http_server: HttpServer) -> None:
    """The session's own event stream (GET) is read by the bridge: what the server sends outside any request arrives."""
    (http_server.root / "watched.ipynb").write_text(json.dumps(
        {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    uri = "notebook:///watched.ipynb"
    with CheckedClient(bridge(http_server.url, token=TOKEN), stateless=False) as watcher:
        assert watcher.request("resources/subscribe", {"uri": uri})["result"] == {}
        with CheckedClient.http(http_server.url, {"Authorization": f"Bearer {TOKEN}"}, stateless=False) as editor:
            assert not editor.call("insert_cell", {"notebook": "watched.ipynb", "source": "by another client"}).is_error
        told = watcher.stdio.notification("notifications/resources/updated", timeout=60)
        assert told is not None and told["params"]["uri"] == uri, watcher.stdio.notifications


@pytest.mark.parametrize("token", [None, "not-the-token"])
def test_a_missing_or_wrong_token_is_answered_with_the_word_token(http_server: HttpServer, token: str | None) -> None:
    with bridge(http_server.url, token=token) as connection:
        answer = connection.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)}, timeout=REQUEST_TIMEOUT)
        assert answer["error"]["code"] == -32000 and "HTTP 401" in answer["error"]["message"], answer
        assert "token" in answer["error"]["message"] and "MCP_VARIANTS_TOKEN" in answer["error"]["message"], answer
        connection.close()
        assert b"token" in connection.stderr_tail, "said once on stderr too: the desktop client's log of this server"


def test_an_endpoint_that_is_not_there_is_answered_and_a_line_that_is_not_json_too(tmp_path: Path) -> None:
    with bridge(f"http://127.0.0.1:{free_port()}/mcp", token=TOKEN) as connection:
        answer = connection.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)}, timeout=REQUEST_TIMEOUT)
        assert answer["error"]["code"] == -32000 and "cannot be reached" in answer["error"]["message"], answer
        mark = connection.mark()
        connection.send_bytes(b"{not json\n")
        parse_error = lambda seen: any(m.get("id", 0) is None and m.get("error", {}).get("code") == -32700 for m in seen)  # noqa: E731
        assert parse_error(connection.wait_for(mark, parse_error, time.monotonic() + REQUEST_TIMEOUT))
        assert TOKEN not in connection.stderr_tail.decode() + json.dumps(answer)


def test_the_conformance_suite_passes_through_the_bridge(http_server: HttpServer, tmp_path: Path) -> None:
    """Every SEP-3279 MUST the suite checks, over stdio through the bridge: no field is lost or changed on the way."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    command = f"{sys.executable} -m mcp_variants connect {http_server.url} --token-file {token_file}"
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "check", "--server-cmd", command, "-q"],
                          capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " 0 fail" in done.stdout, done.stdout[-1500:]


def test_the_jupyter_extension_through_the_bridge(jupyter: JupyterServerProcess) -> None:
    url = jupyter.url + ENDPOINT
    with CheckedClient(bridge(url, token=jupyter.token), stateless=True) as client:
        ran = client.call("execute_code", {"code": "print(6 * 7)"})
        assert not ran.is_error and "42" in stdout_of(ran), ran.result
    with bridge(url, token="stale-token-of-a-restarted-lab") as connection:
        answer = connection.request("tools/list", {"_meta": envelope(OUTPUTS_VERSION, UI_EXTENSIONS)}, timeout=REQUEST_TIMEOUT)
        message = answer["error"]["message"]
        assert "HTTP 403" in message and "did not accept the token" in message and "_xsrf" not in message, answer
        assert "JUPYTER_TOKEN" in message, "how to pin the token"
    assert HttpTarget(url).exchange(OUTPUTS_VERSION, None, "tools/list", {}).status == 403


CONNECT_ENTRIES = desktop_entries("connect")


def test_the_documented_connect_entries_work_as_written(http_server: HttpServer, jupyter: JupyterServerProcess) -> None:
    """Each `connect` entry of README.md and the guides, as a desktop client runs it: its command and args, its `env`
    (the token's placeholder filled), the documented port put where the test's endpoint listens."""
    endpoints = {"8000": (http_server.url, TOKEN), "8888": (jupyter.url + ENDPOINT, jupyter.token)}
    assert {re.search(r":(\d+)/", " ".join(e["args"]))[1] for e in CONNECT_ENTRIES.values()} == set(endpoints), CONNECT_ENTRIES
    for where, entry in CONNECT_ENTRIES.items():
        url, token = endpoints[re.search(r":(\d+)/", " ".join(entry["args"]))[1]]
        args = [url if arg.startswith("http://127.0.0.1:") else arg for arg in entry["args"]]
        assert "--token" not in args and set(entry["env"]) == {"MCP_VARIANTS_TOKEN"}, "the token in env, never argv"
        env = {**os.environ, "MCP_VARIANTS_TOKEN": token}
        command = [str(Path(sys.executable).with_name("mcp-variants")) if entry["command"].endswith("/bin/mcp-variants")
                   else entry["command"], *args]
        with CheckedClient(StdioConnection(command, env=env), stateless=False) as client:
            ran = client.call("execute_code", {"code": "print(6 * 7)"})
            assert not ran.is_error and "42" in str(ran.result["content"]), (where, ran.result)
