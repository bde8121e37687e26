"""The remote runtime: the kernels and files of a Jupyter server, reached by URL and token.

Kernel lifecycle and files go over the REST API (httpx). Kernel messages go over the kernel
websocket through jupyter-kernel-client's KernelWebSocketClient, which is synchronous (a reader
thread fills one queue per channel): each execution's message loop runs in a worker thread.

The token travels only in the Authorization header (never in a URL, which ends up in logs)
and is never part of a message, a label or a repr.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import logging
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

import anyio
import anyio.from_thread
import anyio.to_thread
import httpx

from .backend import Backend
from .default_kernel import DefaultKernel
from .errors import ToolError
from .kernels import Execution, KernelInfo, ProgressCallback
from .local_contents import SKIPPED, entry_type
from .notebook_format import check, without_transient
from .outputs import OutputCollector, RunTracker
from .paths import clean_relative

if TYPE_CHECKING:
    from jupyter_kernel_client.wsclient import KernelWebSocketClient

logger = logging.getLogger(__name__)

REMOTE = "remote"  # the backend key of --jupyter-url
SILENCE_CHECK_S = 3.0  # ask the server whether a kernel still exists after this long without a message


def split_url(url: str) -> tuple[str, str | None]:
    """The server's base URL (ending in /, no query) and a `?token=` found in it (users paste those)."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ToolError("invalid-arguments", "url must be an http(s) URL of a Jupyter server, such as http://127.0.0.1:8888/.")
    if parts.username or parts.password:  # it would be shown wherever the URL is
        raise ToolError("invalid-arguments", "Put no user or password in url; pass the server's token as token.")
    query = parse_qsl(parts.query)
    token = next((v for k, v in query if k == "token"), None)
    path = parts.path.rstrip("/")
    if path.rsplit("/", 1)[-1] in ("lab", "tree"):  # JupyterLab prints .../lab?token=...: the API is beside it
        path = path.rsplit("/", 1)[0]
    path += "/"
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")), token  # the API needs no query


def remote_key(url: str) -> str:
    """The backend key of a server connect_to_jupyter reached: one backend per distinct URL."""
    return f"{REMOTE}:{hashlib.sha256(url.encode()).hexdigest()[:12]}"


class JupyterServer:
    """One Jupyter server: base URL, token, and one HTTP client shared by its kernels and contents."""

    def __init__(self, url: str, token: str | None, *, timeout: float = 30.0) -> None:
        self.url = url
        self.http = httpx.AsyncClient(base_url=url, timeout=timeout)
        self.set_token(token)

    def set_token(self, token: str | None) -> None:
        self._token = token or None
        self.http.headers.pop("Authorization", None)
        if self._token:
            self.http.headers["Authorization"] = f"token {self._token}"

    def same_token(self, token: str | None) -> bool:
        return (token or None) == self._token

    def ws_headers(self) -> dict[str, str]:
        return {"Authorization": f"token {self._token}"} if self._token else {}

    def ws_url(self, kernel_id: str) -> str:
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        return urlunsplit((scheme, parts.netloc, f"{parts.path}api/kernels/{kernel_id}/channels", "", ""))

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One REST call; a server that does not answer or refuses the token is a ToolError."""
        try:
            response = await self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ToolError(
                "unreachable",
                f"The Jupyter server at {self.url} does not answer ({type(exc).__name__}); check that it runs, "
                "or connect_to_jupyter to another one.",
            ) from None
        if response.status_code in (401, 403):
            raise ToolError("unauthorized", f"The Jupyter server at {self.url} refused the token; connect_to_jupyter with the right one.")
        return response

    async def status(self) -> dict[str, Any]:
        """/api/status (needs the token) plus the server version from /api."""
        response = await self.request("GET", "api/status")
        try:
            status = dict(response.json()) if response.status_code == 200 else None
            version = await self.request("GET", "api")
            status = status if status is None else {**status, "version": str(version.json().get("version", ""))}
        except ValueError:  # an answer, but not JSON
            status = None
        if status is None:
            raise ToolError("unreachable", f"{self.url} answered {response.status_code} to /api/status: is it a Jupyter server?")
        return status

    async def aclose(self) -> None:
        await self.http.aclose()


@dataclass
class _RemoteKernel:
    kernel_id: str
    client: KernelWebSocketClient
    started: datetime
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    # Held by the thread reading this kernel's queues: a cancelled call's thread may outlive its lock.
    reader: threading.Lock = field(default_factory=threading.Lock)
    last_activity: datetime = field(default_factory=lambda: datetime.now(UTC))
    execution_state: str = "idle"
    execution_count: int = 0


async def _report(progress: ProgressCallback, elapsed: float, message: str) -> None:
    await progress(elapsed, message)


def _disconnect(client: KernelWebSocketClient) -> None:
    """Close a kernel websocket now: stop_channels alone waits for the reader thread's select
    to time out (10 s); shutting the socket down first wakes it at once."""
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


def _utc(text: str | None) -> str:
    """A server timestamp as the embedded runtime writes them: ISO 8601, seconds, +00:00."""
    if not text:
        return ""
    try:
        return datetime.fromisoformat(text).astimezone(UTC).isoformat(timespec="seconds")
    except ValueError:
        return text


class RemoteKernels:
    """Kernels on a Jupyter server; the ones this process started are shut down by aclose."""

    def __init__(self, server: JupyterServer, *, kernel_name: str = "python3", hard_cap_bytes: int = 4_000_000) -> None:
        self.server = server
        self.kernel_name = kernel_name
        self.hard_cap_bytes = hard_cap_bytes
        self._kernels: dict[str, _RemoteKernel] = {}
        self._default = DefaultKernel()
        # A run holds a worker thread until it ends (up to its timeout): runs get their own thread
        # tokens, so many long runs never starve the default pool every other to_thread call shares.
        self._run_threads = anyio.CapacityLimiter(256)

    # ---- lifecycle (REST) ---------------------------------------------------------------------

    async def start_kernel(self) -> str:
        # path "" starts the kernel in the server's root folder.
        response = await self.server.request("POST", "api/kernels", json={"name": self.kernel_name, "path": ""})
        if response.status_code not in (200, 201):
            raise ToolError("internal", f"The Jupyter server at {self.server.url} could not start a {self.kernel_name} kernel ({response.status_code}).")
        kernel_id = response.json()["id"]
        try:
            client = await anyio.to_thread.run_sync(self._connect, kernel_id)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._delete(kernel_id)
            raise
        self._kernels[kernel_id] = _RemoteKernel(kernel_id, client, datetime.now(UTC))
        return kernel_id

    def _connect(self, kernel_id: str) -> KernelWebSocketClient:
        from jupyter_kernel_client.wsclient import KernelWebSocketClient  # ~40 ms of imports: only when used

        client = KernelWebSocketClient(
            endpoint=self.server.ws_url(kernel_id), token=None, headers=self.server.ws_headers(),
            log=logging.getLogger(f"{__name__}.ws"), timeout=30,
        )
        client.start_channels()
        try:
            if not client.connection_ready.is_set():
                raise ToolError("unreachable", f"Could not open the kernel websocket of the Jupyter server at {self.server.url}.")
            client.wait_for_ready(timeout=60)
        except BaseException:
            _disconnect(client)
            raise
        return client

    async def default_kernel(self) -> tuple[str, bool]:
        """The default kernel's id, started on first use; True when it replaced a dead one."""
        return await self._default.get(self.start_kernel, self._kernels)

    async def list_kernels(self) -> list[KernelInfo]:
        """Every kernel on the server (a person's JupyterLab kernels too); ours carry our counts."""
        response = await self.server.request("GET", "api/kernels")
        infos = []
        for model in response.json() if response.status_code == 200 else []:
            ours = self._kernels.get(model["id"])
            infos.append(KernelInfo(
                kernel_id=model["id"],
                name=model.get("name", ""),
                state=model.get("execution_state", "unknown"),
                started=ours.started.isoformat(timespec="seconds") if ours else "",
                last_activity=_utc(model.get("last_activity")),
                execution_count=ours.execution_count if ours else 0,
            ))
        return infos

    async def restart_kernel(self, kernel_id: str) -> None:
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise ToolError("not-found", f"No kernel {kernel_id}; list_kernels shows the running ones.")
        async with kernel.lock:
            response = await self.server.request("POST", f"api/kernels/{kernel_id}/restart")
            if response.status_code == 404:
                await self._forget(kernel)
                raise ToolError("kernel-died", f"Kernel {kernel_id} is gone from the server; the next run starts a new one.")
            # A fresh websocket: the old one's queues hold messages from before the restart.
            old = kernel.client
            kernel.client = await anyio.to_thread.run_sync(self._connect, kernel_id)
            await anyio.to_thread.run_sync(_disconnect, old)
            kernel.execution_count = 0
            kernel.last_activity = datetime.now(UTC)

    async def shutdown_kernel(self, kernel_id: str) -> None:
        kernel = self._kernels.pop(kernel_id, None)
        if kernel is None:
            return
        self._default.shut_down(kernel_id)
        await anyio.to_thread.run_sync(_disconnect, kernel.client)
        await self._delete(kernel_id)

    async def _delete(self, kernel_id: str) -> None:
        try:
            await self.server.request("DELETE", f"api/kernels/{kernel_id}")
        except ToolError:  # the server is gone: so is the kernel
            logger.debug("could not delete kernel %s", kernel_id)

    async def _forget(self, kernel: _RemoteKernel) -> None:
        """A kernel died: drop it, and shut down whatever the server restarted in its place."""
        self._kernels.pop(kernel.kernel_id, None)
        self._default.died(kernel.kernel_id)
        with anyio.CancelScope(shield=True):
            await self._delete(kernel.kernel_id)
            await anyio.to_thread.run_sync(_disconnect, kernel.client)

    async def aclose(self) -> None:
        """Shut down every kernel this runtime started (concurrently), then the HTTP client."""
        async def close(kernel: _RemoteKernel) -> None:
            with anyio.move_on_after(10, shield=True):
                await anyio.to_thread.run_sync(_disconnect, kernel.client)
                await self._delete(kernel.kernel_id)

        async with anyio.create_task_group() as tg:
            for kernel in list(self._kernels.values()):
                tg.start_soon(close, kernel)
        self._kernels.clear()
        await self.server.aclose()

    # ---- execution (websocket, in a worker thread) ----------------------------------------------

    async def execute(
        self,
        code: str,
        *,
        kernel_id: str | None = None,
        timeout: float,
        progress: ProgressCallback | None = None,
        progress_interval: float = 5.0,
    ) -> Execution:
        restarted = False
        if kernel_id is None:
            kernel_id, restarted = await self.default_kernel()
        kernel = self._kernels.get(kernel_id)
        if kernel is None:
            raise ToolError("kernel-died", f"Kernel {kernel_id} is no longer running; restart the notebook to get a new one.")
        async with kernel.lock:
            if not kernel.client.connection_ready.is_set():  # the websocket dropped since the last run
                old, kernel.client = kernel.client, await anyio.to_thread.run_sync(self._connect, kernel_id)
                await anyio.to_thread.run_sync(_disconnect, old)
            stop = threading.Event()
            try:
                execution = await anyio.to_thread.run_sync(
                    self._run, kernel, code, timeout, progress, progress_interval, stop,
                    abandon_on_cancel=True, limiter=self._run_threads,
                )
            finally:
                stop.set()  # a cancelled call: its thread stops reading within a second
            if execution.status == "died":
                await self._forget(kernel)
        execution.kernel_restarted = restarted
        return execution

    def _run(
        self, kernel: _RemoteKernel, code: str, timeout: float, progress: ProgressCallback | None,
        interval: float, stop: threading.Event,
    ) -> Execution:
        with kernel.reader:
            client = kernel.client
            collector = OutputCollector(self.hard_cap_bytes)
            began = time.perf_counter()
            deadline = began + timeout
            next_progress = began + interval
            last_message = began
            run = RunTracker(client.execute(code, store_history=True, allow_stdin=False), collector)
            kernel.execution_state = "busy"
            status = ""
            while not run.done and not stop.is_set():
                now = time.perf_counter()
                if now >= deadline:
                    status = "timeout"
                    anyio.from_thread.run(self.server.request, "POST", f"api/kernels/{kernel.kernel_id}/interrupt")
                    self._drain(client, run.msg_id, collector, seconds=5.0)
                    break
                if progress is not None and now >= next_progress:
                    anyio.from_thread.run(_report, progress, now - began, f"running for {now - began:.0f} s")
                    next_progress = now + interval
                wait = min(deadline, next_progress if progress else deadline, now + 1.0) - now
                try:
                    msg = client.get_iopub_msg(timeout=max(wait, 0.001))
                except queue.Empty:
                    if not client.connection_ready.is_set() or time.perf_counter() - last_message >= SILENCE_CHECK_S:
                        if self._gone(kernel):
                            status = "died"
                            break
                        last_message = time.perf_counter()
                    continue
                last_message = time.perf_counter()
                # The server says "restarting" or "dead" (no parent) when the kernel process died.
                if msg["header"]["msg_type"] == "status" and msg["content"].get("execution_state") in ("restarting", "dead"):
                    status = "died"
                    break
                run.feed(msg)
            kernel.execution_count = run.execution_count or kernel.execution_count
            kernel.last_activity = datetime.now(UTC)
            kernel.execution_state = "idle"
            if not status and not stop.is_set():
                run.settle(self._reply(client, run.msg_id))
            status = status or run.status
            return Execution(
                kernel_id=kernel.kernel_id,
                status=status,
                execution_count=kernel.execution_count or None,
                outputs=collector.outputs,
                duration_ms=(time.perf_counter() - began) * 1000,
                truncated_bytes=collector.dropped_bytes,
            )

    def _gone(self, kernel: _RemoteKernel) -> bool:
        """Whether the server no longer has this kernel alive (asked over REST, from the worker thread)."""
        response = anyio.from_thread.run(self.server.request, "GET", f"api/kernels/{kernel.kernel_id}")
        if response.status_code == 404:
            return True
        if response.status_code == 200 and response.json().get("execution_state") in ("dead", "restarting"):
            return True
        if not kernel.client.connection_ready.is_set():
            raise ToolError("unreachable", f"Lost the websocket to kernel {kernel.kernel_id} at {self.server.url}; call again to reconnect.")
        return False

    @staticmethod
    def _reply(client: KernelWebSocketClient, msg_id: str) -> dict[str, Any] | None:
        end = time.perf_counter() + 5.0
        while (left := end - time.perf_counter()) > 0:
            try:
                reply = client.get_shell_msg(timeout=left)
            except queue.Empty:
                return None
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
        return None

    @staticmethod
    def _drain(client: KernelWebSocketClient, msg_id: str, collector: OutputCollector, seconds: float) -> None:
        """After an interrupt: keep what the kernel still says about this run until it idles."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            try:
                msg = client.get_iopub_msg(timeout=left)
            except queue.Empty:
                return
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            msg_type = msg["header"]["msg_type"]
            if msg_type == "status":
                if msg["content"].get("execution_state") == "idle":
                    return
                continue
            if msg_type != "execute_input":
                collector.add(msg_type, msg["content"])


class RemoteContents:
    """Files and notebooks through /api/contents; the server keeps paths under its root, we refuse `..` first."""

    def __init__(self, server: JupyterServer) -> None:
        self.server = server
        self._limit = anyio.CapacityLimiter(8)  # folders listed at once when walking deeper than 1

    @staticmethod
    def _api(path: str) -> str:
        clean = clean_relative(path).as_posix()
        return "api/contents/" + quote("" if clean == "." else clean)

    async def _model(self, path: str, **params: str) -> httpx.Response:
        async with self._limit:
            return await self.server.request("GET", self._api(path), params=params)

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        response = await self._model(path, content="1")
        if response.status_code != 200 or response.json().get("type") != "directory":
            raise ToolError("not-found", f"No folder {path!r} under the root; call list_files without a path to see what there is.")
        return await self._walk(response.json(), 1, depth, pattern)

    async def _walk(self, folder: dict[str, Any], level: int, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        children = sorted(
            (c for c in folder.get("content") or [] if not c["name"].startswith(".") and c["name"] not in SKIPPED),
            key=lambda c: c["name"],
        )
        below: dict[str, list[dict[str, Any]]] = {}

        async def descend(child: dict[str, Any]) -> None:
            response = await self._model(child["path"], content="1")
            below[child["path"]] = await self._walk(response.json(), level + 1, depth, pattern) if response.status_code == 200 else []

        if level < depth:
            async with anyio.create_task_group() as tg:
                for child in children:
                    if child["type"] == "directory":
                        tg.start_soon(descend, child)
        found: list[dict[str, Any]] = []
        for child in children:
            is_dir = child["type"] == "directory"
            if pattern is None or fnmatch.fnmatch(child["name"], pattern):
                found.append({
                    "path": child["path"],
                    "name": child["name"],
                    "type": entry_type(child["name"], is_dir),
                    "size": None if is_dir else child.get("size"),
                    "modified": _utc(child.get("last_modified")),
                })
            found.extend(below.get(child["path"], []))
        return found

    async def exists(self, path: str) -> bool:
        response = await self._model(path, content="0")
        return response.status_code == 200 and response.json().get("type") != "directory"

    async def read_notebook(self, path: str) -> dict[str, Any]:
        response = await self._model(path, type="notebook", content="1")
        if response.status_code == 404:
            raise ToolError("not-found", f"No notebook {path!r} under the root; list_files with pattern '*.ipynb' shows the notebooks.")
        if response.status_code != 200:
            raise ToolError("invalid-notebook", f"{path!r} is not a readable notebook: {_reason(response)}")
        # The server marks cells "trusted" on read; that is not part of the file.
        return without_transient(response.json()["content"])

    async def write_notebook(self, path: str, notebook: dict[str, Any]) -> None:
        api = self._api(path)
        check(notebook)
        # One PUT of the whole notebook: the server writes it atomically (temporary file, rename).
        response = await self.server.request("PUT", api, json={"type": "notebook", "format": "json", "content": notebook})
        if response.status_code in (200, 201):
            return
        parent = clean_relative(path).parent.as_posix()
        folder = await self._model(parent, content="0")
        if response.status_code == 404 or folder.status_code != 200 or folder.json().get("type") != "directory":
            raise ToolError("not-found", f"No folder for {path!r} under the root.")
        raise ToolError("internal", f"The Jupyter server at {self.server.url} did not save {path!r}: {_reason(response)}")


def _reason(response: httpx.Response) -> str:
    try:
        return str(response.json().get("message") or response.reason_phrase)
    except ValueError:
        return response.reason_phrase


def remote_backend(key: str, url: str, token: str | None, *, hard_cap_bytes: int, label: str | None = None) -> Backend:
    """A Backend on the Jupyter server at `url`; a `?token=` in the URL is used when no token is given."""
    base, url_token = split_url(url)
    server = JupyterServer(base, token or url_token)
    return Backend(
        key=key,
        label=label or f"the Jupyter server at {base}",
        kernels=RemoteKernels(server, hard_cap_bytes=hard_cap_bytes),
        contents=RemoteContents(server),
    )
