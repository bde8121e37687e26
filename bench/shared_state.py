"""Tasks shared on Redis (issue 35, docs/guides/scale-out.md), against tasks in one worker's memory:

1. The store alone: a task created (its run returns at once) and read back (`get`), in process, through the
   in-memory MemoryTaskStore and through RedisTaskStore on a real local redis-server; interleaved rounds, per-op times.
   With a replica (part `replica`, issue 48): RedisTaskStore on a primary alone against one on a primary with a replica
   attached, where each create waits until the replica has the record (`WAIT 1`); the same rounds.
2. Task-augmented runs through real workers: CLIENTS threads each start execute_code `1+1` as a task (stateless
   2026-12-01, the tasks extension) and poll tasks/get until it completed, back to back, for SECONDS:
     one worker, in memory     `serve --http --embedded`
     one worker, on Redis      `serve --http --embedded --state-url …`
     two workers, on Redis     the same twice, client i creating through worker i mod 2 and polling through the other
     three workers, on Redis   the same three times, client i creating through worker i mod 3, polling through the next
   Interleaved rounds; completed tasks per second.
3. A frozen store (issue 48): one worker on Redis; Redis stopped (SIGSTOP) for FREEZE seconds while CLIENTS threads
   call tasks/get and task-augmented execute_code back to back: each call's time (the deadline, `--state-timeout`,
   bounds it), whether every answer was the store's error, and the time to the first task completed once Redis goes on.

Run alone: python -m bench.shared_state [--ops N] [--seconds S] [--rounds N] [--freeze S] [--parts ...] [--record]
(--record writes bench/results/<UTC date>-<short sha>-shared-state.json and shared-state-latest.json; with only some
--parts, …-shared-state-<parts>.json alone)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import redis as redis_py

from mcp_variants.client.stdio import envelope
from mcp_variants.sdk.tasks import MemoryTaskStore, TaskStore
from mcp_variants.state.redis_client import RedisNamespace
from mcp_variants.state.redis_tasks import RedisTaskStore

from .record import machine, short_sha, write
from .stats import summarize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the test harness: its redis-server and workers
from support.redis_server import RedisServer  # noqa: E402
from support.servers import HttpServer  # noqa: E402

CLIENTS = 8
VERSION = "2026-12-01"
TASKS = "io.modelcontextprotocol/tasks"
MEMORY, REDIS = "in memory", "on Redis"
ONE_MEMORY, ONE_REDIS, TWO_REDIS, THREE_REDIS = ("one worker, in memory", "one worker, on Redis", "two workers, on Redis",
                                                 "three workers, on Redis")
ALONE, REPLICATED = "a primary alone", "a primary and a replica (WAIT 1)"
PARTS = ("store", "replica", "throughput", "frozen")


async def _store_ops(store: TaskStore, ops: int) -> dict[str, list[float]]:
    async def at_once() -> dict[str, Any]:
        return {"content": []}

    create: list[float] = []
    get: list[float] = []
    for _ in range(ops):
        began = time.perf_counter()
        task = await store.start("bench", at_once)
        create.append((time.perf_counter() - began) * 1e6)
        began = time.perf_counter()
        await store.get("bench", task.task_id)
        get.append((time.perf_counter() - began) * 1e6)
    return {"create": create, "get": get}


def compare(make: Callable[[], dict[str, TaskStore]], ops: int, rounds: int) -> dict[str, Any]:
    """Microseconds per create and per get, each of `make()`'s stores' samples over interleaved rounds."""
    samples: dict[str, dict[str, list[float]]] = {}

    async def measure() -> None:
        stores = make()
        try:
            for store in stores.values():
                await _store_ops(store, 20)  # connections made, scripts loaded
            for _ in range(rounds):
                for name, store in stores.items():
                    for op, times in (await _store_ops(store, ops)).items():
                        samples.setdefault(name, {}).setdefault(op, []).extend(times)
        finally:
            for store in stores.values():
                await store.aclose()

    asyncio.run(measure())
    return {name: {op: summarize(times, 1) for op, times in ops_.items()} for name, ops_ in samples.items()}


def _on_redis(url: str, ops: int, rounds: int) -> RedisTaskStore:
    return RedisTaskStore(RedisNamespace(url, f"bench-{secrets.token_hex(4)}"), max_per_owner=(ops + 20) * rounds + 1)


def store_times(url: str, ops: int, rounds: int) -> dict[str, Any]:
    """The in-memory MemoryTaskStore against RedisTaskStore."""
    bound = (ops + 20) * rounds + 1
    return compare(lambda: {MEMORY: MemoryTaskStore(max_per_owner=bound), REDIS: _on_redis(url, ops, rounds)}, ops, rounds)


def replica_times(redis: RedisServer, folder: Path, ops: int, rounds: int) -> dict[str, Any]:
    """RedisTaskStore on a primary alone against one on a primary with a replica attached, where each create waits
    until the replica has the record (`WAIT 1`)."""
    with (RedisServer(folder / "primary").start() as primary, RedisServer(folder / "replica", replica_of=primary).start() as replica,
          redis_py.Redis(port=replica.port, password=replica.password, decode_responses=True) as node):
        while node.info("replication").get("master_link_status") != "up":
            time.sleep(0.05)
        return compare(lambda: {ALONE: _on_redis(redis.url, ops, rounds), REPLICATED: _on_redis(primary.url, ops, rounds)}, ops, rounds)


def _rpc(client: httpx.Client, url: str, method: str, params: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    headers = {"MCP-Protocol-Version": VERSION, "Mcp-Method": method, "Accept": "application/json, text/event-stream",
               **({"Mcp-Name": name} if name else {})}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": envelope(VERSION, {TASKS: {}})}}
    reply = client.post(url, json=body, headers=headers)
    text = reply.text
    if text.startswith("event:") or text.startswith("data:") or "\ndata:" in text:
        text = [line[5:] for line in text.splitlines() if line.startswith("data:")][-1]
    return dict(json.loads(text))


def drive(urls: list[str], seconds: float) -> dict[str, Any]:
    """CLIENTS threads: create through urls[i % n], poll through urls[(i + 1) % n] until completed; tasks per second."""
    done = [0] * CLIENTS
    errors = [0] * CLIENTS
    said: list[str] = []  # the first errors, as answered
    deadline = time.perf_counter() + seconds
    call = {"name": "execute_code", "arguments": {"code": "1+1"}}

    def client(index: int) -> None:
        create, poll = urls[index % len(urls)], urls[(index + 1) % len(urls)]
        with httpx.Client(timeout=60) as http:
            while time.perf_counter() < deadline:
                answer = _rpc(http, create, "tools/call", call, "execute_code")
                created = answer.get("result", {})
                if created.get("resultType") != "task":
                    errors[index] += 1
                    said.append(json.dumps(answer)[:300])
                    continue
                while True:
                    answer = _rpc(http, poll, "tasks/get", {"taskId": created["taskId"]})
                    task = answer.get("result", {})
                    if task.get("status") in ("completed", "failed", "cancelled", None):
                        break
                    time.sleep(0.01)
                if task.get("status") == "completed":
                    done[index] += 1
                else:
                    errors[index] += 1
                    said.append(json.dumps(answer)[:300])

    began = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return {"tasks_per_s": round(sum(done) / wall, 2), "completed": sum(done), "errors": sum(errors), "first_errors": said[:3]}


def throughput(redis: RedisServer, folder: Path, seconds: float, rounds: int) -> dict[str, Any]:
    namespace = f"bench-{secrets.token_hex(4)}"
    shared = ("--state-url", redis.url, "--state-namespace", namespace)
    servers: list[HttpServer] = []
    try:
        for name, extra in (("memory", ()), ("redis-a", shared), ("redis-b", shared), ("redis-c", shared)):
            root = folder / name
            root.mkdir()
            servers.append(HttpServer(root, "--embedded", *extra, log=folder / f"{name}.log"))
        memory, a, b, c = servers
        contestants = {ONE_MEMORY: [memory.url], ONE_REDIS: [a.url], TWO_REDIS: [a.url, b.url], THREE_REDIS: [a.url, b.url, c.url]}
        for urls in contestants.values():
            drive(urls, 1.0)  # kernels started, connections made
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in contestants}
        for _ in range(rounds):
            for name, urls in contestants.items():
                runs[name].append(drive(urls, seconds))
    finally:
        for server in servers:
            server.close()
    report: dict[str, Any] = {}
    for name, results in runs.items():
        rates = sorted(r["tasks_per_s"] for r in results)
        report[name] = {"tasks_per_s_median": rates[len(rates) // 2], "rounds": results}
    base = report[ONE_MEMORY]["tasks_per_s_median"]
    for name in (ONE_REDIS, TWO_REDIS, THREE_REDIS):
        report[name]["ratio_to_one_in_memory"] = round(report[name]["tasks_per_s_median"] / base, 2) if base else None
    return report


def frozen(redis: RedisServer, folder: Path, freeze_s: float) -> dict[str, Any]:
    """Calls that need the store while it is frozen: their times and answers; then the time to a task completed."""
    root = folder / "frozen"
    root.mkdir()
    server = HttpServer(root, "--embedded", "--state-url", redis.url, "--state-namespace", f"bench-{secrets.token_hex(4)}",
                        log=folder / "frozen.log")
    times: list[float] = []
    answers: dict[str, int] = {}
    calls = [("tasks/get", {"taskId": "none-such"}, None),
             ("tools/call", {"name": "execute_code", "arguments": {"code": "1+1"}}, "execute_code")]

    def client(index: int, until: float) -> None:
        method, params, name = calls[index % len(calls)]
        with httpx.Client(timeout=120) as http:
            while time.perf_counter() < until:
                began = time.perf_counter()
                answer = _rpc(http, server.url, method, params, name)
                times.append((time.perf_counter() - began) * 1000)
                said = answer.get("error", {}).get("message", "a result")
                kind = "did not answer in time" if "did not answer within" in said else said[:80]
                answers[kind] = answers.get(kind, 0) + 1

    try:
        with httpx.Client(timeout=60) as http:  # the worker's scripts loaded and its kernel started
            _rpc(http, server.url, "tools/call", calls[1][1], "execute_code")
        redis.freeze()
        try:
            until = time.perf_counter() + freeze_s
            threads = [threading.Thread(target=client, args=(i, until)) for i in range(CLIENTS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            redis.thaw()
        thawed = time.perf_counter()
        with httpx.Client(timeout=60) as http:
            while True:
                created = _rpc(http, server.url, "tools/call", calls[1][1], "execute_code").get("result", {})
                if created.get("resultType") == "task":
                    while _rpc(http, server.url, "tasks/get", {"taskId": created["taskId"]}).get("result", {}).get("status") == "working":
                        time.sleep(0.01)
                    break
                time.sleep(0.05)
        back_ms = (time.perf_counter() - thawed) * 1000
    finally:
        server.close()
    return {"freeze_s": freeze_s, "calls": len(times), "call_ms": summarize(times, 1), "max_call_ms": round(max(times), 1),
            "answers": answers, "first_task_after_thaw_ms": round(back_ms, 1)}


def run(ops: int, seconds: float, rounds: int, freeze_s: float, parts: list[str]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "redis").mkdir()
        with RedisServer(folder / "redis").start() as redis:
            if "store" in parts:
                report["store_us"] = store_times(redis.url, ops, rounds)
            if "replica" in parts:
                report["replica_us"] = replica_times(redis, folder, ops, rounds)
            if "throughput" in parts:
                report["task_throughput"] = throughput(redis, folder, seconds, rounds)
            if "frozen" in parts:
                report["frozen_store"] = frozen(redis, folder, freeze_s)
    report["settings"] = {"ops_per_round": ops, "seconds": seconds, "rounds": rounds, "clients": CLIENTS, "freeze_s": freeze_s,
                          "parts": parts}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.shared_state", description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=500, help="creates and gets per store per round (default 500)")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per contestant per throughput round (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--freeze", type=float, default=30.0, help="seconds Redis stays frozen (default 30)")
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS), help="what to measure (default: all)")
    parser.add_argument("--record", action="store_true", help="write bench/results/…-shared-state.json")
    args = parser.parse_args()
    now = datetime.now(UTC)
    report = {"when": now.isoformat(), "machine": machine(), **run(args.ops, args.seconds, args.rounds, args.freeze, args.parts)}
    print(json.dumps({k: v for k, v in report.items() if k not in ("when", "machine", "settings")}, indent=2))
    if args.record:
        whole = sorted(args.parts) == sorted(PARTS)  # a run of some parts records to a file of its own, never the latest
        suffix = "-shared-state" + ("" if whole else "-" + "-".join(args.parts))
        print(write(report, now, short_sha(), suffix=suffix, latest="shared-state-latest.json" if whole else None))


if __name__ == "__main__":
    main()
