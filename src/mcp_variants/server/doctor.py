"""`mcp-variants doctor`: the user's setup, before a desktop client starts the server (jupyter/setup_report.py).

It takes `serve`'s own options for what it checks (the same records, so the same environment variables), plus the
packages the user's code needs, and ends with the `mcpServers` entry that starts `serve` with them. Exit status 1
when something needs fixing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from .options import OPTIONS, add_serve_arguments

CHECKED = ("root", "kernel", "jupyter_url", "jupyter_token", "embedded", "audit_log")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_serve_arguments(parser, [OPTIONS[name] for name in CHECKED])
    parser.add_argument("--need", action="append", default=[], metavar="PACKAGE",
                        help="a package your code imports (pandas); repeatable: is it in the kernel's environment?")
    parser.add_argument("--json", action="store_true", help="the report as JSON")


def client_entry(args: argparse.Namespace) -> dict[str, Any]:
    """The `mcpServers` entry that starts `serve` with these options: absolute paths, no token in it."""
    script = Path(sys.executable).with_name("mcp-variants")
    command, prefix = (str(script), []) if script.is_file() else (sys.executable, ["-m", "mcp_variants"])
    serve = [*prefix, "serve", "--root", str(args.root.expanduser().resolve())]
    if args.kernel != OPTIONS["kernel"].default:
        serve += ["--kernel", args.kernel]
    if args.embedded:
        serve.append("--embedded")
    if args.jupyter_url:
        serve += ["--jupyter-url", args.jupyter_url]
    return {"mcpServers": {"jupyter": {"command": command, "args": serve}}}


def main(args: argparse.Namespace) -> int:
    from ..jupyter.setup_report import diagnose

    report = diagnose(args.root, kernel=args.kernel, needs=args.need, jupyter_url=args.jupyter_url,
                      jupyter_token=args.jupyter_token, embedded=args.embedded, audit_log=args.audit_log)
    entry = client_entry(args)
    if args.json:
        print(json.dumps({**report.as_json(), "version": __version__, "python": sys.executable, "clientEntry": entry}, indent=2))
    else:
        print(f"mcp-variants {__version__} in {sys.executable}")
        print(report.text())
        print("\nA desktop client's entry for this setup (claude_desktop_config.json, mcp.json):")
        print(json.dumps(entry, indent=2))
    return 0 if report.ok else 1
