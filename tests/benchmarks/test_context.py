"""bench/context.py runs: one short session (1,000 rows) against our server at 2026-12-01 with the default selection,
every step's facts in what the model read, counted by the real tokenizer. No time or token count is asserted; the
comparison with jupyter-mcp-server is the full run's (python -m bench.context)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.context import IMAGE, OURS_DEFAULT, Seen, missing

from .conftest import REPO


def test_a_fact_is_missing_unless_the_model_read_it() -> None:
    seen = Seen(["KeyError: 'revenue'"], [])
    assert missing(("KeyError", "revenue", "amount", IMAGE), seen) == ["amount", IMAGE]
    assert missing((IMAGE,), Seen([], [1234])) == []


@pytest.mark.timeout(600)
def test_a_short_session_brings_every_fact_to_the_model() -> None:
    done = subprocess.run([sys.executable, "-m", "bench.context", "--rows", "1000", "--contestants", OURS_DEFAULT, "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, done.stderr[-4000:]
    report = json.loads(done.stdout)
    (ours,) = report["contestants"]
    assert ours["name"] == OURS_DEFAULT and "skipped" not in ours, ours
    for row in ours["steps"]:
        assert row["missing_facts"] == [] and row["client_errors"] == [], row
        assert row["tokens"] > 0 or row["images"] > 0, row
    assert [row["step"] for row in ours["steps"]] == [step["name"] for step in report["steps"]]
    assert ours["totals"]["images"] >= 1 and report["server_exit_codes"] == {"ours 2026-12-01": 0}
