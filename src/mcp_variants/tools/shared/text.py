"""Text for models and people: budgets, and counted words."""

from __future__ import annotations

from typing import NamedTuple


class Capped(NamedTuple):
    text: str
    cut: bool  # the text was longer than the limit: `text` ends with the marker


def cap_text(text: str, limit: int, *, hint: str) -> Capped:
    """At most `limit` bytes of `text`, with a marker saying what was cut and how to get it."""
    data = text.encode()
    if len(data) <= limit:
        return Capped(text, False)
    kept = data[:limit].decode(errors="ignore")
    return Capped(f"{kept}\n[... {len(data) - len(kept.encode())} more bytes cut; {hint}]", True)


def plural(count: int, word: str) -> str:
    """'1 cell', '3 cells'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
