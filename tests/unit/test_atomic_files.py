"""The atomic writer (jupyter/atomic_files.py): whole files, the mode kept, no leftovers (issue 13)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from mcp_variants.jupyter.atomic_files import (
    TEMPORARY_NAME,
    _write_named,
    atomic_write,
    remove_stale_temporaries,
)


def test_a_save_replaces_the_file_keeps_its_mode_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "a.ipynb"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write(target, "new ü")
    assert target.read_text(encoding="utf-8") == "new ü"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.ipynb"]


def test_a_new_file_gets_the_mode_any_program_would_give_it(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.ipynb", "x")
        _write_named(tmp_path / "named.ipynb", b"y", None)
    finally:
        os.umask(umask)
    assert (tmp_path / "new.ipynb").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "named.ipynb").read_bytes() == b"y"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["named.ipynb", "new.ipynb"]


def test_the_temporary_names_are_recognised_and_nothing_else() -> None:
    assert TEMPORARY_NAME.match(".a b.ipynb.x1_2abcd.tmp")
    for other in (".a.ipynb.tmp", "a.ipynb.abcdefgh.tmp", ".a.txt.abcdefgh.tmp", ".a.ipynb.ABCDEFGH.tmp", ".a.ipynb.abcdefg.tmp"):
        assert not TEMPORARY_NAME.match(other), other


def test_stale_temporaries_are_removed_and_fresh_ones_and_others_kept(tmp_path: Path) -> None:
    (tmp_path / "sub" / ".git").mkdir(parents=True)
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    stale = [tmp_path / ".a.ipynb.abcdefgh.tmp", tmp_path / "sub" / ".b.ipynb.12345678.tmp"]
    kept = [tmp_path / ".c.ipynb.abcdefgh.tmp",  # written after the cut: a save of the running server
            tmp_path / "sub" / ".git" / ".d.ipynb.abcdefgh.tmp",  # never ours
            tmp_path / ".venv" / "lib" / ".e.ipynb.abcdefgh.tmp",  # a virtual environment's: not walked
            tmp_path / ".notes.txt.abcdefgh.tmp", tmp_path / "a.ipynb"]
    for path in stale + kept:
        path.write_text("x")
    cut = time.time()
    for path in [*stale, *kept[1:3]]:
        os.utime(path, (cut - 60, cut - 60))
    os.utime(kept[0], (cut + 1, cut + 1))
    assert sorted(remove_stale_temporaries(tmp_path, cut)) == sorted(stale)
    assert all(path.exists() for path in kept) and not any(path.exists() for path in stale)
