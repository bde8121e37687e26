"""`python -m bench --smoke`: every part of the benchmarks with a few calls each, as `make test` runs it
(tests/benchmarks/test_smoke.py). Nothing is recorded, and no speed is judged: a few calls on a machine busy with
the rest of the suite say nothing of speed, which `make bench` measures, judges against its budgets and records.
It exits 1 when a part raises or reports an error (a failed call, a server that did not exit cleanly, a Jupyter
server left running), and prints the round trip's, the slowest call kind's against the naive SDK server and HTTP
throughput's ratios to the baselines measured in the same run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Report = dict[str, Any]

# The options of `python -m bench` a smoke run changes (argparse dests).
SETTINGS: dict[str, Any] = {
    "core_iterations": 300, "startup_rounds": 1, "notebook_sizes": "100,1000", "notebook_calls": 2,
    "calls": 50, "floors_calls": 3, "warmup": 5, "wait_quiet": 0.0, "runtime_calls": 3, "listing_rounds": 1,
    "live_calls": 2, "page_calls": 3, "cold_rounds": 1, "throughput_seconds": 1.0, "throughput_rounds": 2, "sessions": 10,
    "session_rounds": 2,
    "context_rows": 1000, "context_contestants": "ours 2026-12-01 default",
}


@dataclass(frozen=True)
class Part:
    measure: Callable[[], Report]
    format: Callable[[Report], str]


@dataclass(frozen=True)
class Figure:
    """A ratio the smoke run prints, to the baseline measured in the same run: shown, never judged (speed is
    `make bench`'s, judged against its budgets and recorded in bench/results)."""

    part: str
    what: str
    ratio: Callable[[Report], float]


FIGURES = (
    Figure("roundtrip", "round trip: server / raw async", lambda r: float(r["primary"]["ratio"])),
    Figure("floors", "ours / the naive SDK server, slowest call kind", lambda r: max(float(k["ours_vs_naive"]) for k in r["kinds"])),
    Figure("throughput", "HTTP throughput: ours / the SDK's bare server", lambda r: float(r["primary"]["ratio"])),
)


def errors(report: Any, where: str = "") -> Iterator[str]:
    """What a part's report says went wrong, wherever in it: error counts, exit codes, servers left running."""
    if isinstance(report, list):
        for i, item in enumerate(report):
            yield from errors(item, f"{where}[{i}]")
        return
    if not isinstance(report, dict):
        return
    name = f"{where}: {report['name']}" if isinstance(report.get("name"), str) else where
    for key, value in report.items():
        if key == "errors" and isinstance(value, int) and value:
            yield f"{name}: {value} failed calls"
        elif key == "server_exit_codes":
            codes = value.values() if isinstance(value, dict) else value
            if any(code != 0 for code in codes):
                yield f"{name}: servers exited with {value}"
        elif key == "jupyter_servers_left_running" and value:
            yield f"{name}: Jupyter servers left running: {value}"
        else:
            yield from errors(value, f"{where}.{key}" if where else key)


def judge(report: Report, parts: dict[str, Part], began: float) -> int:
    """Print the smoke run's verdict (`began`: its perf_counter at the start) and its figures; 1 on an error."""
    problems = list(errors({name: report[name] for name in parts}))
    figures = [f"{figure.what} {figure.ratio(report[figure.part]):.2f}x" for figure in FIGURES
               if figure.part in parts and "skipped" not in report[figure.part]]
    skipped = [f"{name} ({report[name]['skipped']})" for name in parts if "skipped" in report[name]]
    print(f"smoke run: {len(parts)} parts in {time.perf_counter() - began:.0f} s; " + "; ".join(figures)
          + (f"; skipped: {', '.join(skipped)}" if skipped else ""))
    for problem in problems:
        print(f"  FAILED {problem}")
    return 1 if problems else 0
