"""The socket `serve_http` listens on: what asyncio makes of the connections it accepts."""

from __future__ import annotations

import asyncio
import socket

import pytest

from mcp_variants.sdk._serve import CannotListen, listen


def test_accepted_connections_send_without_waiting_for_an_ack() -> None:
    # With Nagle on, a response body written after its headers waits for the client's delayed ACK, on every call.
    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.set_result(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        sock = listen("127.0.0.1", 0)
        server = await asyncio.start_server(accept, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
            value = await asyncio.wait_for(seen, 10)
            writer.close()
        return value

    assert asyncio.run(accepted_nodelay()) != 0


def test_a_port_in_use_is_one_line_that_says_so() -> None:
    with listen("127.0.0.1", 0) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(CannotListen, match=f"cannot listen on 127.0.0.1:{port}: the port is in use"):
            listen("127.0.0.1", port)
