"""What a notebook call costs as the notebook grows: read_cell (the last cell), read_notebook (a page of 20)
and insert_cell (in the middle), at N = 100, 1,000, 5,000 and 20,000 cells, on the embedded runtime, or with
`--live` through a notebook's shared document: JupyterLab with jupyter-collaboration (the browser tests' one,
tests/support/jupyter.jupyterlab_server) and `serve --jupyter-url <it>`, the notebooks written into its root.

One server (`serve --root <tmp> --embedded`, or `--jupyter-url`) on stdio, stateless 2026-12-01 envelope; with
`--baseline REV` a second one runs that commit's code (its src/ and variants/ from `git archive`, first
on PYTHONPATH): the same calls alternate between the two, so that before and after meet the same machine.
Each notebook is written by the bench (half code cells with a short stream output, half markdown),
then each call is made `--calls` times per server after one warm-up call. insert_cell adds a cell each
time, so the notebook grows by that many cells over the run. Live, the warm-up call also joins the room
(the Jupyter server loads the file into its shared document), and JupyterLab saves the room's file about a
second after a change (jupyter-collaboration's document_save_delay; `--save-delay S` sets it). That save
reads the whole document in the server (jupyter-ydoc's YNotebook.aget, cell by cell: 0.5 s of its CPU at
5,000 cells), interleaved with its answers: a call that comes meanwhile waits for it, as it does in use. Calls
made back to back leave no second for it; calls alternating with a slower baseline do.

Run alone: python -m bench.notebook_size [--sizes 100,1000] [--calls N] [--baseline REV] [--live [--save-delay S]] [--json]
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from mcp_variants.client.stdio import envelope
from mcp_variants.processes import JupyterServerProcess

from . import cli
from .record import REPO
from .roundtrip import StdioServer
from .startup import checkout
from .stats import summarize

SIZES = (100, 1_000, 5_000, 20_000)
VERSION = "2026-12-01"


def notebook(cells: int) -> dict[str, Any]:
    made = []
    for i in range(cells):
        cell: dict[str, Any] = {"id": f"c{i:011x}", "metadata": {}}
        if i % 2:
            cell.update(cell_type="code", execution_count=i, source=f"x = {i}\nprint(x * 2)\n",
                        outputs=[{"output_type": "stream", "name": "stdout", "text": f"{i * 2}\n"}])
        else:
            cell.update(cell_type="markdown", source=f"## Step {i}\n\nWhat the next cell does, in a sentence or two.\n")
        made.append(cell)
    return {"nbformat": 4, "nbformat_minor": 5, "cells": made,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}


def calls(name: str, cells: int) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "read_cell (last)": ("read_cell", {"notebook": name, "cell_index": cells - 1}),
        "read_notebook (limit 20)": ("read_notebook", {"notebook": name, "limit": 20}),
        "insert_cell (middle)": ("insert_cell", {"notebook": name, "cell_index": cells // 2, "source": "print('inserted')"}),
    }


def timed(server: StdioServer, tool: str, arguments: dict[str, Any]) -> float:
    elapsed, line, result = server.round_trip("tools/call", {"name": tool, "arguments": arguments, "_meta": envelope(VERSION)})
    if result.get("isError"):
        raise RuntimeError(f"{tool} failed: {line[:400]!r}")
    return elapsed * 1000


def jupyterlab(folder: Path, save_delay: float | None) -> JupyterServerProcess:
    """The browser tests' JupyterLab with real-time collaboration (tests/ on sys.path, as bench/live.py has it)."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.jupyter import jupyterlab_server

    return jupyterlab_server(folder, [f"--YDocExtension.document_save_delay={save_delay}"] if save_delay is not None else [])


def run(sizes: tuple[int, ...] = SIZES, calls_per_case: int = 10, baseline: str | None = None, live: bool = False,
        save_delay: float | None = None) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-notebook-size-"))
    loadavg_before = [round(x, 2) for x in os.getloadavg()]
    servers: dict[str, StdioServer] = {}
    lab = jupyterlab(tmp / "lab", save_delay) if live else None
    try:
        root = tmp / "root"
        root.mkdir()
        folder, env, where = root, {}, ["--embedded"]  # where the notebooks are, and how the server reaches them
        if lab is not None:
            lab.start()
            folder, env, where = lab.root, {"JUPYTER_TOKEN": lab.token}, ["--jupyter-url", lab.url]
        argv = [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *where]
        servers["now"] = StdioServer(root, extra_env=env, argv=argv)
        if baseline is not None:
            (tmp / "baseline").mkdir()
            source = checkout(REPO, baseline, tmp / "baseline")
            servers[baseline] = StdioServer(root, extra_env={**env, "PYTHONPATH": str(source)}, argv=argv)
        results: dict[str, Any] = {}
        for size in sizes:
            per_size: dict[str, Any] = {}
            for who in servers:  # a notebook each: insert_cell changes it
                (folder / f"n{size}-{who}.ipynb").write_text(json.dumps(notebook(size), indent=1, ensure_ascii=False) + "\n")
            for case in calls(f"n{size}.ipynb", size):
                times: dict[str, list[float]] = {who: [] for who in servers}
                for index in range(calls_per_case + 1):
                    for who, server in servers.items():
                        tool, arguments = calls(f"n{size}-{who}.ipynb", size)[case]
                        elapsed = timed(server, tool, arguments)
                        if index:
                            times[who].append(elapsed)
                per_size[case] = {who: summarize(values) for who, values in times.items()}
                if baseline is not None:
                    per_size[case]["ratio_now_to_baseline"] = round(per_size[case]["now"]["median"] / per_size[case][baseline]["median"], 3)
            results[str(size)] = per_size
    finally:
        codes = {who: server.stop() for who, server in servers.items()}
        if lab is not None:
            lab.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"version": VERSION, "runtime": "live" if live else "embedded", "save_delay": save_delay,
            "calls": calls_per_case, "baseline": baseline,
            "sizes": results, "server_exit_codes": codes, "loadavg_before": loadavg_before,
            "loadavg": [round(x, 2) for x in os.getloadavg()]}


def format_report(report: dict[str, Any]) -> str:
    baseline = report["baseline"]
    header = f"  {'cells':>7}  {'call':<26} {'median ms':>10} {'p90 ms':>8}"
    runtime = "a JupyterLab's shared document" if report.get("runtime") == "live" else "embedded runtime"
    if report.get("save_delay") is not None:
        runtime += f", autosave after {report['save_delay']:g} s"
    load = f"load average {report.get('loadavg_before', '?')} before, {report['loadavg']} after"
    lines = [f"notebook calls by notebook size ({runtime}, stdio, median ms of {report['calls']} calls"
             + (f"; before = {baseline}" if baseline else "") + f"; {load})",
             header + (f" {'before ms':>10} {'now/before':>10}" if baseline else "")]
    for size, cases in report["sizes"].items():
        for case, numbers in cases.items():
            now = numbers["now"]
            line = f"  {int(size):>7,}  {case:<26} {now['median']:>10.1f} {now['p90']:>8.1f}"
            if baseline:
                line += f" {numbers[baseline]['median']:>10.1f} {numbers['ratio_now_to_baseline']:>10.3f}"
            lines.append(line)
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="cell counts, comma-separated")
    parser.add_argument("--calls", type=int, default=10, help="calls per case and server, after one warm-up call")
    parser.add_argument("--baseline", metavar="REV", help="also time a server running this commit's code, alternating")
    parser.add_argument("--live", action="store_true", help="through a JupyterLab's shared documents (serve --jupyter-url)")
    parser.add_argument("--save-delay", type=float, metavar="SECONDS",
                        help="with --live, JupyterLab's autosave delay (jupyter-collaboration's, 1 s by default)")
    args = parser.parse_args()
    report = run(tuple(int(s) for s in args.sizes.split(",")), args.calls, args.baseline, args.live, args.save_delay)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
