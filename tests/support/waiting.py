"""Waiting on what a test is about, never on the clock: `until(check)` returns `check()`'s first truthy value, or fails
the test with `what` once `timeout` seconds have passed (the deadline is for a hang, not a guess at how long it takes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def until(check: Callable[[], T], what: str, timeout: float = 30.0, every: float = 0.05) -> T:
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not so after {timeout:g} s (last seen: {value!r})")
        time.sleep(every)
    return value


def marked_sleep(marker: Path, seconds: float, then: str = "") -> str:
    """Source for a kernel: create `marker`, sleep `seconds`, then run `then`. A test that needs the run to have begun
    waits for the marker (`until(marker.exists, ...)`): a run's start is not seen on the wire."""
    return f"import pathlib, time\npathlib.Path({str(marker)!r}).touch()\ntime.sleep({seconds!r})\n{then}"
