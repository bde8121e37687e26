"""Run every benchmark, print a table, record the results.

    python -m bench            (from the repository root; or: python bench/run.py)

Parts, each skippable (--skip-...): the SEP-3279 core per call (bench.core); start-up to the first
tools/list against the SDK's own server (bench.startup); the execute_code
round trip against raw jupyter_client (bench.roundtrip, the budgeted one); execute_code through the Jupyter
server extension against the raw round trip inside that server (bench.extension, budget 1.1x); execute_code on each
runtime against the raw client under it (bench.runtimes); list_files over 1,000 files
(bench.listing); the response size of every variant for a 200 KB print (bench.sizes); read_cell,
read_notebook and insert_cell at 100 to 20,000 cells (bench.notebook_size); live
notebooks, an agent's edit to a JupyterLab page and each notebook tool against the REST path (bench.live);
HTTP throughput from 16 clients against the SDK's bare server, the floor (bench.throughput); what an
abandoned HTTP session costs (bench.sessions); execute_code through an Enterprise Gateway and a
JupyterHub against their raw clients, and one worker against two (bench.scale); what reaches the model over a
realistic session, in tokens, against jupyter-mcp-server 2.2.4, each step's facts checked (bench.context); what
reaches the model in code mode against tool calling for one task, and the round trips (bench.codemode).

Writes bench/results/<UTC date>-<short git sha>.json and bench/results/latest.json; with --only, only
bench/results/<UTC date>-<short git sha>-<part>-<part>....json (latest.json stays the last full run).
Benchmarks measure and record; they assert nothing and always exit 0 when they ran. The one
exception is `python -m bench --smoke` (bench.smoke, what CI runs): a few calls per part, nothing
recorded, exit 1 on an error or a gross regression.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"

from bench import (
    codemode,
    context,
    core,
    extension,
    floors,
    listing,
    live,
    notebook_size,
    roundtrip,
    runtimes,
    scale,
    sessions,
    sizes,
    smoke,
    startup,
    throughput,
    tricks,
)
from bench.record import REPO, git, machine, short_sha, write
from bench.smoke import Part


def parts(args: argparse.Namespace) -> dict[str, Part]:
    """Every part, in the order it runs, measured with `args`; each skipped by its --skip-NAME."""
    quiet = args.wait_quiet
    return {
        "core": Part(lambda: core.run(iterations=args.core_iterations), core.format_report),
        "startup": Part(lambda: startup.run(rounds=args.startup_rounds, warmup=1), startup.format_report),
        "roundtrip": Part(lambda: roundtrip.run(calls=args.calls, warmup=args.warmup, wait_quiet=quiet), roundtrip.format_report),
        "floors": Part(lambda: floors.run(calls=args.floors_calls, wait_quiet=quiet), floors.format_report),
        "extension": Part(lambda: extension.run(calls=args.calls, warmup=args.warmup, wait_quiet=quiet), extension.format_report),
        "runtimes": Part(lambda: runtimes.run(calls=args.runtime_calls, warmup=args.warmup, wait_quiet=quiet), runtimes.format_report),
        "listing": Part(lambda: listing.run(rounds=args.listing_rounds, wait_quiet=quiet), listing.format_report),
        "sizes": Part(sizes.run, sizes.format_report),
        "notebook_size": Part(lambda: notebook_size.run(tuple(int(n) for n in args.notebook_sizes.split(",")), args.notebook_calls),
                              notebook_size.format_report),
        "tricks": Part(lambda: tricks.run(rounds=1, calls=4, stdio_calls=20) if args.smoke else tricks.run(), tricks.format_report),
        "live": Part(lambda: live.run(calls=args.live_calls, page_calls=args.page_calls, wait_quiet=quiet, cold_rounds=args.cold_rounds),
                     live.format_report),
        "throughput": Part(lambda: throughput.run(args.throughput_seconds, args.throughput_rounds, wait_quiet=quiet),
                           throughput.format_report),
        "sessions": Part(lambda: sessions.run(args.sessions, args.session_rounds), sessions.format_report),
        "scale": Part(lambda: scale.run(calls=args.runtime_calls, warmup=args.warmup, seconds=args.throughput_seconds,
                                        rounds=args.throughput_rounds, wait_quiet=quiet), scale.format_report),
        "context": Part(lambda: context.run(args.context_rows, context.names(args.context_contestants)), context.format_report),
        "codemode": Part(codemode.run, codemode.format_report),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run the benchmarks and record them.")
    parser.add_argument("--core-iterations", type=int, default=20_000, help="timed core calls per case (default 20000)")
    parser.add_argument("--calls", type=int, default=200, help="timed round trips per contestant (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed round-trip warm-up rounds (default 20)")
    parser.add_argument("--wait-quiet", type=float, default=120.0, metavar="SECONDS",
                        help="before the round trip, wait up to SECONDS for the CPUs to be under 25%% busy "
                             "(default 120; 0 to skip); the result records whether they were")
    parser.add_argument("--skip-core", action="store_true")
    parser.add_argument("--startup-rounds", type=int, default=12, help="interleaved start-up rounds against the SDK's floor (default 12)")
    parser.add_argument("--skip-startup", action="store_true", help="skip start-up to the first tools/list against the SDK's floor")
    parser.add_argument("--skip-roundtrip", action="store_true")
    parser.add_argument("--floors-calls", type=int, default=200,
                        help="timed calls per call kind against the naive SDK server and in process (default 200)")
    parser.add_argument("--skip-floors", action="store_true", help="skip each call kind against the naive SDK server and in process")
    parser.add_argument("--runtime-calls", type=int, default=200,
                        help="timed execute_code calls per contestant in the runtimes benchmark (default 200)")
    parser.add_argument("--listing-rounds", type=int, default=20, help="timed full list_files listings per contestant (default 20)")
    parser.add_argument("--skip-extension", action="store_true",
                        help="skip execute_code through the Jupyter server extension against the raw round trip in that server")
    parser.add_argument("--skip-runtimes", action="store_true", help="skip execute_code on the three runtimes against their raw clients")
    parser.add_argument("--skip-listing", action="store_true", help="skip list_files over 1,000 files")
    parser.add_argument("--skip-sizes", action="store_true", help="skip the response sizes of a 200 KB print")
    parser.add_argument("--notebook-sizes", default=",".join(map(str, notebook_size.SIZES)), metavar="N,N",
                        help="cell counts of the notebook-size table (default 100,1000,5000,20000)")
    parser.add_argument("--notebook-calls", type=int, default=10, help="calls per tool and notebook size (default 10)")
    parser.add_argument("--skip-notebook-size", action="store_true", help="skip notebook calls as the notebook grows")
    parser.add_argument("--skip-tricks", action="store_true", help="skip what each trick on a hot path buys (bench.tricks)")
    parser.add_argument("--live-calls", type=int, default=30, help="calls of each notebook tool per server, live benchmark (default 30)")
    parser.add_argument("--page-calls", type=int, default=40, help="inserts and edits timed to the JupyterLab page (default 40 each)")
    parser.add_argument("--cold-rounds", type=int, default=5, help="a new client's first use_notebook, by its parts (default 5 rounds)")
    parser.add_argument("--skip-live", action="store_true", help="skip live notebooks (JupyterLab in Chromium; the REST path beside)")
    parser.add_argument("--throughput-seconds", type=float, default=5.0, help="seconds per contestant per throughput round (default 5)")
    parser.add_argument("--throughput-rounds", type=int, default=3, help="interleaved throughput rounds (default 3)")
    parser.add_argument("--skip-throughput", action="store_true", help="skip HTTP throughput against the SDK's bare server")
    parser.add_argument("--skip-sessions", action="store_true", help="skip what an abandoned HTTP session costs")
    parser.add_argument("--skip-scale", action="store_true",
                        help="skip the Enterprise Gateway and JupyterHub round trips and the one-against-two-workers throughput")
    parser.add_argument("--context-rows", type=int, default=context.ROWS, help=f"rows of the session's CSV (default {context.ROWS})")
    parser.add_argument("--context-contestants", default="", metavar="NAME,NAME",
                        help="the session's contestants (default: all; python -m bench.context --help names them)")
    parser.add_argument("--skip-context", action="store_true", help="skip what reaches the model over a session, in tokens")
    parser.add_argument("--skip-codemode", action="store_true", help="skip code mode against tool calling, in tokens, for one task")
    parser.add_argument("--sessions", type=int, default=300, help="abandoned HTTP sessions per round (default 300)")
    parser.add_argument("--session-rounds", type=sessions.rounds, default=4, help="rounds of abandoned sessions (default 4)")
    parser.add_argument("--only", metavar="NAME,NAME", default="",
                        help="run only these parts (core, startup, roundtrip, ...: the names the run prints after each part); "
                             "the --skip options are then ignored")
    parser.add_argument("--no-record", action="store_true", help="print only; write nothing under bench/results/")
    parser.add_argument("--smoke", action="store_true",
                        help="every part with a few calls, nothing recorded; exit 1 on an error or a gross regression (bench.smoke)")
    args = parser.parse_args(argv)
    if args.smoke:  # smaller defaults; an option given on the command line still wins
        parser.set_defaults(**smoke.SETTINGS)
        args = parser.parse_args(argv)

    every = parts(args)
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := [name for name in only if name not in every]:
        parser.error(f"--only: no part named {', '.join(unknown)}; the parts: {', '.join(every)}")
    chosen = {name: part for name, part in every.items() if (name in only if only else not getattr(args, f"skip_{name}"))}

    now = datetime.now(UTC)
    sha = short_sha()
    dirty = bool(git("status", "--porcelain", "--", "src", "variants"))
    report: dict[str, Any] = {
        "recorded_at": now.isoformat(timespec="seconds"),
        "git": {"sha": sha, "src_dirty": dirty},
        "machine": machine(),
    }
    print(f"mcp-variants benchmarks at {sha}{' (src modified)' if dirty else ''}, "
          f"{report['machine']['nproc']} CPUs, Python {report['machine']['python']}{' (smoke run)' if args.smoke else ''}\n")
    began = time.perf_counter()
    seconds: dict[str, float] = {}  # each part's wall time, start-ups and waits included: where a run's minutes go
    for name, part in chosen.items():
        started = time.perf_counter()
        report[name] = part.measure()
        seconds[name] = round(time.perf_counter() - started, 1)
        print(part.format(report[name]) + f"\n[{name}: {seconds[name]:.0f} s]\n", flush=True)
    report["part_seconds"] = seconds
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]

    if args.smoke:
        sys.exit(smoke.judge(report, chosen, began))
    if args.no_record:
        return
    if only:  # some parts: a file of their own; latest.json stays the last full run
        path = write(report, now, sha, suffix="-" + "-".join(chosen), latest=None)
        print(f"recorded {path.relative_to(REPO)}")
        return
    path = write(report, now, sha)
    print(f"recorded {path.relative_to(REPO)} and bench/results/latest.json")


if __name__ == "__main__":
    main()
