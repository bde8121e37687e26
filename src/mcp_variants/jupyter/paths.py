"""Keep every path inside the root folder: no `..`, no absolute paths, no symlinks out."""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class PathOutsideRoot(ValueError):
    pass


def resolve_inside(root: Path, relative: str) -> Path:
    """The real path of `relative` under `root`; PathOutsideRoot when it would leave it."""
    pure = PurePosixPath(relative.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts:
        raise PathOutsideRoot(f"{relative!r} is not a path inside the root folder; use a relative path without '..'")
    real_root = root.resolve()
    candidate = (real_root / pure).resolve()
    if not is_inside(real_root, candidate):
        raise PathOutsideRoot(f"{relative!r} leads outside the root folder (through a symbolic link)")
    return candidate


def is_inside(real_root: Path, real_path: Path) -> bool:
    return real_path == real_root or real_root in real_path.parents
