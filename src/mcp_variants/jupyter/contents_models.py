"""Jupyter's contents models (what /api/contents answers, what a ContentsManager returns in process), read
the one way for every Contents on a Jupyter server: a folder's listing walked to a depth, and what tells one
saved state of a file from another."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import anyio

from ..protocol.errors import ErrorKind, ToolError
from .local_contents import SKIPPED, entry_type
from .paths import glob_matches

# A folder's model with its content, or None when it cannot be read.
OpenFolder = Callable[[str], Awaitable[dict[str, Any] | None]]


def version(model: dict[str, Any]) -> tuple[str, str]:
    """What tells one saved state of a file from another: its content hash where the server computes one
    (jupyter-server 2.11 and later, asked with hash=1 / require_hash), else its modification time."""
    return ("hash", str(model["hash"])) if model.get("hash") else ("last_modified", str(model.get("last_modified")))


def changed_meanwhile(path: str, server: str) -> ToolError:
    """An edit's file was saved by someone else between the edit's read and its write: nothing was written."""
    return ToolError(ErrorKind.CONFLICT, f"{path!r} was changed on {server} after this edit read it (by another worker, a person "
                                         "or a program); nothing was written. Call again: the edit is made on what is there now.")


def timestamp(value: str | datetime | None) -> str:
    """A model's time (ISO 8601 text over REST, a datetime in process) as the embedded runtime writes them: seconds, +00:00."""
    if not value:
        return ""
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    except ValueError:
        return str(value)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


async def walk(folder: dict[str, Any], level: int, depth: int, pattern: str | None, open_folder: OpenFolder) -> list[dict[str, Any]]:
    """The entries of `folder` (a directory model with its content) and, to `depth`, of the folders under it:
    dicts with path, name, type, size, modified; hidden files and SKIPPED left out; subfolders read at once."""
    children = sorted(
        (c for c in folder.get("content") or [] if not c["name"].startswith(".") and c["name"] not in SKIPPED),
        key=lambda c: c["name"],
    )
    below: dict[str, list[dict[str, Any]]] = {}

    async def descend(child: dict[str, Any]) -> None:
        model = await open_folder(child["path"])
        below[child["path"]] = await walk(model, level + 1, depth, pattern, open_folder) if model is not None else []

    if level < depth:
        async with anyio.create_task_group() as tg:
            for child in children:
                if child["type"] == "directory":
                    tg.start_soon(descend, child)
    found: list[dict[str, Any]] = []
    for child in children:
        is_dir = child["type"] == "directory"
        if pattern is None or glob_matches(pattern, child["name"], child["path"]):
            found.append({
                "path": child["path"],
                "name": child["name"],
                "type": entry_type(child["name"], is_dir),
                "size": None if is_dir else child.get("size"),
                "modified": timestamp(child.get("last_modified")),
            })
        found.extend(below.get(child["path"], []))
    return found
