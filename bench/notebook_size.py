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

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio

from mcp_variants.client.stdio import envelope
from mcp_variants.jupyter.atomic_files import atomic_write
from mcp_variants.jupyter.local_contents import LocalContents
from mcp_variants.jupyter.notebook_format import check, check_fresh, parse
from mcp_variants.jupyter.notebook_json import encode, snapshot, splice, thaw
from mcp_variants.jupyter.notebook_model import ensure_ids, insert_cell, make_cell
from mcp_variants.jupyter.parsed_notebooks import ParsedNotebooks, as_read
from mcp_variants.jupyter.server_launcher import JupyterServerProcess

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


INSERT_PARTS = ("read the file", "the kept parse, copied (orjson)", "ids looked at (ensure_ids)", "the cell put in",
                "encode: the new cell spliced in (splice)", "schema check: the new cell and the notebook's fields (check_fresh)",
                "write (atomic: a new file, fsync, rename)", "kept for the next read (keep: as_read of the new cell)")
BEFORE_PARTS = ("before: schema check, the whole notebook (check)", "before: encode, the whole notebook (encode)",
                "before: kept for the next read, every cell looked at (as_read)")
WHOLE = "the whole (LocalContents.edit_notebook)"


def insert_parts(cells: int, rounds: int) -> dict[str, Any]:
    """An insert_cell in the middle of a `cells`-cell notebook on disk, by its parts, in this process (ms): each step
    LocalContents.edit_notebook takes, with the same functions, on one copy of the notebook, and the whole of it
    (`edit_notebook`) on another, alternating; and, on the same edit, the parts the splice replaced (`BEFORE_PARTS`:
    the whole notebook checked and encoded). What a tools/call adds to the whole (stdio, the tool, its answer) is
    the stdio row less this."""
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-insert-parts-"))
    path = tmp / "parts.ipynb"
    parts: dict[str, list[float]] = {name: [] for name in (*INSERT_PARTS, *BEFORE_PARTS, WHOLE)}
    contents = LocalContents(tmp)
    parsed = ParsedNotebooks()

    async def whole() -> float:
        began = time.perf_counter()
        async with contents.edit_notebook("whole.ipynb", origin=None) as edited:
            insert_cell(edited, len(edited["cells"]) // 2, make_cell("code", "print('inserted')"))
        return time.perf_counter() - began

    def before(edited: dict[str, Any]) -> list[float]:
        times = [time.perf_counter()]
        check(edited)
        times.append(time.perf_counter())
        encoded = encode(edited)
        times.append(time.perf_counter())
        assert encoded.frozen is not None
        as_read(edited, encoded.frozen)
        times.append(time.perf_counter())
        return [end - start for start, end in zip(times, times[1:], strict=False)]

    async def by_parts() -> list[float]:
        times = [time.perf_counter()]
        data = await anyio.Path(path).read_bytes()
        times.append(time.perf_counter())
        edited = parsed.get(path, data)
        assert edited is not None
        times.append(time.perf_counter())
        ensure_ids(edited)
        times.append(time.perf_counter())
        insert_cell(edited, len(edited["cells"]) // 2, make_cell("code", "print('inserted')"))
        times.append(time.perf_counter())
        written = parsed.written(path)
        assert written is not None
        encoded = splice(edited, written.cells)
        assert encoded is not None and encoded.fresh is not None
        times.append(time.perf_counter())
        plain = check_fresh(edited, encoded.fresh, written.minor)
        times.append(time.perf_counter())
        await anyio.to_thread.run_sync(atomic_write, path, encoded.file)
        times.append(time.perf_counter())
        if plain:
            parsed.keep(path, edited, encoded)
        times.append(time.perf_counter())
        return [end - start for start, end in zip(times, times[1:], strict=False)] + before(edited)

    async def every_round() -> None:
        frozen = snapshot(parse(path.read_bytes().decode(), path.name))
        assert frozen is not None
        notebook = thaw(frozen)
        parsed.keep(path, notebook, encode(notebook))  # kept parsed, and its cells as written, as after a first edit
        await whole()  # read and kept parsed, as after a first call
        await whole()  # and its cells as written, as after a first edit
        for index in range(rounds + 1):
            measured = [*await by_parts(), await whole()]
            if index:  # the first round warms up
                for name, seconds in zip((*INSERT_PARTS, *BEFORE_PARTS, WHOLE), measured, strict=True):
                    parts[name].append(seconds * 1000)

    try:
        for name in (path.name, "whole.ipynb"):
            (tmp / name).write_text(json.dumps(notebook(cells), indent=1, ensure_ascii=False) + "\n")
        asyncio.run(every_round())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"cells": cells, "rounds": rounds, **{name: summarize(values) for name, values in parts.items()}}

FROZEN_ROWS = ("read_notebook: the kept cells, shared (frozen)", "read_notebook: the kept cells, copied for the reader",
               "an edit of one cell: copied, judged and compared where taken (EditedCells)",
               "an edit of one cell: the whole notebook copied, judged and compared",
               "freezing the cells (paid at each full read from the document)")


def frozen_cells(cells: int = 5_000, rounds: int = 20) -> dict[str, Any]:
    """What live/frozen.py's frozen cells buy at `cells` cells, in this process, on a shared document in memory
    (no server: the document's side only), median ms of `rounds`: a read that hands the kept cells to the reader
    as they are against one that copies them (what a reader that may change them needs, unfrozen), and an edit of
    one cell that copies, judges and compares that cell only against one that copies, judges and compares all."""
    from jupyter_ydoc import YNotebook
    from pycrdt import Doc

    from mcp_variants.jupyter.live.apply import apply
    from mcp_variants.jupyter.live.as_nbformat import read
    from mcp_variants.jupyter.live.frozen import check_edited, editable, frozen, thawed
    from mcp_variants.jupyter.live.kept_cells import ReadCells

    document = YNotebook(Doc())
    document.set(notebook(cells))
    kept = ReadCells()
    document.ycells.observe_deep(kept.changed)
    kept.read(document)
    times: dict[str, list[float]] = {row: [] for row in FROZEN_ROWS}

    def timed(row: str, work: Callable[[], object]) -> None:
        began = time.perf_counter()
        work()
        times[row].append((time.perf_counter() - began) * 1000)

    def edit(copy_all: bool, value: str) -> None:
        before = read(document, kept.read(document))
        after = {**thawed(before), "cells": thawed(before["cells"])} if copy_all else editable(before)
        after["cells"][cells // 2]["source"] = value
        if copy_all:
            check(after)
        else:
            check_edited(after)
        with document.ydoc.transaction():
            apply(document, before, after, kept.ids(document))

    for index in range(rounds + 1):
        timed(FROZEN_ROWS[0], lambda: read(document, kept.read(document)))
        timed(FROZEN_ROWS[1], lambda: thawed(read(document, kept.read(document))))
        timed(FROZEN_ROWS[2], partial(edit, False, f"x = {index}"))
        timed(FROZEN_ROWS[3], partial(edit, True, f"y = {index}"))
        timed(FROZEN_ROWS[4], partial(frozen, thawed(kept.read(document))))
        if not index:  # the first round warms up
            for values in times.values():
                values.clear()
    return {"cells": cells, "rounds": rounds, **{row: summarize(values) for row, values in times.items()}}


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
    parts = 5_000 if 5_000 in sizes else max(sizes)  # the size the goals name
    return {"version": VERSION, "runtime": "live" if live else "embedded", "save_delay": save_delay,
            "calls": calls_per_case, "baseline": baseline,
            "sizes": results, "server_exit_codes": codes, "loadavg_before": loadavg_before,
            "loadavg": [round(x, 2) for x in os.getloadavg()],
            "insert_parts": None if live else insert_parts(parts, max(calls_per_case, 10)),
            "frozen_cells": frozen_cells(parts, max(calls_per_case, 10)),
            "loadavg_after_parts": [round(x, 2) for x in os.getloadavg()]}


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
    for key, title in (("insert_parts", "insert_cell in the middle of {cells:,} cells on disk, by its parts, in process"),
                       ("frozen_cells", "frozen cells (live/frozen.py) at {cells:,} cells, in process, a shared document in memory")):
        rows = report.get(key)
        if rows:
            lines.append(f"{title.format(cells=rows['cells'])} (median ms of {rows['rounds']}; load {report.get('loadavg_after_parts')})")
            lines += [f"  {name:80} {row['median']:>10.2f} {row['p90']:>8.2f}" for name, row in rows.items() if isinstance(row, dict)]
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
