"""`serve --jupyter-url URL --jupyter-token T` checks both at start and says which option is wrong (issue 22: a wrong
token was noticed only at the first tool call). Against a real jupyter-server; the token is never printed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.processes import free_port
from support.servers import serve_command

pytestmark = pytest.mark.timeout(120)


def _start(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER_", "MCP_VARIANTS_"))}
    return subprocess.run(serve_command(root, *args), stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=60, check=False)


def test_a_wrong_token_or_url_ends_the_start_naming_the_option(tmp_path: Path, jupyter: JupyterServerProcess) -> None:
    wrong = _start(tmp_path, "--jupyter-url", jupyter.url, "--jupyter-token", "not-the-token")
    assert wrong.returncode == 1
    assert wrong.stderr.startswith(f"mcp-variants: cannot start: --jupyter-token is not accepted by {jupyter.url} (HTTP 403)"), wrong.stderr
    assert "not-the-token" not in wrong.stderr and jupyter.token not in wrong.stderr
    missing = _start(tmp_path, "--jupyter-url", jupyter.url)
    assert missing.returncode == 1 and "wants a token (HTTP 403): give --jupyter-token" in missing.stderr, missing.stderr
    nobody = f"http://127.0.0.1:{free_port()}/"
    unreachable = _start(tmp_path, "--jupyter-url", nobody, "--jupyter-token", jupyter.token)
    assert unreachable.returncode == 1 and f"--jupyter-url {nobody} cannot be reached" in unreachable.stderr, unreachable.stderr
    elsewhere = _start(tmp_path, "--jupyter-url", f"{jupyter.url}lab/", "--jupyter-token", jupyter.token)
    assert elsewhere.returncode == 1 and "does not answer as a Jupyter server (GET /api/status: HTTP 404)" in elsewhere.stderr, \
        elsewhere.stderr
    assert jupyter.token not in unreachable.stderr + elsewhere.stderr
