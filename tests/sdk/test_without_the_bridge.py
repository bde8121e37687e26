"""The message guard is not the bridge's: a server on mcp_variants.sdk, run with sdk/_bridge.py impossible to import
(as once it is deleted) and `bridge=False`, still refuses what it refused, on both transports: a body or line over the
message limit (413, -32600), what is no JSON-RPC message (-32600, -32700), a batch (-32600); and every -32022 still
names each served version. So "delete this module when the SDK serves 2026-12-01" is a real `git rm`."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from mcp_variants.protocol.versions import SUPPORTED_VERSIONS, VERSION_KEY

LIMIT = 2048
SERVER = f"""
import sys
sys.modules["mcp_variants.sdk._bridge"] = None  # any import of it raises ImportError
import anyio
from mcp.server.mcpserver import MCPServer
from mcp_variants.sdk import HttpLimits, Results, Variants, serve_http, serve_stdio
from mcp_variants.sdk.lowlevel import listen

variants = Variants()

@variants.tool("assistant/content")
def echo(text: str) -> Results:
    return Results({{"assistant/content": text}})

mcp = MCPServer("guarded", extensions=[variants], middleware=[variants.middleware])
if sys.argv[1] == "http":
    sock = listen("127.0.0.1", 0)
    ready = lambda url: print(url, flush=True)
    anyio.run(lambda: serve_http(mcp, sock=sock, port=sock.getsockname()[1], limits=HttpLimits(max_body_bytes={LIMIT}),
                                 ready=ready, bridge=False))
else:
    anyio.run(lambda: serve_stdio(mcp, max_message_bytes={LIMIT}, bridge=False))
"""
STATELESS_META = {VERSION_KEY: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}


def call(request_id: int, version: str = "2026-07-28", text: str = "hi") -> dict[str, Any]:
    meta = {**STATELESS_META, VERSION_KEY: version}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}, "_meta": meta}}


@pytest.fixture
def http_server() -> Iterator[str]:
    process = subprocess.Popen([sys.executable, "-c", SERVER, "http"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), (url, process.stderr.read() if process.poll() is not None else "")
        yield url
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
        assert "ImportError" not in stderr and "Traceback" not in stderr, stderr


def post(url: str, body: bytes, version: str = "2026-07-28") -> httpx.Response:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": version, "mcp-method": "tools/call", "mcp-name": "echo"}
    return httpx.post(url, content=body, headers=headers, timeout=30)


def answer(response: httpx.Response) -> Any:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def test_over_http_every_guard_answers_without_the_bridge(http_server: str) -> None:
    served = answer(post(http_server, json.dumps(call(1)).encode()))
    assert served["result"]["content"] == [{"type": "text", "text": "hi"}], served

    too_large = post(http_server, json.dumps(call(2, text="x" * LIMIT)).encode())
    assert too_large.status_code == 413 and too_large.json()["error"]["code"] == -32600

    not_a_message = post(http_server, b'{"jsonrpc": "1.0", "id": 3, "method": "ping"}')
    assert not_a_message.status_code == 400 and not_a_message.json() == {
        "jsonrpc": "2.0", "id": 3, "error": not_a_message.json()["error"]}
    assert not_a_message.json()["error"]["code"] == -32600

    not_json = post(http_server, b'{"jsonrpc": "2.0", "id": 4,')
    assert not_json.status_code == 400 and not_json.json()["error"]["code"] == -32700

    batch = post(http_server, json.dumps([call(5), call(6)]).encode())
    assert batch.status_code == 400
    assert [a["error"]["code"] for a in batch.json()] == [-32600, -32600]

    unsupported = answer(post(http_server, json.dumps(call(7, version="2026-12-01")).encode(), version="2026-12-01"))
    assert unsupported["error"]["code"] == -32022
    assert unsupported["error"]["data"]["supported"] == list(SUPPORTED_VERSIONS)


def test_over_stdio_every_guard_answers_without_the_bridge() -> None:
    lines = [json.dumps(call(1)), json.dumps(call(2, text="x" * LIMIT)), '{"jsonrpc": "1.0", "id": 3, "method": "ping"}',
             '{"jsonrpc": "2.0", "id": 4,', json.dumps([call(5), call(6)])]
    done = subprocess.run([sys.executable, "-c", SERVER, "stdio"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=60)
    assert "ImportError" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    by_id = {a["id"]: a for a in answers if isinstance(a, dict)}  # the unparsable line's answer has id null
    assert by_id[1]["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert by_id[2]["error"]["code"] == -32600  # the line over the limit, dropped as it arrived
    assert by_id[3]["error"]["code"] == -32600
    assert by_id[None]["error"]["code"] == -32700
    batches = [a for a in answers if isinstance(a, list)]
    assert [[e["error"]["code"] for e in b] for b in batches] == [[-32600, -32600]]
