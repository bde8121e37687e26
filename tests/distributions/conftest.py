"""The three wheels, built once from this checkout by the documented command, for every test of the folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from support.installs import build_wheels


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return build_wheels(tmp_path_factory.mktemp("dist"))
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"building the wheels failed: {exc.stderr[-3000:]}", pytrace=False)
