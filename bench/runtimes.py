"""execute_code `1+1` on each runtime, against the raw client under it, all in one run.

Three runtimes, nine contestants, all alive at the same time and called in interleaved rounds (each round calls
every contestant once, in a shuffled order); every contestant has its own process and kernel:

  embedded   raw: AsyncKernelManager(transport="ipc") + AsyncKernelClient (bench.roundtrip.RawKernel)
             server: `mcp_variants serve --root <tmp>`, 2026-12-01 stateless, default selection
  stock      one stock jupyter-server, shared by both:
             raw: REST POST api/kernels, then jupyter-kernel-client's KernelWebSocketClient,
                  the client and message loop the server's remote runtime uses
             server: `serve --jupyter-url <it>` (token in JUPYTER_TOKEN), 2026-12-01, default selection
  sandbox    one sandbox-configured jupyter-server (TCP_NODELAY on the kernel websocket), shared by:
             raw: the same KernelWebSocketClient loop
             server: `serve --jupyter-url <it>`, 2026-12-01, default selection
             and, its own sandbox, the product's path:
             server: `serve`, 2025-11-25 handshake, `launch_sandbox` then `use_sandbox` on that
                  connection (a stateless request keeps no client state), then execute_code
  also       server embedded 2025-11-25 handshake: the era control for the launch_sandbox contestant;
             server --jupyter-url <sandbox> requesting programmatic/structured: its timings.durationMs
             is the remote runtime's own message loop (the run loop), to split the overhead

Both jupyter-servers come from the product's launcher (mcp_variants.jupyter.server_launcher.JupyterServerProcess:
the command line, isolation and token file of a sandbox), with the sandboxes' configuration
(sandboxes.CONFIG) for the sandbox and an empty configuration file for the stock one: the
TCP_NODELAY websocket class is the one difference.

A raw round trip runs from `execute` to the parsed shell reply; a server round trip from just
before the request line is written to just after the response line is parsed. Ratios are
median(server) / median(raw) per runtime, and the median of per-round ratios.

Run alone: python -m bench.runtimes [--calls N]
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

import httpx
import psutil

from mcp_variants.jupyter import sandboxes
from mcp_variants.jupyter.remote.websocket import disconnect
from mcp_variants.jupyter.server_launcher import JupyterServerProcess

from . import cli
from .roundtrip import (
    CODE,
    META_2026,
    RawKernel,
    StdioServer,
    _cpu_times,
    _text_of,
    cpu_busy,
    execute_blocking,
    execute_default,
    execute_programmatic,
    expect,
    tree_cpu_seconds,
    wait_for_quiet,
)
from .stats import summarize

DELAYED_MS = 30.0  # slower than this: a delayed ACK (>= 40 ms on Linux) held a write back
MODE_SHARE = 0.05  # a mode (prompt or delayed calls) is reported when it holds at least this share of a contestant's calls

RAW_EMBEDDED = "embedded: raw jupyter_client (IPC, async)"
SRV_EMBEDDED = "embedded: server 2026-12-01"
RAW_STOCK = "stock server: raw jupyter-kernel-client"
SRV_STOCK = "stock server: server --jupyter-url 2026-12-01"
RAW_SANDBOX = "sandbox: raw jupyter-kernel-client"
SRV_SANDBOX_URL = "sandbox: server --jupyter-url 2026-12-01"
SRV_SANDBOX = "sandbox: server launch_sandbox 2025-11-25"
SRV_EMBEDDED_LEGACY = "embedded: server 2025-11-25 (era control)"
SRV_SANDBOX_PROG = "sandbox: server --jupyter-url programmatic"
NAMES = (RAW_EMBEDDED, SRV_EMBEDDED, RAW_STOCK, SRV_STOCK, RAW_SANDBOX, SRV_SANDBOX_URL, SRV_SANDBOX,
         SRV_EMBEDDED_LEGACY, SRV_SANDBOX_PROG)
PAIRS = (  # (runtime, raw, server)
    ("embedded", RAW_EMBEDDED, SRV_EMBEDDED),
    ("stock jupyter-server", RAW_STOCK, SRV_STOCK),
    ("sandbox, --jupyter-url", RAW_SANDBOX, SRV_SANDBOX_URL),
    ("sandbox, launch_sandbox", RAW_SANDBOX, SRV_SANDBOX),
)
STOCK_CONFIG = "# A stock jupyter-server for the benchmark: no configuration (no TCP_NODELAY class).\n"


# ---- Jupyter servers ----------------------------------------------------------------------------------


def jupyter_server(folder: Path, config: str) -> JupyterServerProcess:
    """A jupyter-server as launch_sandbox starts one (mcp_variants.processes: the same command line, isolation
    and token file), with `config` as its configuration: sandboxes.CONFIG, or STOCK_CONFIG for a stock one.

    The sandbox configuration stops the server when its parent changes: here the parent is this benchmark.
    """
    return JupyterServerProcess(folder, config=config,
                                env={"MCP_VARIANTS_PARENT_PID": str(os.getpid()), "MCP_VARIANTS_SANDBOX_FOLDER": str(folder)})


# ---- raw jupyter-kernel-client --------------------------------------------------------------------------


class KernelsApi(Protocol):
    """What serves the kernels REST and websocket API: a jupyter-server, an Enterprise Gateway, a Hub user's server."""

    @property
    def url(self) -> str: ...  # its base URL, ending in a slash

    @property
    def auth_headers(self) -> dict[str, str]: ...


class RawRemoteKernel:
    """A kernel on a Jupyter server (or what serves its kernels API): started over REST, spoken to with KernelWebSocketClient.

    The client is built as the server's remote runtime builds it (endpoint, Authorization
    header, no token in the URL); the loop is the raw one of bench.roundtrip: execute, iopub
    until the run's idle status (keeping the execute_result), then the shell reply.
    """

    def __init__(self, server: KernelsApi) -> None:
        self.server = server
        self.kernel_id: str | None = None
        self.client: Any = None

    def start(self) -> float:
        from jupyter_kernel_client.wsclient import KernelWebSocketClient

        began = time.perf_counter()
        response = httpx.post(f"{self.server.url}api/kernels", headers=self.server.auth_headers, json={"name": "python3", "path": ""},
                              timeout=60)
        if response.status_code not in (200, 201):
            raise RuntimeError(f"{self.server.url} could not start a kernel: {response.status_code}")
        self.kernel_id = response.json()["id"]
        endpoint = f"ws{self.server.url.removeprefix('http')}api/kernels/{self.kernel_id}/channels"
        self.client = KernelWebSocketClient(endpoint=endpoint, token=None, headers=self.server.auth_headers,
                                            log=logging.getLogger("bench.ws"), timeout=30)
        self.client.start_channels()
        if not self.client.connection_ready.is_set():
            raise RuntimeError(f"could not open the kernel websocket of {self.server.url}")
        self.client.wait_for_ready(timeout=60)
        return time.perf_counter() - began

    def execute(self, code: str) -> tuple[float, Any]:
        client = self.client
        return execute_blocking(client, code)

    def stop(self) -> None:
        if self.client is not None:
            disconnect(self.client)
        if self.kernel_id is not None:
            with contextlib.suppress(httpx.HTTPError):  # the server's own shutdown stops it anyway
                httpx.delete(f"{self.server.url}api/kernels/{self.kernel_id}", headers=self.server.auth_headers, timeout=30)


# ---- the contestants -------------------------------------------------------------------------------------


class Contestants:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.root = workdir / "root"
        self.root.mkdir()
        (workdir / "k").mkdir()
        self.raw_embedded = RawKernel(workdir / "k", self.root, "raw-async")
        self.stock = jupyter_server(workdir / "stock", STOCK_CONFIG)
        self.sandbox = jupyter_server(workdir / "sandbox", sandboxes.CONFIG)
        self.raw_stock: RawRemoteKernel | None = None
        self.raw_sandbox: RawRemoteKernel | None = None
        self.servers: dict[str, StdioServer] = {}
        self.jupyter_pids: dict[str, int] = {}  # every jupyter-server, checked at the end
        self.remote_kernel_ms: list[float] = []  # timings.durationMs of SRV_SANDBOX_PROG

    async def start(self) -> dict[str, Any]:
        cold: dict[str, Any] = {}
        for name, jupyter in (("stock", self.stock), ("sandbox-configured", self.sandbox)):
            began = time.perf_counter()
            jupyter.start()
            cold[f"{name} jupyter-server start (s)"] = round(time.perf_counter() - began, 3)
            self.jupyter_pids[name] = jupyter.pid

        cold[f"{RAW_EMBEDDED}: kernel start (s)"] = round(await self.raw_embedded.start(blocking=False), 3)
        self.raw_stock = RawRemoteKernel(self.stock)
        cold[f"{RAW_STOCK}: kernel start + websocket (s)"] = round(self.raw_stock.start(), 3)
        self.raw_sandbox = RawRemoteKernel(self.sandbox)
        cold[f"{RAW_SANDBOX}: kernel start + websocket (s)"] = round(self.raw_sandbox.start(), 3)

        serve = [sys.executable, "-m", "mcp_variants", "serve", "--root", str(self.root)]

        def remote(jupyter: JupyterServerProcess) -> StdioServer:
            # The token travels in the environment (JUPYTER_TOKEN), not on the command line.
            return StdioServer(self.root, extra_env={"JUPYTER_TOKEN": jupyter.token}, argv=[*serve, "--jupyter-url", jupyter.url])

        self.servers[SRV_EMBEDDED] = StdioServer(self.root)
        self.servers[SRV_STOCK] = remote(self.stock)
        self.servers[SRV_SANDBOX_URL] = remote(self.sandbox)
        self.servers[SRV_SANDBOX_PROG] = remote(self.sandbox)
        self.servers[SRV_SANDBOX] = StdioServer(self.root)
        self.servers[SRV_EMBEDDED_LEGACY] = StdioServer(self.root)
        self.servers[SRV_EMBEDDED_LEGACY].handshake("2025-11-25")

        sandboxed = self.servers[SRV_SANDBOX]
        sandboxed.handshake("2025-11-25")
        began = time.perf_counter()
        _, launched = sandboxed.request("tools/call", {"name": "launch_sandbox", "arguments": {}})
        expect(not launched.get("isError"), "launch_sandbox", launched)
        record = launched["structuredContent"]["sandbox"]
        cold[f"{SRV_SANDBOX}: the launch_sandbox call (s)"] = round(time.perf_counter() - began, 3)
        self.jupyter_pids["the server's own sandbox"] = record["pid"]
        _, used = sandboxed.request("tools/call", {"name": "use_sandbox", "arguments": {"sandbox_id": record["id"]}})
        expect(not used.get("isError"), "use_sandbox", used)

        for name in self.servers:
            cold[f"{name}: first call, kernel start included (s)"] = round(await self.call(name, record=False), 3)
        # Each server runs where it should: its kernel's working folder.
        for name, where in ((SRV_SANDBOX, record["root"]), (SRV_STOCK, str(self.stock.root)),
                            (SRV_SANDBOX_URL, str(self.sandbox.root)), (SRV_EMBEDDED, str(self.root))):
            params: dict[str, Any] = {"name": "execute_code", "arguments": {"code": "import os; os.getcwd()"}}
            if name != SRV_SANDBOX:
                params["_meta"] = META_2026
            _, result = self.servers[name].request("tools/call", params)
            expect(where in _text_of(result), f"{name} runs in {where}", result)
        return cold

    async def stop(self) -> dict[str, Any]:
        codes = {name: server.stop() for name, server in self.servers.items()}
        await self.raw_embedded.stop()
        for raw in (self.raw_stock, self.raw_sandbox):
            if raw is not None:
                raw.stop()
        for jupyter in (self.stock, self.sandbox):
            jupyter.stop()
        left = []
        for what, pid in self.jupyter_pids.items():
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    left.append(f"{what} (pid {pid})")
            except psutil.Error:
                pass
        return {"server_exit_codes": codes, "jupyter_servers_left_running": left}

    async def call(self, name: str, record: bool = True) -> float:
        if name == RAW_EMBEDDED:
            elapsed, value = await self.raw_embedded.execute_async(CODE)
            expect(value == "2", name, value)
        elif name in (RAW_STOCK, RAW_SANDBOX):
            raw = self.raw_stock if name == RAW_STOCK else self.raw_sandbox
            assert raw is not None
            elapsed, value = raw.execute(CODE)
            expect(value == "2", name, value)
        elif name in (SRV_EMBEDDED, SRV_STOCK, SRV_SANDBOX_URL):
            elapsed = execute_default(self.servers[name], name)
        elif name in (SRV_SANDBOX, SRV_EMBEDDED_LEGACY):
            elapsed = execute_default(self.servers[name], name, stateless=False)
        elif name == SRV_SANDBOX_PROG:
            elapsed, kernel_ms = execute_programmatic(self.servers[name], name)
            if record:
                self.remote_kernel_ms.append(kernel_ms)
        else:
            raise KeyError(name)
        return elapsed


async def _run(calls: int, warmup: int, seed: int, workdir: Path) -> dict[str, Any]:
    rng = random.Random(seed)
    contestants = Contestants(workdir)
    stopped: dict[str, Any] = {}
    try:
        cold = await contestants.start()
        for _ in range(warmup):
            order = list(NAMES)
            rng.shuffle(order)
            for name in order:
                await contestants.call(name, record=False)
        samples: dict[str, list[float]] = {name: [] for name in NAMES}
        cpu_before, ours_before = _cpu_times(), tree_cpu_seconds()
        began = time.perf_counter()
        for _ in range(calls):
            order = list(NAMES)
            rng.shuffle(order)
            for name in order:
                samples[name].append(await contestants.call(name) * 1000.0)
        wall = time.perf_counter() - began
        busy_during = cpu_busy(cpu_before, _cpu_times())
        ours_after = tree_cpu_seconds()
        ours_during = (round((ours_after - ours_before) / (wall * (os.cpu_count() or 1)), 3)
                       if ours_before is not None and ours_after is not None else None)
    finally:
        stopped = await contestants.stop()

    summaries = {name: summarize(values) for name, values in samples.items()}
    pairs = []
    for runtime, raw, server in PAIRS:
        paired = summarize([s / r for s, r in zip(samples[server], samples[raw], strict=True)])
        pairs.append({
            "runtime": runtime, "raw": raw, "server": server,
            "raw_median_ms": summaries[raw]["median"], "server_median_ms": summaries[server]["median"],
            "ratio": round(summaries[server]["median"] / summaries[raw]["median"], 3),
            "overhead_ms": round(summaries[server]["median"] - summaries[raw]["median"], 3),
            "paired_ratio_median": paired["median"], "paired_ratio_p90": paired["p90"],
            **_mode_ratios(samples[raw], samples[server]),
        })
    kernel_ms = summarize(contestants.remote_kernel_ms)
    legacy = summaries[SRV_EMBEDDED_LEGACY]["median"]
    era = {
        "server 2025-11-25 / server 2026-12-01, embedded": round(legacy / summaries[SRV_EMBEDDED]["median"], 3),
        "server 2025-11-25 embedded / raw embedded": round(legacy / summaries[RAW_EMBEDDED]["median"], 3),
    }
    return {
        "code": CODE,
        "calls_per_contestant": calls,
        "warmup_rounds": warmup,
        "seed": seed,
        "wall_s": round(wall, 2),
        "cold": cold,
        "contestants": [_row(name, samples[name], summaries[name]) for name in NAMES],
        "share_over_30ms_note": "calls slower than 30 ms: a write held back by Nagle's algorithm until the peer's "
                                "delayed ACK (40 ms or more on Linux)",
        "pairs": pairs,
        "era_control": era,
        "decomposition": {
            "remote_kernel_loop_ms": kernel_ms,
            "note": f"timings.durationMs of {SRV_SANDBOX_PROG}: the remote runtime's own message loop "
                    "(execute to shell reply), measured inside the server",
            "raw_sandbox_median_ms": summaries[RAW_SANDBOX]["median"],
            "server_outside_kernel_loop_ms_median": round(summaries[SRV_SANDBOX_PROG]["median"] - kernel_ms["median"], 3),
        },
        "launch_sandbox_vs_jupyter_url": round(summaries[SRV_SANDBOX]["median"] / summaries[SRV_SANDBOX_URL]["median"], 3),
        "stock_vs_sandbox_raw": round(summaries[RAW_STOCK]["median"] / summaries[RAW_SANDBOX]["median"], 3),
        "cpu_busy_during": busy_during,
        "cpu_ours_during": ours_during,
        **stopped,
    }


def _row(name: str, values: list[float], summary: dict[str, Any]) -> dict[str, Any]:
    """A contestant's summary; where some calls were held back by a delayed ACK and some not, each mode's median."""
    slow = [v for v in values if v > DELAYED_MS]
    share = len(slow) / len(values)
    row: dict[str, Any] = {"name": name, "ms": summary, "share_over_30ms": round(share, 3)}
    if MODE_SHARE <= share <= 1 - MODE_SHARE:
        row["median_ms_of_calls_under_30ms"] = summarize([v for v in values if v <= DELAYED_MS])["median"]
        row["median_ms_of_calls_over_30ms"] = summarize(slow)["median"]
    return row


def _mode_ratios(raw: list[float], server: list[float]) -> dict[str, Any]:
    """Where both contestants' calls split into delayed (> 30 ms) and prompt ones, the ratio within each mode."""
    def split(values: list[float]) -> tuple[list[float], list[float]] | None:
        slow = [v for v in values if v > DELAYED_MS]
        if not MODE_SHARE <= len(slow) / len(values) <= 1 - MODE_SHARE:
            return None
        return [v for v in values if v <= DELAYED_MS], slow

    raw_modes, server_modes = split(raw), split(server)
    if raw_modes is None or server_modes is None:
        return {}
    return {f"ratio_of_calls_{mode}": round(summarize(s)["median"] / summarize(r)["median"], 3)
            for mode, r, s in zip(("under_30ms", "over_30ms"), raw_modes, server_modes, strict=True)}


def run(calls: int = 200, warmup: int = 20, seed: int = 3279, wait_quiet: float = 0.0) -> dict[str, Any]:
    quiet = wait_for_quiet(wait_quiet) if wait_quiet > 0 else None
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-runtimes-"))
    try:
        report = asyncio.run(_run(calls, warmup, seed, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if quiet is not None:
        report["quiet_check"] = quiet
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"execute_code {report['code']!r} on each runtime ({report['calls_per_contestant']} calls each, interleaved, {report['wall_s']} s)",
        f"  {'contestant':<46} {'median ms':>9} {'p90 ms':>8} {'p99 ms':>8} {'> 30 ms':>8}",
    ]
    for row in report["contestants"]:
        ms = row["ms"]
        lines.append(f"  {row['name']:<46} {ms['median']:>9.3f} {ms['p90']:>8.3f} {ms['p99']:>8.3f} {row['share_over_30ms']:>8.0%}")
    lines.append(f"  {'runtime':<24} {'raw ms':>8} {'server ms':>9} {'ratio':>7} {'per-round':>9} {'+ms':>7}")
    for row in report["contestants"]:
        if "median_ms_of_calls_under_30ms" in row:
            lines.append(f"  {row['name']}: calls under 30 ms, median {row['median_ms_of_calls_under_30ms']:.3f} ms; "
                         f"over 30 ms, median {row['median_ms_of_calls_over_30ms']:.3f} ms")
    for pair in report["pairs"]:
        modes = "".join(f"  {key.removeprefix('ratio_of_calls_')}: {value:.2f}x" for key, value in pair.items()
                        if key.startswith("ratio_of_calls_"))
        lines.append(f"  {pair['runtime']:<24} {pair['raw_median_ms']:>8.3f} {pair['server_median_ms']:>9.3f} "
                     f"{pair['ratio']:>6.2f}x {pair['paired_ratio_median']:>8.2f}x {pair['overhead_ms']:>7.3f}{modes}")
    for label, value in report["era_control"].items():
        lines.append(f"  {label}: {value:.3f}x")
    lines.append(f"  raw stock / raw sandbox: {report['stock_vs_sandbox_raw']:.2f}x (TCP_NODELAY's effect on the raw client)")
    lines.append(f"  launch_sandbox (2025-11-25) / --jupyter-url to a sandbox (2026-12-01): {report['launch_sandbox_vs_jupyter_url']:.3f}x")
    d = report["decomposition"]
    lines.append(f"  remote runtime's own kernel loop (durationMs) median {d['remote_kernel_loop_ms']['median']:.3f} ms "
                 f"(raw loop {d['raw_sandbox_median_ms']:.3f} ms); outside it {d['server_outside_kernel_loop_ms_median']:.3f} ms")
    lines += cli.load_lines(report)
    if report.get("jupyter_servers_left_running"):
        lines.append(f"  LEFT RUNNING: {report['jupyter_servers_left_running']}")
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__, seed=3279, wait_quiet=True)
    parser.add_argument("--calls", type=int, default=200, help="timed calls per contestant (default 200)")
    parser.add_argument("--warmup", type=int, default=20, help="untimed warm-up rounds (default 20)")
    args = parser.parse_args()
    report = run(args.calls, args.warmup, args.seed, args.wait_quiet)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
