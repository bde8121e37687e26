"""What each trick on a hot path buys: the trick against the plain code, interleaved, on the same inputs (issue 36).

  encode   jupyter/notebook_json.encode (orjson's two-space indentation halved into json's one) against
           json.dumps(indent=1, ensure_ascii=False): the file bytes of a 5,000-cell notebook (bench.notebook_size's)
  thaw     notebook_json.thaw (orjson.loads with the collector held off) against orjson.loads: a fresh copy of that
           notebook, in a process built as `serve` builds one (start-up's objects frozen), alone and from 4 threads
  freeze   a full collection once serving, start-up's objects frozen (gc.freeze, as `serve` does) against not: the
           pause every request in flight waits through
  start    `serve`'s start-up (cli._start: the declarations, the server) with the collector off, against on as
           `serve` leaves it: the CPU of a fresh process up to a built server. Not done, as it buys nothing
           measurable (most of start-up's objects are made by the imports before `serve` runs); the row would show if that changed
  iri      a fresh process's `import jsonschema` with iri_checker.without_iri_checker() first, against without
  stdio    our stdio transport (sdk/_stdio.py) against the SDK's own stdio_server, the same MCPServer with one trivial
           tool at 2025-11-25: wall time per tools/call round trip over pipes, and the server's CPU per call
           (bench.stdio_transport). The 2026-12-01 path has no SDK contestant: the SDK refuses that version
  fork     the test suite's fork server (tests/support/forkserver.py) against an exec: `serve --embedded` from spawn
           to its first tools/list answer, wall and CPU (bench.fork_start)

Each fresh-process row starts its contestants in a shuffled order every round; the in-process rows alternate
them call by call. Run alone: python -m bench.tricks [--rounds N] [--calls N] [--stdio-calls N] [--json] [--record]
(--record writes bench/results/<UTC date>-<short sha>-tricks.json and tricks-latest.json; `python -m bench` runs it too)
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from mcp_variants.jupyter.notebook_json import encode, thaw

from . import cli, fork_start, stdio_transport
from .notebook_size import notebook
from .record import REPO, record_part
from .stats import summarize

CELLS = 5_000
THREADS = 4
STDIO_CALLS = 500  # tools/call round trips per server process, each contestant

# A process built as `serve` builds one (server/cli.py), to the point where serving would start; then what
# `served` measures there. argv: the root, "off"|"on" (the collector while building), "frozen"|"not", calls.
STARTED = """
import gc, sys, time
from mcp_variants.server import cli
args = cli.build_parser().parse_args(["serve", "--root", sys.argv[1], "--embedded"])
if sys.argv[2] == "off":
    gc.disable()
cli._start(args)
if sys.argv[3] == "frozen":
    gc.freeze()
gc.enable()
cpu = time.process_time()
from bench.tricks import served
served(cpu, int(sys.argv[4]))
"""

IMPORT_JSONSCHEMA = """
import sys, time
from mcp_variants.iri_checker import without_iri_checker
if sys.argv[1] == "without":
    without_iri_checker()
import jsonschema
print(time.process_time())
"""


def _ms(fn: Callable[[], Any]) -> float:
    """The CPU milliseconds of one call of `fn` (this thread's: what else runs on the machine does not count)."""
    began = time.thread_time()
    fn()
    return (time.thread_time() - began) * 1000


def alternating(contestants: dict[str, Callable[[], Any]], calls: int) -> dict[str, list[float]]:
    """Milliseconds per call of each contestant, called in turn (a shuffled order each turn), `calls` turns."""
    times: dict[str, list[float]] = {name: [] for name in contestants}
    names = list(contestants)
    for _ in range(calls):
        random.shuffle(names)
        for name in names:
            times[name].append(_ms(contestants[name]))
    return times


def in_threads(fn: Callable[[], Any], threads: int, calls: int) -> float:
    """The CPU milliseconds (the process's, every thread's) `threads` threads take to make `calls` calls of `fn` each,
    all at once: each holds its last copy while the others make theirs, as requests in flight do."""
    start = threading.Barrier(threads + 1)

    def work() -> None:
        start.wait()
        held: list[Any] = [None]
        for _ in range(calls):
            held[0] = fn()  # the last copy goes only once the next is made

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.process_time()
    for worker in workers:
        worker.join()
    return (time.process_time() - began) * 1000


def served(start_cpu: float, calls: int) -> None:
    """In the process STARTED built (serving would start now): its start's CPU, what a full collection takes,
    and thaw against orjson.loads, alone and from THREADS threads; one JSON line on stdout."""
    pauses = [_ms(gc.collect) for _ in range(3)]
    frozen = orjson.dumps(notebook(CELLS))
    single = alternating({"thaw": lambda: thaw(frozen), "orjson.loads": lambda: orjson.loads(frozen)}, calls)
    threaded: dict[str, list[float]] = {"thaw": [], "orjson.loads": []}
    for _ in range(max(calls // 4, 1)):
        for name, fn in random.sample([("thaw", lambda: thaw(frozen)), ("orjson.loads", lambda: orjson.loads(frozen))], 2):
            threaded[name].append(in_threads(fn, THREADS, 4))
    print(json.dumps({"start_cpu_s": start_cpu, "full_collection_ms": min(pauses[1:]), "thaw_ms": single,
                      "threaded_ms": threaded, "collector_on_after": gc.isenabled()}))


def _started(root: Path, collector: str, frozen: str, calls: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", STARTED, str(root), collector, frozen, str(calls)], cwd=REPO,
                          capture_output=True, text=True, timeout=300, check=True)
    return dict(json.loads(done.stdout.splitlines()[-1]))


def _imported(how: str) -> float:
    done = subprocess.run([sys.executable, "-c", IMPORT_JSONSCHEMA, how], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=True)
    return float(done.stdout.split()[-1])


def _row(name: str, what: str, unit: str, trick: list[float], plain: list[float], labels: tuple[str, str]) -> dict[str, Any]:
    with_trick, without = summarize(trick), summarize(plain)
    return {"name": name, "what": what, "unit": unit, "contestants": {labels[0]: with_trick, labels[1]: without},
            "ratio": round(with_trick["median"] / without["median"], 3) if without["median"] else None}


def _alone(name: str, what: str, unit: str, figures: list[float], label: str) -> dict[str, Any]:
    """A row with one contestant: what a path costs where nothing else serves it."""
    return {"name": name, "what": what, "unit": unit, "contestants": {label: summarize(figures)}, "ratio": None}


def run(rounds: int = 8, calls: int = 40, stdio_calls: int = STDIO_CALLS) -> dict[str, Any]:
    """Every row; `rounds` fresh processes per contestant, `calls` calls per contestant in process, `stdio_calls`
    round trips per stdio server."""
    document = notebook(CELLS)
    document["cells"][CELLS // 2]["source"] = "an edited cell\n"
    plain_json = lambda: (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode()  # noqa: E731
    assert encode(document).file == plain_json(), "the trick writes json's bytes"
    encodes = alternating({"encode": lambda: encode(document).file, "json.dumps": plain_json}, calls)

    started: dict[tuple[str, str], list[dict[str, Any]]] = {("on", "frozen"): [], ("off", "frozen"): [], ("on", "not"): []}
    imports: dict[str, list[float]] = {"without": [], "with": []}
    stdio: dict[str, list[dict[str, Any]]] = {name: [] for name in stdio_transport.CONTESTANTS}
    starts: dict[str, list[tuple[float, float]]] = {"fork": [], "exec": []}
    with tempfile.TemporaryDirectory() as folder, fork_start.fork_server() as (socket, fork_server_pid):
        ways = fork_start.commands(Path(folder), socket)
        for _ in range(rounds):
            for contestant in random.sample(list(started), len(started)):
                started[contestant].append(_started(Path(folder), *contestant, calls))
            for how in random.sample(list(imports), 2):
                imports[how].append(_imported(how))
            for name in random.sample(list(stdio), len(stdio)):
                stdio[name].append(stdio_transport.served_calls(name, stdio_calls))
            for way in random.sample(list(starts), 2):
                starts[way].append(fork_start.start(ways[way], Path(folder), fork_server_pid if way == "fork" else None))
    serve = started[("on", "frozen")]  # as `serve` starts
    ms = 1000.0
    rows = [
        _row("encode", f"file bytes of a {CELLS:,}-cell notebook", "ms", encodes["encode"], encodes["json.dumps"],
             ("orjson halved", "json.dumps indent=1")),
        _row("thaw", "a fresh copy of that notebook in a built server", "ms",
             [t for r in serve for t in r["thaw_ms"]["thaw"]], [t for r in serve for t in r["thaw_ms"]["orjson.loads"]],
             ("collector held off", "orjson.loads")),
        _row("thaw x4", f"{THREADS} threads making 4 copies each at once", "ms",
             [t for r in serve for t in r["threaded_ms"]["thaw"]], [t for r in serve for t in r["threaded_ms"]["orjson.loads"]],
             ("collector held off", "orjson.loads")),
        _row("freeze", "a full collection once serving (the pause)", "ms", [r["full_collection_ms"] for r in serve],
             [r["full_collection_ms"] for r in started[("on", "not")]], ("start-up frozen", "not frozen")),
        _row("start", "serve --embedded built (the process)", "ms", [r["start_cpu_s"] * ms for r in started[("off", "frozen")]],
             [r["start_cpu_s"] * ms for r in serve], ("collector off", "collector on")),
        _row("iri", "a process importing jsonschema", "ms", [s * ms for s in imports["without"]],
             [s * ms for s in imports["with"]], ("no iri checkers", "iri checkers")),
        _row("stdio", f"a tools/call round trip over pipes at {stdio_transport.VERSION}", "wall ms",
             [t for r in stdio["ours"] for t in r["wall_ms"]], [t for r in stdio["sdk"] for t in r["wall_ms"]],
             ("ours", "the SDK's")),
        _row("stdio cpu", "the server's CPU per call (per process)", "ms", [r["cpu_ms_per_call"] for r in stdio["ours"]],
             [r["cpu_ms_per_call"] for r in stdio["sdk"]], ("ours", "the SDK's")),
        _alone("stdio 12-01", f"the same at {stdio_transport.UNBRIDGED}: the SDK refuses that version", "wall ms",
               [t for r in stdio[f"ours {stdio_transport.UNBRIDGED}"] for t in r["wall_ms"]], "ours"),
        _alone("cpu 12-01", f"the server's CPU per call at {stdio_transport.UNBRIDGED} (per process)", "ms",
               [r["cpu_ms_per_call"] for r in stdio[f"ours {stdio_transport.UNBRIDGED}"]], "ours"),
        _row("fork", "serve --embedded from spawn to its first tools/list answer", "wall ms", [w for w, _ in starts["fork"]],
             [w for w, _ in starts["exec"]], ("fork", "exec")),
        _row("fork cpu", "that start's CPU (the stand-in's and the fork's, or the exec's)", "ms",
             [c for _, c in starts["fork"]], [c for _, c in starts["exec"]], ("fork", "exec")),
    ]
    return {"rounds": rounds, "calls": calls, "stdio_calls": stdio_calls, "cells": CELLS, "threads": THREADS, "rows": rows,
            "collector_on_after_thaws": all(r["collector_on_after"] for runs in started.values() for r in runs),
            "loadavg": [round(x, 2) for x in os.getloadavg()]}


def format_report(report: dict[str, Any]) -> str:
    def cell(contestant: str, figures: dict[str, float], unit: str) -> str:
        return f"{contestant} {figures['median']:.2f} / {figures['p90']:.2f} ({figures['min']:.2f}) {unit}"

    rows = []
    for row in report["rows"]:
        (trick, a), *plain = row["contestants"].items()
        without = cell(*plain[0], row["unit"]) if plain else "(none)"
        rows.append((row["name"], cell(trick, a, row["unit"]), without, row["ratio"], row["what"]))
    return "\n".join([f"Tricks against the plain code (fresh processes: {report['rounds']} each; in process: {report['calls']} calls each; "
                      f"stdio: {report['stdio_calls']} calls a process; load average {report['loadavg'][0]}); "
                      "CPU ms unless wall, median / p90 (min)", "",
                      *cli.table([("row", "<11"), ("with the trick", "<46"), ("without", "<46"), ("ratio", ">6.2f"), ("what", "<")], rows),
                      f"collector on after every thaw: {report['collector_on_after_thaws']}"])


def main() -> None:
    parser = cli.parser(__doc__, prog="python -m bench.tricks")
    parser.add_argument("--rounds", type=int, default=8, help="fresh processes per contestant (default 8)")
    parser.add_argument("--calls", type=int, default=40, help="calls per contestant in process (default 40)")
    parser.add_argument("--stdio-calls", type=int, default=STDIO_CALLS,
                        help=f"tools/call round trips per stdio server (default {STDIO_CALLS})")
    parser.add_argument("--record", action="store_true", help="also write it under bench/results/ (with the machine and commit)")
    args = parser.parse_args()
    report = run(args.rounds, args.calls, args.stdio_calls)
    cli.show(report, format_report, args.json)
    if args.record:
        print(f"recorded {record_part('tricks', report).relative_to(REPO)}")


if __name__ == "__main__":
    main()
