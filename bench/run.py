"""Run every benchmark, print a table, record the results.

    python -m bench            (from the repository root; or: python bench/run.py)

Parts, each skippable (--skip-...): the SEP-3279 core per call (bench.core); the execute_code
round trip against raw jupyter_client (bench.roundtrip, the budgeted one); execute_code through the Jupyter
server extension against the raw round trip inside that server (bench.extension, budget 1.1x); execute_code on each
runtime against the raw client under it (bench.runtimes); list_files over 1,000 files
(bench.listing); the response size of every variant for a 200 KB print (bench.sizes); live
notebooks, an agent's edit to a JupyterLab page and each notebook tool against the REST path (bench.live);
HTTP throughput from 16 clients against the SDK's bare server, the floor (bench.throughput); what an
abandoned HTTP session costs (bench.sessions); execute_code through an Enterprise Gateway and a
JupyterHub against their raw clients, and one worker against two (bench.scale).

Writes bench/results/<UTC date>-<short git sha>.json and bench/results/latest.json.
Benchmarks measure and record; they assert nothing and always exit 0 when they ran.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/run.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"

from bench import core, extension, listing, live, roundtrip, runtimes, scale, sessions, sizes, throughput

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
PACKAGES = ("mcp-variants", "mcp", "mcp-types", "jupyter_client", "ipykernel", "pyzmq", "jsonschema-rs", "pydantic", "anyio", "orjson",
            "jupyter_server", "jupyter_kernel_client", "websocket-client", "tornado", "httpx", "jupyterlab", "jupyter-collaboration",
            "jupyter-server-ydoc", "pycrdt", "jupyter-ydoc", "websockets")


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine() -> dict[str, Any]:
    versions = {}
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run the benchmarks and record them.")
    parser.add_argument("--core-iterations", type=int, default=20_000, help="timed core calls per case (default 20000)")
    parser.add_argument("--calls", type=int, default=200, help="timed round trips per contestant (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed round-trip warm-up rounds (default 20)")
    parser.add_argument("--wait-quiet", type=float, default=120.0, metavar="SECONDS",
                        help="before the round trip, wait up to SECONDS for the CPUs to be under 25%% busy "
                             "(default 120; 0 to skip); the result records whether they were")
    parser.add_argument("--skip-core", action="store_true")
    parser.add_argument("--skip-roundtrip", action="store_true")
    parser.add_argument("--runtime-calls", type=int, default=200,
                        help="timed execute_code calls per contestant in the runtimes benchmark (default 200)")
    parser.add_argument("--listing-rounds", type=int, default=20, help="timed full list_files listings per contestant (default 20)")
    parser.add_argument("--skip-extension", action="store_true",
                        help="skip execute_code through the Jupyter server extension against the raw round trip in that server")
    parser.add_argument("--skip-runtimes", action="store_true", help="skip execute_code on the three runtimes against their raw clients")
    parser.add_argument("--skip-listing", action="store_true", help="skip list_files over 1,000 files")
    parser.add_argument("--skip-sizes", action="store_true", help="skip the response sizes of a 200 KB print")
    parser.add_argument("--live-calls", type=int, default=30, help="calls of each notebook tool per server, live benchmark (default 30)")
    parser.add_argument("--page-calls", type=int, default=40, help="inserts and edits timed to the JupyterLab page (default 40 each)")
    parser.add_argument("--skip-live", action="store_true", help="skip live notebooks (JupyterLab in Chromium; the REST path beside)")
    parser.add_argument("--throughput-seconds", type=float, default=5.0, help="seconds per contestant per throughput round (default 5)")
    parser.add_argument("--throughput-rounds", type=int, default=3, help="interleaved throughput rounds (default 3)")
    parser.add_argument("--skip-throughput", action="store_true", help="skip HTTP throughput against the SDK's bare server")
    parser.add_argument("--skip-sessions", action="store_true", help="skip what an abandoned HTTP session costs")
    parser.add_argument("--skip-scale", action="store_true",
                        help="skip the Enterprise Gateway and JupyterHub round trips and the one-against-two-workers throughput")
    parser.add_argument("--no-record", action="store_true", help="print only; write nothing under bench/results/")
    args = parser.parse_args(argv)

    now = datetime.now(UTC)
    sha = _git("rev-parse", "--short", "HEAD") or "nogit"
    dirty = bool(_git("status", "--porcelain", "--", "src", "variants"))
    report: dict[str, Any] = {
        "recorded_at": now.isoformat(timespec="seconds"),
        "git": {"sha": sha, "src_dirty": dirty},
        "machine": machine(),
    }
    print(f"mcp-variants benchmarks at {sha}{' (src modified)' if dirty else ''}, "
          f"{report['machine']['nproc']} CPUs, Python {report['machine']['python']}\n")
    if not args.skip_core:
        report["core"] = core.run(iterations=args.core_iterations)
        print(core.format_report(report["core"]) + "\n", flush=True)
    if not args.skip_roundtrip:
        report["roundtrip"] = roundtrip.run(calls=args.calls, warmup=args.warmup, wait_quiet=args.wait_quiet)
        print(roundtrip.format_report(report["roundtrip"]) + "\n", flush=True)
    if not args.skip_extension:
        report["extension"] = extension.run(calls=args.calls, warmup=args.warmup, wait_quiet=args.wait_quiet)
        print(extension.format_report(report["extension"]) + "\n", flush=True)
    if not args.skip_runtimes:
        report["runtimes"] = runtimes.run(calls=args.runtime_calls, warmup=args.warmup, wait_quiet=args.wait_quiet)
        print(runtimes.format_report(report["runtimes"]) + "\n", flush=True)
    if not args.skip_listing:
        report["listing"] = listing.run(rounds=args.listing_rounds, wait_quiet=args.wait_quiet)
        print(listing.format_report(report["listing"]) + "\n", flush=True)
    if not args.skip_sizes:
        report["sizes"] = sizes.run()
        print(sizes.format_report(report["sizes"]) + "\n", flush=True)
    if not args.skip_live:
        report["live"] = live.run(calls=args.live_calls, page_calls=args.page_calls, wait_quiet=args.wait_quiet)
        print(live.format_report(report["live"]) + "\n", flush=True)
    if not args.skip_throughput:
        report["throughput"] = throughput.run(args.throughput_seconds, args.throughput_rounds, wait_quiet=args.wait_quiet)
        print(throughput.format_report(report["throughput"]) + "\n", flush=True)
    if not args.skip_sessions:
        report["sessions"] = sessions.run()
        print(sessions.format_report(report["sessions"]) + "\n", flush=True)
    if not args.skip_scale:
        report["scale"] = scale.run(calls=args.runtime_calls, warmup=args.warmup, seconds=args.throughput_seconds,
                                    rounds=args.throughput_rounds, wait_quiet=args.wait_quiet)
        print(scale.format_report(report["scale"]) + "\n", flush=True)
    report["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]

    if args.no_record:
        return
    RESULTS.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, indent=2) + "\n"
    path = RESULTS / f"{now:%Y-%m-%d}-{sha}.json"
    path.write_text(text)
    (RESULTS / "latest.json").write_text(text)
    print(f"recorded {path.relative_to(REPO)} and bench/results/latest.json")


if __name__ == "__main__":
    main()
