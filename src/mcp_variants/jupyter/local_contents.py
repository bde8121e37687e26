"""Files and notebooks under the root folder of the embedded runtime."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path
from typing import Any

import anyio

from ..protocol.errors import ErrorKind, ToolError
from .atomic_files import atomic_write
from .file_notebooks import FileNotebooks
from .notebook_format import check, check_fresh, parse
from .notebook_json import encode, snapshot, splice
from .parsed_notebooks import ParsedNotebooks
from .paths import glob_matches, is_inside, resolve_inside
from .refusals import no_folder, no_notebook

SKIPPED = {".ipynb_checkpoints", "__pycache__", ".git"}
# A walk that meets no more entries than this answers in the event loop: handing it to a worker thread and back
# costs more than the walk (two wake-ups, each a scheduler's turn on a busy machine); a larger one goes to a thread.
INLINE_ENTRIES = 256
MODIFIED = "%Y-%m-%dT%H:%M:%S+00:00"  # ISO 8601 in UTC to the second, as datetime's isoformat(timespec="seconds") has it


class _TooLarge(Exception):
    """The walk met more than its budget of entries."""


def entry_type(name: str, is_dir: bool) -> str:
    return "directory" if is_dir else "notebook" if name.endswith(".ipynb") else "file"


def readable(name: str) -> str:
    """A file name as valid UTF-8: bytes that are not (kept by the OS as surrogates) become U+FFFD.

    A lone surrogate cannot be encoded on the wire and would break the whole response.
    """
    return name if name.isascii() else name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class LocalContents(FileNotebooks):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root.resolve()
        self._parsed = ParsedNotebooks()

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        start = resolve_inside(self.root, path)
        if not start.is_dir():
            raise no_folder(path)
        try:
            return self._walk(start, depth, pattern, budget=INLINE_ENTRIES)
        except _TooLarge:
            return await anyio.to_thread.run_sync(self._walk, start, depth, pattern)

    def _walk(self, start: Path, depth: int, pattern: str | None, budget: int | None = None) -> list[dict[str, Any]]:
        """The entries under `start` to `depth`; _TooLarge as soon as it meets more than `budget` of them."""
        found: list[dict[str, Any]] = []
        met = 0

        def walk(folder: Path, prefix: str, level: int) -> None:  # prefix: the folder's path from the root, "" or ending in "/"
            nonlocal met
            children = []
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        met += 1
                        if budget is not None and met > budget:
                            raise _TooLarge
                        children.append(entry)
            except OSError:
                return
            children.sort(key=lambda e: e.name)
            for entry in children:
                name = entry.name
                if name.startswith(".") or name in SKIPPED:
                    continue
                # Only a link can lead out (the walk starts from a real path inside the root),
                # so only links pay for resolving.
                if entry.is_symlink() and not is_inside(self.root, Path(entry.path).resolve()):
                    continue  # a symbolic link out of the root is not ours to show
                is_dir = entry.is_dir()
                relative = prefix + name
                if pattern is None or glob_matches(pattern, name, relative):
                    stat = entry.stat()
                    found.append({
                        "path": readable(relative),
                        "name": readable(name),
                        "type": entry_type(name, is_dir),
                        "size": None if is_dir else stat.st_size,
                        "modified": time.strftime(MODIFIED, time.gmtime(stat.st_mtime)),
                    })
                if is_dir and level < depth:
                    walk(Path(entry.path), relative + "/", level + 1)

        top = start.relative_to(self.root).as_posix()
        walk(start, "" if top == "." else top + "/", 1)
        return found

    async def exists(self, path: str) -> bool:
        return resolve_inside(self.root, path).is_file()

    async def read_notebook(self, path: str) -> dict[str, Any]:
        real = resolve_inside(self.root, path)
        if not real.is_file():
            raise no_notebook(path)
        data = await anyio.Path(real).read_bytes()
        cached = self._parsed.get(real, data)
        if cached is not None:
            return cached
        notebook = parse(_as_text(data), path)
        self._parsed.put(real, data, snapshot(notebook))
        return notebook

    async def live(self, path: str) -> bool | None:
        return None  # files on disk: no Jupyter server in between

    async def _write(self, path: str, notebook: dict[str, Any]) -> None:
        real = resolve_inside(self.root, path)
        if not real.parent.is_dir():
            raise ToolError(ErrorKind.NOT_FOUND, f"No folder for {path!r} under the root.")
        written = self._parsed.written(real)
        spliced = splice(notebook, written.cells) if written is not None else None
        if written is not None and spliced is not None:
            plain = check_fresh(notebook, spliced.fresh or [], written.minor)
            encoded = spliced
        else:
            plain = check(notebook)
            encoded = encode(notebook)
        self._parsed.forget(real)
        await anyio.to_thread.run_sync(atomic_write, real, encoded.file)
        if plain:
            self._parsed.keep(real, notebook, encoded)


def _as_text(data: bytes) -> str:
    """The file's text as `Path.read_text()` reads it: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()
