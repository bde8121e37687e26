"""Hostile input, reproduced by hand in issue 13, as wire tests: every request with an id answered exactly
once with a standard code, the connection serving on after it, memory bounded while a huge message
arrives, the era of a stdio connection fixed only by a request that validly claims one, batches
answered as the connection's version says.

Each module's servers are its own (a crash cannot take the shared ones down) and are stopped by PID.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioProcess, StdioTarget
from support.raw_wire import answers_after, check_error, memory_of
from support.servers import HttpServer, serve_command
from support.wire import OUTPUTS_VERSION, VERSIONS, WireClient, envelope, initialize_message, stdio_target

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

M = json.dumps(envelope(OUTPUTS_VERSION, None)).encode()
LIMIT = 4 * 1024 * 1024  # --max-message-bytes, default
STATELESS = ("2026-07-28", "2026-12-01")


def call(request_id: Any, params: bytes) -> bytes:
    return b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"method":"tools/call","params":' + params + b"}"


LIST_FILES = b'{"name":"list_files","arguments":{"path":%s},"_meta":' + M + b"}"

# (bytes, code, id of the answer): the list, one by one.
HOSTILE = {
    "params-array": (call(1, b"[]"), -32602, 1),
    "params-string": (call(2, b'"x"'), -32602, 2),
    "params-number": (call(3, b"5"), -32602, 3),
    "params-true": (call(4, b"true"), -32602, 4),
    "not-json": (b'{"jsonrpc":"2.0","id":7,"method":tools/call}', -32700, None),
    "bare-number": (b"42", -32600, None),
    "empty-array": (b"[]", -32600, None),
    "jsonrpc-1.0": (b'{"jsonrpc":"1.0","id":8,"method":"tools/list","params":{"_meta":' + M + b"}}", -32600, 8),
    "no-jsonrpc": (b'{"id":9,"method":"tools/list","params":{"_meta":' + M + b"}}", -32600, 9),
    "method-number": (b'{"jsonrpc":"2.0","id":10,"method":5}', -32600, 10),
    "id-fraction": (b'{"jsonrpc":"2.0","id":9.5,"method":"tools/list","params":{"_meta":' + M + b"}}", -32600, None),
    "id-true": (b'{"jsonrpc":"2.0","id":true,"method":"tools/list","params":{"_meta":' + M + b"}}", -32600, None),
    "id-null": (b'{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{"_meta":' + M + b"}}", -32600, None),
    "lone-surrogate": (call(11, LIST_FILES % b'"\\ud800"'), -32700, 11),
    "raw-0xff": (call(12, LIST_FILES % b'"\xff"'), -32700, 12),
    "nested-300": (call(13, LIST_FILES % (b"[" * 300 + b"]" * 300)), -32600, 13),
    "nested-5000": (call(14, LIST_FILES % (b"[" * 5000 + b"]" * 5000)), -32600, 14),
}


@pytest.fixture(scope="module")
def hostile_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile-root")


@pytest.fixture(scope="module")
def stdio_server(hostile_root: Path) -> Iterator[StdioTarget]:
    target = stdio_target(hostile_root, fresh=True)  # its memory is read by PID
    WireClient(target, OUTPUTS_VERSION, None).list_tools()  # a stateless connection, opened
    yield target
    target.close()


@pytest.fixture(scope="module")
def http_server(hostile_root: Path) -> Iterator[HttpServer]:
    server = HttpServer(hostile_root, log=hostile_root.parent / "hostile-http.log", fresh=True)  # its memory is read by PID
    yield server
    server.close()


def stateless_process(target: StdioTarget) -> StdioProcess:
    return target.process_for(OUTPUTS_VERSION)


def still_serves(process: StdioProcess) -> None:
    (answer,) = answers_after(process, b'{"jsonrpc":"2.0","id":"alive","method":"tools/list","params":{"_meta":' + M + b"}}\n")
    assert answer["id"] == "alive" and answer["result"]["tools"], answer


@pytest.mark.parametrize("case", HOSTILE)
def test_stdio_answers_each_hostile_message_once(stdio_server: StdioTarget, case: str) -> None:
    """One answer, the issue's code, the id when the message had a valid one (null otherwise), and the
    connection keeps serving (issue 13: none of these may be silent; today they get no answer)."""
    text, code, request_id = HOSTILE[case]
    process = stateless_process(stdio_server)
    answers = answers_after(process, text + b"\n", barrier_id=f"barrier-{case}")
    assert len(answers) == 1, answers
    check_error(answers[0], code, request_id)
    still_serves(process)


@pytest.mark.parametrize("case", HOSTILE)
def test_http_answers_each_hostile_body_once(http_server: HttpServer, case: str) -> None:
    """The same bodies over streamable HTTP: status 400 and the same one error (the bridge checks each
    body as stdio does, before the SDK)."""
    text, code, request_id = HOSTILE[case]
    trip = http_server.post(text, {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "tools/call"})
    assert trip.status == 400, (trip.status, trip.raw[:500])
    (answer,) = trip.messages
    check_error(answer, code, request_id)


def test_a_notification_gets_no_answer_even_when_it_is_no_valid_mcp(stdio_server: StdioTarget) -> None:
    process = stateless_process(stdio_server)
    for text in (b'{"jsonrpc":"2.0","method":"notifications/x","params":[]}', b'{"jsonrpc":"2.0","method":"notifications/y"}'):
        assert answers_after(process, text + b"\n", expected=0, barrier_id="after-notification") == []


# ---- too large -----------------------------------------------------------------------------------------


def test_stdio_refuses_a_100_mb_line_in_bounded_memory_and_serves_on(stdio_server: StdioTarget) -> None:
    """A 100 MB line is answered -32600 with its id, read in bounded memory (no more than a few times the
    4 MiB limit), and the next line is served (issue 13: it used to make the server exit)."""
    process = stateless_process(stdio_server)
    head = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"x","arguments":{"a":"'
    before, peak = memory_of(process.proc.pid), 0
    writer = threading.Thread(target=lambda: [process.child.write(head)] + [process.child.write(b"x" * (1 << 20)) for _ in range(100)])
    writer.start()
    while writer.is_alive():
        peak = max(peak, memory_of(process.proc.pid))
        time.sleep(0.01)  # the sampling rate of the memory measured while the line arrives
    writer.join()
    (answer,) = answers_after(process, b'"}}}\n')
    error = check_error(answer, -32600, "big")
    assert error["data"]["limit"] == LIMIT and error["data"]["size"] > 100 * (1 << 20), error
    assert peak - before < 8 * LIMIT, f"memory grew by {(peak - before) >> 20} MB while a 100 MB line arrived"
    still_serves(process)


def test_http_refuses_a_100_mb_body_by_its_content_length_at_once(http_server: HttpServer) -> None:
    """Content-Length over the limit: 413 with a JSON-RPC error before the body is read, not after reading it whole
    (issue 13). Only 64 KB of the 100 MB are ever sent: a server that waited for the body
    would never answer, and the read times out."""
    with socket.create_connection(("127.0.0.1", http_server.port)) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nContent-Length: 104857600\r\n\r\n" + b"{" * 65536)
        response = _read_response(sock)
    assert response.startswith(b"HTTP/1.1 413"), response[:300]
    check_error(json.loads(response.split(b"\r\n\r\n", 1)[1]), -32600, None)


def test_http_stops_reading_a_chunked_body_at_the_limit(http_server: HttpServer) -> None:
    """No Content-Length: the body is read to the limit and no further (413 with the id the first bytes
    hold); the server's memory stays within a few times the limit, and it serves the next request."""
    pid = http_server.process.pid
    before = memory_of(pid)
    with socket.create_connection(("127.0.0.1", http_server.port)) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        head = b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"x","arguments":{"a":"'
        sock.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        chunk = b"%x\r\n%s\r\n" % (1 << 16, b"x" * (1 << 16))
        sent = 0
        sock.settimeout(5)
        try:
            while sent < 100 * (1 << 20):
                sock.sendall(chunk)
                sent += 1 << 16
        except OSError:
            pass  # the server answered and closed while we were still sending
        response = _read_response(sock)
    assert response.startswith(b"HTTP/1.1 413"), response[:300]
    check_error(json.loads(response.split(b"\r\n\r\n", 1)[1]), -32600, 42)
    assert sent < 100 * (1 << 20), "the server read the whole 100 MB"
    assert memory_of(pid) - before < 8 * LIMIT
    served = http_server.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope(OUTPUTS_VERSION, None)}},
                              {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "tools/list"})
    assert served.status == 200 and served.result["tools"]


def _read_response(sock: socket.socket) -> bytes:
    """An HTTP response with a Content-Length body, read from a raw socket."""
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _content_length(data):
        try:
            piece = sock.recv(65536)
        except ConnectionResetError:
            break
        if not piece:
            break
        data += piece
    return data


def _content_length(data: bytes) -> int:
    for line in data.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":", 1)[1])
    return 0


# ---- the era of a stdio connection --------------------------------------------------------------------


def _initialize(request_id: int, version: str) -> bytes:
    return json.dumps(initialize_message(request_id, version, None)).encode() + b"\n"


def _enveloped(request_id: int, version: str = OUTPUTS_VERSION) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": envelope(version, None)}}
    return json.dumps(message).encode() + b"\n"


@pytest.mark.parametrize("opening", [
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}\n', id="tools-call-params-null"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n', id="tools-list-before-initialize"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}\n', id="initialize-params-null"),
    pytest.param(_enveloped(1, "2099-01-01"), id="unsupported-version"),
    pytest.param(b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":'
                 b'"2026-12-01"}}}\n', id="envelope-without-capabilities"),
])
@pytest.mark.parametrize("then", ["stateless", "handshake"])
def test_a_rejected_first_request_does_not_fix_the_era(tmp_path: Path, opening: bytes, then: str) -> None:
    """Whatever the refused first request, the connection then opens either era: a 2026-12-01 request is
    served, or initialize at 2025-06-18 is (issue 13: after `params: null` every 2026-12-01 request was
    refused with a message naming 2026-07-28)."""
    process = StdioProcess(serve_command(tmp_path), str(tmp_path), None)
    try:
        (refused,) = answers_after(process, opening)
        error = check_error(refused, request_id=1)
        if error["code"] == -32022:
            assert error["data"]["supported"] == list(VERSIONS), error
        if then == "stateless":
            (served,) = answers_after(process, _enveloped(2))
            assert served["result"]["tools"], served
        else:
            (served,) = answers_after(process, _initialize(2, "2025-06-18"))
            assert served["result"]["protocolVersion"] == "2025-06-18", served
    finally:
        process.close()


def test_crossing_eras_is_refused_naming_the_versions_involved(tmp_path: Path) -> None:
    """On a handshake connection a 2026-12-01 request is -32600 naming 2026-12-01 and the handshake version,
    never 2026-07-28; on a stateless one initialize is -32022 offering the stateless versions."""
    handshake, stateless = (StdioProcess(serve_command(tmp_path), str(tmp_path), None) for _ in range(2))
    try:
        answers_after(handshake, _initialize(1, "2025-06-18"))
        (refused,) = answers_after(handshake, _enveloped(2))
        message = check_error(refused, -32600, 2)["message"]
        assert "2026-12-01" in message and "2025-06-18" in message and "2026-07-28" not in message, message
        answers_after(stateless, _enveloped(1))
        (refused,) = answers_after(stateless, _initialize(2, "2025-11-25"))
        error = check_error(refused, -32022, 2)
        assert error["data"] == {"supported": list(STATELESS), "requested": "2025-11-25"}, error
        (served,) = answers_after(stateless, _enveloped(3))
        assert served["result"]["tools"]
    finally:
        handshake.close()
        stateless.close()


# ---- batches ------------------------------------------------------------------------------------------


BATCH = b'[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":' \
        b'{"name":"list_kernels","arguments":{}}},{"jsonrpc":"2.0","method":"notifications/x"},5]\n'


def test_a_batch_is_served_at_2025_03_26(tmp_path: Path) -> None:
    """2025-03-26 had JSON-RPC batches: one array answers every request in it (and the element that is
    no message, with id null); the notification gets nothing."""
    target = stdio_target(tmp_path)
    try:
        process = target.process_for("2025-03-26")
        (answer,) = answers_after(process, BATCH)
        assert isinstance(answer, list), answer
        by_id = {item["id"]: item for item in answer}
        assert set(by_id) == {"a", "b", None}, answer
        assert by_id["a"]["result"] == {} and by_id["b"]["result"]["content"], answer
        check_error(by_id[None], -32600)
    finally:
        target.close()


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", OUTPUTS_VERSION])
def test_a_batch_is_refused_at_the_other_versions(stdio_server: StdioTarget, tmp_path: Path, version: str) -> None:
    """Every other version has no batches: one array with a -32600 for each request, by id, never a
    dropped one; the connection serves on."""
    target = stdio_server if version == OUTPUTS_VERSION else stdio_target(tmp_path)
    try:
        process = target.process_for(version)
        (answer,) = answers_after(process, BATCH)
        assert isinstance(answer, list) and {item["id"] for item in answer} == {"a", "b", None}, answer
        for item in answer:
            check_error(item, -32600)
    finally:
        if target is not stdio_server:
            target.close()


def test_a_batch_is_refused_over_http(http_server: HttpServer) -> None:
    trip = http_server.post(BATCH.strip(), {"MCP-Protocol-Version": OUTPUTS_VERSION})
    assert trip.status == 400
    (answer,) = [json.loads(trip.raw)]
    assert isinstance(answer, list) and {item["id"] for item in answer} == {"a", "b", None}, answer
    for item in answer:
        check_error(item, -32600)
