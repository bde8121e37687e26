"""The committed views (and the report's host script) are exactly what apps/build.sh makes from
apps/ and the lockfile, and each view is one self-contained HTML file that ships inside the package."""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest

from mcp_variants.apps.resources import VIEWS
from support.apps import APPS, REPORT_HOST, apps_installed, node
from support.apps import VIEWS as VIEWS_DIR


def test_rebuilding_the_views_gives_the_committed_bytes(tmp_path: Path) -> None:
    apps_installed()
    node_bin = node(18)
    # build.sh = install (a no-op when the lockfile stamp matches) + typecheck + bundle.
    run = subprocess.run(
        [str(APPS / "build.sh"), "--out", str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{Path(node_bin).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"},
    )
    assert run.returncode == 0, f"apps/build.sh failed:\n{run.stdout}\n{run.stderr}"
    built = sorted(p.name for p in tmp_path.glob("*.html"))
    assert built == sorted(v.file for v in VIEWS)
    stale = [name for name in built if (tmp_path / name).read_bytes() != (VIEWS_DIR / name).read_bytes()]
    assert not stale, f"{stale} differ from a rebuild: run apps/build.sh and commit the result"
    assert (tmp_path / REPORT_HOST.name).read_bytes() == REPORT_HOST.read_bytes(), (
        f"{REPORT_HOST.name} differs from a rebuild: run apps/build.sh and commit the result")


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.scripts = 0
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "script":
            self.scripts += 1
        for name, value in attrs:
            if name in ("src", "href", "action", "srcset", "data") and value:
                self.refs.append((tag, name, value))


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.name)
def test_each_view_is_one_self_contained_file(view) -> None:  # type: ignore[no-untyped-def]
    html = (VIEWS_DIR / view.file).read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(html)
    assert html.startswith("<!doctype html>")
    assert parser.scripts == 1 and parser.refs == [], parser.refs  # inline JS and CSS, nothing loaded
    assert "link" not in parser.tags and "iframe" not in parser.tags
    assert html.count("</script") == 1  # the bundle cannot end its own element early


def test_the_views_ship_inside_the_package() -> None:
    packaged = Path(str(resources.files("mcp_variants.apps"))) / "views"
    for view in VIEWS:
        assert (packaged / view.file).is_file()
