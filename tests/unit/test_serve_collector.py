"""`serve` builds with the garbage collector off (start-up makes objects that live as long as the process, and
almost no garbage) and serves with it on, start-up's objects frozen out of its sight."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.server.cli import main

# Runs `serve` up to where serving starts (the loop itself is not started), and says what the collector was
# while the server was built and what it is then.
PROBE = """
import gc, json, sys
from mcp_variants.server import app, cli
seen = {}
build = app.build_server
def building(state):
    seen["while building"] = gc.isenabled()
    return build(state)
app.build_server = building
cli.anyio.run = lambda *args: print(json.dumps({**seen, "serving": gc.isenabled(), "frozen": gc.get_freeze_count()}))
cli.main(["serve", "--root", sys.argv[1], "--embedded"])
"""


def test_serving_starts_with_the_collector_on_and_start_ups_objects_frozen(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=120, check=True)
    seen = json.loads(done.stdout)
    assert seen["while building"] is False
    assert seen["serving"] is True
    assert seen["frozen"] > 50_000  # the SDK's models, the declarations, the schemas


def test_a_start_that_fails_leaves_the_collector_on(tmp_path: Path) -> None:
    assert gc.isenabled()
    with pytest.raises(SystemExit, match="is not a folder"):
        main(["serve", "--root", str(tmp_path / "missing"), "--embedded"])
    assert gc.isenabled()
