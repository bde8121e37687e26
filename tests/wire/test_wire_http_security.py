"""Streamable HTTP security (issue 2 "The server": loopback by default, DNS-rebinding
protection on, a bearer token required beyond loopback, the token never in a result or log).

Each test starts its own server process and terminates it by PID.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants.processes import ServerProcess, free_port
from support.servers import HttpServer, serve_command
from support.wire import OUTPUTS_VERSION, envelope, initialize_message

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]

HEADERS = {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": "execute_code"}


def call_body(code: str = "print(6 * 7)") -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "execute_code", "arguments": {"code": code}, "_meta": envelope(OUTPUTS_VERSION, None)}}


@pytest.mark.parametrize("how", ["flag", "env"])
def test_wildcard_bind_without_token_refuses_to_start(tmp_path, how):
    """`serve --http --host 0.0.0.0` without a token exits non-zero at once and says a token is
    needed; it never listens (issue 2: binding beyond loopback requires --token)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_VARIANTS_")}
    if how == "flag":
        command = serve_command(tmp_path, "--http", "--host", "0.0.0.0", "--port", str(port))
    else:
        command = serve_command(tmp_path)
        env.update({"MCP_VARIANTS_HTTP": "1", "MCP_VARIANTS_HOST": "0.0.0.0", "MCP_VARIANTS_PORT": str(port)})
    try:  # on a timeout, run() kills it (by its PID)
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=30, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("the server kept running on 0.0.0.0 without a token")
    assert done.returncode != 0
    message = (done.stdout + done.stderr).decode()
    assert "token" in message.lower(), message
    assert "Traceback" not in message, "refusal should be a message, not a crash"


@pytest.fixture
def token_server(tmp_path: Path) -> Iterator[tuple[HttpServer, str]]:
    token = f"tok-{uuid.uuid4().hex}"
    server = HttpServer(tmp_path, "--token", token, "--log-level", "DEBUG", log=tmp_path.parent / f"{tmp_path.name}.log")
    try:
        yield server, token
    finally:
        server.close()


def test_bearer_token_is_required_and_never_echoed(token_server):
    """With --token: no Authorization, a wrong token, a wrong scheme -> 401; `Bearer <token>` ->
    the call succeeds, on the stateless and the handshake paths. The token appears in no response
    body and nowhere in the server's stderr, even at DEBUG (issue 2: never in a result or log)."""
    server, token = token_server
    bodies: list[bytes] = []
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {token}"},
                    {"Authorization": token}, {"Authorization": f"Bearer {token}x"}):
        response = server.post(call_body(), {**HEADERS, **headers})
        bodies.append(response.raw)
        assert response.status == 401, (headers, response.status, response.raw)
        assert b"outputs" not in response.raw

    good = {"Authorization": f"Bearer {token}"}
    response = server.post(call_body(), {**HEADERS, **good})
    bodies.append(response.raw)
    assert response.status == 200, response.raw
    (message,) = response.messages
    assert message["result"]["outputs"][0]["content"][0]["text"] == "42\n"

    init = server.post(initialize_message(2, "2025-11-25", None), good)
    bodies.append(init.raw)
    assert init.status == 200
    assert server.post(initialize_message(3, "2025-11-25", None)).status == 401

    server.close()  # flush and stop before reading its log
    stderr = server.output()
    for body in bodies:
        assert token.encode() not in body
    assert token not in stderr, "the bearer token reached the server's log"


@pytest.mark.parametrize(
    "headers",
    [{"Host": "evil.example"}, {"Host": "evil.example:80"}, {"Host": "127.0.0.1.evil.example"},
     {"Origin": "http://evil.example"}],
    ids=["host", "host-port", "host-suffix", "origin"],
)
def test_foreign_host_or_origin_is_rejected(pool, headers):
    """DNS-rebinding protection stays on: a request whose Host (or Origin) is not loopback is
    rejected with a 4xx and never reaches a handler (issue 2 "The server")."""
    server = pool.http_server()
    token = f"rebind-{uuid.uuid4().hex}"
    response = server.post(call_body(f"open({token!r}, 'w').close()"), {**HEADERS, **headers})
    assert response.status is not None and 400 <= response.status < 500, (response.status, response.raw)
    assert b"result" not in response.raw
    assert not (pool.root / token).exists(), "the rejected request ran"


def test_foreign_host_is_rejected_even_with_the_token(token_server):
    """The token does not switch the rebinding protection off."""
    server, token = token_server
    response = server.post(call_body(), {**HEADERS, "Authorization": f"Bearer {token}", "Host": "evil.example"})
    assert response.status is not None and 400 <= response.status < 500
    assert b"outputs" not in response.raw


def test_loopback_names_are_accepted(pool):
    """Host localhost:<port> is loopback and is served."""
    server = pool.http_server()
    response = server.post(call_body(), {**HEADERS, "Host": f"localhost:{server.port}"})
    assert response.status == 200, response.raw


def test_default_bind_is_loopback(tmp_path):
    """Without --host the HTTP server listens on 127.0.0.1 only (issue 2: binds 127.0.0.1 by default)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_VARIANTS_")}
    log = tmp_path.parent / f"{tmp_path.name}.log"
    with ServerProcess(serve_command(tmp_path, "--http", "--port", str(port)), port, env=env, log=log).start(timeout=30):
        listening = Path("/proc/net/tcp").read_text()
        local = [line.split()[1] for line in listening.splitlines()[1:] if line.split()[3] == "0A"]
        ours = [addr for addr in local if int(addr.split(":")[1], 16) == port]
        assert ours and all(addr.split(":")[0] == "0100007F" for addr in ours), ours


IMAGE = ("from PIL import Image as I; import io; from IPython.display import Image, display\n"
         "b = io.BytesIO(); I.new('RGB', (20, 10), 'teal').save(b, format='PNG'); display(Image(b.getvalue()))")


def test_an_image_link_is_read_only_by_the_client_it_was_given_to(tmp_path: Path) -> None:
    """--images link over HTTP: the session that ran the cell reads its link; another session, and a stateless
    request, are told the image is not kept for them (issue 22: any client with the link could read it)."""
    server = HttpServer(tmp_path, "--images", "link", log=tmp_path.parent / f"{tmp_path.name}.log")
    try:
        mine, other = (server.target.open_session("2025-11-25", None)[0] for _ in range(2))
        call = {"name": "execute_code", "arguments": {"code": IMAGE}}
        ran = server.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}, _in_session(mine))
        assert ran.response is not None, ran.raw[:300]
        uri = next(b["uri"] for b in ran.response["result"]["content"] if b["type"] == "resource_link")

        def read(headers: dict[str, str], meta: dict | None = None) -> dict:
            params = {"uri": uri, **({"_meta": meta} if meta else {})}
            trip = server.post({"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": params}, headers)
            assert trip.response is not None, trip.raw[:300]
            return trip.response

        assert read(_in_session(mine))["result"]["contents"][0]["mimeType"] == "image/png"
        stateless = {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "resources/read", "Mcp-Name": uri}
        for refused in (read(_in_session(other)), read(stateless, envelope(OUTPUTS_VERSION, None))):
            assert refused["error"]["code"] == -32602 and "not kept for this client" in refused["error"]["message"], refused
    finally:
        server.close()


def _in_session(session: str | None) -> dict[str, str]:
    return {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}
