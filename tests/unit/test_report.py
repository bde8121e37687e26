"""The report's pure parts: routing into rows, trees, charts and the numbers read from bench/results.
(tests/apps/test_report.py opens a real report in Chromium.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp_variants.protocol.types import ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED
from mcp_variants.report.charts import Bar, Segment, bar_chart
from mcp_variants.report.context import context_figure
from mcp_variants.report.figures import live_figure
from mcp_variants.report.numbers import execution_bytes, json_bytes, read_bench
from mcp_variants.report.record import SINKS, RecordedExecution, Step, route
from mcp_variants.report.rows import Embeds, audience_rows, script_json
from mcp_variants.report.tree import MAX_ENTRIES, MAX_STRING, tree

UI = UI_STRUCTURED.audience
RESULT = {
    "outputs": [
        {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "two files <b>"}]},
        {"audience": UI, "format": "structured", "structuredContent": {"view": "table", "rows": []}},
        {"audience": "programmatic", "format": "structured", "structuredContent": {"files": []}},  # not requested
    ],
    "_meta": {"io.modelcontextprotocol/cache": {"ttlMs": 1}},
}


def test_route_keeps_what_each_sink_received_and_what_it_dropped() -> None:
    routed = route("list_files", [ASSISTANT_CONTENT, UI_STRUCTURED], RESULT, legacy=False)
    assert tuple(routed.received) == SINKS == ("model", "user", "program", "view")
    assert [d.selector for d in routed.received["model"]] == [ASSISTANT_CONTENT]
    assert [d.selector for d in routed.received["view"]] == [UI_STRUCTURED]
    assert not routed.received["user"] and not routed.received["program"]
    assert routed.dropped == ("unrequested output programmatic/structured",)
    assert routed.view_result() == {"audience": UI, "format": "structured", "structuredContent": {"view": "table", "rows": []}}


def test_legacy_results_go_to_the_model_and_the_program_only() -> None:
    routed = route("list_files", [], {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1}}, legacy=True)
    assert [d.legacy_field for sink in SINKS for d in routed.received[sink]] == ["content", "structuredContent"]
    assert routed.received["program"][0].payload == {"a": 1} and routed.view_result() is None


def test_rows_show_each_consumer_or_say_plainly_that_it_got_nothing() -> None:
    step = Step("t", "r", {}, {"result": RESULT}, routed=route("list_files", [ASSISTANT_CONTENT], RESULT, legacy=False))
    html = audience_rows(step, {}, Embeds({}))
    assert tuple(re.findall(r"data-audience=(\w+)", html)) == SINKS
    assert "two files &lt;b&gt;" in html  # text as text, escaped
    assert html.count("<span class=none>nothing</span>") == 3 and "not requested" in html
    assert "Dropped by the router" in html
    error = Step("e", "r", {}, {"error": {"code": -32602}}, nothing="JSON-RPC error -32602")
    assert audience_rows(error, {}, Embeds({})).count("JSON-RPC error -32602") == 4


def test_a_view_row_embeds_its_payload_once_per_view() -> None:
    tool = {"name": "list_files", "_meta": {"ui": {"resourceUri": "ui://x/table.html"}}}
    step = Step("t", "r", {}, {"result": RESULT}, routed=route("list_files", [UI_STRUCTURED], RESULT, legacy=False), tool="list_files")
    embeds = Embeds({"ui://x/table.html": "<html>"})
    html = audience_rows(step, {"list_files": tool}, embeds) + audience_rows(step, {"list_files": tool}, embeds)
    assert html.count("<iframe class=view sandbox='allow-scripts'") == 2
    assert embeds.used == {"ui://x/table.html": "view-html-0"}
    assert [p["toolResult"]["audience"] for _, p in embeds.payloads] == [UI, UI]
    assert "<" not in script_json({"a": "</script><!--"})


def test_trees_shorten_long_values_and_say_by_how_much() -> None:
    long = tree({"text": "x" * (MAX_STRING + 1000), "items": [{"n": i, "nested": [i, [i]]} for i in range(MAX_ENTRIES + 5)]})
    assert "1,000 more characters" in long and "5 more items" in long
    assert tree({"path": "a.csv", "size": 1}) == "<div class=tree><div class=leaf><span class=v>{&quot;path&quot;: &quot;a.csv&quot;, " \
                                                 "&quot;size&quot;: 1}</span></div></div>"  # small: one line
    assert "&lt;script&gt;" in tree({"html": "<script>"})


def test_bar_chart_scales_every_bar_to_the_longest() -> None:
    bars = [Bar("a", (Segment(100, "s-model", "a"),), "100"), Bar("b <", (Segment(25, "s-user", "b"), Segment(25, "s-view", "c")), "50")]
    svg = bar_chart(bars, "d", marker=(200, "budget"), bar_width=200)
    widths = [float(w) for w in re.findall(r"<rect class='[^']+' x='[^']+' y='[^']+' width='([\d.]+)'", svg)]
    assert widths == [100.0, 25.0, 25.0]  # the marker (200) is the scale's top
    assert "b &lt;" in svg and "class=marker" in svg


def test_execution_bytes_add_the_mirror_a_legacy_server_would_send() -> None:
    legacy = {"content": [{"type": "text", "text": "hi"}], "structuredContent": {"a": "b"}}
    step = Step("t", "r", {}, {}, routed=route("x", [ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED], RESULT, legacy=False))
    measured = execution_bytes(RecordedExecution("t", step, legacy))
    assert [(a.sink, a.selector) for a in measured.audiences] == [("model", "assistant/content"), ("program", "programmatic/structured")]
    assert measured.legacy == json_bytes(legacy["content"]) + json_bytes({"a": "b"})
    assert measured.mirror == json_bytes({"type": "text", "text": json.dumps({"a": "b"})}) + 1


def _latest(folder: Path, **extra: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "latest.json").write_text(json.dumps({
        "git": {"sha": "abc"}, "recorded_at": "2026-11-29",
        "roundtrip": {"budget_ratio": 1.3, "primary": {"server": "s", "baseline": "r", "ratio": 1.2},
                      "contestants": [{"name": "s", "ms": {"median": 6.0}}, {"name": "r", "ms": {"median": 5.0}}]},
        "runtimes": {"pairs": [{"runtime": "embedded", "ratio": 1.21, "raw_median_ms": 4.5, "server_median_ms": 5.46}]}, **extra}))


def test_bench_results_are_read_and_live_edits_say_when_they_are_missing(tmp_path: Path) -> None:
    assert read_bench(tmp_path) is None
    _latest(tmp_path)
    bench = read_bench(tmp_path)
    assert bench is not None and bench.primary_ms == (6.0, 5.0) and bench.pairs[0]["ratio"] == 1.21 and not bench.live
    assert "not measured yet" in live_figure(bench) and "not measured yet" in live_figure(None)
    _latest(tmp_path, live={"contestants": [{"name": "edit reaches JupyterLab", "ms": {"median": 12.5, "p90": 20.0}}]})
    bench = read_bench(tmp_path)
    assert bench is not None and [(t.name, t.median_ms) for t in bench.live] == [("edit reaches JupyterLab", 12.5)]
    assert "edit reaches JupyterLab" in live_figure(bench) and "not measured yet" not in live_figure(bench)
    _latest(tmp_path)
    (tmp_path / "live-latest.json").write_text(json.dumps({"join": {"room_ms": {"median": 130.0}}}))
    bench = read_bench(tmp_path)
    assert bench is not None and [(t.name, t.median_ms) for t in bench.live] == [("join: room", 130.0)]


def _session(name: str, tokens: list[int], missing: list[list[str]]) -> dict:
    steps = [{"step": f"s{i}", "tokens": t, "bytes": 4 * t, "images": 0, "image_bytes": 0, "missing_facts": m}
             for i, (t, m) in enumerate(zip(tokens, missing, strict=True))]
    return {"name": name, "steps": steps, "totals": {"tokens": sum(tokens), "bytes": 4 * sum(tokens), "images": 0, "image_bytes": 0}}


def test_the_session_tokens_show_as_a_table_and_a_chart_with_the_missing_facts_marked(tmp_path: Path) -> None:
    _latest(tmp_path)
    assert "not measured yet" in context_figure(read_bench(tmp_path)) and "not measured yet" in context_figure(None)
    section = {"rows": 100, "tokenizer": {"package": "gpt-tokenizer", "version": "4.0.0", "encoding": "o200k_base"},
               "steps": [{"name": "s0", "what": "load", "facts": ["(100, 6)"]}, {"name": "s1", "what": "log", "facts": ["done"]}],
               "contestants": [_session("ours 2026-12-01 default", [10, 20], [[], []]),
                               _session("jmcp 2.2.4 content", [30, 90], [[], ["done"]]), {"name": "jmcp skipped", "skipped": "no network"}],
               "verdict": {"ratio": 0.25, "ours_tokens": 30, "theirs_tokens": 120, "steps_where_ours_reads_more": []}}
    (tmp_path / "context-latest.json").write_text(json.dumps({"recorded_at": "2026-12-04", "git": {"sha": "def"}, "context": section}))
    bench = read_bench(tmp_path)
    assert bench is not None and bench.context_source is not None and "commit def" in bench.context_source
    html = context_figure(bench)
    assert "×0.25" in html and "<td class=num>120</td>" in html and html.count("class=bad") == 1 and "missing: done" in html
    assert html.count("<rect") == 4 and "jmcp skipped" not in html, "one bar per contestant that ran, a segment per step"
