"""Small helpers shared by the benchmarks: percentiles and summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of already sorted values, linear interpolation."""
    if not sorted_values:
        return math.nan
    if len(sorted_values) == 1:
        return float(sorted_values[0])
    position = (len(sorted_values) - 1) * q / 100.0
    low = math.floor(position)
    high = math.ceil(position)
    if low == high:
        return float(sorted_values[low])
    weight = position - low
    return float(sorted_values[low] * (1 - weight) + sorted_values[high] * weight)


def summarize(values: Sequence[float], digits: int = 3) -> dict[str, Any]:
    """n, min, median, mean, p90, p99 and max of `values` (same unit in, same unit out)."""
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "min": round(ordered[0], digits),
        "median": round(percentile(ordered, 50), digits),
        "mean": round(sum(ordered) / len(ordered), digits),
        "p90": round(percentile(ordered, 90), digits),
        "p99": round(percentile(ordered, 99), digits),
        "max": round(ordered[-1], digits),
    }
