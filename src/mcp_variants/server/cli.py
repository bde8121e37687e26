"""`mcp-variants`: serve the Jupyter tools over stdio or streamable HTTP."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import sys
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from .. import __version__
from ..protocol.errors import DeclarationError, ToolError
from .options import SECRET_VARIABLES, add_serve_arguments, bad_env

if TYPE_CHECKING:  # the SDK is imported when serving starts, not for --help
    from mcp.server.lowlevel import Server

    from .app import ServerState

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcp-variants",
        description="Reference server for SEP-3279: Jupyter tools with audience-directed result variants.",
        epilog="Each option of serve can also be set by an environment variable, named in its help.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve MCP (stdio by default)",
                                description="Serve MCP over stdio, or streamable HTTP with --http.")
    add_serve_arguments(serve)
    demo = commands.add_parser("demo", help="run the SEP-3279 scenarios against a live server and write an HTML report")
    demo.add_argument("--report", type=Path, default=Path("demo-report.html"), help="where to write the report [default demo-report.html]")
    from ..conformance.verdict import EXIT_CODES

    check = commands.add_parser("check", help="run the SEP-3279 conformance suite against a server (stdio or HTTP)",
                                description="Run the SEP-3279 conformance suite; exit 1 when a MUST fails, 3 when one could not "
                                            "be exercised. See docs/conformance.md.", epilog=EXIT_CODES)
    from ..conformance.options import add_arguments as add_check_arguments

    add_check_arguments(check)
    from ..conformance.options import CLIENT_CHECK_DESCRIPTION, add_client_arguments

    check_client = commands.add_parser(
        "check-client", help="run the SEP-3279 client scenarios against any client command (black-box, over HTTP)",
        description=CLIENT_CHECK_DESCRIPTION, epilog=EXIT_CODES)

    add_client_arguments(check_client)
    from .doctor import add_arguments as add_doctor_arguments

    doctor = commands.add_parser(
        "doctor", help="say the setup: which runtime and why, which Jupyter server, which kernel and its packages, the logs",
        description="Check the setup serve would run with these options, without starting it: the runtime and why, the "
                    "Jupyter servers of this user and why each counts or not, the kernel and the packages named by --need, "
                    "where the logs go; then the desktop client's entry for it. Exit 1 when something needs fixing.")
    add_doctor_arguments(doctor)
    from .connect import add_arguments as add_connect_arguments

    connect = commands.add_parser(
        "connect", help="carry a desktop MCP client's stdio to a streamable HTTP MCP endpoint (a bridge)",
        description="A stdio MCP server for clients that only launch commands, relaying to URL over streamable HTTP: "
                    "every message passes through unchanged. The token comes from --token-file or $MCP_VARIANTS_TOKEN.")
    add_connect_arguments(connect)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if bad := bad_env(args):
        sys.exit(f"mcp-variants: {'; '.join(map(str, bad))}")
    logging.basicConfig(level=getattr(args, "log_level", "WARNING").upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command == "serve":
        serve(args)
    elif args.command == "doctor":
        from .doctor import main as doctor

        sys.exit(doctor(args))
    elif args.command == "connect":
        from .connect import main as connect

        connect(args)
    elif args.command == "demo":
        from ..demo import main as demo

        sys.exit(demo(args.report))
    elif args.command in ("check", "check-client"):
        from ..iri_checker import without_iri_checker

        without_iri_checker()  # before the suite's first import of jsonschema
        if args.command == "check":
            from ..conformance.cli import main as check
        else:
            from ..conformance.client_check import main as check
        sys.exit(check(args))


def serve(args: argparse.Namespace) -> None:
    server, state, listening = _start(args)
    # Start-up's objects (the SDK's models, the declarations, the schemas) live as long as the process: out of the
    # collector's sight, a full collection while serving scans only what requests made, and the calls in flight
    # wait through a far shorter pause (bench/tricks.py, row freeze).
    gc.freeze()
    runner = partial(_serve_http, listening) if listening is not None else _serve_stdio
    anyio.run(_with_shutdown, runner, server, state, args)


def _start(args: argparse.Namespace) -> tuple[Server[Any], ServerState, socket.socket | None]:
    """The server, its state and (with --http) its listening socket, from the options; exits with one line on a bad one."""
    from .. import telemetry
    from .compose import CannotStart, ServerConfig, open_shared_store

    root = args.root.resolve()
    if not root.is_dir():
        sys.exit(f"mcp-variants: --root {root} is not a folder{_no_shell(str(args.root))}")
    listening = _listen(args) if args.http else None
    config = ServerConfig.from_options(args)
    try:
        shared = open_shared_store(config)
    except CannotStart as exc:
        sys.exit(f"mcp-variants: cannot start: {exc}")
    for secret in (*SECRET_VARIABLES, "JUPYTERHUB_API_TOKEN"):
        os.environ.pop(secret, None)  # read once above; kernels we start (and the code they run) must not inherit it
    jupyter_url, jupyter_token = args.jupyter_url, args.jupyter_token
    if jupyter_url:
        _check_jupyter(jupyter_url, jupyter_token)
    find_jupyter = not (jupyter_url or args.gateway_url or args.embedded)
    if find_jupyter:
        _say_what_serves(root)
    telemetry.configure_from_environment()
    try:
        from .app import build_server  # imports the tools, each built on its declaration (variants/)
        from .compose import compose, local_runtimes

        state = compose(config, lambda limits: local_runtimes(
            root, limits, kernel_name=config.kernel, jupyter_url=jupyter_url, jupyter_token=jupyter_token,
            gateway_url=args.gateway_url, gateway_token=args.gateway_token, find_jupyter=find_jupyter), shared)
    except (CannotStart, DeclarationError, ToolError) as exc:
        sys.exit(f"mcp-variants: cannot start: {exc}")
    return build_server(state), state, listening


def _no_shell(path: str) -> str:
    """Why a path that names a variable was not expanded: a desktop client's `args` reach us with no shell between."""
    if "$" in path or "%" in path:
        return " (nothing expanded its variable: a desktop client passes args with no shell, so write the path out)"
    return ""


def _listen(args: argparse.Namespace) -> socket.socket:
    """The HTTP socket, before anything starts: a binding without a token, or a port in use, ends here in one line."""
    from ..sdk.lowlevel import CannotListen, InsecureBinding, check_binding, listen

    if args.token and args.hub_api_url:
        sys.exit("mcp-variants: --token (one person's) and --hub-api-url (a Hub's users') exclude each other")
    try:
        check_binding(args.host, args.token or args.hub_api_url)
        return listen(args.host, args.port)
    except InsecureBinding as exc:
        sys.exit(f"mcp-variants: {exc}")
    except CannotListen as exc:
        sys.exit(f"mcp-variants: {exc.strerror} (--port, MCP_VARIANTS_PORT)")


def _check_jupyter(url: str, token: str | None) -> None:
    from ..jupyter.discovery import server_problem

    if problem := server_problem(url, token):
        sys.exit(f"mcp-variants: cannot start: {problem}")


def _say_what_serves(root: Path) -> None:
    """Said on stderr at start (without the token): the Jupyter server this user runs on `root` or above it, or that
    there is none yet. Calls look again (tools/shared/where.py): a JupyterLab started later is worked through then."""
    from ..jupyter.discovery import server_on

    finding = server_on(root)
    if finding is None:
        print(f"mcp-variants: no Jupyter server serves {root} yet: notebooks run in the embedded kernels until one does "
              "(JupyterLab on it or a folder above it is looked for at every call). --embedded keeps them there.",
              file=sys.stderr, flush=True)
        return
    print(f"mcp-variants: working through {finding.server.describe()}, which serves {root}; with real-time collaboration "
          "(jupyter-collaboration) a notebook open in its JupyterLab shows every edit as it is made, and shares its kernel. "
          "--embedded keeps the embedded runtime.", file=sys.stderr, flush=True)


async def _with_shutdown(runner: Any, server: Any, state: Any, args: argparse.Namespace) -> None:
    """Run until EOF or SIGTERM/SIGINT, then shut down every kernel and sandbox we started.

    Over HTTP, uvicorn owns the signals and stops gracefully; over stdio we listen for them.
    """
    try:
        async with anyio.create_task_group() as tg:
            if not args.http:
                tg.start_soon(_stop_stdio_on_signal, state, tg.cancel_scope)
            await runner(server, state, args)
            tg.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await state.aclose()


async def _stop_stdio_on_signal(state: Any, scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            # Kernels and sandboxes first, then cancel the runner: it returns at once (stdio reads
            # its pipes on the event loop; the SDK's threaded transport, the fallback for a stdin
            # that is not a pipe, reads a file that ends). The timer is a backstop: a thread some
            # library leaves running must not keep a stopped server alive.
            with anyio.CancelScope(shield=True):
                await state.aclose()
            exit_anyway = threading.Timer(2.0, os._exit, (0,))
            exit_anyway.daemon = True
            exit_anyway.start()
            scope.cancel()
            return


async def _serve_stdio(server: Any, state: Any, args: argparse.Namespace) -> None:
    from ..sdk import serve_stdio

    await serve_stdio(server, max_message_bytes=args.max_message_bytes, at_eof=state.subscriptions.end_streams)


async def _serve_http(listening: socket.socket, server: Any, state: Any, args: argparse.Namespace) -> None:
    from ..sdk import serve_http
    from .compose import ServerConfig

    limits = ServerConfig.from_options(args).http_limits()
    verifier, auth = _hub_auth(args) if args.hub_api_url else (None, None)
    # A graceful shutdown waits for every open response: a subscriptions/listen stream would hold it
    # forever. They end first, each answered with its result.
    try:
        await serve_http(server, host=args.host, port=args.port, token=args.token, limits=limits,
                         before_exit=state.subscriptions.end_streams, sock=listening, ready=_say_ready,
                         allowed_hosts=args.allowed_hosts, token_verifier=verifier, auth=auth)
    finally:
        if verifier is not None:
            await verifier.aclose()


def _say_ready(url: str) -> None:
    print(f"mcp-variants: serving MCP at {url}", file=sys.stderr, flush=True)


def _hub_auth(args: argparse.Namespace) -> tuple[Any, Any]:
    """The SDK's bearer auth with each token checked by the Hub (server/hub_auth.py)."""
    from mcp.server.auth.settings import AuthSettings

    from .hub_auth import HubTokenVerifier, service_scope

    scope = args.hub_scope or service_scope(os.environ.get("JUPYTERHUB_SERVICE_NAME") or "mcp-variants")
    return HubTokenVerifier(args.hub_api_url, scope), AuthSettings(issuer_url=args.hub_api_url, resource_server_url=None)
