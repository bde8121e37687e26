"""Waiting on what a test is about, never on the clock: `until(check)` returns `check()`'s first truthy value, or fails
the test with `what` once `timeout` seconds have passed (the deadline is for a hang, not a guess at how long it takes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def _poll(check: Callable[[], T], timeout: float, every: float) -> tuple[bool, T]:
    """Whether `check()` came true within `timeout` seconds, and its last value."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            return False, value
        time.sleep(every)
    return True, value


def within(check: Callable[[], T], timeout: float, every: float = 0.05) -> T | None:
    """`check()`'s first truthy value, or None once `timeout` seconds have passed: for a caller that says what a
    miss means itself."""
    came, value = _poll(check, timeout, every)
    return value if came else None


def until(check: Callable[[], T], what: str, timeout: float = 30.0, every: float = 0.05) -> T:
    came, value = _poll(check, timeout, every)
    if not came:
        raise AssertionError(f"{what}: not so after {timeout:g} s (last seen: {value!r})")
    return value


def marked_sleep(marker: Path, seconds: float, then: str = "") -> str:
    """Source for a kernel: create `marker`, sleep `seconds`, then run `then`. A test that needs the run to have begun
    waits for the marker (`until(marker.exists, ...)`): a run's start is not seen on the wire."""
    return f"import pathlib, time\npathlib.Path({str(marker)!r}).touch()\ntime.sleep({seconds!r})\n{then}"
