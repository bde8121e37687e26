"""MkDocs hooks (mkdocs.yml `hooks:`): the nav lists every generated tool page.

scripts/gen_docs.py writes docs/api/<tool>.md for every tool in variants/, so the set of
tool pages is not written by hand anywhere: this hook appends them, sorted, to the nav
section whose first entry is api/index.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FIXED = {"index.md", "shapes.md"}


def on_config(config: Any, **_: Any) -> Any:
    api = Path(config["docs_dir"]) / "api"
    pages = sorted(p.name for p in api.glob("*.md") if p.name not in FIXED)
    section = _find_section(config["nav"] or [])
    if section is None:
        raise ValueError("mkdocs.yml: no nav section starts with api/index.md")
    listed = {entry if isinstance(entry, str) else next(iter(entry.values())) for entry in section}
    section.extend({p[:-3]: f"api/{p}"} for p in pages if f"api/{p}" not in listed)
    return config


def _find_section(nav: list[Any]) -> list[Any] | None:
    for entry in nav:
        if isinstance(entry, dict):
            for value in entry.values():
                if isinstance(value, list):
                    if value and value[0] == "api/index.md":
                        return value
                    found = _find_section(value)
                    if found is not None:
                        return found
    return None
