"""`mcp-variants check`: run the SEP-3279 conformance suite against a server.

    mcp-variants check --server-cmd "node dist/server.js"           # stdio
    mcp-variants check --server-url http://127.0.0.1:3000/mcp       # streamable HTTP
    mcp-variants check --server-cmd "..." --server-url URL          # start it, then talk HTTP
    mcp-variants check                                              # this project's own server, stdio

Exit status: 0 OK; 1 a MUST (or testing-plan) scenario failed; 2 the server cannot be started or
reached, or the options are wrong; 3 INCOMPLETE: nothing failed, but a MUST scenario could not be
exercised (the summary says, for each, which tool to declare or which --call to pass;
--allow-skips accepts that). See verdict.py.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from .binding import CallConfig
from .options import add_arguments
from .runner import RunConfig, all_vectors, format_line, load_vectors, run, summary_line
from .scorecards import write_outputs
from .verdict import EXIT_CODES, EXIT_UNREACHABLE
from .wire import HttpTarget, LaunchedServer, StdioTarget, Target, TargetError


def build_parser(prog: str = "mcp-variants check") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0], epilog=EXIT_CODES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser


def write_vectors(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for vector in all_vectors():
        path = directory / f"{vector['id']}.json"
        path.write_text(vector_text(vector))
        written.append(path)
    return written


def vector_text(vector: dict[str, Any]) -> str:
    return json.dumps(vector, indent=2, ensure_ascii=False) + "\n"


def open_target(args: argparse.Namespace, scratch: Path) -> tuple[Target, LaunchedServer | None]:
    cwd = str(args.cwd) if args.cwd else None
    if args.server_url:
        launched = LaunchedServer(args.server_cmd, args.server_url, cwd=cwd) if args.server_cmd else None
        return HttpTarget(args.server_url, headers=dict(args.header), timeout=args.timeout), launched
    command = args.server_cmd or shlex.join([sys.executable, "-m", "mcp_variants", "serve", "--root", str(scratch)])
    return StdioTarget(command, cwd=cwd or (None if args.server_cmd else str(scratch)), timeout=args.timeout), None


def main(args: argparse.Namespace) -> int:
    if args.write_vectors:
        paths = write_vectors(args.write_vectors)
        print(f"wrote {len(paths)} vectors to {args.write_vectors}")
        return 0
    vectors = load_vectors(args.vectors) if args.vectors else all_vectors()
    if args.list:
        for v in vectors:
            print(f"{v['id']}  [{v['level']}] {v['title']}")
            for r in v["rules"]:
                print(f"    {r['section']}: \"{r['quote']}\"")
        return 0
    only = {part.strip() for item in args.only for part in item.split(",") if part.strip()} or None
    kinds = frozenset({"server", "client"}) if args.kind == "all" else frozenset({args.kind})
    calls = CallConfig(calls=dict(args.call), error_calls=dict(args.error_call), use_defaults=not args.no_default_calls,
                       established=list(dict.fromkeys(args.established)))
    config = RunConfig(calls=calls, only=only, kinds=kinds, timeout=args.timeout, all_tools=args.all_tools, allow_skips=args.allow_skips)

    def progress(vector: Any, result: dict[str, Any]) -> None:
        if not args.quiet or result["status"] == "fail":
            print(format_line(result), flush=True)

    with tempfile.TemporaryDirectory(prefix="mcp-variants-check-") as tmp:
        launched = None
        target: Target | None = None
        try:
            if "server" in kinds:
                target, launched = open_target(args, Path(tmp))
                print(f"server under test: {json.dumps(target.describe())}", flush=True)
            scorecard = run(target, vectors, config, progress)
        except TargetError as exc:
            print(f"mcp-variants check: {exc}", file=sys.stderr)
            return EXIT_UNREACHABLE
        finally:
            if target is not None:
                target.close()
            if launched is not None:
                launched.close()
    wire = scorecard.get("wireSchema")
    for violation in (wire or {}).get("violations", [])[:5]:
        print(f"  schema: {violation['context']}: {'; '.join(violation['errors'][:3])}")
    print(summary_line(scorecard))
    write_outputs(scorecard, args)
    return int(scorecard["verdict"]["exitCode"])


def entry(argv: list[str] | None = None) -> int:
    """`mcp-variants-check`, the command the suite's own distribution installs."""
    return main(build_parser("mcp-variants-check").parse_args(argv))
