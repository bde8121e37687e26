"""Keep every path inside the root folder: no `..`, no absolute paths, no symlinks out."""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ..protocol.errors import ToolError
from .errors import JupyterErrorKind


class PathOutsideRoot(ToolError):
    def __init__(self, message: str) -> None:
        super().__init__(JupyterErrorKind.PATH_OUTSIDE_ROOT, message)


def clean_relative(relative: str) -> PurePosixPath:
    """A relative POSIX path with no `..`; PathOutsideRoot otherwise (remote servers share the rule)."""
    if "\x00" in relative:  # no file system takes it, and os calls raise ValueError on it
        raise PathOutsideRoot(f"{relative!r} is not a path: it holds a NUL character")
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts:
        raise PathOutsideRoot(f"{relative!r} is not a path inside the root folder; use a relative path without '..'")
    return pure


def resolve_inside(root: Path, relative: str) -> Path:
    """The real path of `relative` under `root`; PathOutsideRoot when it would leave it."""
    pure = clean_relative(relative)
    real_root = root.resolve()
    candidate = (real_root / pure).resolve()
    if not is_inside(real_root, candidate):
        raise PathOutsideRoot(f"{relative!r} leads outside the root folder (through a symbolic link)")
    return candidate


def is_inside(real_root: Path, real_path: Path) -> bool:
    return real_path == real_root or real_root in real_path.parents


def glob_matches(pattern: str, name: str, path: str) -> bool:
    """list_files' pattern: without a '/', a glob on the name (at every level listed); with one, on the
    path from the root, where '*' stays within a folder and '**' crosses any number of them."""
    if "/" not in pattern:
        return fnmatch.fnmatch(name, pattern)
    return _path_glob(pattern).fullmatch(path) is not None


@lru_cache(maxsize=64)
def _path_glob(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            parts.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            parts.append(".*")
            i += 2
        elif pattern[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            parts.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            inner = pattern[i + 1:end]
            parts.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner).replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(parts))
