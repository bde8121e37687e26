"""Zero configuration on one machine: `mcp-variants serve --root R` works through the Jupyter server
this user already runs on R (JupyterLab with real-time collaboration here), says so on stderr
without its token, and keeps the embedded runtime with --embedded or for any other folder.

The JupyterLab's runtime folder (where it wrote jpserver-<pid>.json) is its own, so our server is
pointed at it with JUPYTER_RUNTIME_DIR, as it would find a user's in the default one.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import psutil
import pytest

from mcp_variants.jupyter.discovery import running_servers, server_on
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.checked import AC, PS, CheckedClient
from support.checked import text_of as text
from support.processes import Reaper, started_by_exec

pytestmark = pytest.mark.timeout(180)


def runtime_env(lab: JupyterServerProcess) -> dict[str, str]:
    return {**os.environ, "JUPYTER_RUNTIME_DIR": str(lab.folder / "runtime")}


def test_the_running_server_is_found_by_its_root(jupyterlab: JupyterServerProcess, tmp_path: Path) -> None:
    folder = jupyterlab.folder / "runtime"
    (found,) = [s for s in running_servers(folder) if s.pid == jupyterlab.pid]
    assert found.root == jupyterlab.root.resolve() and found.url == jupyterlab.url
    assert jupyterlab.token not in repr(found) and jupyterlab.token not in found.describe()
    finding = server_on(jupyterlab.root, folder)
    assert finding is not None and finding.server == found and finding.prefix == ""
    assert server_on(tmp_path, folder) is None, "another folder: not that server"


def test_serve_works_through_it_and_says_so(jupyterlab: JupyterServerProcess, reaper: Reaper) -> None:
    server = CheckedClient.serve(jupyterlab.root, stateless=True, reaper=reaper, env=runtime_env(jupyterlab), fresh=True)
    try:
        opened = server.call("use_notebook", {"notebook": "zero-config.ipynb", "create": True})
        assert not opened.result.get("isError"), opened.result
        assert "It is live" in text(opened[AC])
        assert (jupyterlab.root / "zero-config.ipynb").exists()
        ran = server.call("insert_execute_code_cell", {"notebook": "zero-config.ipynb", "source": "import os; print(os.getpid())"})
        kernel_pid = int(text(ran[AC]).strip())
        ours = started_by_exec(server.stdio.process.pid).pid
        assert kernel_pid != ours and ours not in [p.pid for p in _parents(kernel_pid)], (
            "the kernel is the Jupyter server's, not one of ours")
    finally:
        server.close()
    stderr = server.stdio.stderr_tail.decode()
    assert "working through the Jupyter server" in stderr and jupyterlab.url in stderr and "--embedded" in stderr
    server.assert_secret_kept(jupyterlab.token)


def test_embedded_keeps_the_embedded_runtime(jupyterlab: JupyterServerProcess, reaper: Reaper) -> None:
    server = CheckedClient.serve(jupyterlab.root, "--embedded", stateless=True, reaper=reaper, env=runtime_env(jupyterlab))
    try:
        opened = server.call("use_notebook", {"notebook": "embedded-anyway.ipynb", "create": True})
        assert not opened.result.get("isError") and "live" not in text(opened[AC])
        kernel_id = opened[PS]["kernelId"]
    finally:
        server.close()
    assert "working through" not in server.stdio.stderr_tail.decode()
    assert kernel_id not in {k["id"] for k in httpx.get(f"{jupyterlab.url}api/kernels", headers=jupyterlab.auth_headers).json()}


def _parents(pid: int) -> list[psutil.Process]:  # noqa: F821 - psutil, imported here
    import psutil

    return psutil.Process(pid).parents()
