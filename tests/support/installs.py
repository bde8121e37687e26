"""Installing as README.md and docs/ say, into fresh virtual environments (tests/distributions).

A documented command is what a reader copies, `pip install ./distributions/conformance ./distributions/sdk .`
say: `install` runs its arguments from the clone, with `dist/` standing for the folder of the built wheels,
by pip (`python -m venv`, then the venv's pip: what a stranger meets) or by uv (`uv pip install`, the same
arguments, in seconds: tests/support/envs.py). `documented_commands` finds every such command in the docs.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.envs import unavailable, uv_install, uv_venv

REPO = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 900

# The documented commands (docs/choices.md, "Packaging"), as the docs write them.
BUILD = "pip wheel --no-deps -w dist . ./distributions/conformance ./distributions/sdk"
WHOLE = "pip install ./distributions/conformance ./distributions/sdk ."
LEAN = "pip install --overrides distributions/overrides.txt ./distributions/conformance ./distributions/sdk ."  # uv's
WHOLE_WHEELS = "pip install --find-links dist/ mcp-variants"
SDK = "pip install ./distributions/conformance ./distributions/sdk"
SDK_WHEELS = "pip install --find-links dist/ mcp-variants-sdk"
SUITE = "pip install ./distributions/conformance"
SUITE_WHEELS = "pip install --find-links dist/ mcp-variants-conformance"
LAB = "pip install jupyterlab jupyter-collaboration"  # JupyterLab's environment, as docs/guides/everyone.md makes it

DOCS = (REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), *sorted((REPO / "distributions").glob("*/README.md")))
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`]+)`")
# A pip command with at least one argument, wherever its pip is (`.venv/bin/pip`, `/path/bin/python -m pip`).
COMMAND = re.compile(r"(?:python[\d.]* -m )?pip (?:install|wheel)(?: [^\s#]+)+")


def documented_commands() -> dict[str, list[str]]:
    """Each pip command of the docs (code blocks, comments left out, and inline code), with the files it is in; not a
    ```text block's, which shows what a program printed (an error naming a pip command), not a command to run."""
    found: dict[str, list[str]] = {}
    for doc in DOCS:
        text = doc.read_text()
        lines = [line.split(" #")[0] for block in FENCED.findall(text) if not block.startswith("```text")
                 for line in block.splitlines()]
        spans = [" ".join(span.split()) for span in SPAN.findall(FENCED.sub("", text))]
        for candidate in (*lines, *spans):
            for command in COMMAND.findall(candidate):
                found.setdefault(command, []).append(str(doc.relative_to(REPO)))
    return found


def megabytes(venv: Path) -> float:
    """What a venv weighs on disk: its files, links left out."""
    return sum(p.stat().st_size for p in venv.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def build_wheels(out: Path) -> Path:
    """BUILD, as documented, into `out` instead of dist/."""
    words = [str(out) if word == "dist" else word for word in shlex.split(BUILD)]
    subprocess.run([sys.executable, "-m", *words, "-q"], check=True, capture_output=True, text=True, timeout=600, cwd=REPO)
    return out


def install(command: str, venv: Path, *, wheels: Path | None = None, by_pip: bool = False, also: tuple[str, ...] = (),
            into_existing: bool = False) -> Path:
    """`command` run from the clone in a new venv at `venv` (`into_existing`: in the one there, by uv; `also`: more
    requirements on the same line, the range tests' pins). Skips, or fails under MCP_VARIANTS_OUTSIDE=required, when
    the registry is out of reach."""
    words = shlex.split(command)
    assert words[words.index("pip") + 1] == "install", command
    args = [str(wheels) if word == "dist/" and wheels else word for word in words[words.index("pip") + 2:]]
    try:
        if into_existing:
            uv_install(venv, [*args, *also], cwd=REPO)
        elif by_pip:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *args, *also], check=True,
                           capture_output=True, text=True, timeout=INSTALL_TIMEOUT, cwd=REPO)
        else:
            uv_venv(venv, [*args, *also], cwd=REPO)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        unavailable(f"{command}: {str(getattr(exc, 'stderr', '') or exc)[-1500:]}")
    return venv


def versions(venv: Path) -> dict[str, str]:
    """The distributions installed in `venv` (pip among them in a venv pip made), normalised names, and their versions."""
    code = "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'] + ' ' + d.version for d in m.distributions()))"
    listed = subprocess.run([str(venv / "bin" / "python"), "-c", code], check=True, capture_output=True, text=True, timeout=120).stdout
    pairs = (line.split() for line in listed.splitlines() if line.strip())
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pairs}


def jupyter_env(folder: Path) -> dict[str, str]:
    """The installed environment's configuration (where the wheel put its config file), a user configuration of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MCP_VARIANTS_"))}
    env.update(JUPYTER_CONFIG_DIR=str(folder / "config"), JUPYTER_DATA_DIR=str(folder / "data"),
               JUPYTER_RUNTIME_DIR=str(folder / "runtime"))
    return env


def extension_listing(venv: Path, env: dict[str, str]) -> str:
    """What `jupyter server extension list` says in `venv` (it writes to stderr)."""
    done = subprocess.run([str(venv / "bin" / "jupyter"), "server", "extension", "list"], capture_output=True, text=True,
                          timeout=120, env=env)
    return done.stdout + done.stderr


def requested(*selectors: str) -> list[dict[str, str]]:
    return [dict(zip(("audience", "format"), s.rsplit("/", 1), strict=True)) for s in selectors]


def outputs(result: dict[str, Any]) -> dict[str, Any]:
    return {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in result["outputs"]}


def served_tools(venv: Path, empty: Path) -> list[str]:
    """tools/list of `mcp-variants serve` over stdio."""
    (empty / "notebooks").mkdir(exist_ok=True)
    with StdioTarget([str(venv / "bin" / "mcp-variants"), "serve", "--root", "notebooks", "--embedded"], cwd=str(empty),
                     timeout=120) as target:
        return [tool["name"] for tool in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]]
