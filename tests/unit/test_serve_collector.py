"""`serve` serves with start-up's objects frozen out of the collector's sight (they live as long as the process), and
the collector on (bench/tricks.py, row freeze)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# Runs `serve` up to where serving starts (the loop itself is not started), and says what the collector is then.
PROBE = """
import gc, json, sys
from mcp_variants.server import cli
cli.anyio.run = lambda *args: print(json.dumps({"serving": gc.isenabled(), "frozen": gc.get_freeze_count()}))
cli.main(["serve", "--root", sys.argv[1], "--embedded"])
"""


def test_serving_starts_with_the_collector_on_and_start_ups_objects_frozen(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True)
    seen = json.loads(done.stdout)
    assert seen["serving"] is True
    assert seen["frozen"] > 50_000  # the SDK's models, the declarations, the schemas
