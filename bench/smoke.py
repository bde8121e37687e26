"""`python -m bench --smoke`: every part of the benchmarks with a few calls each, as CI runs it
(tests/benchmarks/test_smoke.py; the two judged parts alone, after the other tests, in
test_gross_regressions.py). Nothing is recorded. It exits 1 when a part raises or reports an
error (a failed call, a server that did not exit cleanly, a Jupyter server left running), and on
a gross regression, judged as a ratio to the baseline measured in the same run, never as a time:

  round trip   server 2026-12-01 default / raw async, medians           fails over 1.6x
  throughput   ours 2026-12-01 / the SDK's bare server, calls per s     fails under 0.6x

The limits sit far from the budgets (1.3x, 0.8x; the full run judges those): a few calls on a busy
machine read high, a regression that matters reads far higher. A ratio past its limit is measured
once more, and only a second miss fails: load comes and goes, a regression stays.
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
    "calls": 50, "warmup": 5, "wait_quiet": 0.0, "runtime_calls": 3, "listing_rounds": 1,
    "live_calls": 2, "page_calls": 3, "throughput_seconds": 1.0, "throughput_rounds": 2, "sessions": 10, "session_rounds": 2,
    "context_rows": 1000, "context_contestants": "ours 2026-12-01 default",
}


@dataclass(frozen=True)
class Part:
    measure: Callable[[], Report]
    format: Callable[[Report], str]


@dataclass(frozen=True)
class Gate:
    part: str
    what: str
    ratio: Callable[[Report], float]
    limit: float
    at_most: bool  # the ratio may not exceed the limit (else: may not fall under it)

    def passes(self, ratio: float) -> bool:
        return ratio <= self.limit if self.at_most else ratio >= self.limit

    def describe(self, ratio: float) -> str:
        return f"{self.what} {ratio:.2f}x (fails {'over' if self.at_most else 'under'} {self.limit:g}x)"


GATES = (
    Gate("roundtrip", "round trip: server / raw async", lambda r: float(r["primary"]["ratio"]), 1.6, at_most=True),
    Gate("throughput", "HTTP throughput: ours / the SDK's bare server", lambda r: float(r["primary"]["ratio"]), 0.6, at_most=False),
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
    """Print the smoke run's verdict (`began`: its perf_counter at the start); 1 on an error or a gross regression
    (a gated part past its limit twice)."""
    problems = list(errors({name: report[name] for name in parts}))
    figures = []
    for gate in GATES:
        if gate.part not in parts or "skipped" in report[gate.part]:
            continue
        ratio = gate.ratio(report[gate.part])
        if not gate.passes(ratio):
            print(f"smoke: {gate.describe(ratio)}; measuring {gate.part} once more\n", flush=True)
            again = parts[gate.part].measure()
            print(parts[gate.part].format(again) + "\n", flush=True)
            problems += errors({gate.part: again})
            ratio = gate.ratio(again)
            if not gate.passes(ratio):
                problems.append(f"gross regression, twice: {gate.describe(ratio)}")
        figures.append(gate.describe(ratio))
    skipped = [f"{name} ({report[name]['skipped']})" for name in parts if "skipped" in report[name]]
    print(f"smoke run: {len(parts)} parts in {time.perf_counter() - began:.0f} s; " + "; ".join(figures)
          + (f"; skipped: {', '.join(skipped)}" if skipped else ""))
    for problem in problems:
        print(f"  FAILED {problem}")
    return 1 if problems else 0
