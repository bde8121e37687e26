"""Every desktop client's `mcpServers` entry that README.md and docs/guides show for the stdio server works as written
(issue 49): its command and args run as a client runs them (no shell, the entry's `env`), with only the placeholders
put in place (/path/to/..., your-env: a kernelspec of that name, registered as the docs say to), and its kernel is
the one `--kernel` names. The `connect` entries need an endpoint: tests/integration/test_connect.py runs those.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.client.stdio import StdioConnection
from support.checked import AC, CheckedClient, text_of
from support.desktop_configs import desktop_entries
from support.envs import unavailable

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENTRIES = desktop_entries("serve")

pytestmark = pytest.mark.timeout(300)


def test_the_docs_show_the_venv_and_the_uvx_entries_with_a_kernel() -> None:
    commands = {Path(e["command"]).name for e in ENTRIES.values()}
    assert {"mcp-variants", "uvx"} <= commands, ENTRIES
    assert all("--kernel" in e["args"] for e in ENTRIES.values()), "each example runs the user's own environment"


def filled(word: str, root: Path) -> str:
    return (word.replace("/path/to/.venv/bin/", f"{BIN}/").replace("/path/to/mcp-variants", str(REPO))
            .replace("/path/to/notebooks", str(root)))


@pytest.mark.parametrize("where", sorted(ENTRIES))
def test_the_documented_entry_starts_the_server_on_your_kernel(where: str, tmp_path: Path) -> None:
    entry = ENTRIES[where]
    root = tmp_path / "notebooks"
    root.mkdir()
    # `python -m ipykernel install --user --name your-env`, into a folder of the test's own: a marker in its env says
    # the kernel that runs is that one.
    spec = tmp_path / "jupyter" / "kernels" / "your-env"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                                                  "display_name": "your-env", "language": "python", "env": {"YOUR_ENV": "yes"}}))
    env = {**os.environ, "JUPYTER_PATH": str(tmp_path / "jupyter"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           **entry.get("env", {}), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # uvx: the test venv's
    command = [filled(entry["command"], root), *(filled(arg, root) for arg in entry["args"])]
    if entry["command"] == "uvx":
        prepared = subprocess.run([*command[:-6], "--version"], capture_output=True, text=True, timeout=280, env=env)
        if prepared.returncode != 0:  # uv builds the environment first: from the registry, or its cache
            unavailable(f"uvx could not make the environment: {prepared.stderr[-1500:]}")
    with CheckedClient(StdioConnection(command, env=env), stateless=False) as client:
        ran = client.call("execute_code", {"code": "import os; print(os.environ.get('YOUR_ENV'))"})
        assert not ran.is_error and "yes" in text_of(ran[AC]), (where, ran.result)
