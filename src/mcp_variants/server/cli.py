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
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from .. import __version__
from ..catalog import compat_servers
from ..images import DEFAULT_MAX_PIXELS, ImageMode, ImagePolicy
from ..jupyter.runtime import DEFAULT_AGENT_NAME
from ..protocol.errors import DeclarationError, ToolError
from ..tools.shared.spec import Limits

if TYPE_CHECKING:  # the SDK is imported when serving starts, not for --help
    from mcp.server.lowlevel import Server

    from .app import ServerState

ENV_PREFIX = "MCP_VARIANTS_"


@dataclass(frozen=True)
class BadEnv:
    """An MCP_VARIANTS_* value that does not parse. Kept as the option's default and reported once parsing is done,
    so that --help and --version still work, and a flag given in its place wins."""

    variable: str
    value: str
    expected: str

    def __str__(self) -> str:
        return f"{self.variable}={self.value!r} is not {self.expected}"


def _env(name: str, default: Any = None, convert: Callable[[str], Any] = str, expected: str = "") -> Any:
    raw = os.environ.get(ENV_PREFIX + name)
    if not raw:  # unset, or set to nothing
        return default
    try:
        return convert(raw)
    except ValueError:
        return BadEnv(ENV_PREFIX + name, raw, expected)


def _number(kind: type[int] | type[float]) -> dict[str, Any]:
    return {"convert": kind, "expected": "a whole number" if kind is int else "a number"}


def _one_of(choices: list[str]) -> dict[str, Any]:
    def convert(value: str) -> str:
        if value not in choices:
            raise ValueError(value)
        return value

    return {"convert": convert, "expected": f"one of {', '.join(choices)}"}


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def bad_env(args: argparse.Namespace) -> list[BadEnv]:
    return [value for value in vars(args).values() if isinstance(value, BadEnv)]


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
    serve.add_argument("--http", action="store_true", default=_env("HTTP", "") in ("1", "true", "yes"),
                       help="serve streamable HTTP at /mcp instead of stdio [MCP_VARIANTS_HTTP=1]")
    serve.add_argument("--host", default=_env("HOST", "127.0.0.1"),
                       help="HTTP bind address; anything but loopback needs --token [MCP_VARIANTS_HOST, default 127.0.0.1]")
    serve.add_argument("--port", type=int, default=_env("PORT", 8000, **_number(int)), help="HTTP port [MCP_VARIANTS_PORT, default 8000]")
    serve.add_argument("--allowed-host", action="append", dest="allowed_hosts", metavar="NAME",
                       default=_env("ALLOWED_HOSTS", [], _names),
                       help="HTTP: a Host header served besides loopback and --host, e.g. this machine's name or address as "
                            "clients reach it (NAME or NAME:PORT); repeatable (DNS-rebinding protection refuses the "
                            "others with 421) [MCP_VARIANTS_ALLOWED_HOSTS, comma-separated]")
    serve.add_argument("--token", default=_env("TOKEN"),
                       help="bearer token every HTTP request must carry [MCP_VARIANTS_TOKEN]")
    serve.add_argument("--hub-api-url", default=os.environ.get("JUPYTERHUB_API_URL"),
                       help="HTTP: every request carries a JupyterHub token of its caller's own, checked with this Hub "
                            "(https://HUB/hub/api/); calls run and are audited as that Hub user. Instead of --token "
                            "[JUPYTERHUB_API_URL]")
    serve.add_argument("--hub-scope", default=_env("HUB_SCOPE"),
                       help="with --hub-api-url, the scope a token must carry [MCP_VARIANTS_HUB_SCOPE, default "
                            "access:services!service=NAME for JUPYTERHUB_SERVICE_NAME, or mcp-variants]")
    serve.add_argument("--root", type=Path, default=Path(_env("ROOT", ".")),
                       help="folder that notebooks and files live in; no path leaves it [MCP_VARIANTS_ROOT, default .]")
    serve.add_argument("--timeout", type=float, default=_env("TIMEOUT", 300.0, **_number(float)),
                       help="default seconds before an execution is interrupted [MCP_VARIANTS_TIMEOUT, default 300]")
    serve.add_argument("--output-cap", type=int, default=_env("OUTPUT_CAP", 20000, **_number(int)),
                       help="bytes of text per output for assistant and user variants [MCP_VARIANTS_OUTPUT_CAP, default 20000]")
    serve.add_argument("--hard-cap", type=int, default=_env("HARD_CAP", 4000000, **_number(int)),
                       help="bytes of output a run keeps at most, programmatic included [MCP_VARIANTS_HARD_CAP, default 4000000]")
    serve.add_argument("--kernel", default=_env("KERNEL", "python3"),
                       help="the kernelspec kernels start with, from `jupyter kernelspec list` (a notebook's metadata.kernelspec "
                            "picks its own) [MCP_VARIANTS_KERNEL, default python3]")
    image_modes = [m.value for m in ImageMode]
    serve.add_argument("--images", choices=image_modes, default=_env("IMAGES", ImageMode.INLINE.value, **_one_of(image_modes)),
                       help="images in content results: inline image blocks, or resource_link blocks to a resource "
                            "resources/read returns [MCP_VARIANTS_IMAGES, default inline]")
    serve.add_argument("--image-max-pixels", type=int, default=_env("IMAGE_MAX_PIXELS", DEFAULT_MAX_PIXELS, **_number(int)),
                       help="inline images for the model are scaled down to this many pixels on their longer side; 0: never "
                            f"[MCP_VARIANTS_IMAGE_MAX_PIXELS, default {DEFAULT_MAX_PIXELS}]")
    serve.add_argument("--jupyter-url", default=os.environ.get("JUPYTER_URL"),
                       help="run kernels and keep files on this Jupyter server instead of the embedded runtime [JUPYTER_URL]")
    serve.add_argument("--jupyter-token", default=os.environ.get("JUPYTER_TOKEN"),
                       help="the token of --jupyter-url; never logged or returned [JUPYTER_TOKEN]")
    serve.add_argument("--gateway-url", default=os.environ.get("JUPYTER_GATEWAY_URL"),
                       help="run kernels on this Jupyter Enterprise Gateway; notebooks and files stay under --root, or on "
                            "--jupyter-url [JUPYTER_GATEWAY_URL]")
    serve.add_argument("--gateway-token", default=os.environ.get("JUPYTER_GATEWAY_AUTH_TOKEN"),
                       help="the token of --gateway-url (its EG_AUTH_TOKEN); never logged or returned [JUPYTER_GATEWAY_AUTH_TOKEN]")
    serve.add_argument("--embedded", action="store_true", default=_env("EMBEDDED", "") in ("1", "true", "yes"),
                       help="keep the embedded runtime even when this user runs a Jupyter server (JupyterLab) on --root; "
                            "without it (and without --jupyter-url) the server works through that one [MCP_VARIANTS_EMBEDDED=1]")
    serve.add_argument("--agent-name", default=_env("AGENT_NAME", DEFAULT_AGENT_NAME),
                       help="the name people see the agent by in a live notebook in JupyterLab; {client} is the MCP client's "
                            f"own name [MCP_VARIANTS_AGENT_NAME, default '{DEFAULT_AGENT_NAME}']")
    serve.add_argument("--max-message-bytes", type=int, default=_env("MAX_MESSAGE_BYTES", 4 * 1024 * 1024, **_number(int)),
                       help="largest message taken: a stdio line, an HTTP request body; a larger one is refused "
                            "[MCP_VARIANTS_MAX_MESSAGE_BYTES, default 4194304]")
    serve.add_argument("--session-idle-timeout", type=float, default=_env("SESSION_IDLE_TIMEOUT", 600.0, **_number(float)),
                       help="HTTP: seconds a session may go without a request in flight or an open stream before it ends "
                            "[MCP_VARIANTS_SESSION_IDLE_TIMEOUT, default 600]")
    serve.add_argument("--max-sessions", type=int, default=_env("MAX_SESSIONS", 100, **_number(int)),
                       help="HTTP: sessions open at once; one more ends the least recently used idle one (503 only while "
                            "every one is busy) [MCP_VARIANTS_MAX_SESSIONS, default 100]")
    serve.add_argument("--read-timeout", type=float, default=_env("READ_TIMEOUT", 10.0, **_number(float)),
                       help="HTTP: seconds for a request's headers, and between pieces of its body [MCP_VARIANTS_READ_TIMEOUT, default 10]")
    serve.add_argument("--max-connections", type=int, default=_env("MAX_CONNECTIONS", 200, **_number(int)),
                       help="HTTP: connections open at once; one more closes the one longest waiting for a request "
                            "[MCP_VARIANTS_MAX_CONNECTIONS, default 200]")
    serve.add_argument("--compat", choices=compat_servers(), default=_env("COMPAT", None, **_one_of(compat_servers())) or None,
                       help="list that server's tool schemas (argument names, required, enums, defaults) in place of ours and "
                            "take calls by them, for programs and prompts written against it [MCP_VARIANTS_COMPAT]")
    serve.add_argument("--audit-log", default=_env("AUDIT_LOG"),
                       help="one JSON line per tool call (when, who, which tool, a digest of the arguments, the outcome, the "
                            "duration, the kernels) appended to this file, or `logger:NAME` for that Python logger "
                            "[MCP_VARIANTS_AUDIT_LOG]")
    serve.add_argument("--audit-content", action="store_true", default=_env("AUDIT_CONTENT", "") in ("1", "true", "yes"),
                       help="the audit lines also carry the arguments in full (the code) and the text the kernels printed "
                            "[MCP_VARIANTS_AUDIT_CONTENT=1]")
    serve.add_argument("--log-level", default=_env("LOG_LEVEL", "WARNING"),
                       help="log level, to stderr [MCP_VARIANTS_LOG_LEVEL, default WARNING]")
    demo = commands.add_parser("demo", help="run the SEP-3279 scenarios against a live server and write an HTML report")
    demo.add_argument("--report", type=Path, default=Path("demo-report.html"), help="where to write the report [default demo-report.html]")
    check = commands.add_parser("check", help="run the SEP-3279 conformance suite against a server (stdio or HTTP)",
                                description="Run the SEP-3279 conformance suite; exit 1 when a MUST fails. See docs/conformance.md.")
    from ..conformance.options import add_arguments as add_check_arguments

    add_check_arguments(check)
    from ..conformance.options import CLIENT_CHECK_DESCRIPTION, add_client_arguments

    check_client = commands.add_parser(
        "check-client", help="run the SEP-3279 client scenarios against any client command (black-box, over HTTP)",
        description=CLIENT_CHECK_DESCRIPTION)

    add_client_arguments(check_client)
    return parser


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    if bad := bad_env(args):
        sys.exit(f"mcp-variants: {'; '.join(map(str, bad))}")
    logging.basicConfig(level=getattr(args, "log_level", "WARNING").upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.command == "serve":
        serve(args)
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
    # Start-up makes some 140,000 objects that live as long as the process (the SDK's pydantic models, the
    # declarations, the schemas) and almost no garbage: collecting while they are made cost some 10% of the
    # start's CPU, for nothing. The collector is off until they are built.
    gc.disable()
    try:
        server, state, listening = _start(args)
        # Out of the collector's sight, a full collection takes a millisecond instead of some 40 (p99 latency).
        # No gc.collect() first: it found some 15 unreachable objects and cost 20-50 ms of every start.
        gc.freeze()
    finally:
        gc.enable()
    runner = partial(_serve_http, listening) if listening is not None else _serve_stdio
    anyio.run(_with_shutdown, runner, server, state, args)


def _start(args: argparse.Namespace) -> tuple[Server[Any], ServerState, socket.socket | None]:
    """The server, its state and (with --http) its listening socket, from the options; exits with one line on a bad one."""
    from .. import telemetry
    from .app import build_server, load_state
    from .audit import AuditLog
    from .observe import CallObserver

    root = args.root.resolve()
    if not root.is_dir():
        sys.exit(f"mcp-variants: --root {root} is not a folder")
    listening = _listen(args) if args.http else None
    limits = Limits(default_timeout=args.timeout, assistant_text_bytes=args.output_cap, hard_cap_bytes=args.hard_cap)
    for secret in ("JUPYTER_TOKEN", "JUPYTER_GATEWAY_AUTH_TOKEN", ENV_PREFIX + "TOKEN", "JUPYTERHUB_API_TOKEN"):
        os.environ.pop(secret, None)  # read once above; kernels we start (and the code they run) must not inherit it
    jupyter_url, jupyter_token = args.jupyter_url, args.jupyter_token
    if jupyter_url:
        _check_jupyter(jupyter_url, jupyter_token)
    if not jupyter_url and not args.embedded:
        jupyter_url, jupyter_token = _server_on(root)
    telemetry.configure_from_environment()
    try:
        audit = AuditLog.open(args.audit_log) if args.audit_log else None
    except OSError as exc:
        sys.exit(f"mcp-variants: cannot open the audit log: {exc}")
    try:
        state = load_state(root, limits, jupyter_url=jupyter_url, jupyter_token=jupyter_token,
                           gateway_url=args.gateway_url, gateway_token=args.gateway_token, kernel_name=args.kernel, compat=args.compat,
                           images=ImagePolicy(ImageMode(args.images), max(args.image_max_pixels, 0)),
                           observer=CallObserver(audit, content=args.audit_content))
    except (DeclarationError, ToolError) as exc:
        sys.exit(f"mcp-variants: cannot start: {exc}")
    state.agent_name = args.agent_name
    return build_server(state), state, listening


def _listen(args: argparse.Namespace) -> socket.socket:
    """The HTTP socket, before anything starts: a binding without a token, or a port in use, ends here in one line."""
    from ..sdk._http import InsecureBinding, check_binding
    from ..sdk._serve import CannotListen, listen

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


def _server_on(root: Path) -> tuple[str | None, str | None]:
    """The URL and token of a Jupyter server this user runs on `root` (said on stderr, without the token), or nothing."""
    from ..jupyter.discovery import server_on

    found = server_on(root)
    if found is None:
        return None, None
    print(f"mcp-variants: working through {found.describe()}, which serves {root}; with real-time collaboration "
          "(jupyter-collaboration) a notebook open in its JupyterLab shows every edit as it is made, and shares its kernel. "
          "--embedded keeps the embedded runtime.", file=sys.stderr, flush=True)
    return found.url, found.token


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
    from ..sdk._serve import serve_stdio

    await serve_stdio(server, max_message_bytes=args.max_message_bytes, at_eof=state.subscriptions.end_streams)


async def _serve_http(listening: socket.socket, server: Any, state: Any, args: argparse.Namespace) -> None:
    from ..sdk._http import HttpLimits
    from ..sdk._serve import serve_http

    limits = HttpLimits(max_body_bytes=args.max_message_bytes, session_idle_timeout=args.session_idle_timeout,
                        max_sessions=args.max_sessions, read_timeout=args.read_timeout, max_connections=args.max_connections)
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
