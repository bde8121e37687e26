"""Where a benchmark run is recorded, and with what: the commit, the machine, the packages.

    bench/results/<UTC date>-<short sha><suffix>.json   and   bench/results/<latest>

`python -m bench` (bench.run) and `python -m bench.scale --record` both record through here.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
PACKAGES = ("mcp-variants", "mcp", "mcp-types", "jupyter_client", "ipykernel", "pyzmq", "jsonschema-rs", "pydantic", "anyio", "orjson",
            "jupyter_server", "jupyter_kernel_client", "websocket-client", "tornado", "httpx", "jupyterlab", "jupyter-collaboration",
            "jupyter-server-ydoc", "pycrdt", "jupyter-ydoc", "websockets")


def git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def short_sha() -> str:
    return git("rev-parse", "--short", "HEAD") or "nogit"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine() -> dict[str, Any]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "packages": versions,
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def write(report: dict[str, Any], now: datetime, sha: str, *, suffix: str = "", latest: str | None = "latest.json") -> Path:
    """The report as bench/results/<date>-<sha><suffix>.json and (unless None) as bench/results/<latest>; the first path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, indent=2) + "\n"
    path = RESULTS / f"{now:%Y-%m-%d}-{sha}{suffix}.json"
    path.write_text(text)
    if latest is not None:
        (RESULTS / latest).write_text(text)
    return path


def record_part(name: str, report: dict[str, Any]) -> Path:
    """A part run alone, with its commit and machine, as bench/results/<UTC date>-<short sha>-<name>.json and
    bench/results/<name>-latest.json; the first path."""
    now, sha = datetime.now(UTC), short_sha()
    return write({"recorded_at": now.isoformat(timespec="seconds"), "git": {"sha": sha}, "machine": machine(), name: report},
                 now, sha, suffix=f"-{name}", latest=f"{name}-latest.json")
