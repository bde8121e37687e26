"""The audit trail: one JSON line per tool call, to a file or a logger, never in the call's way.

A call puts its record in a bounded queue and goes on (`put_nowait`); a thread of its own writes the
lines, so a slow disk or a blocked log handler never holds the event loop. When the queue is full the
record is dropped and counted, and the next line written says how many were lost
(`{"event": "dropped", "count": N}`): the trail says it has a gap rather than slowing the calls down.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import orjson

logger = logging.getLogger(__name__)

LOGGER_PREFIX = "logger:"
CAPACITY = 10_000  # records waiting to be written; past it they are dropped (and counted)
_STOP = object()


def timestamp_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class AuditLog:
    """Writes each record as a line through `write` (a file's, or a logger's), in a daemon thread."""

    def __init__(self, write: Callable[[str], object], *, flush: Callable[[], None] = lambda: None,
                 close: Callable[[], None] = lambda: None, capacity: int = CAPACITY, describe: str = "") -> None:
        self._write, self._flush, self._close = write, flush, close  # write may return what it wrote (a file's count)
        self._queue: queue.Queue[Any] = queue.Queue(capacity)
        self.dropped = 0  # records lost to a full queue, since the start
        self._reported = 0
        self.describe = describe
        self._thread = threading.Thread(target=self._run, name="mcp-variants audit", daemon=True)
        self._thread.start()

    @classmethod
    def open(cls, target: str, *, capacity: int = CAPACITY) -> AuditLog:
        """`logger:NAME` writes each line as an INFO record of that logger; anything else is a file, appended to
        (created readable by its owner only: the trail says who ran what)."""
        if target.startswith(LOGGER_PREFIX):
            named = logging.getLogger(target.removeprefix(LOGGER_PREFIX))
            return cls(lambda line: named.info("%s", line), capacity=capacity, describe=target)
        path = Path(target).expanduser()
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        file: IO[str] = os.fdopen(descriptor, "a", encoding="utf-8")
        return cls(lambda line: file.write(line + "\n"), flush=file.flush, close=file.close, capacity=capacity, describe=str(path))

    def record(self, entry: dict[str, Any]) -> None:
        """Queue one record; never blocks (a full queue drops it, counted)."""
        try:
            self._queue.put_nowait(entry)
        except queue.Full:
            self.dropped += 1

    def _run(self) -> None:
        while True:
            entry = self._queue.get()
            if entry is _STOP:
                break
            self._emit(entry)
            if self._queue.empty():
                self._safely(self._flush)
        self._safely(self._flush)
        self._safely(self._close)

    def _emit(self, entry: dict[str, Any]) -> None:
        dropped = self.dropped
        if dropped > self._reported:
            self._line({"ts": timestamp_now(), "event": "dropped", "count": dropped - self._reported})
            self._reported = dropped
        self._line(entry)

    def _line(self, entry: dict[str, Any]) -> None:
        self._safely(lambda: self._write(orjson.dumps(entry, default=str).decode()))

    def _safely(self, step: Callable[[], Any]) -> None:
        try:
            step()
        except Exception:  # a full disk must not end the writer: the next line may get through
            logger.exception("the audit trail %s could not be written", self.describe)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then close the file; waits at most `timeout` seconds."""
        try:
            self._queue.put(_STOP, timeout=timeout)
        except queue.Full:
            logger.warning("the audit trail %s did not drain within %g s", self.describe, timeout)
            return
        self._thread.join(timeout)
