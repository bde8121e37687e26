"""The options of `mcp-variants check`, kept free of heavy imports: the server's CLI builds
its parser from them on every start."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

ENV = "MCP_CONFORMANCE_"
# Kept here rather than imported from verdict.py: the server's CLI builds this parser on every start.
ALLOW_SKIPS_HELP = ("accept required scenarios that apply but could not be exercised: the verdict stays INCOMPLETE, the exit "
                    "status is 0 (say why where you pass it). A scenario that does not apply needs nothing; a failure, a "
                    "failed call included, exits 1 whatever this says")


def _tool_args(text: str) -> tuple[str, dict[str, Any]]:
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected TOOL=JSON, got {text!r}")
    try:
        value = json.loads(raw) if raw.strip() else {}
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{name}: arguments are not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{name}: arguments must be a JSON object")
    return name, value


def _header(text: str) -> tuple[str, str]:
    name, sep, value = text.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    target = parser.add_argument_group("the server under test (neither: this project's own server over stdio)")
    target.add_argument("--server-cmd", default=os.environ.get(ENV + "SERVER_CMD"),
                        help=f"command that starts the server on stdio (with --server-url: starts it for HTTP) [{ENV}SERVER_CMD]")
    target.add_argument("--server-url", default=os.environ.get(ENV + "SERVER_URL"),
                        help=f"streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp [{ENV}SERVER_URL]")
    target.add_argument("--header", action="append", type=_header, default=[], metavar="'NAME: VALUE'",
                        help="extra HTTP header on every request, e.g. 'Authorization: Bearer …' (repeatable)")
    target.add_argument("--cwd", type=Path, help="working folder for --server-cmd")
    calls = parser.add_argument_group("which tools to call")
    calls.add_argument("--call", action="append", type=_tool_args, default=[], metavar="TOOL=JSON",
                       help="arguments with which TOOL succeeds; every scenario TOOL fits runs with it (repeatable: name each "
                            "tool to check; one the suite may not call unasked is otherwise never called)")
    calls.add_argument("--error-call", action="append", type=_tool_args, default=[], metavar="TOOL=JSON",
                       help="arguments with which TOOL fails as a tool error (isError), for the error scenario, which "
                            "runs with each (repeatable); it checks only how TOOL fails: give TOOL a --call too")
    calls.add_argument("--established", action="append", default=[], metavar="TOOL",
                       help="TOOL already served older clients before it declared variants: its legacy outputSchema and "
                            "structuredContent are its established ones, which SEP-3279 says a server SHOULD preserve; the two "
                            "rules SEP-3279 asks of a new tool's legacy outputSchema do not judge it, and their results name it "
                            "(repeatable)")
    calls.add_argument("--all-tools", action="store_true",
                       help="run each server scenario with every tool that fits it and may be called (--call, or read-only "
                            "and needing no arguments), not only the --call tools or the first (slower, more thorough)")
    calls.add_argument("--no-default-calls", action="store_true",
                       help="do not use the built-in defaults (list_files {}, list_kernels {}, execute_code print(1) / 1/0), which "
                            "are used only on this project's own server (serverInfo mcp-variants)")
    run_group = parser.add_argument_group("what to run and where to write")
    run_group.add_argument("--scorecard", type=Path, help="write the JSON scorecard here")
    run_group.add_argument("-o", "--output-dir", type=Path, metavar="DIR",
                           help="also write DIR/<scenario>-<time>/checks.json, the official suite's results layout "
                                "(for `conformance traceability`)")
    run_group.add_argument("--only", action="append", default=[], metavar="ID",
                           help="run only these scenario ids or id prefixes (comma-separated, repeatable), e.g. plan-10,must-no-mirror")
    run_group.add_argument("--kind", choices=("all", "server", "client"), default="all",
                           help="server scenarios (the server under test), client scenarios (the reference client), or all [all]")
    run_group.add_argument("--vectors", type=Path,
                           help="replay the golden vectors in this folder instead of the built-in ones (they are the same data)")
    run_group.add_argument("--list", action="store_true", help="list the scenarios with their rules and exit")
    run_group.add_argument("--write-vectors", type=Path, metavar="DIR", help="write the golden vectors to DIR and exit")
    run_group.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each response [60]")
    run_group.add_argument("--allow-skips", action="store_true", help=ALLOW_SKIPS_HELP)
    run_group.add_argument("-q", "--quiet", action="store_true",
                           help="print only failures and the summary (which always lists what was not exercised, and why)")


CLIENT_CHECK_DESCRIPTION = ("Run the SEP-3279 client scenarios against a client: a fixture server per scenario, the client run "
                            "with its URL; exit 1 when a MUST fails, 3 when a MUST scenario could not be exercised. "
                            "See docs/conformance.md.")


def add_client_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `mcp-variants check-client`."""
    parser.add_argument("--command", dest="client_command", default=os.environ.get(ENV + "CLIENT_CMD"),
                        help="the client under test; run once per scenario with the fixture server's URL appended "
                             f"(default: this project's reference client) [{ENV}CLIENT_CMD]")
    parser.add_argument("--scenario", action="append", default=[], metavar="ID",
                        help="run only these scenario ids or id prefixes (comma-separated, repeatable)")
    parser.add_argument("--version", action="append", default=[], metavar="VERSION",
                        help="run only the scenarios at these protocol versions, e.g. 2025-11-25 for a client that "
                             "negotiates only that (comma-separated, repeatable)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds the client may take per scenario [30]")
    parser.add_argument("--scorecard", type=Path, help="write the JSON scorecard here")
    parser.add_argument("-o", "--output-dir", type=Path, metavar="DIR",
                        help="also write DIR/<scenario>-<time>/checks.json, the official suite's results layout")
    parser.add_argument("--list", action="store_true", help="list the scenarios with the rules they judge and exit")
    parser.add_argument("--allow-skips", action="store_true", help=ALLOW_SKIPS_HELP)
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only failures and the summary (which always lists what was not exercised, and why)")
