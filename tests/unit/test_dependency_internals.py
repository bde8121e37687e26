"""What we read of our dependencies that they do not promise: each private name src/ reads, checked in the version
installed, which must be one pyproject.toml allows (a pin or a range; tests/distributions/test_ranges.py installs both
ends of each range).

Every private name of mcp, uvicorn, starlette, sse_starlette, jupyter_server, tornado and jupyter-kernel-client that
src/ reads is listed here, with the module of ours that reads it; that module's docstring says when to delete the
read. A failure means a dependency changed under us: its message names the attribute, our module, and what to do.
The requirements are in pyproject.toml (and distributions/sdk for mcp and uvicorn); widen one only with these tests
green at the new versions. A dependency pyproject.toml does not name (tornado) is checked at whatever is installed.
FastMCP's range allows its patch releases and uvicorn's has no upper bound (docs/support.md): what we read of them is
also checked when it is first needed (`Variants(mcp)`, a server started with a read deadline or a connection cap), and
the last tests here hold those checks to their word.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from mcp_variants.sdk import HttpLimits
from mcp_variants.sdk._connections import check_uvicorn, missing_uvicorn_reads, uvicorn_http

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
    ("fastmcp", "fastmcp.server.providers.fastmcp_provider:FastMCPProviderTool",
     ("self._server = server", "self._original_name = original_name"),
     "fastmcp/_lowlevel.py (mounted_origin: the server and name a mounted tool comes from)"),
]


PROJECT = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
ALLOWED = {(r := Requirement(d)).name: r.specifier for d in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["fastmcp"]]}


def source_of(target: str) -> str:
    module_name, _, qualname = target.partition(":")
    module = __import__(module_name, fromlist=[qualname])
    return inspect.getsource(getattr(module, qualname))


@pytest.mark.parametrize(("distribution", "target", "names", "reader"), READS, ids=[f"{r[0]}-{r[1].rsplit(':', 1)[1]}" for r in READS])
def test_the_private_names_we_read_are_still_there(distribution: str, target: str, names: tuple[str, ...], reader: str) -> None:
    installed = version(distribution)
    source = source_of(target)  # the names first: `make canary` runs this at releases outside the ranges
    missing = [name for name in names if name not in source]
    assert not missing, (f"{distribution} {installed} changed: {target} no longer has {missing}, which {reader} relies on. "
                         "Adapt that module (or keep the requirement) before upgrading.")
    allowed = ALLOWED.get(distribution, SpecifierSet())
    assert allowed.contains(installed), (
        f"{distribution} is {installed}, but {reader} was checked against {allowed} (pyproject.toml): the names are "
        "there; run `make canary`, then widen the requirement")


def test_the_uvicorn_installed_has_what_the_guarded_protocol_relies_on() -> None:
    assert missing_uvicorn_reads() == []
    assert uvicorn_http(HttpLimits(read_timeout=2)) is not None  # checked as a server starts with it: passes here


def test_a_uvicorn_without_them_stops_the_start_saying_what_to_do() -> None:
    """A uvicorn whose h11 protocol no longer sets one attribute: the check names the version, the attribute and the fix."""
    def renamed_init(self: object) -> None:
        self.connection = None  # type: ignore[attr-defined]

    with pytest.raises(RuntimeError) as raised:
        check_uvicorn((("H11Protocol.__init__", renamed_init, ("conn", "connection")),))
    message = str(raised.value)
    installed = version("uvicorn")
    assert f"uvicorn {installed} is not supported" in message and "self.conn (set in H11Protocol.__init__)" in message
    assert "self.connection " not in message and f"pip install 'uvicorn<{installed}'" in message


def test_a_fastmcp_without_its_low_level_server_stops_variants_saying_what_to_do() -> None:
    """A FastMCP whose server no longer has `_mcp_server` (removed from a real one, as a release renaming it would):
    `Variants(mcp)` refuses it, naming the version, what is read and the fix, before any request."""
    from fastmcp import FastMCP

    from mcp_variants.fastmcp import Variants

    server = FastMCP("renamed")
    del server._mcp_server
    with pytest.raises(RuntimeError) as raised:
        Variants(server)
    message = str(raised.value)
    assert f"fastmcp {version('fastmcp')} is not supported" in message and "FastMCP._mcp_server" in message
    assert "pip install 'fastmcp>=4.1.4,<4.3'" in message and "upgrade mcp-variants" in message
