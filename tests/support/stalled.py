"""Connections that send half an HTTP request and stall: what an HTTP server's read deadline and connection cap
are for (mcp_variants.sdk's GuardedH11Protocol, under both frameworks' servers)."""

from __future__ import annotations

import socket


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
