"""The README's main command: `mcp-variants demo` passes every scenario and writes its report (issues 4 and 15;
tests/apps/test_report.py opens the report in a browser)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.timeout(240)
def test_the_demo_passes_and_writes_a_self_contained_report(tmp_path: Path) -> None:
    """From a plain install: matplotlib (only the `demo` and `test` extras bring it) cannot be imported
    by the demo, its server or their kernels."""
    report = tmp_path / "report.html"
    blocked = tmp_path / "plain-install" / "matplotlib"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('no matplotlib in a plain install')\n")
    path = os.pathsep.join(filter(None, [str(blocked.parent), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "mcp_variants", "demo", "--report", str(report)],
        cwd=tmp_path, capture_output=True, text=True, timeout=220, env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 fail, 0 skip" in done.stdout
    page = report.read_text()
    assert "data-passed=false" not in page and "'verdict v-fail'" not in page and ">FAIL</td>" not in page
    assert "alt='image output (image/png)' src='data:image/png;base64," in page, "the plot is rendered in the report"
    assert "plan-14" in page and "host-plan-15" in page, "every testing-plan item is in the report"
    assert not re.search(r"""(src|href)=["']?https?:""", page), "self-contained: nothing loaded from elsewhere"
    assert "default-src 'none'" in page, "and its Content-Security-Policy lets nothing be fetched"
    # What the router delivered, per scenario: the demo prints it, and the report shows it in rows.
    assert "routed: model ← assistant/content; user ← nothing; program ← nothing; view ← nothing" in done.stdout
    assert page.count("<section class=scenario") == page.count("data-audience=view") >= 20
