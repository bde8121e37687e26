"""Horizontal bar charts as inline SVG: the report draws its numbers itself, with no library and
nothing loaded. Colours come from CSS classes (the page's stylesheet), one per audience."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

LABEL_WIDTH = 150
BAR_WIDTH = 170
VALUE_WIDTH = 64
ROW = 22
BAR = 14


@dataclass(frozen=True)
class Segment:
    value: float
    css: str  # the fill's class, e.g. "s-model"
    title: str  # the tooltip


@dataclass(frozen=True)
class Bar:
    label: str
    segments: tuple[Segment, ...]  # stacked left to right
    text: str  # after the bar: the value, and a ratio where there is one


def bar_chart(bars: Sequence[Bar], description: str, marker: tuple[float, str] | None = None, *,
              label_width: int = LABEL_WIDTH, bar_width: int = BAR_WIDTH, value_width: int = VALUE_WIDTH) -> str:
    """One SVG: a row per bar, all on one linear scale from zero to the longest bar (or the
    marker: a dashed line at a value, such as a budget, labelled under the bars); each bar's
    text in a column on the right."""
    top = max([*(sum(s.value for s in bar.segments) for bar in bars), marker[0] if marker else 0]) or 1
    width = label_width + bar_width + value_width
    height = ROW * len(bars) + 4 + (16 if marker else 0)
    parts = [f"<svg class=chart xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='{width}' "
             f"height='{height}' role='img' aria-label='{escape(description, quote=True)}'>"]
    for i, bar in enumerate(bars):
        y = i * ROW + 2
        middle = y + BAR / 2
        parts.append(f"<text class=label x='{label_width - 8}' y='{middle}' dy='.35em' text-anchor='end'>{escape(bar.label)}</text>")
        x = float(label_width)
        for segment in bar.segments:
            w = bar_width * segment.value / top
            parts.append(f"<rect class='{segment.css}' x='{x:.1f}' y='{y}' width='{max(w, 1.0):.1f}' height='{BAR}'>"
                         f"<title>{escape(segment.title)}</title></rect>")
            x += w
        parts.append(f"<text class=value x='{label_width + bar_width + 6}' y='{middle}' dy='.35em'>{escape(bar.text)}</text>")
    if marker:
        x = label_width + bar_width * marker[0] / top
        bottom = ROW * len(bars) + 2
        parts.append(f"<line class=marker x1='{x:.1f}' x2='{x:.1f}' y1='0' y2='{bottom}'/>"
                     f"<text class=label x='{x:.1f}' y='{bottom + 11}' text-anchor='middle'>{escape(marker[1])}</text>")
    parts.append("</svg>")
    return "".join(parts)


def human_bytes(n: float) -> str:
    if n < 1000:
        return f"{n:.0f} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1_000_000:.2f} MB"
