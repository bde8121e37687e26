"""What a cut output says of its rest: the read_output call, with its arguments, that reads it from its first cut
line (a model can call a tool where many hosts never let it read a resource; docs/choices.md "Outputs as resources")."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import NamedTuple

READ_OUTPUT = "read_output"
NO_RESOURCE_HINT = "request programmatic/structured for the full output"  # the store could not keep the outputs
SHOWN_CALLS = 3  # a cut text names at most this many outputs' calls
SEARCH_HINT = 'or add pattern="<regex>" to find lines'


class Piece(NamedTuple):
    """A part of a text shown to a model: an output's text, or a note of ours (`uri` None)."""

    text: str
    uri: str | None


def read_call(uri: str, **arguments: object) -> str:
    """`read_output(uri="...", line=151)`: the call as a model writes it, its values in JSON."""
    return f"{READ_OUTPUT}(" + ", ".join(f"{name}={json.dumps(value)}" for name, value in {"uri": uri, **arguments}.items()) + ")"


def line_at(data: bytes, offset: int) -> int:
    """The line (from 1) holding byte `offset` of `data`."""
    return data[:max(offset, 0)].count(b"\n") + 1


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def cut_notice(pieces: Sequence[Piece], *, fallback: str = NO_RESOURCE_HINT) -> Callable[[int, int], str]:
    """The hint of a text made of `pieces` in their order, for the bytes [start, stop) of it cut: which lines of each
    cut output are gone and the call that reads them; `fallback` when no cut piece is an output with a resource."""

    def notice(start: int, stop: int) -> str:
        calls: list[str] = []
        cut = 0
        at = 0
        for piece in pieces:
            data = piece.text.encode()
            low, high = at, at + len(data)
            at = high
            if piece.uri is None or high <= start or low >= stop:
                continue
            cut += 1
            if len(calls) == SHOWN_CALLS:
                continue
            first, last = line_at(data, start - low), line_at(data, min(stop, high) - low - 1)
            span = f"line {first}" if first == last else f"lines {first}-{last}"
            calls.append(f"{span} of {line_count(data)}: {read_call(piece.uri, line=first)}")
        if not calls:
            return fallback
        more = f" (and {cut - len(calls)} more outputs)" if cut > len(calls) else ""
        return "; ".join(calls) + more + f", {SEARCH_HINT}"

    return notice
