"""JSON as text: compact, as the server writes it (and the measurements count it), and pretty, for the pages."""

from __future__ import annotations

import json
from typing import Any


def compact(value: Any) -> bytes:
    """JSON exactly as this server writes it on the wire (checked on every stdio response)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def pretty(value: Any, width: int = 96, indent: int = 0) -> str:
    """Indented JSON that keeps a value on one line when it fits in `width` columns."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or indent + len(flat) <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, width, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [f"{pad}{pretty(v, width, indent + 2)}" for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
