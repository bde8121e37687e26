"""CHANGELOG.md keeps Keep a Changelog's shape: each release (Unreleased first) has each kind of change once,
in the format's order, so a merge that adds a second `### Changed` is caught here and not by a reader."""

from __future__ import annotations

import re
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")


def releases() -> dict[str, list[str]]:
    """Each release's heading and the kinds of change under it, in the file's order."""
    found: dict[str, list[str]] = {}
    release = ""
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            release = line[3:]
            found[release] = []
        elif line.startswith("### "):
            assert release, f"{line!r} comes before any release"
            found[release].append(line[4:])
    return found


def test_unreleased_comes_first() -> None:
    assert next(iter(releases())) == "[Unreleased]"


def test_each_kind_of_change_once_per_release_in_order() -> None:
    for release, kinds in releases().items():
        assert set(kinds) <= set(KINDS), (release, kinds)
        assert kinds == sorted(set(kinds), key=KINDS.index), f"{release}: {kinds}"


def test_every_entry_is_a_bullet_under_a_kind() -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    for section in re.split(r"^### .*$", text, flags=re.MULTILINE)[1:]:
        body = re.split(r"^## ", section, flags=re.MULTILINE)[0]
        first = next((line for line in body.splitlines() if line.strip()), "")
        assert first.startswith("- "), f"a section starts with {first!r}"
