"""The report's three figures, as HTML with inline SVG: bytes per audience, the round trip
against the raw kernel, and the live-edit latency (or that it is not measured yet)."""

from __future__ import annotations

from html import escape

from .charts import Bar, Segment, bar_chart, human_bytes
from .numbers import Bench, ExecutionBytes, Timing
from .rows import SINK_TITLES


def bytes_figure(executions: list[ExecutionBytes]) -> str:
    charts = []
    for execution in executions:
        bars = [Bar(f"{SINK_TITLES[a.sink]} · {a.selector.rsplit('/', 1)[1]}",
                    (Segment(a.bytes, f"s-{a.sink}", f"{a.selector}: {a.bytes:,} bytes"),), human_bytes(a.bytes))
                for a in execution.audiences]
        legacy = [Segment(execution.legacy_content, "s-legacy", f"content: {execution.legacy_content:,} bytes")]
        if execution.legacy_structured is not None:
            legacy.append(Segment(execution.legacy_structured, "s-legacy2", f"structuredContent: {execution.legacy_structured:,} bytes"))
        bars.append(Bar("legacy pair", tuple(legacy), human_bytes(execution.legacy)))
        if execution.mirror is not None:
            mirrored = (*legacy, Segment(execution.mirror, "s-mirror", f"the JSON mirror in content: {execution.mirror:,} bytes"))
            bars.append(Bar("legacy + JSON mirror", mirrored, human_bytes(execution.legacy + execution.mirror)))
        charts.append(f"<figure><figcaption>{escape(execution.title)}</figcaption>"
                      f"{bar_chart(bars, f'bytes per audience: {execution.title}')}</figure>")
    return (
        "<div class=figures>" + "".join(charts) + "</div>"
        "<p class=caption>Each bar is what one consumer received from one call that asked for every variant the tool declares "
        "(compact JSON of the delivered content blocks or structured value), as the host router delivered it. A client asks only for "
        "the consumers it has. Grey: what every legacy client receives for the same call at 2026-07-28, <code>content</code> and "
        "<code>structuredContent</code> (lighter), whoever uses them; red: the JSON mirror of <code>structuredContent</code> in "
        "<code>content</code> that the MCP specification recommends for backwards compatibility (computed; this server does not send "
        "it). <span class='key s-model'>model</span> <span class='key s-user'>user</span> <span class='key s-program'>program</span> "
        "<span class='key s-view'>view</span></p>"
    )


def roundtrip_figure(bench: Bench | None) -> str:
    """The server's round trip as a multiple of the raw kernel client's under it: the raw part
    (1.0) and what the server adds, per runtime; the budget as a line."""
    if bench is None or not (bench.pairs or bench.primary):
        return "<p class=missing>Round trip: not measured yet (nothing in bench/results/latest.json; run <code>make bench</code>).</p>"
    rows = []
    if bench.primary:
        server_ms, raw_ms = bench.primary_ms or (None, None)
        rows.append(("embedded, budgeted run", str(bench.primary.get("baseline")), str(bench.primary.get("server")),
                     float(bench.primary.get("ratio", 0)), server_ms, raw_ms))
    rows += [(str(p.get("runtime", "?")), str(p.get("raw")), str(p.get("server")), float(p.get("ratio", 0)),
              p.get("server_median_ms"), p.get("raw_median_ms")) for p in bench.pairs]
    bars = []
    for runtime, raw, server, ratio, server_ms, raw_ms in rows:
        ms = f" · {server_ms:.2f} vs {raw_ms:.2f} ms" if server_ms is not None and raw_ms is not None else ""
        bars.append(Bar(runtime, (Segment(1.0, "s-raw", f"{raw}: the raw kernel round trip"),
                                  Segment(max(ratio - 1.0, 0.0), "s-server", f"{server}: ×{ratio}")), f"×{ratio:.2f}{ms}"))
    budget = bench.budget_ratio
    marker = (float(budget), f"budget ×{budget}") if budget else None
    return (f"<figure class=wide><figcaption>execute_code <code>1+1</code> through the server, as a multiple of the raw kernel "
            f"client under it</figcaption>"
            f"{bar_chart(bars, 'round trip against the raw kernel', marker, label_width=170, bar_width=330, value_width=180)}</figure>"
            f"<p class=caption>Median round trips; grey is the raw client's (×1), blue what the server adds. From "
            f"{escape(bench.source)}, recorded by <code>make bench</code> (the demo reads it and does not run it). On a stock "
            "jupyter-server both sides wait on its Nagle delay, hence the low ratio (docs/performance.md).</p>")


def live_figure(bench: Bench | None) -> str:
    if bench is None or not bench.live:
        return ("<p class=missing data-live=missing>Live-edit latency (an edit through the server reaching a person's JupyterLab): "
                "not measured yet. No live-edit results in bench/results.</p>")
    charts = []
    for group, timings in _groups(bench.live).items():
        # The REST path is the baseline, grey as the raw client is in the round-trip figure.
        bars = [Bar(name, (Segment(t.median_ms, "s-raw" if name.endswith(": rest") else "s-server", f"{t.name}: median {t.median_ms} ms"),),
                    f"{t.median_ms:.1f} ms" + (f" (p90 {t.p90_ms:.1f})" if t.p90_ms is not None else "")) for name, t in timings]
        caption = LIVE_GROUPS.get(group, group or "Live-edit latency")
        charts.append(f"<figure data-live=measured><figcaption>{escape(caption)}, median milliseconds</figcaption>"
                      f"{bar_chart(bars, 'live-edit latency: ' + caption, label_width=230, bar_width=300, value_width=150)}</figure>")
    return "".join(charts) + f"<p class=caption>From {escape(bench.live_source or bench.source)}.</p>"


# bench/live.py's sections, said for a reviewer.
LIVE_GROUPS = {
    "page": "A tools/call to the change visible in a JupyterLab page",
    "tools": "Each notebook tool's round trip: over the shared document (live, blue) and through REST (grey)",
}


def _groups(timings: list[Timing]) -> dict[str, list[tuple[str, Timing]]]:
    """The timings by their first name part (`page: insert` is `insert` in `page`), in the order they came."""
    groups: dict[str, list[tuple[str, Timing]]] = {}
    for timing in timings:
        group, _, name = timing.name.partition(": ")
        if not name:
            group, name = "", group
        groups.setdefault(group, []).append((name, timing))
    return groups
