"""What a newcomer meets on the command line (issue 22): a bad MCP_VARIANTS_* value, a port in use, a server that
says nothing when it is ready. Each test runs the command as a user would."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.processes import free_port
from support.servers import HttpServer, serve_command
from support.waiting import until
from support.wire import OUTPUTS_VERSION, envelope, initialize_message

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]


def _run(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_variants", *args], cwd=root, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})}, check=False)


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("MCP_VARIANTS_PORT", "abc", "is not a whole number"),
    ("MCP_VARIANTS_TIMEOUT", "5m", "is not a number"),
    ("MCP_VARIANTS_IMAGES", "links", "is not one of inline, link"),
])
def test_a_bad_environment_value_is_one_line_naming_it(tmp_path: Path, variable: str, value: str, expected: str) -> None:
    """`--version` and `--help` still work; `serve` ends with one line naming the variable (issue 22: a traceback,
    for every subcommand)."""
    env = {variable: value}
    assert _run(tmp_path, "--version", env=env).returncode == 0
    assert _run(tmp_path, "serve", "--help", env=env).returncode == 0
    done = _run(tmp_path, "serve", env=env)
    assert done.returncode == 1
    assert done.stderr.strip() == f"mcp-variants: {variable}={value!r} {expected}", done.stderr
    if variable == "MCP_VARIANTS_PORT":  # a flag in its place wins
        assert "MCP_VARIANTS_PORT" not in _run(tmp_path, "serve", "--port", "1", "--root", "/nonexistent", env=env).stderr


def test_http_says_where_it_serves_and_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    """Ready: the endpoint's URL on stderr. A second server on the same port: one line naming the port and what
    to do (issue 22: nothing when ready; uvicorn's line and some 50 lines of exception groups when taken)."""
    log = tmp_path.parent / f"{tmp_path.name}.log"
    server = HttpServer(tmp_path, log=log)
    try:
        until(lambda: "serving MCP at" in log.read_text(), "the server's ready line", 10)
        assert f"mcp-variants: serving MCP at http://127.0.0.1:{server.port}/mcp\n" in log.read_text()
        done = subprocess.run([*serve_command(tmp_path, "--http", "--port", str(server.port))], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 1
        assert done.stderr == (f"mcp-variants: cannot listen on 127.0.0.1:{server.port}: the port is in use; stop what uses it, "
                               "or choose another port (--port, MCP_VARIANTS_PORT)\n")
    finally:
        server.close()


def test_a_free_port_is_not_held_by_a_refused_start(tmp_path: Path) -> None:
    """A start refused before listening (no token beyond loopback) leaves the port free."""
    port = free_port()
    done = _run(tmp_path, "serve", "--http", "--host", "0.0.0.0", "--port", str(port))
    assert done.returncode == 1 and "needs a bearer token" in done.stderr
    with socket.create_server(("127.0.0.1", port)):
        pass


@pytest.mark.parametrize("how", ["none", "flag", "env"])
def test_a_wildcard_bind_answers_to_the_names_it_is_given(tmp_path: Path, how: str) -> None:
    """`serve --http --host 0.0.0.0 --token T`, reached as this machine's name with the right token: 421 naming
    --allowed-host when it is not given; served with `--allowed-host NAME` or MCP_VARIANTS_ALLOWED_HOSTS (issue 22:
    only loopback and the literal 0.0.0.0 were served, so no other machine could reach it)."""
    token, name = "t0ken", "workstation.example"
    extra = ["--token", token, *(["--allowed-host", name] if how == "flag" else [])]
    env = {**os.environ, "MCP_VARIANTS_ALLOWED_HOSTS": f"other.example, {name}"} if how == "env" else None
    server = HttpServer(tmp_path, *extra, host="0.0.0.0", env=env, log=tmp_path.parent / f"{tmp_path.name}.log")
    try:
        headers = [("Host", f"{name}:{server.port}"), ("Authorization", f"Bearer {token}")]
        trip = server.post(initialize_message(1, "2025-11-25", None), headers)
        if how == "none":
            assert trip.status == 421
            assert f"--allowed-host {name} (or MCP_VARIANTS_ALLOWED_HOSTS)" in trip.raw.decode(), trip.raw
            literal = server.post(initialize_message(2, "2025-11-25", None), [("Host", f"0.0.0.0:{server.port}"), headers[1]])
            assert literal.status == 421, "0.0.0.0 is nobody's name: a browser page must not reach the server by it"
        else:
            assert trip.status == 200, (trip.status, trip.raw[:300])
    finally:
        server.close()


def test_a_stateless_request_without_its_version_header_is_told_which_header(tmp_path: Path) -> None:
    """A 2026-12-01 POST with no MCP-Protocol-Version header, or with 2025-11-25: 400, -32020 naming the header and
    the version it must say, and no session opened (issue 22: -32600 "Missing session ID", with a new session id)."""
    server = HttpServer(tmp_path, log=tmp_path.parent / f"{tmp_path.name}.log")
    body = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": envelope(OUTPUTS_VERSION, None)}}
    try:
        for given, said in ((None, "is missing"), ("2025-11-25", "says 2025-11-25")):
            headers = {"Mcp-Method": "tools/list", **({"MCP-Protocol-Version": given} if given else {})}
            trip = server.post(body, headers)
            assert trip.status == 400 and trip.response is not None, (trip.status, trip.raw[:300])
            assert trip.response["id"] == 7
            assert trip.response["error"]["code"] == -32020
            assert trip.response["error"]["message"] == (
                f"Bad Request: the MCP-Protocol-Version header {said}; a request whose params._meta names protocol "
                f"version {OUTPUTS_VERSION} carries the header MCP-Protocol-Version: {OUTPUTS_VERSION}")
            assert trip.headers is not None and trip.headers.get("mcp-session-id") is None
        served = server.post(body, {"Mcp-Method": "tools/list", "MCP-Protocol-Version": OUTPUTS_VERSION})
        assert served.status == 200 and served.response and served.response["result"]["tools"]
    finally:
        server.close()
