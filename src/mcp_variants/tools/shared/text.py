"""Text for models and people: budgets, and counted words."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

# What a cut says of where the rest is: a sentence, or one made for the cut's byte range [start, end) of the text.
Hint = str | Callable[[int, int], str]


class Capped(NamedTuple):
    text: str
    cut: bool  # the text was longer than the limit: `text` ends with the marker


def cap_text(text: str, limit: int, *, hint: Hint, tail: bool = False) -> Capped:
    """At most `limit` bytes of `text`, with a marker saying what was cut and how to get it. `tail`: keep the end
    too, half the budget on each side of the marker, each cut at a line's end where there is one: the end of a
    run's output is where its result, its last log line and its error are."""
    data = text.encode()
    if len(data) <= limit:
        return Capped(text, False)
    if not tail:
        kept = data[:limit].decode(errors="ignore")
        start = len(kept.encode())
        return Capped(f"{kept}\n[... {len(data) - start} more bytes cut; {_said(hint, start, len(data))}]", True)
    head, end = data[:limit // 2], data[len(data) - limit // 2:]
    head = head[:head.rfind(b"\n") + 1] or head
    end = end[end.find(b"\n") + 1:] or end
    first, last = head.decode(errors="ignore"), end.decode(errors="ignore")
    start, stop = len(first.encode()), len(data) - len(last.encode())
    return Capped(f"{first.removesuffix(chr(10))}\n[... {stop - start} more bytes cut; {_said(hint, start, stop)}]\n{last}", True)


def _said(hint: Hint, start: int, stop: int) -> str:
    return hint if isinstance(hint, str) else hint(start, stop)


def plural(count: int, word: str) -> str:
    """'1 cell', '3 cells'."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def cap_each(texts: list[str], limit: int, *, hint: Hint | Sequence[Hint], tail: bool = False) -> list[Capped]:
    """`texts` capped to share one budget of `limit` bytes: a text within its fair share is kept whole
    and leaves what it did not use to the longer ones, so one long text cannot crowd out the short. `hint`: one for
    all, or one per text."""
    hints = [hint] * len(texts) if isinstance(hint, str) or callable(hint) else list(hint)
    sizes = [len(text.encode()) for text in texts]
    budget, left = limit, len(texts)
    caps = [0] * len(texts)
    for i in sorted(range(len(texts)), key=sizes.__getitem__):
        caps[i] = min(sizes[i], budget // left)
        budget, left = budget - caps[i], left - 1
    return [cap_text(text, cap, hint=said, tail=tail) for text, cap, said in zip(texts, caps, hints, strict=True)]
