"""Text for models and people: budgets, and counted words."""

from __future__ import annotations


def cap_text(text: str, limit: int, *, hint: str) -> str:
    """At most `limit` bytes of `text`, with a marker saying what was cut and how to get it."""
    data = text.encode()
    if len(data) <= limit:
        return text
    kept = data[:limit].decode(errors="ignore")
    return f"{kept}\n[... {len(data) - len(kept.encode())} more bytes cut; {hint}]"


def plural(count: int, word: str) -> str:
    """'1 cell', '3 cells'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
