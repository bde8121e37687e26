"""list_files over 1,000 files: the latency of every page through the server, and a raw walk for scale.

A temporary root holds 1,000 small files: 200 at the top and 200 in each of four folders
(csv, txt, py, json and a few .ipynb names), so `list_files` with depth 2 lists 1,004
entries. Contestants, each its own process, called in interleaved rounds (one round = one
full listing per contestant, paging through every page):

  server assistant/content        `serve --root <tmp>` (embedded runtime), 2026-12-01 stateless,
                                  requestedOutputs [assistant/content]; the next cursor is read
                                  from the text ("call again with cursor='N'")
  server programmatic/structured  the same with [programmatic/structured]; nextCursor from the record
  (each at limit 100, the default before it became 25, and at the maximum, 1000: a page is also cut to what fits the
  model's text budget, about 20 KB)
  raw os.scandir                  in this process: the walk alone (scandir, sort by name, stat,
                                  one small dict per entry), depth 2, for scale
  LocalContents._walk             in this process: the server's own walk, without the protocol

Latency per call (every page is one tools/call; every call walks the whole tree again: the
cursor is an offset into a fresh listing) and per full listing; bytes per page.

Run alone: python -m bench.listing [--rounds N]
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp_variants.jupyter.local_contents import LocalContents

from . import cli
from .roundtrip import META_2026, StdioServer, _cpu_times, cpu_busy, wait_for_quiet
from .stats import summarize

FILES = 1_000
FOLDERS = ("data", "logs", "notebooks", "src")
DEPTH = 2
LIMITS = (100, 1000)
VARIANTS = (("assistant", "content"), ("programmatic", "structured"))
RAW = "raw os.scandir walk (in process)"
WALK = "LocalContents._walk (in process)"
CURSOR = re.compile(r"cursor='(\d+)'")


def make_tree(root: Path, files: int = FILES) -> int:
    """`files` small files: a fifth at the top, the rest spread over FOLDERS. Returns the entry count."""
    suffixes = (".csv", ".txt", ".py", ".json", ".csv", ".txt", ".py", ".json", ".md", ".ipynb")
    folders = [root, *(root / name for name in FOLDERS)]
    for folder in folders[1:]:
        folder.mkdir()
    per_folder = files // len(folders)
    count = 0
    for f_index, folder in enumerate(folders):
        n = per_folder if f_index else files - per_folder * (len(folders) - 1)
        for i in range(n):
            suffix = suffixes[i % len(suffixes)]
            (folder / f"file_{i:04d}{suffix}").write_bytes(b"x" * (64 + (i * 37) % 4000))
            count += 1
    return count + len(FOLDERS)


def raw_walk(root: Path, depth: int) -> list[dict[str, Any]]:
    """The least a listing needs: scandir, sorted names, a stat per entry, one dict each."""
    found: list[dict[str, Any]] = []

    def walk(folder: str, level: int) -> None:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            is_dir = entry.is_dir()
            stat = entry.stat()
            found.append({"path": os.path.relpath(entry.path, root), "name": entry.name, "size": None if is_dir else stat.st_size,
                          "modified": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds")})
            if is_dir and level < depth:
                walk(entry.path, level + 1)

    walk(str(root), 1)
    return found


def name_of(audience: str, fmt: str, limit: int) -> str:
    return f"server {audience}/{fmt}, limit {limit}"


class Lister:
    """One server process that pages through the listing with one variant and one limit."""

    def __init__(self, root: Path, audience: str, fmt: str, limit: int) -> None:
        self.server = StdioServer(root)
        self.audience, self.format, self.limit = audience, fmt, limit

    def page(self, cursor: str | None) -> tuple[float, int, int, str | None]:
        """One call: (seconds, rows, response bytes, next cursor)."""
        arguments: dict[str, Any] = {"depth": DEPTH, "limit": self.limit}
        if cursor is not None:
            arguments["cursor"] = cursor
        params = {"name": "list_files", "arguments": arguments,
                  "requestedOutputs": [{"audience": self.audience, "format": self.format}], "_meta": META_2026}
        elapsed, result = self.server.request("tools/call", params)
        if result.get("isError"):
            raise RuntimeError(f"list_files failed: {json.dumps(result)[:500]}")
        output = result["outputs"][0]
        size = len(json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode())
        if self.format == "structured":
            value = output["structuredContent"]
            return elapsed, len(value["files"]), size, value.get("nextCursor")
        text = "".join(block.get("text", "") for block in output["content"])
        match = CURSOR.search(text)
        rows = sum(1 for line in text.splitlines()[2:] if "\t" in line)  # title, header, then one tab-separated line per row
        return elapsed, rows, size, match.group(1) if match else None

    def listing(self) -> tuple[list[float], int, list[int], int]:
        """Every page: (per-call seconds, pages, bytes per page, rows seen)."""
        times, sizes, rows, cursor = [], [], 0, None
        while True:
            elapsed, n, size, cursor = self.page(cursor)
            times.append(elapsed)
            sizes.append(size)
            rows += n
            if cursor is None:
                return times, len(times), sizes, rows
            if len(times) > 200:
                raise RuntimeError("list_files never stops paging")


def run(rounds: int = 20, warmup: int = 2, seed: int = 3279, wait_quiet: float = 0.0) -> dict[str, Any]:
    quiet = wait_for_quiet(wait_quiet) if wait_quiet > 0 else None
    tmp = Path(tempfile.mkdtemp(prefix="mcpv-bench-listing-"))
    listers: dict[str, Lister] = {}
    try:
        root = tmp / "root"
        root.mkdir()
        entries = make_tree(root)
        contents = LocalContents(root)
        for limit in LIMITS:
            for audience, fmt in VARIANTS:
                name = name_of(audience, fmt, limit)
                listers[name] = Lister(root, audience, fmt, limit)
        names = [*listers, RAW, WALK]

        per_call: dict[str, list[float]] = {name: [] for name in names}
        per_listing: dict[str, list[float]] = {name: [] for name in names}
        shape: dict[str, dict[str, Any]] = {}
        rng = random.Random(seed)
        cpu_before = None
        for index in range(warmup + rounds):
            if index == warmup:
                cpu_before, began = _cpu_times(), time.perf_counter()
            order = list(names)
            rng.shuffle(order)
            for name in order:
                if name in (RAW, WALK):
                    t0 = time.perf_counter()
                    found = raw_walk(root, DEPTH) if name == RAW else contents._walk(contents.root, DEPTH, None)
                    elapsed = time.perf_counter() - t0
                    if len(found) != entries:
                        raise RuntimeError(f"{name} saw {len(found)} entries, not {entries}")
                    times, pages, sizes, rows = [elapsed], 1, [], len(found)
                else:
                    times, pages, sizes, rows = listers[name].listing()
                if index < warmup:
                    continue
                per_call[name].extend(t * 1000.0 for t in times)
                per_listing[name].append(sum(times) * 1000.0)
                shape[name] = {"pages": pages, "rows_seen": rows, "bytes_per_page_max": max(sizes, default=0),
                               "bytes_total": sum(sizes)}
        wall = time.perf_counter() - began
        busy = cpu_busy(cpu_before, _cpu_times())
    finally:
        codes = {name: lister.server.stop() for name, lister in listers.items()}
        shutil.rmtree(tmp, ignore_errors=True)

    raw_median = summarize(per_listing[RAW])["median"]
    rows = []
    for name in names:
        call, full = summarize(per_call[name]), summarize(per_listing[name])
        rows.append({"name": name, **shape[name], "per_call_ms": call, "per_listing_ms": full,
                     "listing_vs_raw": round(full["median"] / raw_median, 1)})
    report: dict[str, Any] = {
        "files": FILES, "folders": len(FOLDERS), "entries": entries, "depth": DEPTH,
        "rounds": rounds, "warmup_rounds": warmup, "wall_s": round(wall, 2),
        "contestants": rows, "cpu_busy_during": busy, "server_exit_codes": codes,
    }
    if quiet is not None:
        report["quiet_check"] = quiet
    return report


def format_report(report: dict[str, Any]) -> str:
    lines = [
        (f"list_files over {report['files']} files ({report['entries']} entries, depth {report['depth']}; "
         f"{report['rounds']} full listings each, interleaved)"),
        *cli.table([("contestant", "<44"), ("pages", ">5"), ("call med ms", ">11.3f"), ("call p90", ">8.3f"), ("listing med ms", ">14.3f"),
                    ("x raw", ">6.1f"), ("max page B", ">10")],
                   [(row["name"], row["pages"], row["per_call_ms"]["median"], row["per_call_ms"]["p90"], row["per_listing_ms"]["median"],
                     row["listing_vs_raw"], row["bytes_per_page_max"] or None) for row in report["contestants"]]),
    ]
    return "\n".join(lines + cli.load_lines(report))


def main() -> None:
    parser = cli.parser(__doc__, wait_quiet=True)
    parser.add_argument("--rounds", type=int, default=20, help="timed full listings per contestant (default 20)")
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    report = run(args.rounds, args.warmup, wait_quiet=args.wait_quiet)
    cli.show(report, format_report, args.json)


if __name__ == "__main__":
    main()
