"""What reaches the model over a session (bench/context.py's record): one table, tokens per step per contestant,
and one chart, each contestant's session as a bar of its steps' tokens."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from .charts import Bar, Segment, bar_chart
from .numbers import Bench

TOTALS: tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...] = (
    ("tokens", lambda t: f"{t['tokens']:,}"), ("bytes", lambda t: f"{t['bytes']:,}"),
    ("images", lambda t: f"{t['images']} · {t['image_bytes'] // 1024} KB"),
)


def _ran(section: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [c for c in section.get("contestants", []) if isinstance(c, dict) and "steps" in c]


def _css(name: str, step: int) -> str:
    """Ours in the model's colour, jupyter-mcp-server's in grey; every other step lighter, so the steps show."""
    return ("s-model" if name.startswith("ours") else "s-legacy") + (" alt" if step % 2 else "")


def context_table(section: Mapping[str, Any]) -> str:
    ran = _ran(section)
    head = "".join(f"<th>{escape(c['name'])}</th>" for c in ran)
    rows = []
    for i, step in enumerate(section.get("steps", [])):
        cells = []
        for contestant in ran:
            row = contestant["steps"][i]
            lost = row.get("missing_facts") or []
            mark = f" <span class=bad title='{escape('missing: ' + ', '.join(lost), quote=True)}'>✗</span>" if lost else ""
            cells.append(f"<td class=num>{row['tokens']:,}{mark}</td>")
        facts = escape(" · ".join(step.get("facts", [])))
        rows.append(f"<tr><th title='{escape('facts checked: ', quote=True)}{facts}'>{escape(step['what'])}</th>{''.join(cells)}</tr>")
    for label, show in TOTALS:
        sums = "".join(f"<td class=num>{show(c['totals'])}</td>" for c in ran)
        rows.append(f"<tr class=total><th>{label}, the session</th>{sums}</tr>")
    return f"<table class='suite context'><thead><tr><th>step</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def context_chart(section: Mapping[str, Any]) -> str:
    steps = [s["name"] for s in section.get("steps", [])]
    ran = _ran(section)
    theirs = next((c["totals"]["tokens"] for c in ran if not c["name"].startswith("ours") and "structured" not in c["name"]), None)
    bars = []
    for contestant in ran:
        segments = tuple(Segment(row["tokens"], _css(contestant["name"], i), f"{contestant['name']}, {steps[i]}: {row['tokens']:,} tokens")
                         for i, row in enumerate(contestant["steps"]))
        total = contestant["totals"]["tokens"]
        ratio = f" · ×{total / theirs:.2f}" if theirs else ""
        bars.append(Bar(contestant["name"], segments, f"{total:,}{ratio}"))
    return bar_chart(bars, "tokens per step, per contestant, over one session", label_width=200, bar_width=330, value_width=130)


def context_figure(bench: Bench | None) -> str:
    section = bench.context if bench is not None else None
    if bench is None or section is None or not _ran(section):
        return ("<p class=missing data-context=missing>What the model reads over a session: not measured yet "
                "(run <code>python -m bench.context --record</code> or <code>make bench</code>).</p>")
    tokenizer = section.get("tokenizer", {})
    verdict = section.get("verdict") or {}
    more = ", ".join(f"{m['step']} ({m['ours']:,} vs {m['theirs']:,})" for m in verdict.get("steps_where_ours_reads_more", []))
    lead = (f"Ours by default reads <b>×{verdict['ratio']}</b> the tokens of jupyter-mcp-server over the session "
            f"({verdict['ours_tokens']:,} vs {verdict['theirs_tokens']:,})" + (f"; more on {escape(more)}" if more else "") + ". "
            if verdict else "")
    return (f"<figure class=wide data-context=measured><figcaption>Tokens per step of one data session, per contestant "
            f"({escape(str(tokenizer.get('package')))} {escape(str(tokenizer.get('version')))}, {escape(str(tokenizer.get('encoding')))})"
            f"</figcaption>{context_chart(section)}</figure>{context_table(section)}"
            f"<p class=caption>{lead}Each bar is one session ({section.get('rows', 0):,}-row CSV: load, describe, group, plot, "
            "a KeyError and its fix, a 3,000-line log, read back, files, variables, run all), each segment one step; the text the "
            "model reads is tokenized, images are counted apart. ✗: a fact the step must bring (hover the step for them) "
            f"was missing. From {escape(str(bench.context_source))} (<code>bench/context.py</code>).</p>")
