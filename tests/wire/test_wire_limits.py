"""What a client can hold, and what the server does when one goes too far (issue 13): stdout redirected to a
file, stalled HTTP connections, sessions that are never ended. Each test starts its own server on
loopback, with small limits so that it ends in seconds, and stops it by PID.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from support.raw_wire import check_error, memory_of
from support.servers import HttpServer, serve_command
from support.stalled import check_stalled_are_handled, stall
from support.waiting import until
from support.wire import OUTPUTS_VERSION, envelope, initialize_message

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

LIST = {"MCP-Protocol-Version": OUTPUTS_VERSION, "Mcp-Method": "tools/list"}
IDLE_END = "idle timeout"  # the SDK's session manager logs "Session ID idle timeout" (INFO) as it ends one


def tools_list(request_id: int) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": envelope(OUTPUTS_VERSION, None)}}


# ---- stdout to a regular file ------------------------------------------------------------------------


# What `serve` says on stderr at start (server/cli.py, _say_what_serves): where notebooks run, never a silent fallback.
START_NOTICES = ("mcp-variants: no Jupyter server serves ", "mcp-variants: working through ")


def _served(root: Path, requests: bytes, stdout: int | object) -> bytes:
    """Run `serve` with `requests` on stdin (then EOF) and stdout as given; what it wrote to a pipe."""
    done = subprocess.run(serve_command(root), input=requests, stdout=stdout, stderr=subprocess.PIPE, cwd=root, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout or b""


def test_stdout_to_a_regular_file_gets_every_answer_as_a_pipe_does(tmp_path: Path) -> None:
    """`serve > out.txt` writes every answer, as through a pipe (issue 13: the file stayed empty and the server
    exited 0 without a word). How long either takes is bench/'s to measure, not a test's."""
    count = 300
    requests = b"".join(json.dumps(tools_list(i)).encode() + b"\n" for i in range(1, count + 1))
    out = tmp_path / "out.txt"
    piped = _served(tmp_path, requests, subprocess.PIPE)
    with out.open("wb") as file:
        _served(tmp_path, requests, file)
    for text in (piped, out.read_bytes()):
        answers = [json.loads(line) for line in text.splitlines()]
        assert sorted(a["id"] for a in answers) == list(range(1, count + 1))
        assert all(a["result"]["tools"] for a in answers)


def test_stdin_and_stdout_from_dev_null_are_read_and_written_as_files(tmp_path: Path) -> None:
    """`serve < /dev/null` ends at once (epoll refuses /dev/null: it waited forever, logging a PermissionError),
    and `serve > /dev/null` answers every request into it and exits 0."""
    with open(os.devnull, "rb") as nothing:
        done = subprocess.run(serve_command(tmp_path), stdin=nothing, capture_output=True, cwd=tmp_path, timeout=60, check=False)
    said = done.stderr.decode().splitlines()
    assert (done.returncode, done.stdout) == (0, b""), done.stderr[-2000:]
    assert len(said) <= 1 and all(line.startswith(START_NOTICES) for line in said), "the start notice alone: no error"
    requests = b"".join(json.dumps(tools_list(i)).encode() + b"\n" for i in range(1, 4))
    with open(os.devnull, "wb") as sink:
        _served(tmp_path, requests, sink)


# ---- stalled connections ------------------------------------------------------------------------------


def test_stalled_connections_neither_starve_a_client_nor_stay(tmp_path: Path) -> None:
    """300 connections that send half a request and stall, against --max-connections 50 and --read-timeout 4:
    a normal client is served without waiting for a stalled one's deadline (its own timeout is shorter), the
    stalled ones beyond the cap are closed as new ones come, and the rest when their deadline passes (issue 13:
    they stayed open indefinitely)."""
    server = HttpServer(tmp_path, "--max-connections", "50", "--read-timeout", "4", log=tmp_path.parent / f"{tmp_path.name}.log")
    stalled = stall(server.port, 300)
    try:
        def served() -> None:
            trip = server.post(tools_list(server.next_id()), LIST, timeout=3)
            assert trip.status == 200 and trip.result["tools"], trip.problem

        check_stalled_are_handled(stalled, served, cap=50, deadline=10)
    finally:
        for connection in stalled:
            connection.close()
        server.close()


# ---- sessions -----------------------------------------------------------------------------------------


def test_sessions_expire_and_at_the_cap_the_least_recently_used_idle_one_ends(tmp_path: Path) -> None:
    """--max-sessions 3: a fourth session ends the least recently used idle one (its client gets 404, and
    initializes again); while every session is busy (an open GET stream each) one more is refused with 503 and
    a JSON-RPC error. --session-idle-timeout 3: an abandoned session then answers 404 (issue 22: at the cap every
    new client got 503 until the idle timeout freed one)."""
    log = tmp_path.parent / f"{tmp_path.name}.log"
    server = HttpServer(tmp_path, "--max-sessions", "3", "--session-idle-timeout", "3", "--log-level", "info", log=log)
    streams: list[socket.socket] = []
    try:
        first, second, third = (server.target.open_session("2025-11-25", None)[0] for _ in range(3))
        assert _status(server, first) == 200  # now `second` is the least recently used
        fourth, opened = server.target.open_session("2025-11-25", None)
        assert fourth and opened.result["protocolVersion"] == "2025-11-25", opened.raw
        assert [_status(server, s) for s in (second, first, third, fourth)] == [404, 200, 200, 200]
        streams = [_get_stream(server, s) for s in (first, third, fourth)]
        refused = server.post(initialize_message(9, "2025-11-25", None))
        assert refused.status == 503, (refused.status, refused.raw)
        check_error(json.loads(refused.raw))
        for stream in streams:
            stream.close()
        until(lambda: _idle_ends(log) >= 3, "the three sessions ended by the idle timeout")
        session, opened = server.target.open_session("2025-11-25", None)
        assert session and opened.result["protocolVersion"] == "2025-11-25"
        assert [_status(server, old) for old in (first, third, fourth)] == [404] * 3
    finally:
        for stream in streams:
            stream.close()
        server.close()


def _idle_ends(log: Path) -> int:
    """The sessions the server has ended for idleness, as its log (--log-level info) tells: a request to ask a
    session would make it busy again."""
    return log.read_text(errors="replace").count(IDLE_END)


def _get_stream(server: HttpServer, session: str | None) -> socket.socket:
    """A session's standalone GET stream, open (its response headers read): the session is busy while it is."""
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    connection.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nAccept: text/event-stream\r\n"
                       f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n".encode())
    assert connection.recv(4096).startswith(b"HTTP/1.1 200"), "the GET stream was not opened"
    return connection


def _status(server: HttpServer, session: str | None) -> int | None:
    headers = {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}
    return server.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers).status


def test_an_abandoned_session_keeps_under_20_kb_once_it_expired(tmp_path: Path) -> None:
    """Sessions opened, used (a tools/call, so that the runtime registry holds state for each) and abandoned, in rounds of
    200 with --session-idle-timeout 1: the server's memory after the later rounds' expiry is no more than 20 KB
    per session above the first round's (issue 13: an expired session's state was kept). The first round pays for
    what any session costs once (allocator arenas, caches); what stays after that is what a session keeps."""
    log = tmp_path.parent / f"{tmp_path.name}.log"
    server = HttpServer(tmp_path, "--session-idle-timeout", "1", "--max-sessions", "1000", "--log-level", "info", log=log, fresh=True)

    def open_and_use() -> None:
        session, _ = server.target.open_session("2025-11-25", None)
        headers = {"Mcp-Session-Id": session or "", "MCP-Protocol-Version": "2025-11-25"}
        trip = server.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_kernels", "arguments": {}}},
                           headers)
        assert trip.status == 200, trip.raw[:300]

    try:
        def expired(sessions: int) -> None:
            until(lambda: _idle_ends(log) >= sessions, f"{sessions} sessions ended by the idle timeout")

        kept, after = _kept_per_session(server, open_and_use, per_round=200, settle=expired)
        assert kept < 20 * 1024, f"{kept / 1024:.1f} KB kept per expired session (memory after each round: {after})"
    finally:
        server.close()


@pytest.mark.xfail(strict=True, reason="37 KB each (mcp 2.3.0): the SDK's router task and server task per "
                   "session, its read loop parked on a memory stream, its Connection, and its last message (request, scope, "
                   "headers) kept by that loop (docs/sdk-change.md, section 9); at the cap the least recently used idle one "
                   "ends instead")
def test_an_abandoned_open_session_keeps_under_20_kb(tmp_path: Path) -> None:
    """Sessions initialized and never ended (no DELETE), in rounds of 100 within the idle timeout: the server's
    memory grows by less than 20 KB per session after the first round (issue 22: each held its state until the
    idle timeout). The first round pays for what any session costs once (allocator arenas, caches)."""
    server = HttpServer(tmp_path, "--max-sessions", "1000", log=tmp_path.parent / f"{tmp_path.name}.log", fresh=True)

    def open_and_leave() -> None:
        session, opened = server.target.open_session("2025-11-25", None)
        assert session and opened.status == 200, opened.raw[:300]

    try:
        kept, after = _kept_per_session(server, open_and_leave, per_round=100)
        assert kept < 20 * 1024, f"{kept / 1024:.1f} KB per open abandoned session (memory after each round: {after})"
    finally:
        server.close()


def _kept_per_session(server: HttpServer, open_one: Callable[[], None], *, per_round: int,
                      settle: Callable[[int], None] = lambda opened: None, rounds: int = 3) -> tuple[float, list[int]]:
    """Rounds of `per_round` sessions (`open_one`), then `settle(sessions opened so far)`, then the server's memory:
    the bytes each session of the later rounds added (the first pays for what any session costs once), and each round's."""
    after: list[int] = []
    for round_number in range(1, rounds + 1):
        for _ in range(per_round):
            open_one()
        settle(round_number * per_round)
        after.append(memory_of(server.process.pid))
    return (after[-1] - after[0]) / ((rounds - 1) * per_round), after
