"""What every benchmark's command line and report share: the options each part takes when run alone (--json,
--seed, --wait-quiet), printing its report, its tables' columns, and the lines that say how busy the machine was."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Report = dict[str, Any]
Column = tuple[str, str]  # the header, and the format spec of its cells ("<44", ">9.3f"): alignment and width shared
_WIDTH = re.compile(r"([<>^]?)(\d*)")


def parser(doc: str | None, *, prog: str | None = None, seed: int | None = None, wait_quiet: bool = False) -> argparse.ArgumentParser:
    """A part's parser, described by its docstring's first paragraph, with --json; --seed (its default) and
    --wait-quiet where the part takes them."""
    made = argparse.ArgumentParser(prog=prog, description=(doc or "").split("\n\n")[0])
    made.add_argument("--json", action="store_true", help="print the JSON report instead of the table")
    if seed is not None:
        made.add_argument("--seed", type=int, default=seed)
    if wait_quiet:
        made.add_argument("--wait-quiet", type=float, default=0.0, metavar="SECONDS",
                          help="first wait up to SECONDS for the CPUs to be under 25%% busy (default: don't wait)")
    return made


def show(report: Report, format_report: Callable[[Report], str], as_json: bool) -> None:
    print(json.dumps(report, indent=2) if as_json else format_report(report))


def table(columns: Sequence[Column], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A header line and a line per row, indented by two: each cell in its column's format, None or "" left blank."""
    shapes = [_WIDTH.match(spec).groups() for _, spec in columns]  # type: ignore[union-attr]  # matches any string

    def line(cells: Iterable[str]) -> str:
        return "  " + " ".join(cells).rstrip()

    header = line(f"{title:{align or '>'}{width}}" for (title, _), (align, width) in zip(columns, shapes, strict=True))
    return [header, *(line(" " * int(width or 0) if value is None or value == "" else format(value, spec)
                           for value, (_, spec), (_, width) in zip(row, columns, shapes, strict=True)) for row in rows)]


def load_lines(report: Report, ratio_note: str = "") -> list[str]:
    """How busy the CPUs were before (the quiet check) and during the timed rounds, everyone's and this
    benchmark's own processes', as the part recorded them."""
    lines = []
    quiet = report.get("quiet_check")
    if quiet is not None:
        lines.append(f"  before the run: CPUs {quiet['cpu_busy_before']:.0%} busy after waiting {quiet['waited_s']} s"
                     + ("" if quiet["quiet"] else f" (never quiet{': ' + ratio_note if ratio_note else ''})"))
    busy, ours = report.get("cpu_busy_during"), report.get("cpu_ours_during")
    if busy is not None:
        lines.append(f"  CPUs busy during the timed rounds: {busy:.0%} (everyone's load)"
                     + (f"; this benchmark's own processes: {ours:.0%}" if ours is not None else ""))
    return lines
