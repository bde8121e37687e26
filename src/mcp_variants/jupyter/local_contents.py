"""Files and notebooks under the root folder of the embedded runtime."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

from ..protocol.errors import ErrorKind, ToolError
from .atomic_files import atomic_write
from .file_notebooks import FileNotebooks
from .notebook_format import check, parse
from .notebook_json import encode, snapshot
from .parsed_notebooks import ParsedNotebooks, as_read
from .paths import glob_matches, is_inside, resolve_inside
from .refusals import no_folder, no_notebook

SKIPPED = {".ipynb_checkpoints", "__pycache__", ".git"}


def entry_type(name: str, is_dir: bool) -> str:
    return "directory" if is_dir else "notebook" if name.endswith(".ipynb") else "file"


def readable(name: str) -> str:
    """A file name as valid UTF-8: bytes that are not (kept by the OS as surrogates) become U+FFFD.

    A lone surrogate cannot be encoded on the wire and would break the whole response.
    """
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class LocalContents(FileNotebooks):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root.resolve()
        self._parsed = ParsedNotebooks()

    async def list_entries(self, path: str, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        start = resolve_inside(self.root, path)
        if not start.is_dir():
            raise no_folder(path)
        return await anyio.to_thread.run_sync(self._walk, start, depth, pattern)

    def _walk(self, start: Path, depth: int, pattern: str | None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []

        def walk(folder: Path, level: int) -> None:
            try:
                children = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                return
            for entry in children:
                if entry.name.startswith(".") or entry.name in SKIPPED:
                    continue
                path = Path(entry.path)
                # Only a link can lead out (the walk starts from a real path inside the root),
                # so only links pay for resolving.
                if entry.is_symlink() and not is_inside(self.root, path.resolve()):
                    continue  # a symbolic link out of the root is not ours to show
                is_dir = entry.is_dir()
                if pattern is None or glob_matches(pattern, entry.name, path.relative_to(self.root).as_posix()):
                    stat = entry.stat()
                    found.append({
                        "path": readable(path.relative_to(self.root).as_posix()),
                        "name": readable(entry.name),
                        "type": entry_type(entry.name, is_dir),
                        "size": None if is_dir else stat.st_size,
                        "modified": datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds"),
                    })
                if is_dir and level < depth:
                    walk(path, level + 1)

        walk(start, 1)
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
        plain = check(notebook)
        encoded = encode(notebook)
        self._parsed.forget(real)
        await anyio.to_thread.run_sync(atomic_write, real, encoded.file)
        if plain and encoded.frozen is not None:
            self._parsed.put(real, encoded.file, as_read(notebook, encoded.frozen))


def _as_text(data: bytes) -> str:
    """The file's text as `Path.read_text()` reads it: the locale's encoding, universal newlines."""
    return io.TextIOWrapper(io.BytesIO(data)).read()
