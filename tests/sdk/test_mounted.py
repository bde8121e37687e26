"""streamable_http_app(mcp), and the FastMCP layer's http_app(mcp), mounted in an existing Starlette app
(tests/sdk/mounted_server.py), served by uvicorn: with the parent given its lifespan, a 2026-12-01 call and a
handshake-era call are answered, the parent's own route still works, and the app's bearer token and body limit still
apply; without it, every request is told what to do."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from mcp_variants.conformance.constants import OUTPUTS_VERSION
from mcp_variants.conformance.wire import HttpTarget

SERVER = Path(__file__).with_name("mounted_server.py")
AUTH = {"Authorization": "Bearer s3cret"}
PING = {"name": "ping", "arguments": {}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def served(*args: str) -> Iterator[str]:
    """The parent app's base URL, once uvicorn takes requests (the script prints its port then)."""
    process = subprocess.Popen([sys.executable, str(SERVER), *args], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = process.stdout.readline().strip()
        assert port.isdigit(), f"the server did not start: {port!r}"
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture(scope="module", params=[("/", "sdk"), ("/api", "sdk"), ("/", "fastmcp"), ("/api", "fastmcp")],
                ids=lambda p: f"{p[1]}-at-{p[0]}")
def mounted(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, str]]:
    """(the parent's URL, the MCP endpoint, the layer): mounted at "/", it serves /mcp; at "/api", /api/mcp."""
    mount, layer = request.param
    for base in served(mount, *(["--fastmcp"] if layer == "fastmcp" else [])):
        yield base, f"{base}{mount.rstrip('/')}/mcp", layer


@pytest.mark.parametrize("version", [OUTPUTS_VERSION, "2025-06-18"])
def test_a_mounted_app_given_the_parents_lifespan_answers_every_era(mounted: tuple[str, str, str], version: str) -> None:
    trip = HttpTarget(mounted[1], headers=AUTH, timeout=30).exchange(
        version, None, "tools/call", {**PING, "requestedOutputs": [{"audience": "assistant", "format": "content"}]}
        if version == OUTPUTS_VERSION else PING)
    content = trip.result["outputs"][0]["content"] if version == OUTPUTS_VERSION else trip.result["content"]
    assert content == [{"type": "text", "text": "pong"}], trip.response


def test_the_parents_own_route_is_served_beside_it(mounted: tuple[str, str, str]) -> None:
    answer = httpx.get(f"{mounted[0]}/health", timeout=30)
    assert (answer.status_code, answer.text) == (200, "ok")


def test_its_bearer_token_and_body_limit_still_apply_when_mounted(mounted: tuple[str, str, str]) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": PING}
    if mounted[2] == "sdk":  # the FastMCP layer takes FastMCP's own auth provider, none here
        assert httpx.post(mounted[1], json=call, headers=ACCEPT, timeout=30).status_code == 401
    too_large = httpx.post(mounted[1], json={**call, "params": {**PING, "arguments": {"x": "y" * 100_000}}},
                           headers={**AUTH, **ACCEPT}, timeout=30)
    assert too_large.status_code == 413 and "at most 65,536" in too_large.json()["error"]["message"]


@pytest.mark.parametrize("layer", ["sdk", "fastmcp"])
def test_mounted_without_its_lifespan_each_request_is_told_how_to_start_it(layer: str) -> None:
    for base in served("/", "--no-lifespan", *(["--fastmcp"] if layer == "fastmcp" else [])):
        answer = httpx.post(f"{base}/mcp", json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
                            headers={**AUTH, **ACCEPT}, timeout=30)
        assert answer.status_code == 500, answer.text
        error = answer.json()["error"]
        assert answer.json()["id"] == 7 and error["code"] == -32603
        assert error["message"].startswith("this MCP app has not been started") and "lifespan=mcp_app.lifespan" in error["message"]
        assert httpx.get(f"{base}/health", timeout=30).text == "ok"
