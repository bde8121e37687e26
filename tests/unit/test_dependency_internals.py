"""What we read of our dependencies that they do not promise: each private name src/ reads, checked in the version
installed, which must be one pyproject.toml allows (a pin or a range; tests/distributions/test_ranges.py installs both
ends of each range).

Every private name of mcp, uvicorn, starlette, sse_starlette, jupyter_server, tornado and jupyter-kernel-client that
src/ reads is listed here, with the module of ours that reads it; that module's docstring says when to delete the
read. A failure means a dependency changed under us: its message names the attribute, our module, and what to do.
The requirements are in pyproject.toml (and distributions/sdk for mcp and uvicorn); widen one only with these tests
green at the new versions. A dependency pyproject.toml does not name (tornado) is checked at whatever is installed.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

# (distribution, the source that must hold each private name, the names, who reads them)
READS = [
    ("uvicorn", "uvicorn.protocols.http.h11_impl:H11Protocol",
     ("self.conn = h11.Connection(", "self.connections = server_state.connections", "self.cycle",
      "def on_response_complete(self)"),
     "sdk/_connections.py (GuardedH11Protocol: read deadline, connection cap)"),
    ("uvicorn", "uvicorn.protocols.http.h11_impl:RequestResponseCycle", ("self.response_complete",),
     "sdk/_connections.py (a request being served has no deadline)"),
    ("jupyter-kernel-client", "jupyter_kernel_client.wsclient:KernelWebSocketClient",
     ("self._shell_msg_queue", "self._iopub_msg_queue"),
     "jupyter/remote/websocket.py (open_channels: queues that wake the event loop)"),
    ("jupyter-kernel-client", "jupyter_kernel_client.wsclient:KernelWebSocketClient",
     ("self.kernel_socket = websocket.WebSocketApp(", "on_open=self._on_open", "Thread(target=self._run_websocket)",
      "self.connection_ready.wait(timeout=self.timeout)", "def _run_websocket(self)"),
     "jupyter/remote/websocket.py (_Handshake: a refused websocket fails at once, with the server's status)"),
    ("mcp", "mcp.server.session:ServerSession", ("self._connection = connection",),
     "server/app.py (client_state: a client's state forgotten when its connection ends)"),
    ("mcp", "mcp.server.connection:Connection", ("self.exit_stack = AsyncExitStack()",),
     "server/app.py (client_state)"),
    ("mcp", "mcp.server.runner:serve_dual_era_loop", ("await _serve_modern_stream(", "await _serve_legacy_stream("),
     "sdk/_stdio.py (StdioServerConnection.serve calls the era's loop that Server.run would)"),
    ("mcp", "mcp.server.runner:_serve_legacy_stream",
     ("read_stream: ReadStream", "write_stream: WriteStream", "lifespan_state: LifespanT", "session_id: str | None",
      "init_options: InitializationOptions | None", "raise_exceptions: bool"),
     "sdk/_stdio.py (StdioServerConnection.serve: a handshake connection)"),
    ("mcp", "mcp.server.mcpserver.server:MCPServer", ("self._lowlevel_server = Server(",),
     "sdk/_serve.py (lowlevel_server: an MCPServer served on the bridged transports)"),
    ("mcp", "mcp.server.streamable_http_manager:StreamableHTTPSessionManager",
     ("def _admit_session(self", "self._server_instances", "self._session_owners"),
     "sdk/_sessions.py (evict_idle_at_cap: the least recently used idle session ends at the cap)"),
    ("jupyter-server", "jupyter_server.serverapp:ServerApp", ("def _signal_stop(self",),
     "jupyter_extension/app.py (SIGINT stops the server as gracefully as SIGTERM)"),
    ("tornado", "tornado.web:RequestHandler", ("self._finished",),
     "jupyter_extension/asgi.py (a response the handler already finished is not written again)"),
    ("mcp", "mcp.server.runner:_serve_modern_stream",
     ("read_stream: ReadStream", "write_stream: WriteStream", "lifespan_state: LifespanT", "raise_exceptions: bool"),
     "sdk/_stdio.py (StdioServerConnection.serve: a 2026 connection)"),
    ("fastmcp", "fastmcp.server.server:FastMCP", ("self._mcp_server: LowLevelServer[",),
     "fastmcp/_lowlevel.py (FastMCP's low-level Server: bridged stdio, the tools/list middleware)"),
]


ALLOWED = {(r := Requirement(d)).name: r.specifier for d in
           tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["dependencies"]}


def source_of(target: str) -> str:
    module_name, _, qualname = target.partition(":")
    module = __import__(module_name, fromlist=[qualname])
    return inspect.getsource(getattr(module, qualname))


@pytest.mark.parametrize(("distribution", "target", "names", "reader"), READS, ids=[f"{r[0]}-{r[1].rsplit(':', 1)[1]}" for r in READS])
def test_the_private_names_we_read_are_still_there(distribution: str, target: str, names: tuple[str, ...], reader: str) -> None:
    installed = version(distribution)
    allowed = ALLOWED.get(distribution, SpecifierSet())
    assert allowed.contains(installed), (
        f"{distribution} is {installed}, but {reader} was checked against {allowed} (pyproject.toml): check the names below "
        "in the new version, then widen the requirement")
    source = source_of(target)
    missing = [name for name in names if name not in source]
    assert not missing, (f"{distribution} {installed} changed: {target} no longer has {missing}, which {reader} relies on. "
                         "Adapt that module (or keep the requirement) before upgrading.")
