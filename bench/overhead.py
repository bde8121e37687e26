"""Where the server's per-call time goes on stdio (diagnostics; not part of `python -m bench`).

    python -m bench.overhead [--calls N] [--profile-calls N] [--record] [--json FILE]

Three measurements, all against real subprocesses and a real kernel:

1. Stage breakdown (2026-12-01 and 2025-11-25). The server runs under bench.instrumented_server with timestamps;
   for execute_code `1+1` and for list_kernels (no kernel I/O) at 2026-12-01, each round
   trip is cut into: client write -> SDK reader has the line (pipe + worker-thread hop);
   line -> our handler (SDK parse/validate/dispatch + the bridge's inbound stream);
   handler -> kernel loop; kernel loop; kernel loop -> handler return (execution view +
   the SEP-3279 core); handler return -> SDK writer (SDK result sieve, envelope, JSON dump,
   the bridge's outbound stream); write + flush (two worker-thread hops); flush -> client
   parsed. Clocks are CLOCK_MONOTONIC on both sides.
2. What-if, interleaved in one run: raw AsyncKernelClient; the server as shipped; with a
   thread-free stdio transport (--direct-stdio); without the bridge's relay tasks
   (--no-bridge-relay, at 2026-07-28 since 2026-12-01 needs the bridge); with both.
3. Idle gaps: raw and server round trips when the client idles 0-100 ms before each call.
4. cProfile of the server's event-loop thread over execute_code calls, grouped by package.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import pstats
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from .roundtrip import META_2026, RawKernel, StdioServer, wait_for_quiet
from .stats import summarize

EXECUTE = {"name": "execute_code", "arguments": {"code": "1+1"}, "_meta": META_2026}
LIST_KERNELS = {"name": "list_kernels", "arguments": {}, "_meta": META_2026}


def _envelope(version: str) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {}}


def _instrumented(root: Path, log: Path, *options: str) -> StdioServer:
    argv = [sys.executable, "-m", "bench.instrumented_server", *options, "serve", "--root", str(root)]
    repo = str(Path(__file__).resolve().parents[1])
    return StdioServer(root, log, extra_env={"PYTHONPATH": repo}, argv=argv)


# ---- 1. stage breakdown ---------------------------------------------------------------------------


# The events of one tools/call, in the order they happen; a stage runs from one present event to the next.
ORDER = ("c_write", "stdin_line", "bridge_in", "runner_in", "handler_in", "execute_in", "execute_out",
         "handler_out", "serialize_in", "serialize_out", "bridge_out", "write_in", "c_parsed")
STAGE_NAMES = {
    ("c_write", "stdin_line"): "pipe in + SDK reader's worker-thread hop",
    ("stdin_line", "bridge_in"): "SDK JSON-RPC parse + stream hop to the bridge",
    ("bridge_in", "runner_in"): "bridge relay + SDK era relay + dispatcher task spawn",
    ("stdin_line", "runner_in"): "SDK parse + era relay + dispatcher task spawn",
    ("runner_in", "handler_in"): "SDK runner: meta, context, OTel span, request validation",
    ("handler_in", "execute_in"): "ours: select + input schema + tool setup",
    ("execute_in", "execute_out"): "kernel loop (EmbeddedRuntime.execute)",
    ("execute_out", "handler_out"): "ours: execution view + core + tunnel",
    ("handler_in", "handler_out"): "ours: list_kernels + core + tunnel",
    ("handler_out", "serialize_in"): "SDK middleware return",
    ("serialize_in", "serialize_out"): "SDK result sieve (validate + dump for the version)",
    ("serialize_out", "bridge_out"): "SDK response envelope + stream hop to the bridge",
    ("bridge_out", "write_in"): "bridge unwrap + stream hop to writer + JSON dump",
    ("serialize_out", "write_in"): "SDK response envelope + stream hop to writer + JSON dump",
    ("write_in", "c_parsed"): "SDK writer's worker-thread hop + pipe out + client parse",
}
SERVER_EVENTS = ("stdin_line", "bridge_in", "runner_in", "handler_in", "handler_out", "serialize_in", "serialize_out",
                 "bridge_out", "write_in", "flushed")


async def stage_breakdown(workdir: Path, calls: int, warmup: int, *, version: str = "2026-12-01",
                          handshake: bool = False, options: tuple[str, ...] = (), gap: RawKernel | None = None,
                          gap_calls: int = 0) -> dict[str, Any]:
    """Per-stage medians for execute_code and list_kernels on one instrumented server.

    Back to back (warm), or with `gap_calls` raw executes on another kernel before each request
    (cold, like a contestant in bench.roundtrip, which waits for the other five between calls).
    """
    root = workdir / "root"
    root.mkdir(exist_ok=True)
    tag = f"{version}{''.join(options)}".replace("-", "")
    stamps_file = workdir / f"stamps-{tag}.jsonl"
    server = _instrumented(root, workdir / f"instrumented-{tag}.log", "--stamps", str(stamps_file), *options)
    extra = {} if handshake else {"_meta": _envelope(version)}
    label = f"{version}{' (handshake)' if handshake else ''}{' ' + ' '.join(options) if options else ''}"
    label += f", cold ({gap_calls} raw calls between requests)" if gap_calls else ", back to back"
    plan = [
        (f"execute_code {label}", {"name": "execute_code", "arguments": {"code": "1+1"}, **extra}),
        (f"list_kernels {label}", {"name": "list_kernels", "arguments": {}, **extra}),
    ]
    client: list[tuple[str, float, float]] = []  # (kind, write, parsed)
    try:
        if handshake:
            server.handshake(version)
        server.request("tools/call", plan[0][1])  # starts the kernel
        await asyncio.sleep(0.2)  # every event of the set-up has happened before `start`
        start = time.perf_counter()
        for _ in range(warmup + calls):
            for kind, params in plan:
                for _ in range(gap_calls):
                    await gap.execute_async("1+1")  # type: ignore[union-attr]
                began = time.perf_counter()
                elapsed, _ = server.request("tools/call", params)
                client.append((kind, began, began + elapsed))
    finally:
        server.stop()
    # Requests are strictly sequential, so the k-th occurrence of an event belongs to the k-th
    # request that has it (a flush may complete after the client already sent the next request).
    by_event: dict[str, list[float]] = defaultdict(list)
    for line in stamps_file.read_text().splitlines():
        event, t = json.loads(line)
        if t >= start:
            by_event[event].append(t)
    present = [e for e in SERVER_EVENTS if by_event.get(e)]
    for event in present:
        if len(by_event[event]) != len(client):
            raise RuntimeError(f"{len(by_event[event])} {event} events for {len(client)} requests")
    executions = iter(zip(by_event["execute_in"], by_event["execute_out"], strict=True))
    per_kind: dict[str, dict[str, list[float]]] = {kind: defaultdict(list) for kind, _ in plan}
    for k, (kind, wrote, parsed) in enumerate(client):
        group = {e: by_event[e][k] for e in present}
        if kind.startswith("execute_code"):
            group["execute_in"], group["execute_out"] = next(executions)
        if k < 2 * warmup:
            continue
        group.update(c_write=wrote, c_parsed=parsed)
        chain = [e for e in ORDER if e in group]
        for a, b in itertools.pairwise(chain):
            per_kind[kind][STAGE_NAMES.get((a, b), f"{a} -> {b}")].append((group[b] - group[a]) * 1e6)
        per_kind[kind]["= total round trip"].append((parsed - wrote) * 1e6)
        if kind.startswith("execute_code"):
            kernel = group["execute_out"] - group["execute_in"]
            per_kind[kind]["= total minus kernel loop"].append((parsed - wrote - kernel) * 1e6)
            ours = (group["execute_in"] - group["handler_in"]) + (group["handler_out"] - group["execute_out"])
        else:
            ours = group["handler_out"] - group["handler_in"]
        per_kind[kind]["= total minus kernel loop minus ours (the SDK + transport)"].append((parsed - wrote - (group["execute_out"] - group["execute_in"] if "execute_in" in group else 0) - ours) * 1e6)
        per_kind[kind]["(off the client's path) write_in -> flush done"].append((group["flushed"] - group["write_in"]) * 1e6)
    return {kind: {label: summarize(values, 1) for label, values in stages.items()} for kind, stages in per_kind.items()}


async def _all_stages(work: Path, calls: int, warmup: int) -> dict[str, Any]:
    (work / "k").mkdir(exist_ok=True)
    (work / "root").mkdir(exist_ok=True)
    gap = RawKernel(work / "k", work / "root", "gap")
    await gap.start(blocking=False)
    try:
        return {
            **await stage_breakdown(work, calls, warmup),
            **await stage_breakdown(work, calls, warmup, gap=gap, gap_calls=5),
            **await stage_breakdown(work, calls, warmup, options=("--direct-stdio",), gap=gap, gap_calls=5),
            **await stage_breakdown(work, calls, warmup, version="2025-11-25", handshake=True, gap=gap, gap_calls=5),
            **await stage_breakdown(work, calls, warmup, version="2026-07-28", gap=gap, gap_calls=5),
            **await stage_breakdown(work, calls, warmup, version="2026-07-28", options=("--no-bridge-relay",), gap=gap, gap_calls=5),
        }
    finally:
        await gap.stop()


# ---- 2. what-if: thread-free stdio, no bridge relays ---------------------------------------------


async def _what_if(workdir: Path, calls: int, warmup: int) -> dict[str, Any]:
    """One process per contestant, each called once per round (see bench.roundtrip.Contestants)."""
    root = workdir / "root"
    root.mkdir(exist_ok=True)
    sockets = workdir / "k"
    sockets.mkdir(exist_ok=True)
    raw = RawKernel(sockets, root, "whatif")
    await raw.start(blocking=False)
    v0728 = {"name": "execute_code", "arguments": {"code": "1+1"}, "_meta": _envelope("2026-07-28")}
    plan = {
        "A shipped, 2026-12-01": ((), EXECUTE),
        "B thread-free stdio, 2026-12-01": (("--direct-stdio",), EXECUTE),
        "C shipped, 2026-07-28": ((), v0728),
        "D no bridge relays, 2026-07-28": (("--no-bridge-relay",), v0728),
        "E thread-free + no relays, 2026-07-28": (("--no-bridge-relay", "--direct-stdio"), v0728),
    }
    servers: dict[str, StdioServer] = {}
    samples: dict[str, list[float]] = {name: [] for name in ("raw async", *plan)}
    rng = random.Random(7)
    try:
        for index, (name, (options, params)) in enumerate(plan.items()):
            log = workdir / f"whatif-{index}.log"
            servers[name] = _instrumented(root, log, *options) if options else StdioServer(root, log)
            servers[name].request("tools/call", params)  # kernel start, outside the timing
        for round_index in range(warmup + calls):
            order = list(samples)
            rng.shuffle(order)
            for name in order:
                if name == "raw async":
                    elapsed, _ = await raw.execute_async("1+1")
                else:
                    elapsed, _ = servers[name].request("tools/call", plan[name][1])
                if round_index >= warmup:
                    samples[name].append(elapsed * 1000)
    finally:
        for server in servers.values():
            server.stop()
        await raw.stop()
    summaries = {name: summarize(values) for name, values in samples.items()}
    base = summaries["raw async"]["median"]
    report: dict[str, Any] = {}
    for name, summary in summaries.items():
        report[name] = summary
        if name != "raw async":
            paired = summarize([a / b for a, b in zip(samples[name], samples["raw async"], strict=True)])
            report[name] = {**summary, "ratio_vs_raw_async": round(summary["median"] / base, 3),
                            "paired_ratio_median": paired["median"]}
    return report


# ---- 2b. idle gaps --------------------------------------------------------------------------------


async def gap_sweep(workdir: Path, calls: int, gaps_ms: tuple[float, ...] = (0, 2, 10, 30, 100)) -> dict[str, Any]:
    """Raw and server round trips after the client sat idle for `gap` ms before each call.

    Back to back, the processes on the server's path stay on the CPU and warm; an agent calls
    a tool seconds apart, so each call wakes them cold. The SDK path is mostly Python and pays
    for that far more than the raw path does.
    """
    root = workdir / "root"
    root.mkdir(exist_ok=True)
    sockets = workdir / "k"
    sockets.mkdir(exist_ok=True)
    raw = RawKernel(sockets, root, "gaps")
    await raw.start(blocking=False)
    server = StdioServer(root, workdir / "gaps.log")
    listing = StdioServer(root, workdir / "gaps-list.log")
    results: dict[str, Any] = {}
    try:
        server.request("tools/call", EXECUTE)
        for gap in gaps_ms:
            samples: dict[str, list[float]] = {"raw async": [], "server execute_code": [], "server list_kernels": []}
            for index in range(10 + calls):
                for name, values in samples.items():
                    await asyncio.sleep(gap / 1000)
                    if name == "raw async":
                        elapsed, _ = await raw.execute_async("1+1")
                    elif name == "server execute_code":
                        elapsed, _ = server.request("tools/call", EXECUTE)
                    else:
                        elapsed, _ = listing.request("tools/call", LIST_KERNELS)
                    if index >= 10:
                        values.append(elapsed * 1000)
            medians = {name: summarize(values)["median"] for name, values in samples.items()}
            results[f"{gap:g} ms"] = {
                **{f"{name} median ms": value for name, value in medians.items()},
                "ratio": round(medians["server execute_code"] / medians["raw async"], 3),
                "server minus raw ms": round(medians["server execute_code"] - medians["raw async"], 3),
            }
    finally:
        server.stop()
        listing.stop()
        await raw.stop()
    return results


# ---- 3. cProfile ----------------------------------------------------------------------------------


def _group(filename: str) -> str:
    if "mcp_variants" in filename:
        if "/protocol/" in filename:
            return "mcp_variants core (protocol/)"
        if "/server/bridge" in filename:
            return "mcp_variants bridge"
        return "mcp_variants (server, tools, jupyter)"
    for needle, label in (
        ("site-packages/mcp/", "mcp SDK (python)"),
        ("site-packages/mcp_types/", "mcp_types (python)"),
        ("site-packages/pydantic", "pydantic (python)"),
        ("site-packages/anyio/", "anyio"),
        ("site-packages/jupyter_client/", "jupyter_client"),
        ("site-packages/zmq/", "pyzmq"),
        ("/asyncio/", "asyncio"),
        ("site-packages/jsonschema_rs", "jsonschema-rs"),
    ):
        if needle in filename:
            return label
    return "other / builtins"


def profile(workdir: Path, calls: int, warmup: int = 20) -> dict[str, Any]:
    root = workdir / "root"
    root.mkdir(exist_ok=True)
    profile_file = workdir / "server.prof"
    start = 2 + warmup  # line 1 starts the kernel; then the warm-up; then `calls` profiled requests
    server = _instrumented(root, workdir / "profiled.log", "--cprofile", str(profile_file), str(start), str(calls))
    try:
        for _ in range(1 + warmup + calls + 1):  # the last request's line closes the window
            server.request("tools/call", EXECUTE)
    finally:
        code = server.stop()
    if not profile_file.exists():
        log = (workdir / "profiled.log").read_text()[-2000:]
        raise RuntimeError(f"the profiled server (exit code {code}) wrote no profile; its log ends:\n{log}")
    stats = pstats.Stats(str(profile_file))
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    by_group: dict[str, float] = defaultdict(float)
    rows = []
    for (filename, line, function), (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        if function.startswith("<built-in method select") or "epoll" in function or function == "<method 'poll' of 'select.epoll' objects>":
            group = "waiting (epoll/select)"
        elif "acquire" in function and "lock" in function:
            group = "waiting (lock acquire)"
        else:
            group = _group(filename)
        by_group[group] += tottime
        rows.append((tottime, cumtime, ncalls, f"{Path(filename).name}:{line}({function})"))
    rows.sort(reverse=True)
    per_call = {k: round(v / calls * 1e6, 1) for k, v in sorted(by_group.items(), key=lambda kv: -kv[1])}
    loop_iterations = sum(nc for (f, _l, fn), (_cc, nc, *_rest) in raw.items() if fn == "_run_once" and f.endswith("base_events.py"))
    cumulative = sorted(
        ((cum, nc, f"{Path(f).name}:{ln}({fn})") for (f, ln, fn), (_cc, nc, _tt, cum, _c) in raw.items()
         if ("mcp" in f or "mcp_variants" in f or "pydantic" in f)),
        reverse=True,
    )
    return {
        "calls": calls,
        "note": "event-loop thread only, steady-state requests only; cumulative includes time waiting in epoll",
        "tottime_us_per_call_by_group": per_call,
        "loop_iterations_per_call": round(loop_iterations / calls, 1),
        "top_tottime": [{"us_per_call": round(t / calls * 1e6, 1), "ncalls": n, "function": name} for t, _c, n, name in rows[:25]],
        "top_cumulative_sdk": [{"us_per_call": round(c / calls * 1e6, 1), "ncalls": n, "function": name} for c, n, name in cumulative[:30]],
    }


# ---- report ---------------------------------------------------------------------------------------


def format_report(report: dict[str, Any]) -> str:
    lines = []
    for kind, stages in report.get("stages", {}).items():
        lines.append(f"Stage breakdown, {kind} (median / p90 us):")
        for label, s in stages.items():
            lines.append(f"  {label:<62} {s['median']:>9.1f} {s['p90']:>9.1f}")
    if "what_if" in report:
        lines.append("What-if, interleaved (median / p90 / p99 ms; ratio of medians vs raw async; median of per-round ratios):")
        for name, s in report["what_if"].items():
            ratio = f"{s['ratio_vs_raw_async']:.3f}x  {s['paired_ratio_median']:.3f}x" if "ratio_vs_raw_async" in s else ""
            lines.append(f"  {name:<56} {s['median']:>7.3f} {s['p90']:>7.3f} {s['p99']:>7.3f}  {ratio}")
    if "gaps" in report:
        lines.append("Idle gap before each call (medians, ms):")
        lines.append(f"  {'gap':>8} {'raw async':>10} {'server':>10} {'ratio':>7} {'server-raw':>11} {'list_kernels':>13}")
        for gap, row in report["gaps"].items():
            lines.append(f"  {gap:>8} {row['raw async median ms']:>10.3f} {row['server execute_code median ms']:>10.3f} "
                         f"{row['ratio']:>7.3f} {row['server minus raw ms']:>11.3f} {row['server list_kernels median ms']:>13.3f}")
    if "profile" in report:
        p = report["profile"]
        lines.append(f"cProfile (inflates Python-heavy code), event-loop thread, {p['calls']} execute_code calls: own time per call by package (us):")
        for group, us in p["tottime_us_per_call_by_group"].items():
            lines.append(f"  {group:<40} {us:>8.1f}")
        lines.append(f"  event-loop iterations per call: {p['loop_iterations_per_call']:.1f}")
        lines.append("  top functions by own time (us per call):")
        for row in p["top_tottime"][:15]:
            lines.append(f"    {row['us_per_call']:>8.1f}  {row['function']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--profile-calls", type=int, default=300)
    parser.add_argument("--json", type=Path, help="also write the report to this file")
    parser.add_argument("--record", action="store_true",
                        help="also write bench/results/<UTC date>-<sha>-overhead.json and bench/results/overhead-latest.json")
    parser.add_argument("--only", choices=("stages", "what-if", "gaps", "profile"), action="append",
                        help="run only these parts (repeatable; default: all three)")
    parser.add_argument("--wait-quiet", type=float, default=120.0, metavar="SECONDS",
                        help="first wait up to SECONDS for the CPUs to be under 25%% busy (default 120; 0: don't)")
    args = parser.parse_args()
    report: dict[str, Any] = {}
    parts = set(args.only or ("stages", "what-if", "gaps", "profile"))
    report["quiet_check"] = wait_for_quiet(args.wait_quiet) if args.wait_quiet > 0 else None
    with tempfile.TemporaryDirectory(prefix="mcpv-overhead-") as tmp:
        work = Path(tmp)
        if "stages" in parts:
            report["stages"] = asyncio.run(_all_stages(work, args.calls, args.warmup))
        if "what-if" in parts:
            report["what_if"] = asyncio.run(_what_if(work, args.calls, args.warmup))
        if "gaps" in parts:
            report["gaps"] = asyncio.run(gap_sweep(work, min(args.calls, 100)))
        if "profile" in parts:
            report["profile"] = profile(work, args.profile_calls, args.warmup)
    print(format_report(report))
    if args.json or args.record:
        from datetime import UTC, datetime

        from .run import RESULTS, _git, machine

        now = datetime.now(UTC)
        sha = _git("rev-parse", "--short", "HEAD") or "nogit"
        report = {"recorded_at": now.isoformat(timespec="seconds"),
                  "git": {"sha": sha, "src_dirty": bool(_git("status", "--porcelain", "--", "src", "variants"))},
                  "machine": machine(), **report}
        text = json.dumps(report, indent=2) + "\n"
        if args.json:
            args.json.write_text(text)
        if args.record:
            RESULTS.mkdir(parents=True, exist_ok=True)
            (RESULTS / f"{now:%Y-%m-%d}-{sha}-overhead.json").write_text(text)
            (RESULTS / "overhead-latest.json").write_text(text)


if __name__ == "__main__":
    main()
