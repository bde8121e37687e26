"""A Jupyter server kernel's channels over its websocket, as the run loop reads them.

jupyter-kernel-client's KernelWebSocketClient is synchronous: a reader thread puts each message
in a queue per channel. The queues here also wake the event loop when they are filled, so the
one (async) run loop awaits messages without a worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import queue
import socket
import time
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from ...protocol.errors import ErrorKind, ToolError
from .server_client import JupyterServerClient

if TYPE_CHECKING:
    from jupyter_kernel_client.wsclient import KernelWebSocketClient

READY_TIMEOUT_S = 60.0  # a kernel that just started answers once its imports are done
SILENCE_CHECK_S = 3.0  # ask the server whether a kernel still exists after this long without a message


class _WakingQueue(queue.Queue[dict[str, Any]]):
    """A channel's queue: the websocket's reader thread puts, the event loop awaits."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self._filled = asyncio.Event()

    def _put(self, item: dict[str, Any]) -> None:  # in the reader thread, under the queue's lock
        super()._put(item)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            self._loop.call_soon_threadsafe(self._filled.set)

    async def next(self, timeout: float) -> dict[str, Any] | None:
        try:  # most messages come in bursts: already here, no timer needed
            return self.get_nowait()
        except queue.Empty:
            pass
        with anyio.move_on_after(timeout):
            while True:
                self._filled.clear()  # before looking: a put after the look sets it again
                try:
                    return self.get_nowait()
                except queue.Empty:
                    await self._filled.wait()
        return None


class WebSocketChannels:
    """One kernel's websocket on a Jupyter server; opened with `open_channels`."""

    def __init__(self, server: JupyterServerClient, kernel_id: str, client: KernelWebSocketClient,
                 iopub: _WakingQueue, shell: _WakingQueue) -> None:
        self.server = server
        self.kernel_id = kernel_id
        self.client = client
        self._iopub = iopub
        self._shell = shell

    @property
    def connected(self) -> bool:
        return bool(self.client.connection_ready.is_set())

    def execute(self, code: str, *, silent: bool = False) -> str:
        msg_id: str = self.client.execute(code, silent=silent, store_history=not silent, allow_stdin=False)
        return msg_id

    async def iopub(self, timeout: float) -> dict[str, Any] | None:
        return await self._iopub.next(timeout)

    async def shell(self, timeout: float) -> dict[str, Any] | None:
        return await self._shell.next(timeout)

    async def interrupt(self) -> None:
        await self.server.request("POST", f"api/kernels/{self.kernel_id}/interrupt")

    async def alive(self) -> bool:
        """Asked over REST: the websocket alone cannot tell a dead kernel from a dropped connection."""
        response = await self.server.request("GET", f"api/kernels/{self.kernel_id}")
        if response.status_code == 404:
            return False
        if response.status_code == 200 and response.json().get("execution_state") in ("dead", "restarting"):
            return False
        if not self.connected:
            raise ToolError(ErrorKind.UNREACHABLE,
                            f"Lost the websocket to kernel {self.kernel_id} on {self.server.name}; call again to reconnect.")
        return True

    async def _busy(self) -> bool:
        response = await self.server.request("GET", f"api/kernels/{self.kernel_id}")
        return response.status_code == 200 and response.json().get("execution_state") == "busy"

    def silence_before_check(self) -> float:
        return 0.0 if not self.connected else SILENCE_CHECK_S  # a REST round trip: not at every empty wait

    async def answering(self, timeout: float) -> None:
        """Until the kernel answers a kernel_info_request on shell and its status comes on iopub (asked again every
        second: a kernel still starting may miss one), as jupyter_client's `wait_for_ready`, less the 0.2 s of silence
        on iopub that one waits for after: the run loop takes only the iopub messages of its own runs. A kernel busy
        with a run (a person's, another agent's) answers only once that run ends: busy, it is up, and ready as the
        Jupyter server takes it (it does not nudge a busy kernel either); our runs queue behind that one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg_id = self.client.kernel_info()
            again = min(time.monotonic() + 1.0, deadline)
            replied = False
            while (left := again - time.monotonic()) > 0:
                if not replied:
                    reply = await self._shell.next(left)
                    replied = reply is not None and reply.get("msg_type") == "kernel_info_reply"
                else:
                    status = await self._iopub.next(left)
                    if status is not None and status.get("parent_header", {}).get("msg_id") == msg_id:
                        return
            if not self.connected:
                break
            if await self._busy():  # asked only after a second without an answer: one round trip less when idle
                return
        raise ToolError(ErrorKind.UNREACHABLE, f"Kernel {self.kernel_id} on {self.server.name} did not answer within {timeout:g} s.")

    async def close(self) -> None:
        await anyio.to_thread.run_sync(disconnect, self.client)


async def open_channels(server: JupyterServerClient, kernel_id: str) -> WebSocketChannels:
    """Connect to the websocket of kernel `kernel_id` and wait until the kernel answers."""
    # jupyter_client's imports, only when used, and off the event loop: the notebook's room is joined and other
    # calls are served meanwhile (docs/performance.md, a cold use_notebook).
    wsclient = await anyio.to_thread.run_sync(importlib.import_module, "jupyter_kernel_client.wsclient")
    loop = asyncio.get_running_loop()
    client = wsclient.KernelWebSocketClient(
        endpoint=server.ws_url(kernel_id), token=None, headers=server.ws_headers(),
        log=logging.getLogger(f"{__name__}.client"), timeout=30,
    )
    # The reader thread puts each message into the queue attribute named after its channel.
    iopub, shell = _WakingQueue(loop), _WakingQueue(loop)
    client._iopub_msg_queue, client._shell_msg_queue = iopub, shell
    await anyio.to_thread.run_sync(_start, client, server.name)
    channels = WebSocketChannels(server, kernel_id, client, iopub, shell)
    try:
        await channels.answering(READY_TIMEOUT_S)
    except BaseException:
        await channels.close()
        raise
    return channels


class _Handshake:
    """How the websocket's opening went. jupyter-kernel-client waits its whole timeout (30 s) for a websocket
    that will never open (a handshake the server refused, a connection it reset) and keeps the reason to itself:
    its connection thread, wrapped here, says why and wakes that wait as soon as it ends unopened."""

    def __init__(self, client: KernelWebSocketClient) -> None:
        self.opened = False
        self.error: BaseException | None = None
        run = client._run_websocket

        def run_and_report() -> None:  # the connection thread; kernel_socket is made just before it starts
            app = client.kernel_socket
            if app is not None:
                on_open = app.on_open

                def opened(ws: Any) -> None:
                    self.opened = True
                    on_open(ws)

                def failed(_ws: Any, error: BaseException) -> None:
                    self.error = self.error or error

                app.on_open, app.on_error = opened, failed
            try:
                run()
            finally:
                if not self.opened:
                    client.connection_ready.set()  # only to end start_channels' wait: `failure` is read first

        client._run_websocket = run_and_report

    def failure(self) -> str | None:
        """Why the websocket did not open; None once it did."""
        if self.opened:
            return None
        status = getattr(self.error, "status_code", None)  # websocket-client's bad handshake status; its text has headers
        if status is not None:
            return f"the server answered {status} to its handshake"
        return f"{type(self.error).__name__}: {self.error}" if self.error is not None else "it did not open in time"


def _start(client: KernelWebSocketClient, server_name: str) -> None:
    handshake = _Handshake(client)
    client.start_channels()
    try:
        if (failure := handshake.failure()) is not None:
            raise ToolError(ErrorKind.UNREACHABLE, f"Could not open the kernel websocket of {server_name}: {failure}.")
    except BaseException:
        disconnect(client)
        raise


def disconnect(client: KernelWebSocketClient) -> None:
    """Close a kernel websocket now (blocking): stop_channels alone waits for the reader thread's
    select to time out (10 s); shutting the socket down first wakes it at once."""
    app = client.kernel_socket
    if app is not None:
        app.keep_running = False
        raw = getattr(app.sock, "sock", None)  # websocket-client: WebSocketApp.sock.sock is the TCP socket
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_RDWR)
    if client.connection_thread is not None:
        client.connection_thread.join(5)
    client.stop_channels()
