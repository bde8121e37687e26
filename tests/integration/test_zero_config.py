"""Zero configuration on one machine: `mcp-variants serve --root R` works through the Jupyter server
this user runs on R or a folder above it (JupyterLab with real-time collaboration here), found again
at each call (one started after our server too), says so on stderr without its token and in
use_notebook's answer, and keeps the embedded runtime with --embedded or for any other folder. A
server that serves R but does not answer is refused, never written behind.

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
from support.jupyter import jupyterlab_server, on_disk, sessions
from support.person import Person, output_texts
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
        assert "Live in JupyterLab" in text(opened[AC])
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
        assert not opened.result.get("isError") and "Not live: it runs in the embedded kernels" in text(opened[AC])
        kernel_id = opened[PS]["kernelId"]
    finally:
        server.close()
    assert "working through" not in server.stdio.stderr_tail.decode()
    assert kernel_id not in {k["id"] for k in httpx.get(f"{jupyterlab.url}api/kernels", headers=jupyterlab.auth_headers).json()}


def session_kernel(lab: JupyterServerProcess, path: str) -> str:
    (kernel,) = [str(s["kernel"]["id"]) for s in sessions(lab) if str(s["path"]).removeprefix("RTC:") == path]  # type: ignore[index]
    return kernel


def test_a_jupyterlab_started_after_our_server_is_worked_through_live_from_the_next_call(tmp_path: Path, reaper: Reaper) -> None:
    lab = jupyterlab_server(tmp_path / "lab")
    lab.root.mkdir(parents=True)
    server = CheckedClient.serve(lab.root, stateless=True, reaper=reaper, env=runtime_env(lab))
    person = None
    try:
        before = server.call("use_notebook", {"notebook": "later.ipynb", "create": True})
        assert not before.is_error and "Not live: no Jupyter server serves" in text(before[AC]), text(before[AC])
        embedded = server.call("insert_execute_code_cell", {"notebook": "later.ipynb", "source": "before = 1"})
        assert not embedded.is_error, embedded.result
        lab.start()
        person = Person(lab, "later.ipynb")  # the person opens it in JupyterLab: its room holds it
        opened = server.call("use_notebook", {"notebook": "later.ipynb"})
        assert not opened.is_error, opened.result
        assert f"Live in JupyterLab at {lab.url}" in text(opened[AC]), text(opened[AC])
        assert "variables of its earlier runs are gone" in text(opened[AC]), "it said the embedded kernel's state is gone"
        ran = server.call("insert_execute_code_cell", {"notebook": "later.ipynb", "source": "shared = 6 * 7; print(shared)"})
        assert not ran.is_error and "42" in text(ran[AC]), ran.result
        assert ran[PS]["kernelId"] == session_kernel(lab, "later.ipynb"), "the cell ran in the notebook's JupyterLab kernel"
        seen = person.wait_for(lambda nb: any("shared = 6 * 7" in c["source"] and "42" in output_texts(c) for c in nb["cells"]))
        assert [c["source"] for c in seen["cells"]] == ["before = 1", "shared = 6 * 7; print(shared)"]
        on_disk(lab, "later.ipynb", lambda nb: any("shared = 6 * 7" in c.source for c in nb.cells))
    finally:
        if person is not None:
            person.close()
        server.close()
        lab.stop(grace=2)
    assert "Out-of-band" not in lab.output(), "the file was written behind the room"
    server.assert_secret_kept(lab.token)


def test_a_jupyterlab_on_the_folder_above_root_is_worked_through_with_the_paths_below(
        jupyterlab: JupyterServerProcess, reaper: Reaper) -> None:
    project = jupyterlab.root / "work" / "project"
    project.mkdir(parents=True)
    server = CheckedClient.serve(project, stateless=True, reaper=reaper, env=runtime_env(jupyterlab))
    try:
        opened = server.call("use_notebook", {"notebook": "below.ipynb", "create": True})
        assert not opened.is_error, opened.result
        assert f"Live in JupyterLab at {jupyterlab.url} (--root is work/project/ there)" in text(opened[AC]), text(opened[AC])
        assert (project / "below.ipynb").exists()
        ran = server.call("insert_execute_code_cell", {"notebook": "below.ipynb", "source": "import os; print(os.getcwd())"})
        assert not ran.is_error, ran.result
        assert ran[PS]["kernelId"] == session_kernel(jupyterlab, "work/project/below.ipynb")
        assert text(ran[AC]).strip() == str(project), "the kernel runs beside the notebook, as JupyterLab's does"
        person = Person(jupyterlab, "work/project/below.ipynb")
        try:
            person.wait_for(lambda nb: any("os.getcwd()" in c["source"] for c in nb["cells"]))
        finally:
            person.close()
        listed = server.call("list_files", {"pattern": "*.ipynb"})
        assert [f["path"] for f in listed[PS]["files"]] == ["below.ipynb"], "paths from --root, not from the server's root"
        # A link out of --root that the server, whose root holds both, would follow: refused as the embedded runtime does.
        secret = jupyterlab.root / "work" / "secret"
        secret.mkdir()
        (secret / "s.ipynb").write_text((project / "below.ipynb").read_text())
        (project / "link").symlink_to(secret)
        refused = server.call("use_notebook", {"notebook": "link/s.ipynb"})
        assert refused.is_error and refused[PS]["error"]["type"] == "path-outside-root", refused.result
    finally:
        server.close()


def test_a_server_that_serves_root_but_does_not_answer_is_refused_and_nothing_is_written(tmp_path: Path, reaper: Reaper) -> None:
    """Its info file says it serves the folder above --root, its process runs (this test's), its port is closed."""
    import json
    import socket

    root, runtime = tmp_path / "home" / "project", tmp_path / "runtime"
    root.mkdir(parents=True)
    runtime.mkdir()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (runtime / "jpserver-1.json").write_text(json.dumps(
        {"url": f"http://127.0.0.1:{port}/", "root_dir": str(tmp_path / "home"), "pid": os.getpid(), "token": "t", "version": "2"}))
    server = CheckedClient.serve(root, stateless=True, reaper=reaper, env={**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)})
    try:
        refused = server.call("use_notebook", {"notebook": "guarded.ipynb", "create": True})
        assert refused.is_error and "cannot be joined" in text(refused[AC]) and "--embedded" in text(refused[AC]), refused.result
        assert not (root / "guarded.ipynb").exists()
    finally:
        server.close()


def _parents(pid: int) -> list[psutil.Process]:  # noqa: F821 - psutil, imported here
    import psutil

    return psutil.Process(pid).parents()
