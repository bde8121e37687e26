"""HTTP throughput of stateless read-only calls from 16 clients, against the floor measured in the same run.

The floor is the stack we stand on: the MCP SDK's own low-level server with one trivial tool, on the
same transport (its streamable HTTP app under uvicorn; bench/bare_server.py). Contestants, each its own
process on a free loopback port, all alive together:

  floor: SDK bare server    tools/call echo at 2026-07-28 (the SDK's newest version), answered "ok"
  ours 2026-12-01           `serve --http` (default limits): tools/call list_kernels at 2026-12-01, no
                            requestedOutputs (assistant/content): the bridge, the checks, selection,
                            projection, validation; no kernel I/O
  ours 2026-07-28           the same call at 2026-07-28 (no bridge)
  naive: SDK MCPServer      what a user would write instead (bench/naive_server.py, the SDK's MCPServer over
                            jupyter_client): its list_kernels at 2026-07-28, the second floor (bench.floors has it on stdio)

Each round drives every contestant once, in a shuffled order, for --seconds: 16 client threads, each
with its own keep-alive connection, send the call back to back (a new one as soon as the last is
answered). Reported per contestant: calls per second, latency percentiles, and the server's CPU per
call (its own CPU time over its calls: what a call costs whatever else the machine does). The goal
(issue 13): ours at 2026-12-01 at least 0.8x the floor's calls per second, p99 under 50 ms.

The machine is shared: the report says how busy its CPUs were during the timed rounds, everyone's load
and this benchmark's own (the servers and the client threads), so others' load is the difference.

Run alone: python -m bench.throughput [--seconds S] [--rounds N]
"""

from __future__ import annotations

import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_variants.processes import ServerProcess, free_port

from . import cli
from .cli import load_lines, table
from .roundtrip import _cpu_times, cpu_busy, tree_cpu_seconds, wait_for_quiet
from .stats import summarize

CLIENTS = 16
FLOOR = "floor: SDK bare server, echo, 2026-07-28"
OURS = "ours 2026-12-01, list_kernels"
OURS_LEGACY = "ours 2026-07-28, list_kernels"
NAIVE = "naive: SDK MCPServer, list_kernels"
GOAL_RATIO = 0.8
GOAL_P99_MS = 50.0
REPO = Path(__file__).resolve().parents[1]


def _call(name: str, version: str) -> tuple[bytes, dict[str, str]]:
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}, "_meta": meta}})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": version, "Mcp-Method": "tools/call", "Mcp-Name": name}
    return body.encode(), headers


@dataclass
class Contestant:
    name: str
    argv: list[str]
    body: bytes
    headers: dict[str, str]
    workers: int = 1  # processes of argv, each on a port of its own; client i calls worker i mod workers (no balancer)
    servers: list[ServerProcess] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    rounds: list[dict[str, float]] = field(default_factory=list)
    errors: int = 0

    def start(self, cwd: Path) -> None:
        for _ in range(self.workers):
            port = free_port()
            self.servers.append(ServerProcess([*self.argv, "--port", str(port)], port, cwd=cwd).start(60))

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    @property
    def ports(self) -> list[int]:
        return [server.port for server in self.servers]

    def cpu_seconds(self) -> float | None:
        """The CPU time of every worker and what it started."""
        times = [tree_cpu_seconds(server.pid) for server in self.servers]
        return None if any(t is None for t in times) else sum(t for t in times if t is not None)


def drive(contestant: Contestant, seconds: float, record: bool) -> None:
    """CLIENTS threads call `contestant` back to back for `seconds` (client i its worker i mod workers); every answer
    is checked to be a result."""
    latencies: list[list[float]] = [[] for _ in range(CLIENTS)]
    errors = [0] * CLIENTS
    start = threading.Barrier(CLIENTS + 1)
    deadline = [0.0]

    def client(index: int) -> None:
        port = contestant.ports[index % len(contestant.ports)]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        start.wait()
        while time.perf_counter() < deadline[0]:
            began = time.perf_counter()
            try:
                connection.request("POST", "/mcp", contestant.body, contestant.headers)
                response = connection.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException):
                errors[index] += 1
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                continue
            latencies[index].append((time.perf_counter() - began) * 1000.0)
            if response.status != 200 or b'"result"' not in data or b'"isError":true' in data:
                errors[index] += 1
        connection.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    cpu_before = contestant.cpu_seconds()
    deadline[0] = time.perf_counter() + seconds
    began = time.perf_counter()
    start.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    cpu_after = contestant.cpu_seconds()
    if not record:
        return
    calls = sum(len(values) for values in latencies)
    contestant.latencies_ms.extend(v for values in latencies for v in values)
    contestant.errors += sum(errors)
    server_cpu = (cpu_after - cpu_before) if cpu_before is not None and cpu_after is not None else float("nan")
    contestant.rounds.append({"calls": calls, "wall_s": round(wall, 3), "calls_per_s": round(calls / wall, 1),
                              "server_cpu_ms_per_call": round(server_cpu * 1000.0 / max(calls, 1), 3)})


def run(seconds: float = 5.0, rounds: int = 3, warmup: float = 1.0, seed: int = 13, wait_quiet: float = 0.0) -> dict[str, Any]:
    quiet = wait_for_quiet(wait_quiet) if wait_quiet > 0 else None
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="mcpv-throughput-") as tmp:
        root = Path(tmp)
        ours = [sys.executable, "-m", "mcp_variants", "serve", "--http", "--root", str(root)]
        contestants = [
            Contestant(FLOOR, [sys.executable, "-m", "bench.bare_server"], *_call("echo", "2026-07-28")),
            Contestant(OURS, ours, *_call("list_kernels", "2026-12-01")),
            Contestant(OURS_LEGACY, ours, *_call("list_kernels", "2026-07-28")),
            Contestant(NAIVE, [sys.executable, "-m", "bench.naive_server", "--root", str(root)], *_call("list_kernels", "2026-07-28")),
        ]
        try:
            for contestant in contestants:
                contestant.start(REPO)
            for contestant in contestants:
                drive(contestant, warmup, record=False)
            cpu_before, mine_before = _cpu_times(), tree_cpu_seconds()  # this process and its children, the servers
            began = time.perf_counter()
            for _ in range(rounds):
                order = list(contestants)
                rng.shuffle(order)
                for contestant in order:
                    drive(contestant, seconds, record=True)
            wall = time.perf_counter() - began
            busy = cpu_busy(cpu_before, _cpu_times())
            mine_after = tree_cpu_seconds()
        finally:
            for contestant in contestants:
                contestant.stop()
    cpus = os.cpu_count() or 1
    report: dict[str, Any] = {
        "clients": CLIENTS,
        "seconds_per_round": seconds,
        "rounds": rounds,
        "seed": seed,
        "contestants": [_summary(c) for c in contestants],
        "cpu_busy_during": busy,
        "cpu_ours_during": round((mine_after - mine_before) / (wall * cpus), 3) if mine_before and mine_after else None,
        "cpu_busy_note": "fractions of all CPUs during the timed rounds: busy = everyone's load; ours = this benchmark's "
                         "processes (the servers and the client threads); others' load is the difference",
    }
    floor, primary = report["contestants"][0], report["contestants"][1]
    ratio = round(primary["calls_per_s"] / floor["calls_per_s"], 3)
    paired = [round(o["calls_per_s"] / f["calls_per_s"], 3) for o, f in zip(contestants[1].rounds, contestants[0].rounds, strict=True)]
    report["primary"] = {
        "server": OURS, "floor": FLOOR, "ratio": ratio, "per_round_ratios": paired, "p99_ms": primary["latency_ms"]["p99"],
        "goal": f">= {GOAL_RATIO}x the floor, p99 < {GOAL_P99_MS:g} ms",
        "within_goal": ratio >= GOAL_RATIO and primary["latency_ms"]["p99"] < GOAL_P99_MS,
        "cpu_per_call_ratio": round(primary["server_cpu_ms_per_call"] / floor["server_cpu_ms_per_call"], 3),
    }
    naive = report["contestants"][3]
    report["against_naive"] = {
        "server": OURS, "naive": NAIVE, "ratio": round(primary["calls_per_s"] / naive["calls_per_s"], 3),
        "per_round_ratios": [round(o["calls_per_s"] / n["calls_per_s"], 3)
                             for o, n in zip(contestants[1].rounds, contestants[3].rounds, strict=True)],
        "p99_ms": {"ours": primary["latency_ms"]["p99"], "naive": naive["latency_ms"]["p99"]},
    }
    if quiet is not None:
        report["quiet_check"] = quiet
    return report


def _summary(contestant: Contestant) -> dict[str, Any]:
    calls = sum(r["calls"] for r in contestant.rounds)
    wall = sum(r["wall_s"] for r in contestant.rounds)
    cpu = sum(r["server_cpu_ms_per_call"] * r["calls"] for r in contestant.rounds) / max(calls, 1)
    return {"name": contestant.name, "calls": calls, "errors": contestant.errors, "calls_per_s": round(calls / wall, 1),
            "latency_ms": summarize(contestant.latencies_ms), "server_cpu_ms_per_call": round(cpu, 3), "rounds": contestant.rounds}


def format_report(report: dict[str, Any]) -> str:
    lines = [f"HTTP throughput, stateless tools/call from {report['clients']} clients ({report['rounds']} rounds of "
             f"{report['seconds_per_round']:g} s each, interleaved)"]
    lines += table([("contestant", "<42"), ("calls/s", ">8.1f"), ("median ms", ">9.2f"), ("p90 ms", ">7.2f"), ("p99 ms", ">7.2f"),
                    ("cpu ms/call", ">11.3f"), ("errors", ">6")],
                   [(row["name"], row["calls_per_s"], row["latency_ms"]["median"], row["latency_ms"]["p90"], row["latency_ms"]["p99"],
                     row["server_cpu_ms_per_call"], row["errors"]) for row in report["contestants"]])
    primary = report["primary"]
    verdict = "ok" if primary["within_goal"] else "UNDER THE GOAL"
    lines.append(f"  {primary['server']} / floor: {primary['ratio']:.3f}x calls/s (rounds: {primary['per_round_ratios']}), "
                 f"p99 {primary['p99_ms']:.1f} ms; goal {primary['goal']} -> {verdict}; CPU per call {primary['cpu_per_call_ratio']:.2f}x")
    naive = report.get("against_naive")  # absent from runs recorded before the naive server was a contestant
    if naive:
        lines.append(f"  {naive['server']} / {naive['naive']}: {naive['ratio']:.3f}x calls/s (rounds: {naive['per_round_ratios']}), "
                     f"p99 {naive['p99_ms']['ours']:.1f} vs {naive['p99_ms']['naive']:.1f} ms")
    return "\n".join(lines + load_lines(report))


def main() -> None:
    parser = cli.parser(__doc__, seed=13, wait_quiet=True)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per contestant per round (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    args = parser.parse_args()
    report = run(args.seconds, args.rounds, seed=args.seed, wait_quiet=args.wait_quiet)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
