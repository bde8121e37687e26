"""The benchmarks still run: `python -m bench --smoke` (bench/smoke.py), every part with a few calls, fails on an
error (a failed call, a server that did not exit cleanly, a Jupyter server left running). No time is asserted.

Speed is not judged here (`make bench` does, and records it). Live notebooks
and the scaling engines need what `make test` installs (Chromium, Node, the Hub's proxy, the engines'
environments): without them those parts are skipped, or fail with MCP_VARIANTS_OUTSIDE=required.
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from bench.smoke import Part, errors, judge

from .conftest import REPO, smoke_run


@pytest.mark.timeout(1800)
def test_every_benchmark_runs() -> None:
    # One short throughput round shows the HTTP parts run; measuring them is `make bench`'s.
    done = smoke_run("--throughput-rounds", "1", "--throughput-seconds", "0.5")
    assert "[scale: " in done.stdout and "[core: " in done.stdout, "every part ran"
    assert "round trip: server / raw async" in done.stdout and "HTTP throughput: ours / the SDK's bare server" in done.stdout


def test_session_rounds_are_at_least_two() -> None:
    """What a session costs is what the rounds after the first add: one round is refused, not divided by zero."""
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--only", "sessions", "--session-rounds", "1"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--session-rounds: at least 2" in done.stderr, done.stderr


def test_only_names_the_parts_it_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "bench", "--smoke", "--only", "roundtrip,nope"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--only: no part named nope; the parts: core, startup, roundtrip" in done.stderr


def _parts(roundtrip_ratio: float) -> tuple[dict[str, Any], dict[str, Part]]:
    """A round trip measured at this ratio, a throughput of 0.9x."""
    report = {"roundtrip": {"primary": {"ratio": roundtrip_ratio}, "server_exit_codes": [0, 0]},
              "throughput": {"primary": {"ratio": 0.9}, "contestants": [{"name": "ours", "errors": 0}]}}
    parts = {name: Part(lambda name=name: report[name], str) for name in report}
    return report, parts


def test_a_slow_ratio_is_shown_and_never_fails_the_smoke_run(capsys: pytest.CaptureFixture[str]) -> None:
    report, parts = _parts(9.0)
    assert judge(report, parts, time.perf_counter()) == 0
    assert "round trip: server / raw async 9.00x" in capsys.readouterr().out


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
