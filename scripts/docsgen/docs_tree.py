"""The generated folders under docs/ on disk: written (stale files deleted), or compared with (`--check`).

The generator owns docs/examples/, docs/api/ and docs/python-api/ entirely, and nothing else under docs/.
"""

from __future__ import annotations

import difflib
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
OWNED = ("examples", "api", "python-api")
DIFF_LINES = 40  # per file, in a --check report


def on_disk(base: Path) -> dict[str, str]:
    """Every file in the owned folders under `base`, by path relative to it."""
    found: dict[str, str] = {}
    for folder in OWNED:
        for path in sorted((base / folder).rglob("*")):
            if path.is_file():
                found[path.relative_to(base).as_posix()] = path.read_text()
    return found


def write(files: dict[str, str], base: Path) -> None:
    """`files` under `base`; a file in the owned folders that is not among them is deleted."""
    for rel in on_disk(base):
        if rel not in files:
            (base / rel).unlink()
    for rel, text in files.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def check(files: dict[str, str], base: Path) -> list[str]:
    """What differs between `files` and the owned folders under `base`: missing, stale, or a diff per file."""
    problems: list[str] = []
    committed = on_disk(base)
    for rel in sorted(set(files) | set(committed)):
        if rel not in committed:
            problems.append(f"missing: docs/{rel} (the server produces it now)")
        elif rel not in files:
            problems.append(f"stale: docs/{rel} (nothing produces it any more)")
        elif committed[rel] != files[rel]:
            diff = difflib.unified_diff(committed[rel].splitlines(), files[rel].splitlines(),
                                        f"docs/{rel} (committed)", f"docs/{rel} (the server now)", lineterm="", n=1)
            lines = list(diff)
            more = [f"... {len(lines) - DIFF_LINES} more diff lines"] if len(lines) > DIFF_LINES else []
            problems.append("\n".join(lines[:DIFF_LINES] + more))
    return problems
