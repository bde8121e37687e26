"""Start-up: from spawning a server to its first `tools/list` answer, against the SDK's floor.

Contestants, each a fresh process per round, started in a shuffled order every round so that
whatever else the machine does hits them alike:

  floor       the MCP SDK's MCPServer with one tool on stdio (bench/floor_stdio.py): the floor
  embedded    `python -m mcp_variants serve --root <tmp> --embedded` (26 tools, the embedded runtime)
  discovery   the same without --embedded: it also looks for a Jupyter server on --root first
  embedded@REV  with --baseline REV: the embedded contestant as of that commit (its src/ and variants/ from
              `git archive`, first on PYTHONPATH, the same interpreter and packages): before/after in one run

The request (`tools/list` in the 2026-07-28 stateless envelope) is written to the child's stdin
right after spawning it, so it waits in the pipe: the time measured runs from just before the
spawn to the parsed response line, i.e. interpreter start, imports, declarations, and one answer.
The child then gets EOF and is waited for (not timed).

Run alone: python -m bench.startup [--rounds N] [--json]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp_variants.client.stdio import envelope

from . import cli
from .stats import summarize

VERSION = "2026-07-28"
BUDGET_RATIO = 1.1


def commands(root: Path) -> dict[str, list[str]]:
    serve = [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root)]
    return {"floor": [sys.executable, "-m", "bench.floor_stdio"], "embedded": [*serve, "--embedded"], "discovery": serve}


def checkout(repo: Path, revision: str, into: Path) -> Path:
    """src/ and variants/ of `revision` under `into`; returns the folder to put first on PYTHONPATH."""
    archive = subprocess.run(["git", "archive", revision, "src", "variants"], cwd=repo, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def first_on_path(source: Path) -> str:
    """A PYTHONPATH with `source` (what `checkout` returned) first: that commit's code, the same packages."""
    return os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))


def first_answer(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Seconds from spawn to the parsed tools/list answer, and how many tools it listed."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope(VERSION)}}
    began = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(request).encode() + b"\n")
        child.stdin.flush()
        while True:
            line = child.stdout.readline()
            if not line:
                raise RuntimeError(f"{command[2:]} closed stdout before answering")
            message = json.loads(line)
            if message.get("id") == 1:
                break
        elapsed = time.perf_counter() - began
        if "error" in message:
            raise RuntimeError(f"{command[2:]} answered tools/list with {message['error']}")
        return elapsed, len(message["result"]["tools"])
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def run(rounds: int = 15, warmup: int = 2, baseline: str | None = None) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-startup-"))
    repo = Path(__file__).resolve().parents[1]
    try:
        root = tmp / "root"
        root.mkdir()
        contestants = commands(root)
        envs: dict[str, dict[str, str] | None] = dict.fromkeys(contestants)
        if baseline is not None:
            (tmp / "baseline").mkdir()
            source = checkout(repo, baseline, tmp / "baseline")
            name = f"embedded@{baseline}"
            contestants[name] = contestants["embedded"]
            envs[name] = {**os.environ, "PYTHONPATH": first_on_path(source)}
        times: dict[str, list[float]] = {name: [] for name in contestants}
        tools: dict[str, int] = {}
        for index in range(warmup + rounds):
            order = list(contestants)
            random.shuffle(order)
            for name in order:
                elapsed, listed = first_answer(contestants[name], repo, envs[name])
                tools[name] = listed
                if index >= warmup:
                    times[name].append(elapsed * 1000)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summaries = {name: {**summarize(values), "tools": tools[name]} for name, values in times.items()}
    floor = summaries["floor"]["median"]
    per_round = {name: round(sorted(a / b for a, b in zip(values, times["floor"], strict=True))[len(values) // 2], 3)
                 for name, values in times.items() if name != "floor"}
    return {
        "version": VERSION,
        "rounds": rounds,
        "baseline": baseline,
        "budget_ratio": BUDGET_RATIO,
        "contestants": summaries,
        "ratio_to_floor": {name: round(s["median"] / floor, 3) for name, s in summaries.items() if name != "floor"},
        "per_round_ratio_median": per_round,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def format_report(report: dict[str, Any]) -> str:
    lines = [f"start-up to the first tools/list answer ({report['version']}, stdio), {report['rounds']} interleaved rounds "
             f"(budget: {report['budget_ratio']}x the floor)",
             f"  {'contestant':<16} {'tools':>5} {'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'x floor':>8} {'per-round':>10}"]
    for name, s in report["contestants"].items():
        ratio = report["ratio_to_floor"].get(name)
        per_round = report["per_round_ratio_median"].get(name)
        lines.append(f"  {name:<16} {s['tools']:>5} {s['median']:>10.1f} {s['p90']:>8.1f} {s['min']:>8.1f} "
                     f"{'' if ratio is None else format(ratio, '.3f'):>8} {'' if per_round is None else format(per_round, '.3f'):>10}")
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", metavar="REV", help="also time the embedded contestant as of this commit")
    args = parser.parse_args()
    report = run(args.rounds, baseline=args.baseline)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
