"""Files written whole or not at all, and no leftover a person's tools would show.

A save writes the new text into a file without a name in the target's folder (Linux `O_TMPFILE`),
fsyncs it, then gives it a temporary name and renames that over the target: a reader sees the old
file or the new one, never half of one. The temporary name exists only for the instant between
the link and the rename, so a SIGKILL during a save leaves nothing behind, except in that instant.
Where `O_TMPFILE` is missing (another system, a file system without it) the temporary file is
named for the whole write, as `tempfile.mkstemp` makes it.

Either way the name is `.<name>.<8 characters>.tmp`, hidden; `remove_stale_temporaries(root)`, run at
start-up, removes the notebooks' ones that a process which died left behind. The new file keeps
the mode of the one it replaces.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import re
import secrets
import string
import tempfile
import threading
import time
from pathlib import Path

logger = logging.getLogger(__name__)

TEMPORARY_NAME = re.compile(r"^\.(?P<target>.+\.ipynb)\.[a-z0-9_]{8}\.tmp$")  # ours: only notebooks are written this way
_RANDOM_ALPHABET = string.ascii_lowercase + string.digits + "_"  # mkstemp's
_NEVER_OURS = frozenset({".git", ".ipynb_checkpoints", "__pycache__", "node_modules"})
_VENV_MARK = "pyvenv.cfg"


def atomic_write(path: Path, text: str | bytes) -> None:
    """Replace `path` with `text` (str as UTF-8): the old file or the new one, never half."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    mode = _mode_of(path)
    handle = _unnamed_file(path.parent)
    if handle is None:
        _write_named(path, data, mode)
        return
    try:
        _write_all(handle, data, mode)
        temporary = _link(handle, path)
    finally:
        os.close(handle)
    try:
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _mode_of(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None  # a new file: 0666 less the umask, as any program makes it


def _unnamed_file(folder: Path) -> int | None:
    if not hasattr(os, "O_TMPFILE"):
        return None
    try:
        return os.open(folder, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None  # the file system has no unnamed files
        raise


def _write_all(handle: int, data: bytes, mode: int | None) -> None:
    if mode is not None:
        os.fchmod(handle, mode)
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]
    os.fsync(handle)


def _link(handle: int, path: Path) -> Path:
    """Give the unnamed file a temporary name next to `path` (linkat through /proc, which needs no privilege)."""
    descriptors = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        while True:
            temporary = path.with_name(f".{path.name}.{''.join(secrets.choice(_RANDOM_ALPHABET) for _ in range(8))}.tmp")
            try:
                os.link(str(handle), temporary, src_dir_fd=descriptors, follow_symlinks=True)
                return temporary
            except FileExistsError:
                continue
    finally:
        os.close(descriptors)


def _write_named(path: Path, data: bytes, mode: int | None) -> None:
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temporary = Path(name)
    try:
        try:
            _write_all(handle, data, 0o666 & ~_umask() if mode is None else mode)
        finally:
            os.close(handle)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# ---- what a process that died left ---------------------------------------------------------------


def remove_stale_temporaries(root: Path, older_than: float) -> list[Path]:
    """Remove the temporary files of notebook saves under `root` last written before `older_than` (a time.time()):
    a save of this process is never older than the process. Returns what was removed."""
    removed: list[Path] = []
    for folder, folders, files in os.walk(root, onerror=lambda _: None):
        # Nor a virtual environment's folders (its pyvenv.cfg says it is one): a project's .venv holds most of its files
        # and no notebook we save, so the walk at start would spend most of its time there.
        folders[:] = [] if _VENV_MARK in files else [name for name in folders if name not in _NEVER_OURS]
        for name in files:
            if not TEMPORARY_NAME.match(name):
                continue
            candidate = Path(folder, name)
            with contextlib.suppress(OSError):  # gone already, or not ours to remove
                if candidate.is_file() and not candidate.is_symlink() and candidate.stat().st_mtime < older_than:
                    candidate.unlink()
                    removed.append(candidate)
    return removed


def start_removing_stale_temporaries(root: Path) -> threading.Thread:
    """`remove_stale_temporaries` in a thread of its own, so that a large root does not hold up the start."""
    started = time.time()

    def run() -> None:
        for path in remove_stale_temporaries(root, started):
            logger.warning("removed %s, left by a save that did not finish", path)

    thread = threading.Thread(target=run, name="remove-stale-temporaries", daemon=True)
    thread.start()
    return thread
