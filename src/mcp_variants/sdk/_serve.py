"""Run a server, `MCPServer` or the low-level `Server`, on stdio or streamable HTTP with every protocol era,
2026-12-01 included: behind the message guard (_guard.py) always, and, where the installed SDK would refuse
2026-12-01 before any handler runs, the bridge (_bridge.py). The same functions serve the Jupyter server.

Each takes `bridge`: None (the default) bridges exactly when the installed SDK needs it (`bridge_needed()`:
mcp 2.3.0 does; an SDK with docs/sdk-change.md applied does not); True or False forces it on or off."""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import errno
import signal
import socket
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol

import anyio
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp

from ..protocol.versions import OUTPUTS_VERSION
from ._arguments import add_serving_options, serving_options
from ._guard import DEFAULT_MAX_MESSAGE_BYTES, MessageGuard
from ._http import HttpLimits, bridge_step, build_http_app
from ._log import set_up_log
from ._mountable import StreamableHttpApp
from ._stdio import stdio_connection

DEFAULT_LIMITS = HttpLimits()
"""The limits `run`, `serve_http` and `streamable_http_app` serve with unless given others: the SDK's own (`HttpLimits()`)."""

ON_OUR_TRANSPORTS: contextvars.ContextVar[bool] = contextvars.ContextVar("mcp_variants_on_our_transports", default=False)
"""True in whatever serves a connection through these functions: a `Variants` server run otherwise (the SDK's own
`mcp.run()`) refuses 2026-12-01 before any handler runs, and says so in its log."""

AnyServer = MCPServer[Any] | Server[Any]


class ChecksItsServer(Protocol):
    """An extension that looks at the server it is served by before the first request (`Variants`: was it given
    to this server; is its middleware installed)."""

    def before_serving(self, server: AnyServer) -> None: ...


BEFORE_SERVING: weakref.WeakSet[ChecksItsServer] = weakref.WeakSet()
"""Every live extension that checks its server; each function here that serves a server asks them first."""


def check_before_serving(server: AnyServer) -> None:
    """A mistake in wiring the server, refused (DeclarationError) or mended before it takes a request."""
    for extension in list(BEFORE_SERVING):
        extension.before_serving(server)


def lowlevel_server(server: AnyServer) -> Server[Any]:
    """The low-level Server that runs a connection. mcp 2.3.0's MCPServer keeps it private and runs it only on
    the SDK's own transports (MCPServer.run_stdio_async reads the same attribute).

    Public for what MCPServer does not serve itself: the handshake-era methods 2026-07-28 removed
    (`logging/setLevel`, `resources/subscribe` / `resources/unsubscribe`), which the SDK says to register with
    `Server.add_request_handler` (an extension's `MethodBinding` may not name a spec method):

        lowlevel_server(mcp).add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    """
    if isinstance(server, MCPServer):
        inner: Server[Any] = server._lowlevel_server
        return inner
    return server


def unbridged_warning(layer: str, runner: str, instead: str) -> str:
    """What a `Variants` server of `layer` logs, once, when it runs outside that layer's transports (`runner`,
    most likely): one wording for every layer, `instead` naming what to call."""
    return (f"this server runs outside {layer}'s transports ({runner}?): the installed SDK refuses 2026-12-01 clients "
            f"with -32022 before any handler runs. Serve it with {instead} to answer them (an in-process test client, "
            "which never speaks 2026-12-01, needs nothing more).")


def bridge_needed() -> bool:
    """True while the installed SDK does not serve 2026-12-01 itself (mcp 2.3.0 knows versions up to 2026-07-28)."""
    return OUTPUTS_VERSION not in MODERN_PROTOCOL_VERSIONS


def bridging(bridge: bool | None) -> bool:
    """Whether to bridge: as asked, or (None) exactly when the installed SDK does not serve 2026-12-01 itself."""
    return bridge_needed() if bridge is None else bridge


async def serve_stdio(server: AnyServer, *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                      at_eof: Callable[[], None] = lambda: None, bridge: bool | None = None,
                      fds: tuple[int, int] | None = None) -> None:
    """Serve this process's stdin and stdout until EOF: newline-delimited messages of at most `max_message_bytes`,
    each checked as JSON-RPC, the era fixed by the first request that claims one, the bridge as `bridge` says.
    `fds`: two descriptors (read, write), the ends of two pipes for instance, served the same way in place of stdin and stdout,
    which are then left alone; they stay the caller's to close (`InProcessTransport` serves its pipes so)."""
    check_before_serving(server)
    inner = lowlevel_server(server)
    ON_OUR_TRANSPORTS.set(True)
    async with stdio_connection(max_message_bytes, at_eof=at_eof, bridge=bridging(bridge), fds=fds) as connection:
        await connection.serve(inner)


def streamable_http_app(server: AnyServer, *, host: str = "127.0.0.1", token: str | None = None,
                        limits: HttpLimits = DEFAULT_LIMITS, allowed_hosts: Sequence[str] = (),
                        bridge: bool | None = None, token_verifier: TokenVerifier | None = None,
                        auth: AuthSettings | None = None, dns_rebinding_protection: bool = True) -> StreamableHttpApp:
    """The ASGI app at /mcp: the SDK's streamable HTTP (an MCPServer's with its auth and routes) behind the message
    guard (and the bridge where it is needed), DNS-rebinding protection on (loopback, `host` and `allowed_hosts`
    served; off for a host in front that checks Host and Origin itself), and a bearer token where one is given, or
    every bearer token checked by `token_verifier` (the SDK's TokenVerifier, with its `auth` settings).

    Its session manager runs in its lifespan: uvicorn runs it for the app served alone; a parent app that mounts it
    runs it as its own, `mcp_app = streamable_http_app(mcp)`, then
    `Starlette(routes=[Route("/health", health), Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)` (or
    `FastAPI(lifespan=mcp_app.lifespan)`; `async with mcp_app.lifespan(app):` inside a lifespan of your own). Mounted
    at "/", it serves /mcp; at "/api", /api/mcp. Until it is started, each request is answered HTTP 500 with a
    JSON-RPC error saying how."""
    check_before_serving(server)
    app = build_http_app(server, host, token, limits, allowed_hosts, bridge=bridging(bridge), token_verifier=token_verifier,
                         auth=auth, dns_rebinding_protection=dns_rebinding_protection)
    return StreamableHttpApp(app, server.session_manager.run, lambda: ON_OUR_TRANSPORTS.set(True))


def message_guard(app: ASGIApp, *, max_body_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, bridge: bool | None = None) -> ASGIApp:
    """`app` (a framework's streamable HTTP app) behind the message guard that `streamable_http_app` serves behind:
    each POST body within `max_body_bytes`, checked as one JSON-RPC message and answered when it is none the SDK
    would answer, each answer as sent; and the 2026-12-01 bridge as `bridge` says (None: where the installed SDK needs
    it). Starlette takes it as middleware: `Middleware(message_guard, max_body_bytes=..., bridge=...)`."""
    return MessageGuard(app, max_body_bytes, inbound=bridge_step() if bridging(bridge) else None)


class CannotListen(OSError):
    """The address cannot be listened on (most often: the port is in use); the message says what to do."""


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on host:port, bound here rather than by uvicorn: its failure is one line, not uvicorn's
    log line and a traceback of exception groups."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.create_server((host, port), family=family, backlog=2048)
    except OSError as exc:
        why = "the port is in use; stop what uses it, or choose another port" if exc.errno == errno.EADDRINUSE else exc.strerror
        raise CannotListen(exc.errno, f"cannot listen on {host}:{port}: {why or exc}") from None
    # asyncio turns Nagle off only on sockets whose proto says TCP, and create_server leaves proto 0; with Nagle on,
    # a response body written after its headers waits for the client's delayed ACK (40 ms a call). Accepted
    # connections inherit the option from the listening socket.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def endpoint(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


async def serve_http(server: AnyServer, *, host: str = "127.0.0.1", port: int = 8000, token: str | None = None,
                     limits: HttpLimits = DEFAULT_LIMITS, before_exit: Callable[[], None] = lambda: None,
                     sock: socket.socket | None = None, ready: Callable[[str], None] = lambda url: None,
                     allowed_hosts: Sequence[str] = (), bridge: bool | None = None,
                     token_verifier: TokenVerifier | None = None, auth: AuthSettings | None = None) -> None:
    """uvicorn until SIGTERM or SIGINT, with `HttpLimits`' read deadline and connection cap. `before_exit`
    runs on the loop as the shutdown begins (for streams that would hold a graceful shutdown open); `ready` gets
    the endpoint's URL once requests are taken. `sock`: one `listen` made (else it is made here: CannotListen)."""
    import uvicorn

    from ._connections import uvicorn_http

    app = streamable_http_app(server, host=host, token=token, limits=limits, allowed_hosts=allowed_hosts, bridge=bridge,
                              token_verifier=token_verifier, auth=auth)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", access_log=False,
                            http=uvicorn_http(limits))
    # uvicorn stops gracefully on SIGTERM/SIGINT, then re-raises the signal into the handler that was there
    # before it; with the default one the process would die before the caller's cleanup. A no-op lets it return.
    for handled in (signal.SIGTERM, signal.SIGINT):
        signal.signal(handled, lambda *_: None)
    loop = asyncio.get_running_loop()

    class Uvicorn(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            loop.call_soon_threadsafe(before_exit)
            super().handle_exit(sig, frame)

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                ready(endpoint(host, listening.getsockname()[1]))

    listening = sock or listen(host, port)
    await Uvicorn(config).serve(sockets=[listening])


def run(server: AnyServer, transport: Literal["stdio", "streamable-http"] = "stdio", *, host: str = "127.0.0.1",
        port: int = 8000, token: str | None = None, bridge: bool | None = None, limits: HttpLimits = DEFAULT_LIMITS) -> None:
    """`MCPServer.run`, with 2026-12-01: stdio, or streamable HTTP at http://HOST:PORT/mcp. `limits`: the SDK's
    defaults unless given (`HttpLimits.personal()`, or your own)."""
    check_before_serving(server)  # here too: a refusal raised inside anyio.run would come wrapped in its traceback
    if transport == "stdio":
        anyio.run(lambda: serve_stdio(server, bridge=bridge))
    else:
        anyio.run(lambda: serve_http(server, host=host, port=port, token=token, bridge=bridge, limits=limits))


def add_serving_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add `cli`'s options (`--http`, `--host`, `--port`, `--token`, `--allowed-host`, `--log-level`) to a server's own
    parser, as one argument group: `--help` lists them beside the server's, and `cli(mcp, args=parser.parse_args())` serves
    by them. Returns `parser`."""
    return add_serving_options(parser, token=True)


def cli(server: AnyServer, argv: Sequence[str] | None = None, *, args: argparse.Namespace | None = None) -> None:
    """`python server.py` serves stdio; `--http [--host H] [--port P] [--token T] [--allowed-host NAME]` streamable
    HTTP at /mcp (loopback by default; any other address needs a bearer token), saying its URL on stderr once it
    takes requests. `argv`: the arguments to read (default `sys.argv[1:]`). `args`: a command line read already,
    by a server's own parser given `add_serving_arguments(parser)`: the server's flags and these in one `--help`.
    The log goes to stderr with each line's level and logger name where the server set up none (`--log-level`,
    INFO as MCPServer's own; a handler of the author's is left as it is)."""
    import sys

    from ._http import InsecureBinding, check_binding

    name = lowlevel_server(server).name
    parser, args = serving_options(f"the MCP server {name}, with SEP-3279 output variants", argv, args, token=True)
    set_up_log(args.log_level, "INFO")  # first: what the checks log reads as the rest does
    check_before_serving(server)
    if not args.http:
        run(server)
        return
    try:
        check_binding(args.host, args.token)
    except InsecureBinding as exc:
        parser.exit(2, f"{parser.prog}: {exc}\n")
    try:
        anyio.run(lambda: serve_http(server, host=args.host, port=args.port, token=args.token, allowed_hosts=args.allowed_host,
                                     ready=lambda url: print(f"{name}: serving MCP at {url}", file=sys.stderr, flush=True)))
    except CannotListen as exc:
        parser.exit(1, f"{parser.prog}: {exc.strerror} (--port)\n")
