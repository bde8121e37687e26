"""Python environments some tests need besides the project's own: made once from PyPI, kept in tests/.envs/
(git-ignored), and reused while their requirements stay the same (a stamp file).

They are made with uv (the test extra's), not pip: what is under test is what runs in them, not how they were
installed, and uv makes them many times faster than pip (its resolver, its unpacking one file at a time, its
compiling of every module), which a fresh CI machine pays for each. Where the installer is what a stranger meets (the light suite's venv
in tests/distributions, whose budget is what `pip install` leaves), pip stays.

* the anchor: jupyter-mcp-server 2.2.4, whose tools/list the drop-in tests compare ours with;
* a second environment for kernels: ipykernel, bash_kernel, and a package the server's environment
  lacks, registered as kernelspecs in a folder a test puts on JUPYTER_PATH.

Without the network the first make fails: the tests skip, or fail when MCP_VARIANTS_OUTSIDE=required.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

# Resolved: a venv's scripts name its Python by the path it was made at (tests/.envs may be a link).
ENVS = (Path(__file__).resolve().parents[1] / ".envs").resolve()
REQUIRED = os.environ.get("MCP_VARIANTS_OUTSIDE", "").lower() == "required"
INSTALL_TIMEOUT = 900

ANCHOR_REQUIREMENTS = ("jupyter-mcp-server==2.2.4",)
# cowsay: small, pure Python, and not in the server's environment (checked by the tests that use it).
KERNEL_REQUIREMENTS = ("ipykernel>=6.29", "bash_kernel==0.10.0", "cowsay==6.1")
MISSING_PACKAGE = "cowsay"
UV = [sys.executable, "-m", "uv"]
UV_ENV = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}


def cached_venv(name: str, requirements: Sequence[str]) -> Path:
    """tests/.envs/<name>, a virtual environment with `requirements` installed; its folder.

    Made by the first test that asks (others wait on a lock), made again when the requirements change."""
    ENVS.mkdir(exist_ok=True)
    folder = ENVS / name
    stamp = folder / ".installed"
    want = json.dumps({"python": sys.version.split()[0], "requirements": list(requirements), "at": str(folder), "installer": "uv"})
    with open(ENVS / f".{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text() == want:
            return folder
        shutil.rmtree(folder, ignore_errors=True)
        try:
            uv_venv(folder, requirements)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            detail = getattr(exc, "stderr", "") or str(exc)
            unavailable(f"cannot make the {name} environment (uv pip install {' '.join(requirements)}): {str(detail)[-1500:]}")
        stamp.write_text(want)
    return folder


def uv_venv(folder: Path, requirements: Sequence[str], *extra: str, cwd: Path | None = None) -> None:
    """A new virtual environment at `folder`, on this interpreter's Python (never one uv would download), with
    `requirements` installed by uv (`extra`: more options of `uv pip install`; `cwd`: where relative paths among
    them start). Raises what subprocess.run raises."""
    subprocess.run([*UV, "venv", "-q", "--python", sys.executable, str(folder)], check=True, capture_output=True, text=True,
                   timeout=120, env=UV_ENV)
    uv_install(folder, requirements, *extra, cwd=cwd)


def uv_install(folder: Path, requirements: Sequence[str], *extra: str, cwd: Path | None = None) -> None:
    """`uv pip install` into the virtual environment at `folder`, as uv_venv does."""
    subprocess.run([*UV, "pip", "install", "-q", "--python", str(folder / "bin" / "python"), *extra, *requirements],
                   check=True, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=UV_ENV, cwd=cwd)


def unavailable(reason: str) -> None:
    """Skip, or fail when the outside tests are required (make test, CI)."""
    if REQUIRED:
        pytest.fail(f"MCP_VARIANTS_OUTSIDE=required: {reason}", pytrace=False)
    pytest.skip(reason)


def kernelspecs(env: Path, into: Path) -> Path:
    """Register the environment's Python (kernelspec `second-python`) and bash_kernel (`bash`) under `into`
    (a JUPYTER_PATH folder of the test's own); returns `into`."""
    python = str(env / "bin" / "python")
    prefix = into / "prefix"
    subprocess.run([python, "-m", "ipykernel", "install", "--prefix", str(prefix), "--name", "second-python",
                    "--display-name", "Second Python"], check=True, capture_output=True, timeout=120)
    subprocess.run([python, "-m", "bash_kernel.install", "--prefix", str(prefix)], check=True, capture_output=True, timeout=120)
    return prefix / "share" / "jupyter"
