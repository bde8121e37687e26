"""The options `cli` serves by (`--http`, `--host`, `--port`, `--allowed-host`, `--log-level`, and `--token` where the
layer checks a bearer token itself), one implementation for both layers: as an argument group of the author's own parser, so a
server with flags of its own parses its command line once and `--help` lists both; or parsed by `cli` itself."""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Sequence

from ._http import TOKEN_VARIABLE
from ._log import LOG_LEVELS


def add_serving_options(parser: argparse.ArgumentParser, *, token: bool, log_level: str = "INFO",
                        http_note: str = "") -> argparse.ArgumentParser:
    """The serving options as one argument group of `parser` (argparse refuses an option the author already has, but
    `--log-level`, which a server may have of its own: then it stays the server's). `token`: whether `--token` is one
    (both layers have it: MCPServer's checks it itself, FastMCP's hands it to FastMCP's auth); `log_level`: the level of the log
    `cli` sets up where the server set up none; `http_note`: what the group's description adds about HTTP."""
    group = parser.add_argument_group("serving MCP", f"stdio, or streamable HTTP with --http{http_note}")
    group.add_argument("--http", action="store_true", help="streamable HTTP at /mcp instead of stdio")
    group.add_argument("--host", default="127.0.0.1", help="the address to listen on with --http [default 127.0.0.1]")
    group.add_argument("--port", type=int, default=8000, help="the port to listen on with --http [default 8000]")
    if token:
        group.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE) or None,
                           help=f"bearer token every HTTP request must carry [default ${TOKEN_VARIABLE}, else none]")
    group.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                       help="a Host header served besides loopback and --host (NAME or NAME:PORT); repeatable")
    with contextlib.suppress(argparse.ArgumentError):  # the server's own --log-level: it sets up its log itself
        group.add_argument("--log-level", type=str.upper, choices=LOG_LEVELS, default=None, metavar="LEVEL",
                           help=f"the log's level on stderr, {', '.join(LOG_LEVELS)} [default {log_level}, "
                                "or the level the server set up its log with]")
    return parser


def serving_options(description: str, argv: Sequence[str] | None, args: argparse.Namespace | None, *,
                    token: bool, log_level: str = "INFO", http_note: str = "") -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """`cli`'s parser (for its refusals, under the program's name) and the options to serve by: `args` as the
    author's parser read them, else `argv` (default `sys.argv[1:]`) read here. TypeError for both, or for `args`
    parsed without the serving options: `cli` would otherwise serve stdio when `--http` was asked."""
    parser = add_serving_options(argparse.ArgumentParser(description=description), token=token, log_level=log_level,
                                 http_note=http_note)
    if args is None:
        read, unknown = parser.parse_known_args(argv)
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)} (a server with flags of its own adds cli's to "
                         "its parser, add_serving_arguments(parser), and serves with cli(mcp, args=parser.parse_args()))")
        return parser, read
    if argv is not None:
        raise TypeError("cli takes argv (a command line to read) or args (one read already), not both")
    missing = sorted(vars(parser.parse_args([])).keys() - vars(args).keys())  # the options' destinations
    if missing:
        raise TypeError(f"cli(args=...): the namespace has no {', '.join('--' + name.replace('_', '-') for name in missing)}: "
                        "give the parser that read it add_serving_arguments(parser) first")
    return parser, args
