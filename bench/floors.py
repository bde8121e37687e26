"""Each call kind against two floors in one run: what a user would write instead, and the physical floor.

Contestants, all alive together and called in interleaved rounds (a round calls every call kind of every
contestant once, in a shuffled order, so that machine noise hits them alike):

  ours        `serve --root <tmp> --embedded` on stdio, spoken to in raw JSON-RPC lines (bench.roundtrip's
              StdioServer): the stateless 2026-12-01 envelope, the default selection (assistant/content)
  naive       bench/naive_server.py on stdio, the same way: the official SDK's MCPServer with the same tools written
              as a user would, over jupyter_client's AsyncKernelManager and nbformat; the stateless 2026-07-28
              envelope (the SDK's newest version)
  in process  the physical floor, in this process: no MCP, no pipes, no second process, what each call cannot do
              without: execute_code bench.roundtrip's raw round trip (jupyter_client's async client, the IPC transport
              of our embedded runtime), list_files and list_notebooks the naive server's scandir and glob, the
              notebook calls the notebook's JSON read (and written) with the json module

The call kinds: execute_code `1+1`; list_files (the root's 33 entries, one level, one page), list_notebooks, list_kernels; read_cell and
read_notebook (a page of 20) on a notebook of 100 cells; insert_cell (in the middle) and an edit of a cell's
source (ours overwrite_cell_source, the naive server's edit_cell). Each contestant has a notebook of its own.

Reported per call kind: each contestant's median and p90; ours / naive (the goal: under 1) with the median of the
per-round ratios; ours / in process and naive / in process, and the milliseconds each adds to in process.

Run alone: python -m bench.floors [--calls N]
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from mcp_variants.client.stdio import envelope

from .cli import load_lines, parser, show, table
from .notebook_size import notebook
from .record import REPO
from .roundtrip import META_2026, RawKernel, StdioServer, _cpu_times, cpu_busy, tree_cpu_seconds, wait_for_quiet
from .stats import summarize

CELLS = 100
FILES = 30
OURS, NAIVE, IN_PROCESS = "ours", "naive", "in process"
CONTESTANTS = (OURS, NAIVE, IN_PROCESS)
NAIVE_META = envelope("2026-07-28")
Call = tuple[str, dict[str, Any]]  # a tool and its arguments


def calls(notebook_path: str) -> dict[str, tuple[Call, Call]]:
    """Each call kind: (ours, the naive server's), on the notebook `notebook_path`."""
    nb = {"notebook": notebook_path}

    def both(tool: str, arguments: dict[str, Any]) -> tuple[Call, Call]:
        return (tool, arguments), (tool, arguments)

    edit = {**nb, "cell_index": 3, "source": "x = 3\nprint(x * 3)\n"}
    return {
        "execute_code": both("execute_code", {"code": "1+1"}),
        "list_files": (("list_files", {"path": "", "depth": 1, "limit": 100}), ("list_files", {"path": ""})),  # every entry, both
        "list_notebooks": both("list_notebooks", {}),
        "list_kernels": both("list_kernels", {}),
        "read_cell": both("read_cell", {**nb, "cell_index": CELLS - 1}),
        "read_notebook": both("read_notebook", {**nb, "limit": 20}),
        "insert_cell": both("insert_cell", {**nb, "cell_index": CELLS // 2, "source": "print('inserted')"}),
        "edit cell": (("overwrite_cell_source", edit), ("edit_cell", edit)),
    }


KINDS = tuple(calls(""))


def make_root(root: Path) -> None:
    """A notebook per contestant and FILES small files beside them."""
    for who in CONTESTANTS:
        (root / f"{who.replace(' ', '_')}.ipynb").write_text(json.dumps(notebook(CELLS), indent=1) + "\n")
    for i in range(FILES):
        (root / f"data_{i:02d}.csv").write_text("a,b\n" + "1,2\n" * i)


def _checked(who: str, kind: str, result: Any) -> None:
    text = json.dumps(result)
    if (isinstance(result, dict) and result.get("isError")) or (kind == "execute_code" and "2\\n" not in text):
        raise RuntimeError(f"{who} {kind}: unexpected answer {text[:500]}")


class PhysicalFloor:
    """Each call kind at the least it needs, in this process: a raw round trip on jupyter_client's async client
    (bench.roundtrip's, on the IPC transport our embedded runtime uses), a directory walk, and the notebook's JSON
    read (and written) with the json module, no nbformat."""

    def __init__(self, root: Path, sockets: Path) -> None:
        # Imported here, not with the module: naive_server imports nbformat, whose jsonschema builds its iri grammar,
        # seconds that every `python -m bench` would pay before parsing its options.
        from . import naive_server

        naive_server.ROOT = root
        self.listings = naive_server
        self.root = root
        self.kernel = RawKernel(sockets, root, "floor")

    async def call(self, kind: str, arguments: dict[str, Any]) -> Any:
        path = self.root / arguments.get("notebook", "")
        if kind == "execute_code":
            return (await self.kernel.execute_async(arguments["code"]))[1] + "\n"
        if kind == "list_kernels":
            manager = self.kernel.manager
            return [{"id": manager.kernel_id, "name": manager.kernel_name, "alive": await manager.is_alive()}]
        if kind in ("list_files", "list_notebooks"):
            return getattr(self.listings, kind)()  # a scandir, a glob: nothing of the SDK's in them
        notebook = json.loads(path.read_bytes())
        cells = notebook["cells"]
        if kind == "read_cell":
            return cells[arguments["cell_index"]]
        if kind == "read_notebook":
            return cells[:arguments["limit"]]
        if kind == "insert_cell":
            cells.insert(arguments["cell_index"], {"id": uuid.uuid4().hex[:12], "cell_type": "code", "metadata": {},
                                                    "execution_count": None, "outputs": [], "source": arguments["source"]})
        else:
            cells[arguments["cell_index"]]["source"] = arguments["source"]
        path.write_text(json.dumps(notebook, indent=1) + "\n")
        return len(cells)


class Floors:
    """The three contestants, each with a notebook of its own, called alike."""

    def __init__(self, root: Path, sockets: Path) -> None:
        env = {"PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
        self.servers = {
            OURS: StdioServer(root, argv=[sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), "--embedded"]),
            NAIVE: StdioServer(root, extra_env=env, argv=[sys.executable, "-m", "bench.naive_server", "--root", str(root)]),
        }
        self.floor = PhysicalFloor(root, sockets)
        self.calls = {who: calls(f"{who.replace(' ', '_')}.ipynb") for who in CONTESTANTS}

    async def start(self) -> None:
        await self.floor.kernel.start(blocking=False)

    async def call(self, who: str, kind: str) -> float:
        """One call of `kind` by `who`, checked: seconds."""
        ours, naive = self.calls[who][kind]
        if who == IN_PROCESS:
            began = time.perf_counter()
            result = await self.floor.call(kind, naive[1])
            elapsed = time.perf_counter() - began
        else:
            (tool, arguments), meta = (ours, META_2026) if who == OURS else (naive, NAIVE_META)
            elapsed, result = self.servers[who].request("tools/call", {"name": tool, "arguments": arguments, "_meta": meta})
        _checked(who, kind, result)
        return elapsed

    async def stop(self) -> dict[str, int | None]:
        codes = {who: server.stop() for who, server in self.servers.items()}
        await self.floor.kernel.stop()
        return codes


async def _run(calls_per_kind: int, warmup: int, seed: int, root: Path) -> dict[str, Any]:
    make_root(root)
    rng = random.Random(seed)
    pairs = [(kind, who) for kind in KINDS for who in CONTESTANTS]
    sockets = root.parent / "k"
    sockets.mkdir()
    floors = Floors(root, sockets)
    samples: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    try:
        await floors.start()
        for _ in range(warmup):  # the first execute_code starts each contestant's kernel
            for kind, who in rng.sample(pairs, len(pairs)):
                await floors.call(who, kind)
        cpu_before, mine_before = _cpu_times(), tree_cpu_seconds()
        began = time.perf_counter()
        for _ in range(calls_per_kind):
            for kind, who in rng.sample(pairs, len(pairs)):
                samples[kind, who].append(await floors.call(who, kind) * 1000.0)
        wall = time.perf_counter() - began
        busy, mine_after = cpu_busy(cpu_before, _cpu_times()), tree_cpu_seconds()
    finally:
        codes = await floors.stop()
    kinds = []
    for kind in KINDS:
        ms = {who: summarize(samples[kind, who]) for who in CONTESTANTS}
        ours, naive, floor = (ms[who]["median"] for who in CONTESTANTS)
        paired = summarize([o / n for o, n in zip(samples[kind, OURS], samples[kind, NAIVE], strict=True)])
        kinds.append({"kind": kind, "ms": ms, "ours_vs_naive": round(ours / naive, 3), "paired_ours_vs_naive": paired["median"],
                      "ours_vs_in_process": round(ours / floor, 3), "naive_vs_in_process": round(naive / floor, 3),
                      "ours_over_in_process_ms": round(ours - floor, 3), "naive_over_in_process_ms": round(naive - floor, 3)})
    cpus = os.cpu_count() or 1
    return {
        "calls_per_kind": calls_per_kind, "warmup_rounds": warmup, "seed": seed, "notebook_cells": CELLS, "wall_s": round(wall, 2),
        "kinds": kinds, "ahead_on_every_kind": all(k["ours_vs_naive"] < 1 for k in kinds),
        "cpu_busy_during": busy,
        "cpu_ours_during": round((mine_after - mine_before) / (wall * cpus), 3) if mine_before and mine_after else None,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
        "server_exit_codes": codes,
    }


def run(calls: int = 200, warmup: int = 5, seed: int = 37, wait_quiet: float = 0.0) -> dict[str, Any]:
    quiet = wait_for_quiet(wait_quiet) if wait_quiet > 0 else None
    with tempfile.TemporaryDirectory(prefix="mcpv-bench-floors-") as tmp:
        (Path(tmp) / "root").mkdir()
        report = asyncio.run(_run(calls, warmup, seed, Path(tmp) / "root"))
    if quiet is not None:
        report["quiet_check"] = quiet
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [f"each call kind against the naive SDK server (bench/naive_server.py) and in process, stdio "
             f"({report['calls_per_kind']} calls each, interleaved; load average {report['loadavg']} at the end)"]
    lines += table(
        [("call kind", "<15"), ("ours ms", ">8.3f"), ("naive ms", ">8.3f"), ("in proc", ">8.3f"), ("ours/naive", ">10.2f"),
         ("per-round", ">9.2f"), ("ours/in", ">7.2f"), ("naive/in", ">8.2f"), ("ours +ms", ">8.2f"), ("naive +ms", ">9.2f")],
        [(k["kind"], *(k["ms"][who]["median"] for who in CONTESTANTS), k["ours_vs_naive"], k["paired_ours_vs_naive"],
          k["ours_vs_in_process"], k["naive_vs_in_process"], k["ours_over_in_process_ms"], k["naive_over_in_process_ms"])
         for k in report["kinds"]])
    behind = [k["kind"] for k in report["kinds"] if k["ours_vs_naive"] >= 1]
    lines.append("  ours ahead of the naive server on every call kind" if not behind else f"  NOT AHEAD on: {', '.join(behind)}")
    return "\n".join(lines + load_lines(report))


def main() -> None:
    cli = parser(__doc__, seed=37, wait_quiet=True)
    cli.add_argument("--calls", type=int, default=200, help="timed calls per call kind and contestant (default 200)")
    cli.add_argument("--warmup", type=int, default=5, help="untimed warm-up rounds (default 5)")
    args = cli.parse_args()
    show(run(args.calls, args.warmup, args.seed, args.wait_quiet), format_report, args.json)


if __name__ == "__main__":
    main()
