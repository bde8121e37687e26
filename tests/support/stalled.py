"""Connections that send half an HTTP request and stall: what an HTTP server's read deadline and connection cap
are for (mcp_variants.sdk's GuardedH11Protocol, under both frameworks' servers)."""

from __future__ import annotations

import socket
from collections.abc import Callable

from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.servers import HttpServer
from support.waiting import until


def stall(port: int, count: int) -> list[socket.socket]:
    """`count` loopback connections to `port`, each with a request's first bytes sent and no more."""
    stalled = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
        stalled.append(connection)
    return stalled


def still_open(connections: list[socket.socket]) -> list[socket.socket]:
    """The connections the server has not closed (a closed one reads as EOF)."""
    still = []
    for connection in connections:
        connection.setblocking(False)
        try:
            if connection.recv(1, socket.MSG_PEEK):
                still.append(connection)
        except BlockingIOError:
            still.append(connection)
        except OSError:
            pass
    return still


def check_stalled_are_handled(stalled: list[socket.socket], serve_one: Callable[[], object], cap: int, deadline: float) -> None:
    """With `stalled` open, a client is served three times (`serve_one` asserts its answer), no more than `cap` of them
    stay open, and the rest close within `deadline` seconds (the server's read deadline and then some)."""
    for _ in range(3):
        serve_one()
    assert len(still_open(stalled)) <= cap
    until(lambda: not still_open(stalled), "the stalled connections closed after the read deadline", timeout=deadline, every=0.2)


def check_server_handles_stalled(server: HttpServer, count: int, cap: int, deadline: float) -> None:
    """`count` stalled connections to `server`, a server of the public API started with a connection cap `cap`:
    check_stalled_are_handled, tools/list as the client's call; then the connections and the server are closed."""
    stalled = stall(server.port, count)
    try:
        check_stalled_are_handled(stalled, lambda: server.target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"],
                                  cap=cap, deadline=deadline)
    finally:
        for connection in stalled:
            connection.close()
        server.close()
