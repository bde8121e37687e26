"""Live notebooks: how soon an agent's edit shows in a person's JupyterLab page, and every notebook
tool over the shared document against the REST path, in the same run.

Two Jupyter servers, both from the product's launcher (mcp_variants.jupyter.server_launcher.JupyterServerProcess):

  live   JupyterLab 4.6 with jupyter-collaboration 5 (the browser tests' one:
         tests/support/jupyter.jupyterlab_server), `serve --jupyter-url <it>`, 2026-12-01 stateless;
         the notebook open in headless Chromium (tests/support/lab.LabPage, Debian's chromium)
  rest   a stock jupyter-server (no collaboration), `serve --jupyter-url <it>`: the contents API

To the page: from just before the tools/call line is written (this process's clock, ms since the
epoch) to when the page's MutationObserver saw the new text in the notebook (the page's clock:
the same machine's). `insert` appends a cell holding a fresh marker (insert_cell); `edit`
replaces one cell's marker by a fresh one (edit_cell_source); `first edit` is a new client's first
insert, right after its use_notebook (which joins the room, so the edit does not). The REST path has no such number:
a JupyterLab without collaboration shows the change only once the person reloads.

Round trips: each notebook tool, called on both servers in interleaved rounds (the order shuffled
in each round), from the request line written to the response line parsed (bench.roundtrip.StdioServer).

A cold use_notebook: a new client (started first: its first tools/list answered) on a notebook no room holds yet,
open in JupyterLab (its session's kernel running) or not (the kernel starts), the server's CPU beside, and each part
of it on its own in this process: the room's session, websocket and first sync, the kernel's session and channels
(`cold_use_notebook`; `--cold-only` runs only that, without a browser; `--baseline REV` alternates with that commit).

The machine is shared: the CPUs' busy share over the timed part is recorded beside the numbers.

Run alone: python -m bench.live [--calls N] [--page-calls N] [--cold-rounds N] [--cold-only [--baseline REV]]
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess

from . import cli
from .roundtrip import META_2026, StdioServer, _cpu_times, cpu_busy, tree_cpu_seconds, wait_for_quiet
from .startup import checkout, first_on_path
from .stats import summarize

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the test harness: the JupyterLab the browser tests use, and their page driver

from support import apps as browser  # noqa: E402  (what the browser tests need)
from support.jupyter import jupyterlab_server  # noqa: E402
from support.lab import LabPage, now_ms  # noqa: E402

GOAL_MS = 300.0  # an agent's edit visible in the page within this, median
NOTEBOOK = "bench.ipynb"
TOOLS = ("read_notebook", "read_cell", "insert_cell", "edit_cell_source", "overwrite_cell_source", "move_cell",
         "clear_cell_output", "delete_cell", "execute_cell", "insert_execute_code_cell")


def notebook(root: Path) -> None:
    cells: list[Any] = [nbformat.v4.new_markdown_cell("# A notebook for the benchmark")]
    for n in range(10):
        cells.append(nbformat.v4.new_code_cell(f"value_{n} = {n} * 2\nvalue_{n}", outputs=[
            nbformat.v4.new_output("execute_result", data={"text/plain": str(n * 2)}, execution_count=n + 1)], execution_count=n + 1))
    for cell, cell_id in zip(cells, ["intro", *[f"c{n}" for n in range(10)]], strict=True):
        cell["id"] = cell_id
    cells[5]["source"] = "state = 'A'"
    content = nbformat.v4.new_notebook(cells=cells)
    content.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (root / NOTEBOOK).write_text(nbformat.writes(content))


class Caller:
    """One `serve --jupyter-url` and the arguments of each tool's next call (some tools need the state they left)."""

    def __init__(self, jupyter: JupyterServerProcess, root: Path, env: dict[str, str] | None = None) -> None:
        self.server = StdioServer(root, extra_env={"JUPYTER_TOKEN": jupyter.token, **(env or {})},
                                  argv=[sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), "--jupyter-url", jupyter.url])
        self.state = "A"
        self.move = 0
        self.inserted: list[str] = []

    def arguments(self, tool: str) -> dict[str, Any]:
        base: dict[str, Any] = {"notebook": NOTEBOOK}
        if tool == "read_cell":
            return {**base, "cell_id": "c3"}
        if tool == "insert_cell":
            return {**base, "source": "inserted = True"}
        if tool == "edit_cell_source":
            old, self.state = self.state, "B" if self.state == "A" else "A"
            return {**base, "cell_id": "c4", "old_string": f"'{old}'", "new_string": f"'{self.state}'"}
        if tool == "overwrite_cell_source":
            return {**base, "cell_id": "c5", "source": f"overwritten = {random.random()}"}
        if tool == "move_cell":
            self.move = 1 - self.move
            return {**base, "cell_id": "c6", "target_index": 7 + self.move}
        if tool in ("clear_cell_output", "execute_cell"):
            return {**base, "cell_id": "c7"}
        if tool == "delete_cell":
            return {**base, "cell_id": self.inserted.pop()}
        if tool == "insert_execute_code_cell":
            return {**base, "source": "1 + 1"}
        return base

    def call(self, tool: str, arguments: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
        params = {"name": tool, "arguments": arguments if arguments is not None else self.arguments(tool), "_meta": META_2026}
        elapsed, result = self.server.request("tools/call", params)
        if result.get("isError"):
            raise RuntimeError(f"{tool} failed: {json.dumps(result)[:800]}")
        if tool == "insert_cell":
            self.inserted.append(result["_meta"]["io.jupyter-mcp/cell_id"])
        return elapsed, result


def page_latency(caller: Caller, page: LabPage, calls: int) -> dict[str, Any]:
    """tools/call → the change visible in the page, for an appended cell and for an edit."""
    insert_ms: list[float] = []
    edit_ms: list[float] = []
    returned_ms: list[float] = []
    _, made = caller.call("insert_cell", {"notebook": NOTEBOOK, "source": "# marker start"})
    target = made["_meta"]["io.jupyter-mcp/cell_id"]
    marker = "start"
    for n in range(calls):
        fresh = uuid.uuid4().hex[:10]
        page.watch(**{f"insert-{n}": f"inserted {fresh}"})
        began = now_ms()
        elapsed, _ = caller.call("insert_cell", {"notebook": NOTEBOOK, "source": f"# inserted {fresh}"})
        returned_ms.append(elapsed * 1000)
        page.wait_shown(f"inserted {fresh}")
        insert_ms.append(page.marks()[f"insert-{n}"] - began)
        page.watch(**{f"edit-{n}": f"marker {fresh}"})
        began = now_ms()
        caller.call("edit_cell_source", {"notebook": NOTEBOOK, "cell_id": target, "old_string": marker, "new_string": fresh})
        marker = fresh
        page.wait_shown(f"marker {fresh}")
        edit_ms.append(page.marks()[f"edit-{n}"] - began)
    return {"insert": summarize(insert_ms), "edit": summarize(edit_ms), "insert tools/call returned": summarize(returned_ms)}


def first_edit(newcomer: Caller, page: LabPage) -> dict[str, float]:
    """A client new to the notebook, started (its first tools/list answered): use_notebook (which joins the room),
    then its first edit, to the page."""
    newcomer.server.request("tools/list", {"_meta": META_2026})
    opened, _ = newcomer.call("use_notebook", {"notebook": NOTEBOOK})
    fresh = uuid.uuid4().hex[:10]
    page.watch(first=f"first {fresh}")
    began = now_ms()
    newcomer.call("insert_cell", {"notebook": NOTEBOOK, "source": f"# first {fresh}"})
    page.wait_shown(f"first {fresh}")
    return {"use_notebook (ms)": round(opened * 1000, 1), "first insert visible (ms)": round(page.marks()["first"] - began, 1)}


def tool_round_trips(callers: dict[str, Caller], calls: int, seed: int) -> dict[str, Any]:
    order = random.Random(seed)
    times: dict[str, dict[str, list[float]]] = {name: {tool: [] for tool in TOOLS} for name in callers}
    for _ in range(calls):
        for tool in TOOLS:
            names = list(callers)
            order.shuffle(names)
            for name in names:
                elapsed, _ = callers[name].call(tool)
                times[name][tool].append(elapsed * 1000)
    out: dict[str, Any] = {}
    for tool in TOOLS:
        live, rest = summarize(times["live"][tool]), summarize(times["rest"][tool])
        out[tool] = {"live": live, "rest": rest, "live / rest (median)": round(live["median"] / rest["median"], 3)}
    return out


# ---- a cold use_notebook, by its parts ---------------------------------------------------------------------------------

COLD_PARTS = (
    "room: document session (PUT /api/collaboration/session)",
    "room: websocket opened",
    "room: first sync (the server loads the file, then answers)",
    "room: SharedNotebook.open (all of the room, as use_notebook joins it)",
    "kernel: sessions listed (GET /api/sessions)",
    "kernel: session made (POST /api/sessions: the kernel process starts)",
    "kernel: channels open to the new kernel (until it answers)",
    "kernel: channels open to a running kernel",
    "kernel: SessionKernels.notebook_kernel, a notebook nobody opened",
)
COLD_WHOLE = (
    "serve started, to its first answer (tools/list)",
    "use_notebook, the notebook open in JupyterLab (its session's kernel running)",
    "use_notebook, a notebook nobody opened (its session's kernel starts)",
)


async def _cold_parts(lab: JupyterServerProcess, fresh: Callable[[], str]) -> dict[str, float]:
    """Each part of joining a notebook's room and attaching its session's kernel, timed on its own (ms), in this process,
    each on a notebook nobody opened yet (no room, no session), then the wholes as use_notebook calls them."""
    from pycrdt import Doc, YMessageType, YSyncMessageType, create_sync_message, handle_sync_message

    from mcp_variants.jupyter.live.document import SharedNotebook
    from mcp_variants.jupyter.live.rooms import Rooms
    from mcp_variants.jupyter.live.sessions import SessionKernels
    from mcp_variants.jupyter.remote.server_client import JupyterServerClient
    from mcp_variants.jupyter.remote.websocket import open_channels

    client = JupyterServerClient(lab.url, lab.token)
    rooms, kernels = Rooms(client), SessionKernels(client)
    parts: dict[str, float] = {}

    def lap(name: str, began: float) -> float:
        now = time.perf_counter()
        parts[name] = round((now - began) * 1000, 1)
        return now

    async def spec() -> str:
        return "python3"

    try:
        path = fresh()
        began = time.perf_counter()
        session = await rooms.session(path)
        assert session is not None
        began = lap(COLD_PARTS[0], began)
        async with rooms.connect(session) as socket:
            began = lap(COLD_PARTS[1], began)
            doc: Doc[Any] = Doc()
            await socket.send(create_sync_message(doc))
            async for message in socket:  # until the answer to ours (SYNC_STEP2)
                if isinstance(message, bytes) and message[0] == YMessageType.SYNC:
                    handle_sync_message(message[1:], doc)
                    if message[1] == YSyncMessageType.SYNC_STEP2:
                        break
            lap(COLD_PARTS[2], began)
        document = SharedNotebook(fresh(), rooms)
        began = time.perf_counter()
        await document.open()
        lap(COLD_PARTS[3], began)
        await document.close()

        path = fresh()
        began = time.perf_counter()
        await client.request("GET", "api/sessions")
        began = lap(COLD_PARTS[4], began)
        made = await client.request("POST", "api/sessions", json={"path": path, "name": path, "type": "notebook",
                                                                  "kernel": {"name": "python3"}})
        made.raise_for_status()
        began = lap(COLD_PARTS[5], began)
        channels = await open_channels(client, made.json()["kernel"]["id"])
        began = lap(COLD_PARTS[6], began)
        await channels.close()
        began = time.perf_counter()
        channels = await open_channels(client, made.json()["kernel"]["id"])
        lap(COLD_PARTS[7], began)
        await channels.close()
        await client.request("DELETE", f"api/sessions/{made.json()['id']}")
        began = time.perf_counter()
        await kernels.notebook_kernel(fresh(), None, spec)
        lap(COLD_PARTS[8], began)
    finally:
        await kernels.aclose()
        await client.aclose()
    return parts


async def _open_in_jupyterlab(lab: JupyterServerProcess, path: str) -> str:
    """A session for the notebook at `path`, its kernel ready, as JupyterLab makes one when a person opens it; its id."""
    from mcp_variants.jupyter.remote.server_client import JupyterServerClient
    from mcp_variants.jupyter.remote.websocket import open_channels

    client = JupyterServerClient(lab.url, lab.token)
    try:
        made = await client.request("POST", "api/sessions", json={"path": path, "name": path, "type": "notebook",
                                                                  "kernel": {"name": "python3"}})
        made.raise_for_status()
        channels = await open_channels(client, made.json()["kernel"]["id"])
        await channels.close()
        return str(made.json()["id"])
    finally:
        await client.aclose()


def cold_use_notebook(lab: JupyterServerProcess, folder: Path, rounds: int, baseline: str | None = None) -> dict[str, Any]:
    """A new client's first use_notebook (a fresh `serve --jupyter-url`, started and answering first), on a notebook
    open in JupyterLab and on one nobody opened, and each of its parts on its own (`_cold_parts`), `rounds` times,
    interleaved, each on a copy of the notebook no room holds yet; with `baseline`, a server at that commit beside."""
    names = iter(range(1_000_000))

    def fresh() -> str:
        name = f"cold-{next(names)}.ipynb"
        shutil.copy(lab.root / NOTEBOOK, lab.root / name)
        return name

    servers: dict[str, dict[str, str]] = {"now": {}}
    if baseline is not None:
        (folder / "baseline").mkdir()
        servers[baseline] = {"PYTHONPATH": first_on_path(checkout(REPO, baseline, folder / "baseline"))}
    cpu = {name: f"{name}: its CPU ms" for name in COLD_WHOLE[1:]}  # the server's own, while the call ran
    rows: dict[str, dict[str, list[float]]] = {who: {name: [] for name in (*COLD_WHOLE, *cpu.values())} for who in servers}
    parts: dict[str, list[float]] = {name: [] for name in COLD_PARTS}
    for _ in range(rounds):
        for who, env in servers.items():
            opened = fresh()
            session = asyncio.run(_open_in_jupyterlab(lab, opened))
            for name, notebook_path in ((COLD_WHOLE[1], opened), (COLD_WHOLE[2], fresh())):
                caller = Caller(lab, folder, env)
                try:
                    started, _ = caller.server.request("tools/list", {"_meta": META_2026})
                    rows[who][COLD_WHOLE[0]].append(started * 1000)
                    used = tree_cpu_seconds(caller.server.pid)
                    elapsed, _ = caller.call("use_notebook", {"notebook": notebook_path})
                    rows[who][name].append(elapsed * 1000)
                    after = tree_cpu_seconds(caller.server.pid)
                    if used is not None and after is not None:
                        rows[who][cpu[name]].append((after - used) * 1000)
                finally:
                    caller.server.stop()
            lab_client_delete(lab, session)
        for name, value in asyncio.run(_cold_parts(lab, fresh)).items():
            parts[name].append(value)
    return {"wholes": {who: {name: summarize(values) for name, values in by.items() if values} for who, by in rows.items()},
            "parts": {name: summarize(values) for name, values in parts.items()}, "rounds": rounds, "baseline": baseline,
            "loadavg": [round(x, 2) for x in os.getloadavg()]}


def lab_client_delete(lab: JupyterServerProcess, session: str) -> None:
    """End a session `_open_in_jupyterlab` made (its kernel with it)."""
    httpx.delete(f"{lab.url}api/sessions/{session}", headers=lab.auth_headers, timeout=30)


def run(calls: int = 30, page_calls: int = 40, seed: int = 3279, wait_quiet: float = 0.0, cold_rounds: int = 5) -> dict[str, Any]:
    try:  # what the browser tests need (make test installs it): as they do, skip without it, fail under MCP_VARIANTS_APPS=required
        node, _, chromium = browser.node(20), browser.apps_installed(), browser.chromium()
    except pytest.skip.Exception as exc:  # the cold use_notebook needs no browser
        return {"skipped": str(exc.msg), **run_cold(cold_rounds)}
    workdir = Path(tempfile.mkdtemp(prefix="mcp-variants-bench-live-"))
    lab = jupyterlab_server(workdir / "lab")
    stock = JupyterServerProcess(workdir / "stock")
    callers: dict[str, Caller] = {}
    newcomer: Caller | None = None
    page: LabPage | None = None
    report: dict[str, Any] = {"goal_ms": GOAL_MS}
    try:
        began = time.perf_counter()
        lab.start()
        stock.start()
        report["cold"] = {"jupyterlab and jupyter-server start (s)": round(time.perf_counter() - began, 3)}
        for jupyter in (lab, stock):
            notebook(jupyter.root)
        (workdir / "mcp").mkdir()
        report["cold_use_notebook"] = cold_use_notebook(lab, workdir / "mcp", cold_rounds)
        callers = {"live": Caller(lab, workdir / "mcp"), "rest": Caller(stock, workdir / "mcp")}
        for name, caller in callers.items():
            began = time.perf_counter()
            caller.call("use_notebook", {"notebook": NOTEBOOK})
            caller.call("execute_cell", {"notebook": NOTEBOOK, "cell_id": "c7"})  # the notebook's kernel, started
            report["cold"][f"{name}: use_notebook + first execute_cell (s)"] = round(time.perf_counter() - began, 3)
        page = LabPage(node, chromium, workdir / "chromium-profile")
        page.open(lab, NOTEBOOK)
        newcomer = Caller(lab, workdir / "mcp")
        report["first_edit"] = first_edit(newcomer, page)
        report["quiet"] = wait_for_quiet(wait_quiet) if wait_quiet else None
        report["loadavg_before"] = [round(x, 2) for x in os.getloadavg()]
        for caller in callers.values():  # warm-up: every tool once
            for tool in TOOLS:
                caller.call(tool)
        cpu_before = _cpu_times()
        report["page"] = page_latency(callers["live"], page, page_calls)
        cpu_middle = _cpu_times()
        report["tools"] = tool_round_trips(callers, calls, seed)
        report["cpu_busy_during_page"] = cpu_busy(cpu_before, cpu_middle)
        report["cpu_busy_during_tools"] = cpu_busy(cpu_middle, _cpu_times())
        report["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        report["calls"] = {"page": page_calls, "tools": calls}
    finally:
        if page is not None:
            page.close()
        for caller in [*callers.values(), *([newcomer] if newcomer else [])]:
            caller.server.stop()
        lab.stop()
        stock.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return report


def run_cold(rounds: int = 5, baseline: str | None = None) -> dict[str, Any]:
    """Only the cold use_notebook and its parts: JupyterLab, no browser."""
    workdir = Path(tempfile.mkdtemp(prefix="mcp-variants-bench-cold-"))
    lab = jupyterlab_server(workdir / "lab")
    try:
        lab.start()
        notebook(lab.root)
        (workdir / "mcp").mkdir()
        return {"cold_use_notebook": cold_use_notebook(lab, workdir / "mcp", rounds, baseline)}
    finally:
        lab.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def format_cold(cold: dict[str, Any]) -> list[str]:
    lines = [f"a cold use_notebook and its parts, each on a notebook nobody opened ({cold['rounds']} rounds, load {cold['loadavg']}):",
             f"  {'':86} {'median ms':>10} {'min ms':>8} {'max ms':>8}"]
    for who, wholes in cold["wholes"].items():
        for name, row in wholes.items():
            lines.append(f"  {who + ': ' + name:86} {row['median']:>10.1f} {row['min']:>8.1f} {row['max']:>8.1f}")
    for name, row in cold["parts"].items():
        lines.append(f"  {name:86} {row['median']:>10.1f} {row['min']:>8.1f} {row['max']:>8.1f}")
    return lines


def format_report(report: dict[str, Any]) -> str:
    if "page" not in report:
        skipped = [f"live notebooks in a page: skipped ({report['skipped']})"] if "skipped" in report else []
        return "\n".join(skipped + format_cold(report["cold_use_notebook"]))
    page = report["page"]
    lines = [
        f"live notebooks: an agent's edit in a JupyterLab page (goal: under {report['goal_ms']:g} ms median); "
        f"CPUs busy {report['cpu_busy_during_page']:.0%} (load {report['loadavg_before']})",
        f"  {'':32} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}",
    ]
    for name in ("insert", "edit", "insert tools/call returned"):
        row = page[name]
        lines.append(f"  {name:32} {row['median']:>10.1f} {row['p90']:>8.1f} {row['max']:>8.1f}")
    first = report["first_edit"]
    lines.append(f"  a new client's first insert, visible: {first['first insert visible (ms)']:.1f} ms, after use_notebook "
                 f"(which joins the room): {first['use_notebook (ms)']:.1f} ms")
    lines.append(f"each tool's round trip, the shared document against the REST path (CPUs busy {report['cpu_busy_during_tools']:.0%}):")
    lines.append(f"  {'tool':28} {'live median':>12} {'live p90':>9} {'rest median':>12} {'rest p90':>9} {'live/rest':>10}")
    for tool, row in report["tools"].items():
        lines.append(f"  {tool:28} {row['live']['median']:>12.2f} {row['live']['p90']:>9.2f} {row['rest']['median']:>12.2f} "
                     f"{row['rest']['p90']:>9.2f} {row['live / rest (median)']:>10.2f}")
    lines += format_cold(report["cold_use_notebook"])
    return "\n".join(lines)


def main() -> None:
    parser = cli.parser(__doc__, prog="python -m bench.live", wait_quiet=True)
    parser.add_argument("--calls", type=int, default=30, help="calls of each tool per server (default 30)")
    parser.add_argument("--page-calls", type=int, default=40, help="inserts and edits timed to the page (default 40 each)")
    parser.add_argument("--cold-rounds", type=int, default=5, help="cold use_notebook rounds, each part beside it (default 5)")
    parser.add_argument("--cold-only", action="store_true", help="only the cold use_notebook and its parts (no browser)")
    parser.add_argument("--baseline", metavar="REV", help="with --cold-only, a server at this commit's code beside, interleaved")
    args = parser.parse_args()
    report = (run_cold(args.cold_rounds, args.baseline) if args.cold_only else
              run(calls=args.calls, page_calls=args.page_calls, wait_quiet=args.wait_quiet, cold_rounds=args.cold_rounds))
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
