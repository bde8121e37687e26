"""execute_code `1+1` through the Jupyter server extension, against the raw kernel round trip in the same server process.

One jupyter-server with the extension runs in a worker process of this benchmark (`python -m bench.extension
--worker`): everything below is measured inside it, on its event loop, in interleaved rounds (each round calls
every contestant once, in a shuffled order), each contestant on a kernel of its own (a kernel called more
often stays warmer):

  raw in-process     jupyter_client's async client on a kernel of the server's kernel manager: execute, iopub
                     until idle, the shell reply (bench.roundtrip.raw_execute). The floor.
  runtime            the extension's runtime, ServerKernels.execute: the one run loop over the same client.
  tool call          the whole tools/call the extension serves, without HTTP: ToolSet.call at 2026-12-01 with
                     the default selection (select, run, project, validate; the audit and span wrapper).
  MCP over HTTP      a stateless 2026-12-01 tools/call POSTed to {base_url}mcp with the server's token by a client
                     process of its own (httpx, as an MCP client is one; it times each POST itself and is told
                     when over a pipe): tornado, the server's auth, the ASGI app, the bridge, the SDK, the tool.

The budget (1.1x) is on the tool call: what the extension adds to a kernel round trip inside the server.
The HTTP row says what a client sees on top of it.

Run alone: python -m bench.extension [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .roundtrip import CODE, META_2026, raw_execute, wait_for_quiet
from .stats import summarize

REPO = Path(__file__).resolve().parents[1]
BUDGET_RATIO = 1.1
BASELINE = "raw in-process"
RUNTIME = "runtime (ServerKernels.execute)"
TOOL = "tool call (ToolSet.call, no HTTP)"
HTTP = "MCP over HTTP (a client process)"
PRIMARY = TOOL
NAMES = (BASELINE, RUNTIME, TOOL, HTTP)


def _isolated_env(folder: Path) -> None:
    """No configuration of the user's or the environment's: only what the worker names is loaded."""
    for name in ("config", "data", "runtime"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    os.environ.update(JUPYTER_NO_CONFIG="1", JUPYTER_CONFIG_DIR=str(folder / "config"), JUPYTER_DATA_DIR=str(folder / "data"),
                      JUPYTER_RUNTIME_DIR=str(folder / "runtime"))


def client(url: str) -> None:
    """The HTTP contestant's process: one execute_code POST per line on stdin, its milliseconds and ok (or what came) on stdout."""
    import httpx

    headers = {"Authorization": f"token {os.environ['BENCH_TOKEN']}", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", "MCP-Protocol-Version": "2026-12-01", "Mcp-Method": "tools/call",
               "Mcp-Name": "execute_code"}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "execute_code", "arguments": {"code": CODE}, "_meta": META_2026}})
    with httpx.Client(timeout=30, headers=headers) as http:
        for _ in sys.stdin:
            began = time.perf_counter()
            response = http.post(url, content=body)
            elapsed = (time.perf_counter() - began) * 1000
            answered = "ok" if response.status_code == 200 and '"text":"2\\n"' in response.text else "bad"
            print(f"{elapsed:.4f} {answered}", flush=True)


async def _measure(app: Any, token: str, calls: int, warmup: int, seed: int) -> dict[str, Any]:
    from jupyter_client.asynchronous.client import AsyncKernelClient

    from mcp_variants.protocol.versions import Era
    from mcp_variants.tools.shared.tool_context import ToolContext

    await app._post_start()  # what start_ioloop schedules: the extensions' start (the MCP app's lifespan)
    extension = next(iter(app.extension_manager.extension_apps["mcp_variants.jupyter_extension"]))
    state = extension.state
    kernels = state.registry.backends["server"].kernels
    km = app.kernel_manager

    raw_id = await km.start_kernel(kernel_name="python3", path="")
    manager = km.get_kernel(raw_id)
    raw = AsyncKernelClient(parent=manager, session=manager.session)
    raw.load_connection_info(manager.get_connection_info())
    raw.start_channels()
    await raw.wait_for_ready(timeout=60)
    runtime_kernel = await kernels.start_kernel()
    tool_kernel = await kernels.start_kernel()

    def context() -> ToolContext:
        return ToolContext(limits=state.limits, registry=state.registry, client=state.registry.client(None), images=state.images)

    http = await asyncio.create_subprocess_exec(sys.executable, "-m", "bench.extension", "--client", f"{app.connection_url}mcp",
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                env={**os.environ, "BENCH_TOKEN": token}, cwd=REPO)
    assert http.stdin is not None and http.stdout is not None

    async def call(name: str) -> float:
        began = time.perf_counter()
        if name == BASELINE:
            elapsed, value = await raw_execute(raw, CODE)
            assert value == "2", value
            return elapsed
        if name == RUNTIME:
            execution = await kernels.execute(CODE, kernel_id=runtime_kernel, timeout=30)
            assert execution.outputs[0]["data"]["text/plain"] == "2", execution
        elif name == TOOL:
            result = await state.tools.call({"name": "execute_code", "arguments": {"code": CODE, "kernel_id": tool_kernel}},
                                            Era.OUTPUTS, frozenset(), context)
            assert not result.get("isError") and "2" in result["outputs"][0]["content"][0]["text"], result
        else:
            http.stdin.write(b"\n")
            elapsed_ms, answered = (await http.stdout.readline()).split()
            assert answered == b"ok", answered
            return float(elapsed_ms) / 1000
        return time.perf_counter() - began

    rng = random.Random(seed)
    order = list(NAMES)
    for _ in range(warmup):
        rng.shuffle(order)
        for name in order:
            await call(name)
    samples: dict[str, list[float]] = {name: [] for name in NAMES}
    for _ in range(calls):
        rng.shuffle(order)
        for name in order:
            samples[name].append((await call(name)) * 1000)
    http.stdin.close()
    await http.wait()
    raw.stop_channels()
    await km.shutdown_kernel(raw_id, now=True)
    await app._cleanup()

    base = summarize(samples[BASELINE])["median"]
    rows = []
    for name in NAMES:
        ms = summarize(samples[name])
        rows.append({"name": name, "ms": ms, "ratio_vs_raw": round(ms["median"] / base, 3)})
    paired = summarize([t / r for t, r in zip(samples[PRIMARY], samples[BASELINE], strict=True)])
    ratio = next(r["ratio_vs_raw"] for r in rows if r["name"] == PRIMARY)
    return {
        "code": CODE, "calls_per_contestant": calls, "warmup_rounds": warmup, "budget_ratio": BUDGET_RATIO, "contestants": rows,
        "primary": {"contestant": PRIMARY, "baseline": BASELINE, "ratio": ratio, "paired_ratio_median": paired["median"],
                    "overhead_ms": round(next(r["ms"]["median"] for r in rows if r["name"] == PRIMARY) - base, 3),
                    "within_budget": ratio <= BUDGET_RATIO},
    }


def worker(calls: int, warmup: int, seed: int) -> dict[str, Any]:
    """In this process: a jupyter-server with the extension, and the measurements on its loop."""
    from jupyter_server.serverapp import ServerApp

    from mcp_variants.processes import free_port

    with tempfile.TemporaryDirectory(prefix="mcpv-bench-extension-") as tmp:
        folder = Path(tmp)
        _isolated_env(folder)
        (folder / "root").mkdir()
        token = secrets.token_hex(16)
        app = ServerApp()
        app.initialize(argv=[
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={free_port()}", "--ServerApp.port_retries=0",
            f"--ServerApp.root_dir={folder / 'root'}", "--ServerApp.open_browser=False", f"--IdentityProvider.token={token}",
            "--ServerApp.allow_root=True", "--ServerApp.log_level=WARN",
            "--ServerApp.jpserver_extensions={'mcp_variants.jupyter_extension': True}",
        ], new_httpserver=True)
        app.start_app()
        return dict(app.io_loop.run_sync(lambda: _measure(app, token, calls, warmup, seed), timeout=1800))


def run(calls: int = 200, warmup: int = 20, seed: int = 3279, wait_quiet: float = 0.0) -> dict[str, Any]:
    quiet = wait_for_quiet(wait_quiet) if wait_quiet > 0 else None
    done = subprocess.run([sys.executable, "-m", "bench.extension", "--worker", "--calls", str(calls), "--warmup", str(warmup),
                           "--seed", str(seed)], capture_output=True, text=True, timeout=3600, cwd=REPO)
    if done.returncode != 0:
        raise RuntimeError(f"the extension benchmark's worker failed:\n{done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if quiet is not None:
        report["quiet_check"] = quiet
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [f"execute_code {report['code']!r} through the Jupyter server extension, inside the server process "
             f"({report['calls_per_contestant']} calls each, interleaved; budget {report['budget_ratio']}x raw)",
             f"  {'contestant':<44} {'median ms':>9} {'p90 ms':>8} {'p99 ms':>8} {'x raw':>7}"]
    for row in report["contestants"]:
        ms = row["ms"]
        lines.append(f"  {row['name']:<44} {ms['median']:>9.3f} {ms['p90']:>8.3f} {ms['p99']:>8.3f} {row['ratio_vs_raw']:>7.2f}")
    primary = report["primary"]
    verdict = "ok" if primary["within_budget"] else "OVER BUDGET"
    lines.append(f"  ratio {primary['contestant']} / {primary['baseline']}: {primary['ratio']:.3f}x (+{primary['overhead_ms']:.3f} ms) "
                 f"-> {verdict}; median of per-round ratios {primary['paired_ratio_median']:.3f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.extension", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3279)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client(args.client)
        return
    if args.worker:
        print(json.dumps(worker(args.calls, args.warmup, args.seed)))
        return
    print(format_report(run(args.calls, args.warmup, args.seed)))


if __name__ == "__main__":
    main()
