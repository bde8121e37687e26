"""Changing a shared text by the region that differs (no I/O).

A source edit becomes one replacement of the span between the common prefix and suffix of the
old and new text, so characters outside it, such as what a person types elsewhere in the same
cell, are never touched. Shared texts (pycrdt.Text) count in UTF-8 bytes, so spans are given
in bytes, at character boundaries.
"""

from __future__ import annotations

from typing import NamedTuple


class Span(NamedTuple):
    start: int  # characters (code points)
    end: int  # in the old text
    replacement: str


def changed_span(old: str, new: str) -> Span | None:
    """The one span of `old` that `new` replaces; None when they are equal."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    tail = 0
    while tail < limit - start and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    return Span(start, len(old) - tail, new[start:len(new) - tail])


def rebase(span: Span, seen: str, now: str) -> Span:
    """`span`, made against the text `seen`, moved onto the text as it is `now` (changed by
    someone else meanwhile): a position before their change stays, one after it shifts by its
    length, one inside it goes to the edge of it. Both changes are kept."""
    theirs = changed_span(seen, now)
    if theirs is None:
        return span
    grown = len(now) - len(seen)

    def moved(position: int, *, left: bool) -> int:
        if position <= theirs.start:
            return position
        if position >= theirs.end:
            return position + grown
        return theirs.start if left else theirs.start + len(theirs.replacement)

    start = moved(span.start, left=True)
    return Span(start, max(start, moved(span.end, left=False)), span.replacement)


def byte_span(text: str, span: Span) -> tuple[int, int]:
    """`span`'s start and end in UTF-8 bytes of `text`."""
    start = len(text[:span.start].encode())
    return start, start + len(text[span.start:span.end].encode())
