"""The report's numbers: bytes per audience of the demo's own executions, and the recorded
benchmarks (bench/results, read and never run: `make bench` is what measures them).

Bytes are the compact JSON (UTF-8) of what a consumer received: a delivery's payload (the
content blocks or the structured value), and for the legacy pair its `content` array and
`structuredContent`. The mirror is computed, not served: the legacy pair with
`structuredContent` serialised into one more text block, as the MCP specification recommends
for backwards compatibility and this server does not do.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .record import SINKS, RecordedExecution

LATEST = "latest.json"
LIVE_FILE = "live-latest.json"  # a live-edit benchmark recorded on its own, like overhead-latest.json
CONTEXT_FILE = "context-latest.json"  # `python -m bench.context --record`: the session's tokens, recorded on its own


def json_bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


@dataclass(frozen=True)
class AudienceBytes:
    sink: str
    selector: str
    bytes: int


@dataclass(frozen=True)
class ExecutionBytes:
    title: str
    audiences: list[AudienceBytes]
    legacy_content: int
    legacy_structured: int | None  # None: the legacy result had no structuredContent
    mirror: int | None  # the text block a mirroring server would add

    @property
    def legacy(self) -> int:
        return self.legacy_content + (self.legacy_structured or 0)


def execution_bytes(execution: RecordedExecution) -> ExecutionBytes:
    routed = execution.step.routed
    audiences = [AudienceBytes(sink, str(d.selector), json_bytes(d.payload))
                 for sink in SINKS for d in (routed.received[sink] if routed else ())]
    legacy = execution.legacy_result
    structured = legacy.get("structuredContent") if "structuredContent" in legacy else None
    mirror = None
    if structured is not None:
        mirror = json_bytes({"type": "text", "text": json.dumps(structured)}) + 1  # one more element: a comma
    return ExecutionBytes(execution.title, audiences, json_bytes(legacy.get("content", [])),
                          json_bytes(structured) if structured is not None else None, mirror)


# ---- bench/results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    name: str
    median_ms: float
    p90_ms: float | None = None


@dataclass
class Bench:
    """What the report shows of bench/results; each part None when it was not recorded."""

    source: str  # where it came from, said under the charts
    primary: Mapping[str, Any] | None = None  # roundtrip.primary: the budgeted ratio
    primary_ms: tuple[float, float] | None = None  # its (server, raw) medians
    budget_ratio: float | None = None
    pairs: list[Mapping[str, Any]] = field(default_factory=list)  # runtimes.pairs: server vs the raw client, per runtime
    live: list[Timing] = field(default_factory=list)  # live-edit latency
    live_source: str | None = None
    context: Mapping[str, Any] | None = None  # bench.context: tokens per step, per contestant
    context_source: str | None = None


def results_dir(start: Path | None = None) -> Path | None:
    """bench/results of the checkout: under the working folder (make demo), else above this package."""
    here = Path(__file__).resolve()
    for root in (start or Path.cwd(), *here.parents):
        folder = root / "bench" / "results"
        if (folder / LATEST).is_file():
            return folder
    return None


def read_bench(folder: Path | None) -> Bench | None:
    if folder is None or not (folder / LATEST).is_file():
        return None
    latest = json.loads((folder / LATEST).read_text())
    git = latest.get("git") or {}
    bench = Bench(f"bench/results/{LATEST}: commit {git.get('sha', '?')}, recorded {latest.get('recorded_at', '?')}")
    roundtrip = latest.get("roundtrip") or {}
    bench.primary = roundtrip.get("primary")
    bench.budget_ratio = roundtrip.get("budget_ratio")
    medians = {t.name: t.median_ms for t in timings({"contestants": roundtrip.get("contestants") or []})}
    if bench.primary and bench.primary.get("server") in medians and bench.primary.get("baseline") in medians:
        bench.primary_ms = (medians[bench.primary["server"]], medians[bench.primary["baseline"]])
    bench.pairs = list((latest.get("runtimes") or {}).get("pairs") or [])
    for key, section in latest.items():
        if key.lower().startswith("live") and isinstance(section, dict):
            bench.live, bench.live_source = list(timings(section)), f"bench/results/{LATEST}, section {key!r}"
    live_file = folder / LIVE_FILE
    if not bench.live and live_file.is_file():
        bench.live, bench.live_source = list(timings(json.loads(live_file.read_text()))), f"bench/results/{LIVE_FILE}"
    bench.context, bench.context_source = _context(folder, latest)
    return bench


def _context(folder: Path, latest: Mapping[str, Any]) -> tuple[Mapping[str, Any] | None, str | None]:
    """The newer of bench.context's two records: a section of latest.json (`make bench`) or context-latest.json."""
    found = []
    if isinstance(latest.get("context"), dict) and "contestants" in latest["context"]:
        found.append((str(latest.get("recorded_at", "")), latest["context"], f"bench/results/{LATEST}, commit "
                      f"{(latest.get('git') or {}).get('sha', '?')}, recorded {latest.get('recorded_at', '?')}"))
    alone = folder / CONTEXT_FILE
    if alone.is_file():
        record = json.loads(alone.read_text())
        if isinstance(record.get("context"), dict):
            found.append((str(record.get("recorded_at", "")), record["context"],
                          f"bench/results/{CONTEXT_FILE}, commit {(record.get('git') or {}).get('sha', '?')}, "
                          f"recorded {record.get('recorded_at', '?')}"))
    if not found:
        return None, None
    _, section, source = max(found, key=lambda item: item[0])
    return section, source


def timings(section: Mapping[str, Any], prefix: str = "", depth: int = 0) -> Iterator[Timing]:
    """Every latency a benchmark section records: bench's contestants (`{"name", "ms": stats}`)
    and any stats object (`{"median", "p90", ...}` in ms) under a key, a few levels down."""
    for key, value in section.items():
        if key == "contestants" and isinstance(value, list):
            for entry in value:
                stats = entry.get("ms") if isinstance(entry, dict) else None
                if isinstance(stats, dict) and isinstance(stats.get("median"), int | float):
                    yield Timing(prefix + str(entry.get("name", "?")), float(stats["median"]), stats.get("p90"))
        elif isinstance(value, dict) and isinstance(value.get("median"), int | float):
            yield Timing(prefix + key.removesuffix("_ms"), float(value["median"]), value.get("p90"))
        elif isinstance(value, dict) and depth < 2:
            yield from timings(value, f"{prefix}{key}: ", depth + 1)
