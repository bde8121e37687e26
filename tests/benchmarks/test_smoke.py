"""The benchmarks still run, and nothing got grossly slower: `python -m bench --smoke` (bench/smoke.py).

Every part with a few calls; it fails on an error and on a ratio far past its budget, measured
in the same run (round trip over 1.6x raw, HTTP throughput under 0.6x the SDK's bare server).
No time is asserted. Live notebooks and the scaling engines need what `make test` installs
(Chromium, Node, the Hub's proxy, the engines' environments): without them those parts are
skipped, or fail with MCP_VARIANTS_OUTSIDE=required.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from bench.smoke import Part, errors, judge

from .conftest import REPO


@pytest.mark.timeout(1800)
def test_every_benchmark_runs_and_nothing_is_grossly_slower() -> None:
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke"], cwd=REPO, capture_output=True, text=True, timeout=1700)
    print(done.stdout[-6000:])
    assert done.returncode == 0, f"the smoke run failed ({done.returncode}):\n{done.stdout[-6000:]}\n{done.stderr[-4000:]}"
    assert "smoke run: " in done.stdout


def _parts(*roundtrip_ratios: float) -> tuple[dict[str, Any], dict[str, Part]]:
    """A round trip measured at each ratio in turn (the first in the report), a throughput of 0.9x."""
    ratios = iter(roundtrip_ratios)

    def measure() -> dict[str, Any]:
        return {"primary": {"ratio": next(ratios)}, "server_exit_codes": [0, 0]}

    report = {"roundtrip": measure(), "throughput": {"primary": {"ratio": 0.9}, "contestants": [{"name": "ours", "errors": 0}]}}
    parts = {"roundtrip": Part(measure, str), "throughput": Part(lambda: report["throughput"], str)}
    return report, parts


def test_a_ratio_past_its_limit_is_measured_again_and_fails_only_twice() -> None:
    report, parts = _parts(2.0, 1.2)
    assert judge(report, parts, time.perf_counter()) == 0  # the load went away
    report, parts = _parts(2.0, 1.9)
    assert judge(report, parts, time.perf_counter()) == 1
    report, parts = _parts(1.5)
    report["throughput"]["primary"]["ratio"] = 0.5
    assert judge(report, parts, time.perf_counter()) == 1  # measured again: the same 0.5x


def test_errors_are_found_wherever_a_part_reports_them() -> None:
    report = {"throughput": {"contestants": [{"name": "ours", "errors": 3}, {"name": "floor", "errors": 0}]},
              "runtimes": {"server_exit_codes": {"embedded": 0, "stock": -9}, "jupyter_servers_left_running": ["stock (pid 7)"]},
              "sizes": {"server_exit_codes": [0, 0]}}
    assert list(errors(report)) == ["throughput.contestants[0]: ours: 3 failed calls",
                                    "runtimes: servers exited with {'embedded': 0, 'stock': -9}",
                                    "runtimes: Jupyter servers left running: ['stock (pid 7)']"]
    report, parts = _parts(1.1)
    report["roundtrip"]["server_exit_codes"] = [0, 1]
    assert judge(report, parts, time.perf_counter()) == 1
