"""stdio's framing: newline-delimited messages of at most `limit` bytes, in bounded memory.

Pure (bytes in, lines out), so the stdio transport decides only where the bytes come from. A
line over the limit is not kept: its first `keep` bytes are (to find the request's id in), the
rest is counted and dropped as it arrives, so a 100 MB line costs `limit` bytes of memory at most,
and the lines after it are served as usual.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit: its first bytes and its whole length."""

    prefix: bytes
    size: int


class LineFramer:
    def __init__(self, limit: int, keep: int = 4096) -> None:
        self.limit = limit
        self.keep = keep
        self._parts: list[bytes] = []
        self._size = 0
        self._oversized: Oversized | None = None  # the line being dropped

    def feed(self, chunk: bytes) -> list[bytes | Oversized]:
        """The lines `chunk` completes (without their newline), in order."""
        done: list[bytes | Oversized] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._take(chunk[start:end])
            done.append(self._finish())
            start = end + 1
        self._take(chunk[start:])
        return done

    def end(self) -> list[bytes | Oversized]:
        """At end of input: the last line, when it had no newline."""
        if self._size == 0 and self._oversized is None:
            return []
        return [self._finish()]

    def _take(self, piece: bytes) -> None:
        if not piece:
            return
        if self._oversized is not None:
            self._oversized = Oversized(self._oversized.prefix, self._oversized.size + len(piece))
            return
        if self._size + len(piece) > self.limit:
            head = b"".join(self._parts) + piece[: self.keep]
            self._oversized = Oversized(head[: self.keep], self._size + len(piece))
            self._parts, self._size = [], 0
            return
        self._parts.append(piece)
        self._size += len(piece)

    def _finish(self) -> bytes | Oversized:
        if self._oversized is not None:
            line: bytes | Oversized = self._oversized
            self._oversized = None
            return line
        line = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
        self._parts, self._size = [], 0
        return line
