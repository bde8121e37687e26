"""Run a FastMCP server on stdio or streamable HTTP with every protocol era, 2026-12-01 included.

mcp 2.3.0, under FastMCP, refuses 2026-12-01 before any handler runs; the bridge (mcp_variants.sdk's) presents such a
request to the SDK as 2026-07-28 and puts the real result back on the wire:

- stdio: our stdio connection serves FastMCP's low-level server (FastMCP's `run_stdio_async` takes no
  streams, hence `_lowlevel.py`), with FastMCP's lifespan, extensions' lifespans included, entered as the SDK enters it;
- HTTP: FastMCP's own Starlette app (`FastMCP.http_app`: its auth provider, custom routes, Host/Origin guard,
  session manager) with the message guard (and the bridge where it is needed: `message_guard`) as one more ASGI middleware,
  served by uvicorn with the limits `mcp_variants.sdk`'s own HTTP server keeps (`HttpLimits`: body size, session
  idle timeout, read deadline, connection cap). FastMCP makes its session manager itself and takes no session cap,
  so `HttpLimits.max_sessions` does not apply (docs/fastmcp-change.md).

`bridge`: None (the default) bridges exactly when the installed SDK needs it; True or False forces it.
"""

from __future__ import annotations

import argparse
import contextlib
import hmac
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal

import anyio
from fastmcp import FastMCP
from fastmcp.server.auth.providers.debug import DebugTokenVerifier
from fastmcp.server.context import reset_transport, set_transport
from fastmcp.server.http import StarletteWithLifespan
from starlette.middleware import Middleware
from starlette.types import Lifespan

from ..sdk import HttpLimits
from ..sdk import serve_stdio as serve_lowlevel_stdio
from ..sdk.framework import (
    DEFAULT_LIMITS,
    DEFAULT_MAX_MESSAGE_BYTES,
    ON_OUR_TRANSPORTS,
    TOKEN_VARIABLE,
    LifespanGate,
    add_serving_options,
    is_loopback,
    message_guard,
    serving_options,
    set_up_log,
    uvicorn_http,
)
from ..sdk.lowlevel import CannotListen, listen
from ._extension import check_before_serving
from ._lowlevel import lowlevel_server


async def serve_stdio(server: FastMCP[Any], *, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
                      bridge: bool | None = None, fds: tuple[int, int] | None = None) -> None:
    """Serve this process's stdin and stdout until EOF, as `FastMCP.run_stdio_async` does, with 2026-12-01. `fds`:
    two descriptors (read, write) served in place of stdin and stdout, as `mcp_variants.sdk.serve_stdio` takes them."""
    token = set_transport("stdio")  # what a tool's `Context.transport` says, as under FastMCP's own runner
    try:
        await serve_lowlevel_stdio(lowlevel_server(server), max_message_bytes=max_message_bytes, bridge=bridge, fds=fds)
    finally:
        reset_transport(token)


def http_app(server: FastMCP[Any], *, path: str = "/mcp", host: str = "127.0.0.1", allowed_hosts: Sequence[str] = (),
             limits: HttpLimits = DEFAULT_LIMITS, bridge: bool | None = None, middleware: Sequence[Middleware] = (),
             **http_app_kwargs: Any) -> StarletteWithLifespan:
    """`FastMCP.http_app` (streamable HTTP at `path`) behind the message guard (and the bridge where it is needed),
    which keeps each POST body within `limits.max_body_bytes` and answers what is no message the SDK would answer;
    an idle session ends after `limits.session_idle_timeout`. FastMCP's Host/Origin guard serves `host` and
    `allowed_hosts` (a loopback `host`, as `FastMCP.run_http_async` does); `http_app_kwargs` go to
    `FastMCP.http_app` as they are (`json_response`, `stateless_http`, `event_store`, `session_idle_timeout` in
    place of the limit's, ...)."""
    hosts = [*allowed_hosts, *((host,) if is_loopback(host) else ())]
    guarded = Middleware(message_guard, max_body_bytes=limits.max_body_bytes, bridge=bridge)
    if limits != DEFAULT_LIMITS:  # else FastMCP's own default
        http_app_kwargs.setdefault("session_idle_timeout", limits.session_idle_timeout)
    gate = LifespanGate()  # mounted without `lifespan=app.lifespan`: each request told so, not a bare 500
    app = server.http_app(path=path, transport="http", middleware=[Middleware(gate.guard), guarded, *middleware],
                          allowed_hosts=hosts or None, **http_app_kwargs)
    app.router.lifespan_context = _on_our_transports(app.router.lifespan_context, gate)
    return app


def _on_our_transports(lifespan: Lifespan[Any], gate: LifespanGate) -> Lifespan[Any]:
    """The app's lifespan, started on our transports: the server's lifespan (`Variants.lifespan` among its
    extensions') then knows it is served with 2026-12-01, whether the ASGI server runs the lifespan or an app that
    mounts this one enters it (`lifespan=app.lifespan`)."""

    @contextlib.asynccontextmanager
    async def marked(app: Any) -> AsyncIterator[Any]:
        ON_OUR_TRANSPORTS.set(True)  # FastMCP's session manager, and the server's lifespan, start in this context
        async with lifespan(app) as state, gate.running():
            yield state

    return marked


async def serve_http(server: FastMCP[Any], *, host: str = "127.0.0.1", port: int = 8000,
                     allowed_hosts: Sequence[str] = (), limits: HttpLimits = DEFAULT_LIMITS, bridge: bool | None = None,
                     **http_app_kwargs: Any) -> None:
    """uvicorn on `http_app` until SIGTERM or SIGINT, with `limits`' read deadline and connection cap, as
    `mcp_variants.sdk.serve_http` serves (a half-sent request does not hold a connection forever, nor stalled ones
    every slot); CannotListen when the port cannot be had."""
    import uvicorn

    app = http_app(server, host=host, allowed_hosts=allowed_hosts, limits=limits, bridge=bridge, **http_app_kwargs)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False, timeout_graceful_shutdown=2,
                            http=uvicorn_http(limits))
    await uvicorn.Server(config).serve(sockets=[listen(host, port)])


def run(server: FastMCP[Any], transport: Literal["stdio", "streamable-http"] = "stdio", *, host: str = "127.0.0.1",
        port: int = 8000, bridge: bool | None = None, limits: HttpLimits = DEFAULT_LIMITS) -> None:
    """`FastMCP.run`, with 2026-12-01: stdio, or streamable HTTP at http://HOST:PORT/mcp. `limits`: FastMCP's and the
    SDK's defaults unless given (`HttpLimits.personal()`, or your own)."""
    check_before_serving(server)
    if transport == "stdio":
        anyio.run(lambda: serve_stdio(server, bridge=bridge))
    else:
        anyio.run(lambda: serve_http(server, host=host, port=port, bridge=bridge, limits=limits))


HTTP_AUTH_NOTE = ("; authentication: FastMCP's auth= provider, or for a server without one --token, checked by "
                  "FastMCP's DebugTokenVerifier")
"""What `--help` says of HTTP's authentication: the server's own `FastMCP(auth=...)`; `--token` (as
`mcp_variants.sdk`'s `cli` takes it, so one deployment script serves both layers) only where it has none."""


def add_serving_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add `cli`'s options (`--http`, `--host`, `--port`, `--token`, `--allowed-host`, `--log-level`) to a server's own
    parser, as one argument group: `--help` lists them beside the server's, and `cli(mcp, args=parser.parse_args())`
    serves by them. Returns `parser`."""
    return add_serving_options(parser, token=True, log_level="WARNING", http_note=HTTP_AUTH_NOTE)


def bearer_token_auth(token: str) -> DebugTokenVerifier:
    """FastMCP's own check of one bearer token (its public `DebugTokenVerifier`, given a constant-time comparison):
    what `--token` gives a server that has no `auth=`, the check `mcp_variants.sdk`'s `--token` makes. FastMCP
    answers a request without it 401, as for any provider of its own."""
    expected = token.encode()
    return DebugTokenVerifier(validate=lambda given: hmac.compare_digest(given.encode(), expected),
                              client_id="mcp-variants-token")


def cli(server: FastMCP[Any], argv: Sequence[str] | None = None, *, args: argparse.Namespace | None = None) -> None:
    """`python server.py` serves stdio; `--http [--host H] [--port P] [--token T] [--allowed-host NAME]` streamable
    HTTP at /mcp. Beyond loopback the server needs FastMCP's own `auth=` (an auth provider), or for a server without
    one a bearer token (`--token`, or `MCP_VARIANTS_TOKEN` in the environment), which FastMCP checks
    (`bearer_token_auth`): refused without either, and a token beside `auth=` is refused too (two checks of one
    request, one of them not the author's). `argv`: the arguments to read (default `sys.argv[1:]`). `args`: a command
    line read already, by a server's own parser given `add_serving_arguments(parser)`: the server's flags and these
    in one `--help`. The log goes to stderr with each line's level and logger name where the server set up none
    (`--log-level`, WARNING: FastMCP's own lines keep its `fastmcp` logger's handlers, which do not reach the root's;
    a handler of the author's is left as it is)."""
    parser, args = serving_options(f"the FastMCP server {server.name}, with SEP-3279 output variants", argv, args,
                                   token=True, log_level="WARNING", http_note=HTTP_AUTH_NOTE)
    set_up_log(args.log_level, "WARNING")
    if not args.http:
        run(server)
        return
    if args.token and server.auth is not None:
        parser.exit(2, f"{parser.prog}: the server has FastMCP(auth=...), which checks each request's token: drop "
                       f"--token (and {TOKEN_VARIABLE}), or the auth= provider\n")
    if args.token:
        server.auth = bearer_token_auth(args.token)
    if not is_loopback(args.host) and server.auth is None:
        parser.exit(2, f"{parser.prog}: refusing to listen on {args.host}: beyond loopback the server needs "
                       f"FastMCP(auth=...) or a bearer token (--token or {TOKEN_VARIABLE}); or bind 127.0.0.1\n")
    check_before_serving(server)
    try:
        anyio.run(lambda: serve_http(server, host=args.host, port=args.port, allowed_hosts=args.allowed_host))
    except CannotListen as exc:
        parser.exit(1, f"{parser.prog}: {exc.strerror} (--port)\n")


__all__ = ["add_serving_arguments", "cli", "http_app", "run", "serve_http", "serve_stdio"]
