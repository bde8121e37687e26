"""Projectors for tables (list_files, list_kernels, list_notebooks, read_notebook): the Results contract's rows shape and its siblings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...protocol.projection import ToolProjectors
from ...protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_STRUCTURED,
    USER_STRUCTURED,
)
from .text import cap_text


@dataclass(frozen=True)
class Table:
    """A table: display columns and rows, plus the typed records a program gets."""

    kind: str
    title: str
    columns: tuple[tuple[str, str], ...]  # (key, label)
    rows: list[dict[str, Any]]
    programmatic: dict[str, Any]
    text_limit: int
    empty_message: str
    next_cursor: str | None = None
    facets: dict[str, list[str]] = field(default_factory=dict)
    note: str = ""  # a line the model reads after the rows (or the empty message)
    # How a model reads a column's values (a size as "7.4 KB"); programmatic/structured keeps the machine values.
    shown: dict[str, Callable[[Any], Any]] = field(default_factory=dict)

    def _value(self, row: dict[str, Any], key: str) -> Any:
        value = row.get(key)
        return self.shown[key](value) if key in self.shown and value is not None else value

    def tsv(self) -> str:
        lines = ["\t".join(label for _, label in self.columns)]
        lines += ["\t".join("" if (value := self._value(row, key)) is None else str(value) for key, _ in self.columns)
                  for row in self.rows]
        return "\n".join(lines)

    def items(self) -> list[dict[str, Any]]:
        """Rows keyed by column label, as the Results contract shows them (and the model reads them)."""
        return [{label: self._value(row, key) for key, label in self.columns} for row in self.rows]


PAGING_HINT = "pass nextCursor as cursor for the next page"


def rows_within(rows: list[dict[str, Any]], columns: tuple[tuple[str, str], ...], budget: int) -> int:
    """How many leading rows fit in `budget` bytes of table text (at least one).

    A page is cut to what a model can be shown whole, so every variant describes the same
    rows and nextCursor points at the first row nobody saw.
    """
    used = len("\t".join(label for _, label in columns).encode()) + 200  # header and title
    for count, row in enumerate(rows):
        used += len("\t".join("" if row.get(k) is None else str(row[k]) for k, _ in columns).encode()) + 1
        if used > budget:
            return max(count, 1)
    return len(rows)


def assistant_content(listing: Table) -> list[dict[str, Any]]:
    note = f"\n{listing.note}" if listing.note else ""
    if not listing.rows:
        return [{"type": "text", "text": listing.empty_message + note}]
    text = f"{listing.title} ({len(listing.rows)}):\n{listing.tsv()}"
    if listing.next_cursor:
        text += f"\nMore rows follow: call again with cursor={listing.next_cursor!r}."
    text += note
    return [{"type": "text", "text": cap_text(text, listing.text_limit, hint=PAGING_HINT).text}]


def assistant_structured(listing: Table) -> dict[str, Any]:
    result: dict[str, Any] = {
        "kind": listing.kind,
        "result": listing.tsv() if listing.rows else listing.empty_message,
        "columns": [label for _, label in listing.columns],
        "items": listing.items(),
        "count": len(listing.rows),
    }
    if listing.next_cursor:
        result["nextCursor"] = listing.next_cursor
    return result


def user_structured(listing: Table) -> dict[str, Any]:
    return {
        "title": listing.title,
        "columns": [{"key": key, "label": label} for key, label in listing.columns],
        "rows": listing.rows,
    }


def ui_structured(listing: Table) -> dict[str, Any]:
    view: dict[str, Any] = {
        "view": "table",
        "columns": [key for key, _ in listing.columns],
        "rows": listing.rows,
        "facets": listing.facets,
    }
    if listing.next_cursor:
        view["nextCursor"] = listing.next_cursor
    return view


TABLE_PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: assistant_content,
        ASSISTANT_STRUCTURED: assistant_structured,
        PROGRAMMATIC_STRUCTURED: lambda listing: listing.programmatic,
        USER_STRUCTURED: user_structured,
        UI_STRUCTURED: ui_structured,
    }
)
