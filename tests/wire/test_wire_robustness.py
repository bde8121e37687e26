"""Inputs from the outside world that the happy path never sees: a file name that is not UTF-8,
a request body the bridge cannot decode, a kernel that dies. Each uses servers of its own,
so a crash cannot take the shared ones down.

Issue 2: one server answers every era on both transports; the bridge is invisible on the wire
(no private key ever reaches a client); tool failures are isError results, not crashes.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from support.processes import alive_kernels, kernels_of
from support.servers import HttpServer
from support.wire import (
    OUTPUTS_VERSION,
    TRANSPORTS,
    UNSUPPORTED_VERSION,
    VERSIONS,
    WireClient,
    only_output,
    output_for,
    outputs_of,
    sel,
    stdio_target,
    text_of,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]


def client_for(server: StdioTarget | HttpServer, version: str) -> WireClient:
    return WireClient(server if isinstance(server, StdioTarget) else server.target, version, None)


# ---- a file whose name is not UTF-8 -------------------------------------------------------------


@pytest.fixture(scope="module")
def dirty_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root whose folder `sub` holds ok.txt and a file named b"bad\\xff.txt" (Latin-1 bytes,
    as an old archive or a Windows share leaves them)."""
    root = tmp_path_factory.mktemp("dirty-root")
    (root / "sub").mkdir()
    (root / "sub" / "ok.txt").write_text("ok")
    with open(os.path.join(os.fsencode(root), b"sub", b"bad\xff.txt"), "wb") as f:
        f.write(b"x")
    return root


@pytest.fixture(scope="module")
def dirty_http(dirty_root: Path) -> Iterator[HttpServer]:
    server = HttpServer(dirty_root, log=dirty_root.parent / "dirty-http.log")
    yield server
    server.close()


# What the server does today with b"bad\xff.txt" in the listed folder (the name reaches the result
# as the lone surrogate "bad\udcff.txt", which cannot be encoded as UTF-8):
#   2024-11-05 .. 2025-11-25, both transports: JSON-RPC error code 0, "'utf-8' codec can't encode
#     character '\udcff' in position 49: surrogates not allowed";
#   2026-07-28, both transports: -32603 "Internal server error";
#   2026-12-01 over stdio: no response at all (the SDK's stdout writer raises PydanticSerializationError);
#   2026-12-01 over HTTP: 200 with result {"_meta": {"io.github.mcp-variants/tunnel": {"outputs": ...}},


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_non_utf8_file_name_does_not_break_list_files(request, dirty_root, transport, version):
    """list_files over a folder holding a non-UTF-8 file name answers with a result (the other
    file listed; the odd name skipped or shown lossily, or at worst a tool error), leaks no
    bridge key, and the connection keeps serving (issue 2: tool failures are isError, the
    bridge is invisible)."""
    server: Any = stdio_target(dirty_root) if transport == "stdio" else request.getfixturevalue("dirty_http")
    try:
        client = client_for(server, version)
        requested = [sel("programmatic", "structured")] if version == OUTPUTS_VERSION else None
        reply = client.call("list_files", {"path": "sub"}, requested=requested, timeout=10)
        result = reply.result  # not a JSON-RPC error (code 0 or otherwise)
        if result.get("isError") is not True:
            if version == OUTPUTS_VERSION:
                files = only_output(reply, "programmatic", "structured")["structuredContent"]["files"]
                assert "ok.txt" in [f["name"] for f in files]
            else:
                assert "ok.txt" in text_of(result["content"])
        json.dumps(reply.message, ensure_ascii=False).encode("utf-8")  # valid Unicode throughout
        assert client.list_tools().result["tools"], "the connection stopped serving"
    finally:
        if isinstance(server, StdioTarget):
            server.close()


# ---- a body the bridge cannot decode --------------------------------------------------------------


@pytest.fixture(scope="module")
def plain_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("plain-http")
    server = HttpServer(root, log=root.parent / "plain-http.log")
    yield server
    server.close()


@pytest.mark.parametrize(
    "version",
    [
        "2026-07-28",
        OUTPUTS_VERSION,
    ],
)
def test_http_body_with_escaped_lone_surrogate_is_not_a_version_error(plain_http, version):
    """A JSON body with an escaped lone surrogate in an argument (a client echoing a non-UTF-8 file
    name) is answered as at 2026-07-28: a result, or at worst a parse error, never -32022 for a
    version the server supports (issue 2: the bridge only changes what 2026-12-01 needs)."""
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "list_files", "arguments": {"path": "missing-\udcff"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": version,
                             "io.modelcontextprotocol/clientCapabilities": {}}},
    }).encode()
    assert b"\\udcff" in body
    response = plain_http.post(body, {"MCP-Protocol-Version": version, "Mcp-Method": "tools/call", "Mcp-Name": "list_files"})
    message = response.message
    if "error" in message:
        assert message["error"]["code"] != UNSUPPORTED_VERSION, message
        assert message["error"]["code"] == -32700, message
    else:
        assert message["result"].get("isError") is True, message  # no such folder: a tool error


# ---- a kernel that dies -----------------------------------------------------------------------------


@pytest.fixture(scope="module", params=TRANSPORTS)
def own_client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireClient]:
    """A 2026-12-01 client of a server of its own."""
    root = tmp_path_factory.mktemp(f"own-{request.param}")
    server: Any = stdio_target(root) if request.param == "stdio" else HttpServer(root, log=root.parent / f"{root.name}.log")
    try:
        yield client_for(server, OUTPUTS_VERSION)
    finally:
        server.close()


def test_dead_kernel_is_a_tool_error_and_the_next_call_says_so(own_client):
    """A cell that kills its kernel is isError with error.type "kernel-died", quickly; the next
    call runs on a new kernel and says the earlier state is gone, in the assistant text and as
    programmatic kernelRestarted; list_kernels shows only the new kernel (docs/choices.md
    error types; field guide: recovery without silently losing state)."""
    own_client.call("execute_code", {"code": "lost = 1"})
    started = time.monotonic()
    died = own_client.call("execute_code", {"code": "import os; os._exit(1)"},
                           requested=[sel("assistant", "structured"), sel("assistant", "content")], timeout=60)
    assert time.monotonic() - started < 20
    assert died.result.get("isError") is True
    assert output_for(outputs_of(died), "assistant", "structured")["structuredContent"]["error"]["type"] == "kernel-died"

    after = own_client.call("execute_code", {"code": "print('lost' in globals())"},
                            requested=[sel("assistant", "content"), sel("programmatic", "structured")], timeout=60)
    assert after.result.get("isError") is not True
    outputs = outputs_of(after)
    programmatic = output_for(outputs, "programmatic", "structured")["structuredContent"]
    assert programmatic.get("kernelRestarted") is True
    assert "False" in text_of(output_for(outputs, "assistant", "content")["content"])
    assert "restart" in text_of(output_for(outputs, "assistant", "content")["content"]).lower()

    kernels = only_output(own_client.call("list_kernels", {}, requested=[sel("programmatic", "structured")]),
                          "programmatic", "structured")["structuredContent"]["kernels"]
    assert [k["id"] for k in kernels] == [programmatic["kernelId"]]


# ---- shutdown -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", [
    "stdio",
    "http",
])
def test_shutdown_stops_the_kernels_it_started(tmp_path, transport):
    """EOF on stdio, SIGTERM on HTTP: the server shuts down every kernel it started, then exits 0
    within seconds; no kernel outlives it (cli.py _with_shutdown; field guide: the original server
    left a kernel running per session)."""
    log = tmp_path.parent / f"{tmp_path.name}.log"
    server: Any = stdio_target(tmp_path, fresh=True) if transport == "stdio" else HttpServer(tmp_path, log=log, fresh=True)
    try:
        client_for(server, OUTPUTS_VERSION).call("execute_code", {"code": "1"})
        proc = server.process_for(OUTPUTS_VERSION).proc if transport == "stdio" else server.process
        kernels = alive_kernels(kernels_of(proc.pid))
        assert len(kernels) == 1, kernels
        if transport == "stdio":
            proc.stdin.close()
        else:
            proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0, "not a clean exit"
        assert not alive_kernels(kernels), "a kernel outlived its server"
    finally:
        server.close()
