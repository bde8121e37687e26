"""Nothing got grossly slower: the two ratios bench/smoke.py judges, measured in the same run, never a time.

  round trip       server 2026-12-01 default / raw async jupyter_client, medians    fails over 1.6x
  HTTP throughput  ours 2026-12-01 / the SDK's bare server, calls per second        fails under 0.6x

The limits sit far from the budgets (1.3x, 0.8x), which the full `make bench` judges; a ratio past its limit is
measured once more and fails only the second time. `make test` runs this file after the other files, alone
(Makefile, ALONE): among them, the load of their JupyterLab, Chromium and Hubs bent the ratios past the limits
(HTTP throughput read 0.35x, then 0.21x, where a quiet run reads 0.78x).
"""

from __future__ import annotations

import pytest

from .conftest import smoke_run


@pytest.mark.timeout(600)
def test_nothing_is_grossly_slower() -> None:
    done = smoke_run("--only", "roundtrip,throughput")
    assert "round trip: server / raw async" in done.stdout and "HTTP throughput: ours / the SDK's bare server" in done.stdout
