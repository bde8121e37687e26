"""Pages of an output's text, for a model that was shown it cut: lines from a place, or the lines matching a pattern
with some around them, each page within the text budget and the place to go on from (`next`, a character offset).

Pure: the text in, the page out (tools/read_output.py reads the output and words the page)."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

LONG_LINE = 2_000  # bytes of one matching line shown; the rest is read from the line itself


@dataclass(frozen=True)
class Line:
    number: int  # from 1
    text: str  # without its line end; part of the line when the page starts or ends inside it


@dataclass(frozen=True)
class Page:
    lines: tuple[Line, ...]
    total_lines: int
    next: int | None  # where the next page starts (a character offset), None at the end
    matches: tuple[int, ...] = ()  # the matching lines shown (a search)
    total_matches: int = 0  # every matching line from where the search began


class Text:
    """An output's text, by lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True) or [""]
        self.starts = [0]
        for line in self.lines[:-1]:
            self.starts.append(self.starts[-1] + len(line))

    @property
    def total_lines(self) -> int:
        return len(self.lines)

    def offset_of(self, line: int) -> int:
        """Where line `line` (from 1) starts; ValueError past the last."""
        if not 1 <= line <= len(self.lines):
            raise ValueError(f"the output has {len(self.lines)} line{'s' if len(self.lines) != 1 else ''}")
        return self.starts[line - 1]

    def line_at(self, offset: int) -> int:
        """The line (from 1) holding character `offset`."""
        return bisect_right(self.starts, offset)

    def read(self, offset: int, budget: int, max_lines: int | None = None) -> Page:
        """The lines from character `offset`: as many as fit `budget` bytes (and `max_lines`), at least part of one."""
        index = self.line_at(offset) - 1
        taken: list[Line] = []
        used = 0
        at = offset
        while index < len(self.lines) and (max_lines is None or len(taken) < max_lines):
            piece = self.lines[index][at - self.starts[index]:]
            size = len(piece.encode())
            if used + size > budget:
                if not taken:  # a line longer than the page: as much of it as fits
                    part = piece.encode()[:budget].decode(errors="ignore")
                    taken.append(Line(index + 1, part.rstrip("\r\n")))
                    at += len(part)
                break
            taken.append(Line(index + 1, piece.rstrip("\r\n")))
            used += size
            index += 1
            at = self.starts[index] if index < len(self.lines) else len(self.text)
        return Page(tuple(taken), len(self.lines), at if at < len(self.text) else None)

    def search(self, pattern: re.Pattern[str], offset: int, budget: int, context: int) -> Page:
        """The lines from character `offset` on that match `pattern`, each with `context` lines before and after,
        as many matches as fit `budget` bytes (at least one)."""
        first = self.line_at(offset) - 1
        found = [i for i in range(first, len(self.lines)) if pattern.search(self.lines[i])]
        shown: dict[int, Line] = {}
        matches: list[int] = []
        used = 0
        last = first - 1
        for i in found:
            window = [j for j in range(max(i - context, first), min(i + context, len(self.lines) - 1) + 1) if j not in shown]
            texts = {j: _short(self.lines[j].rstrip("\r\n")) for j in window}
            size = sum(len(t.encode()) + 8 for t in texts.values())
            if matches and used + size > budget:
                break
            shown.update({j: Line(j + 1, t) for j, t in texts.items()})
            matches.append(i + 1)
            used += size
            last = max(last, *window) if window else last
        more = len(matches) < len(found) and last + 1 < len(self.lines)
        return Page(tuple(shown[j] for j in sorted(shown)), len(self.lines), self.starts[last + 1] if more else None,
                    tuple(matches), len(found))


def _short(line: str) -> str:
    data = line.encode()
    if len(data) <= LONG_LINE:
        return line
    return data[:LONG_LINE].decode(errors="ignore") + f" [... {len(data) - LONG_LINE} more bytes of this line]"
