"""Keep every path inside the root folder: no `..`, no absolute paths, no symlinks out."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..protocol.errors import ErrorKind, ToolError


class PathOutsideRoot(ToolError):
    def __init__(self, message: str) -> None:
        super().__init__(ErrorKind.PATH_OUTSIDE_ROOT, message)


def clean_relative(relative: str) -> PurePosixPath:
    """A relative POSIX path with no `..`; PathOutsideRoot otherwise (remote servers share the rule)."""
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
