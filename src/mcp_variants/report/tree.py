"""A structured output as a compact, collapsible tree (nested <details>, no script).

Long values are shortened for the eye, never silently: a string shows its first characters
and how many more there are, a list or object its first entries and how many more. The raw
response, one click away in the report, has every byte.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

MAX_STRING = 240  # characters of a string shown
MAX_ENTRIES = 25  # entries of a list or object shown
OPEN_DEPTH = 2  # levels open at first
INLINE = 110  # characters: a list or object of scalars this short is one line


def tree(value: Any) -> str:
    return f"<div class=tree>{_node(None, value, 0)}</div>"


def _label(key: str | int | None) -> str:
    if key is None:
        return ""
    return f"<span class=k>{escape(str(key))}</span>: "


def _more(hidden: int, what: str) -> str:
    return f"<div class='leaf more'>… {hidden:,} more {what}</div>" if hidden > 0 else ""


def _node(key: str | int | None, value: Any, depth: int) -> str:
    if isinstance(value, dict | list) and value and not _inline(value):
        entries = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        shown = "".join(_node(k, v, depth + 1) for k, v in entries[:MAX_ENTRIES])
        what = "keys" if isinstance(value, dict) else "items"
        brackets = "{…}" if isinstance(value, dict) else "[…]"
        summary = f"{_label(key)}<span class=p>{brackets}</span> <span class=n>{len(entries):,} {what}</span>"
        opened = " open" if depth < OPEN_DEPTH else ""
        return f"<details{opened}><summary>{summary}</summary>{shown}{_more(len(entries) - MAX_ENTRIES, what)}</details>"
    return f"<div class=leaf>{_label(key)}{_scalar(value)}</div>"


def _inline(value: dict[Any, Any] | list[Any]) -> bool:
    """A small list or object of scalars reads best on one line."""
    items = value.values() if isinstance(value, dict) else value
    return all(not isinstance(v, dict | list) for v in items) and len(json.dumps(value, ensure_ascii=False)) <= INLINE


def _scalar(value: Any) -> str:
    if isinstance(value, dict | list) and value:
        return f"<span class=v>{escape(json.dumps(value, ensure_ascii=False))}</span>"
    if isinstance(value, str):
        if len(value) <= MAX_STRING:
            return f"<span class=s>{escape(json.dumps(value, ensure_ascii=False))}</span>"
        head = json.dumps(value[:MAX_STRING], ensure_ascii=False)[:-1]
        return f"<span class=s>{escape(head)}…</span> <span class=n>{len(value) - MAX_STRING:,} more characters</span>"
    if isinstance(value, dict | list):
        return "<span class=p>{}</span>" if isinstance(value, dict) else "<span class=p>[]</span>"
    return f"<span class=v>{escape(json.dumps(value))}</span>"
