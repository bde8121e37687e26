"""The remote runtime and sandboxes against real Jupyter servers, on the wire.

- A stock jupyter-server (tests/support's `jupyter` fixture: 127.0.0.1, random port and token) is the remote
  runtime of an `mcp-variants serve --jupyter-url ... --jupyter-token ...`: execute_code,
  list_files and list_kernels at 2026-12-01, every declared variant checked against its schema.
- connect_to_jupyter switches the client that asks (a 2025-11-25 session), and only checks
  for a stateless request.
- launch_sandbox → use_sandbox → execute_code → list_sandboxes → terminate_sandbox, and
  SIGTERM to the server leaves no sandbox server or kernel behind (checked by PID).
- No token, neither the remote server's nor a sandbox's, appears in any response or stderr line.

Every process started here is stopped by its PID, also when a test fails.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import nbformat
import pytest

from mcp_variants.jupyter.remote.server_client import JupyterServerClient
from mcp_variants.jupyter.remote.websocket import open_channels
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from mcp_variants.protocol.errors import ToolError
from support.checked import AC, AS, PS, CheckedClient, stdout_of
from support.checked import text_of as text
from support.jupyter import kernel_ids
from support.processes import Reaper, gone
from support.waiting import until

pytestmark = pytest.mark.timeout(300)

# ---- the remote runtime as the server's default ---------------------------------------------------


def test_remote_runtime_runs_execute_code_list_files_list_kernels(jupyter: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    (jupyter.root / "data").mkdir()
    (jupyter.root / "data" / "remote-only.txt").write_text("only on the Jupyter server")
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token, stateless=True, reaper=reaper)
    try:
        out = server.call("execute_code", {"code": "import os; print(os.getcwd())"})
        assert not out.result.get("isError"), out.result
        assert stdout_of(out).strip() == str(jupyter.root), "the code ran in a kernel of the Jupyter server"
        kernel_id = out[PS]["kernelId"]
        assert kernel_id in kernel_ids(jupyter)
        assert out[AS]["kind"] == "code.execute"

        listed = server.call("list_files", {"depth": 2})
        assert not listed.result.get("isError"), listed.result
        assert {"data", "data/remote-only.txt"} <= {f["path"] for f in listed[PS]["files"]}
        assert next(f for f in listed[PS]["files"] if f["path"] == "data/remote-only.txt")["size"] == 26, "the bytes, for a program"
        assert {"Path": "data/remote-only.txt", "Type": "file", "Size": "26 B"}.items() <= next(
            i for i in listed[AS]["items"] if i["Path"] == "data/remote-only.txt").items(), "readable, for the model"
        assert listed.result["_meta"]["io.modelcontextprotocol/cache"]["ttlMs"] == 30000
        assert [f["path"] for f in server.call("list_files", {"path": "data", "pattern": "*.txt"})[PS]["files"]] == ["data/remote-only.txt"]

        kernels = server.call("list_kernels")
        ours = next(k for k in kernels[PS]["kernels"] if k["id"] == kernel_id)
        assert ours["executionCount"] >= 1 and ours["started"]

        outside = server.call("list_files", {"path": "../"})
        assert outside.result["isError"] and outside[PS]["error"]["type"] == "path-outside-root"
        assert server.call("list_files", {"path": "nowhere"})[PS]["error"]["type"] == "not-found"

        # Timeout: interrupted, what was printed so far comes back, the kernel keeps its state.
        server.call("execute_code", {"code": "kept = 41"})
        slow = server.call("execute_code", {"code": "print('partial', flush=True)\nimport time\ntime.sleep(60)", "timeout": 2})
        assert slow.result["isError"] and slow[PS]["error"]["type"] == "timeout"
        assert "partial" in text(slow[AC])
        assert server.call("execute_code", {"code": "kept + 1"})[PS]["outputs"][0]["data"]["text/plain"] == "42"

        # Death: isError within seconds, then a new kernel that says state was lost.
        began = time.monotonic()
        died = server.call("execute_code", {"code": "import os; os._exit(1)"})
        assert died.result["isError"] and died[PS]["error"]["type"] == "kernel-died"
        assert time.monotonic() - began < 15
        after = server.call("execute_code", {"code": "1 + 1"})
        assert after[PS]["kernelRestarted"] is True and after[PS]["kernelId"] != kernel_id
        assert "restarted" in text(after[AC])
        new_kernel = after[PS]["kernelId"]
    finally:
        server.close()
    server.assert_secret_kept(jupyter.token)
    assert new_kernel not in kernel_ids(jupyter), "the server shuts down the remote kernels it started"


def test_kernel_id_attaches_to_a_kernel_of_the_server_and_leaves_it_running(jupyter: JupyterServerProcess, tmp_path: Path,
                                                                          reaper: Reaper) -> None:
    """A kernel someone else started on the Jupyter server (a person's JupyterLab kernel): execute_code and
    use_notebook take its id; when our server stops, it is still there. list_kernels lists the server's kernelspecs."""
    started = httpx.post(f"{jupyter.url}api/kernels", json={"name": "python3"}, headers=jupyter.auth_headers, timeout=60)
    theirs = started.json()["id"]
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token, stateless=True, reaper=reaper)
    try:
        specs = {s["name"]: s for s in server.call("list_kernels")[PS]["kernelspecs"]}
        assert specs["python3"]["language"] == "python" and specs["python3"]["isDefault"]
        out = server.call("execute_code", {"code": "person = 'set in their kernel'", "kernel_id": theirs})
        assert not out.result.get("isError") and out[PS]["kernelId"] == theirs
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(person)")])
        (jupyter.root / "attached.ipynb").write_text(json.dumps(notebook))
        used = server.call("use_notebook", {"notebook": "attached.ipynb", "kernel_id": theirs})
        assert used[PS]["kernelId"] == theirs
        assert "set in their kernel" in text(server.call("execute_cell", {"notebook": "attached.ipynb", "cell_index": 0})[AC])
        assert "keeps running" in text(server.call("unuse_notebook", {"notebook": "attached.ipynb"})[AC])
        missing = server.call("execute_code", {"code": "1", "kernel_id": "00000000-0000-0000-0000-000000000000"})
        assert missing.result["isError"] and missing[PS]["error"]["type"] == "not-found"
    finally:
        server.close()
    assert theirs in kernel_ids(jupyter), "a kernel we attached to is not ours to shut down"
    httpx.delete(f"{jupyter.url}api/kernels/{theirs}", headers=jupyter.auth_headers, timeout=30)


def test_a_refused_kernel_websocket_fails_at_once_and_says_why(jupyter: JupyterServerProcess) -> None:
    """A websocket the Jupyter server refuses (a kernel that is gone) is an error as soon as the server answers,
    with its status, and not after jupyter-kernel-client's 30 s wait (no status is known then)."""
    async def open_a_gone_kernel() -> str:
        server = JupyterServerClient(jupyter.url, jupyter.token)
        try:
            with pytest.raises(ToolError) as refused:
                await open_channels(server, "00000000-0000-0000-0000-000000000000")
        finally:
            await server.aclose()
        return refused.value.message

    message = anyio.run(open_a_gone_kernel)
    expected = f"Could not open the kernel websocket of the Jupyter server at {jupyter.url}: the server answered 404 to its handshake."
    assert message == expected, message
    assert jupyter.token not in message


def test_a_kernel_busy_with_someone_elses_run_is_joined_at_once(jupyter: JupyterServerProcess, tmp_path: Path) -> None:
    """A kernel running a long cell (a person's, another agent's) answers no kernel_info_request until the cell ends:
    an agent joining it then is ready while the run goes on (its own runs queue behind), not refused after 60 s."""
    started, release = tmp_path / "started", tmp_path / "release"
    kernel = httpx.post(f"{jupyter.url}api/kernels", json={"name": "python3"}, headers=jupyter.auth_headers, timeout=60).json()["id"]

    def state() -> str:
        return str(httpx.get(f"{jupyter.url}api/kernels/{kernel}", headers=jupyter.auth_headers, timeout=30).json()["execution_state"])

    async def join_while_it_runs() -> str:
        server = JupyterServerClient(jupyter.url, jupyter.token)
        theirs = await open_channels(server, kernel)
        try:
            theirs.client.execute(f"import pathlib, time\npathlib.Path({str(started)!r}).touch()\n"
                                  f"while not pathlib.Path({str(release)!r}).exists():\n    time.sleep(0.05)")
            await anyio.to_thread.run_sync(lambda: until(started.exists, "their run began", timeout=60))
            ours = await open_channels(server, kernel)
            joined_while = await anyio.to_thread.run_sync(state)
            await ours.close()
            return joined_while
        finally:
            release.touch()
            await theirs.close()
            await server.aclose()

    try:
        assert anyio.run(join_while_it_runs) == "busy", "joined while their run went on"
    finally:
        release.touch()
        httpx.delete(f"{jupyter.url}api/kernels/{kernel}", headers=jupyter.auth_headers, timeout=30)


def test_notebooks_live_on_the_remote_server(jupyter: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    """The notebook tools through RemoteContents (one PUT per write) and a remote notebook kernel."""
    server = CheckedClient.serve(tmp_path, "--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token, stateless=True, reaper=reaper)
    try:
        opened = server.call("use_notebook", {"notebook": "remote.ipynb", "create": True})
        assert not opened.result.get("isError"), opened.result
        ran = server.call("insert_execute_code_cell", {"notebook": "remote.ipynb", "source": "import os; print(os.getcwd())"})
        assert not ran.result.get("isError"), ran.result
        on_disk = nbformat.read(jupyter.root / "remote.ipynb", as_version=4)
        nbformat.validate(on_disk)
        assert on_disk.cells[-1].outputs[0]["text"].strip() == str(jupyter.root)
        assert not (tmp_path / "remote.ipynb").exists(), "nothing is written under the local --root"
        read = server.call("read_notebook", {"notebook": "remote.ipynb"})
        assert not read.result.get("isError") and on_disk.cells[-1].id in json.dumps(read[PS])
        outside = server.call("read_notebook", {"notebook": "../escape.ipynb"})
        assert outside.result["isError"] and outside[PS]["error"]["type"] == "path-outside-root"
    finally:
        server.close()
    server.assert_secret_kept(jupyter.token)


# ---- connect_to_jupyter ----------------------------------------------------------------------------


def test_connect_to_jupyter_switches_only_the_client_that_asks(jupyter: JupyterServerProcess, tmp_path: Path, reaper: Reaper) -> None:
    (jupyter.root / "connect-marker.txt").write_text("x")
    session = CheckedClient.serve(tmp_path, stateless=False, reaper=reaper)
    stateless = CheckedClient.serve(tmp_path, stateless=True, reaper=reaper)
    wrong = "wrong-" + os.urandom(12).hex()
    try:
        cwd = "import os; print(os.getcwd())"
        assert text(session.call("execute_code", {"code": cwd})[AC]).strip() == str(tmp_path)

        refused = session.call("connect_to_jupyter", {"url": jupyter.url, "token": wrong})
        assert refused.result["isError"] and "refused the token" in text(refused[AC])
        bad = session.call("connect_to_jupyter", {"url": "ftp://example.org/"})
        assert bad.result["isError"] and "http" in text(bad[AC])

        connected = session.call("connect_to_jupyter", {"url": jupyter.url, "token": jupyter.token})
        assert connected[AS]["kind"] == "jupyter.connect", connected
        assert text(session.call("execute_code", {"code": cwd})[AC]).strip() == str(jupyter.root)
        assert "connect-marker.txt" in session.call("list_files")[AS]["result"]
        # A pasted URL with ?token= works too, and reuses the same backend.
        again = session.call("connect_to_jupyter", {"url": f"{jupyter.url}?token={jupyter.token}"})
        assert not again.result.get("isError"), again

        # Stateless: every variant, an honest "nothing switched", and later calls stay embedded.
        checked = stateless.call("connect_to_jupyter", {"url": jupyter.url, "token": jupyter.token})
        assert checked[PS]["switched"] is False and checked[PS]["runtime"].startswith("remote:")
        assert checked[PS]["url"] == jupyter.url and checked[AS]["kind"] == "jupyter.connect"
        assert "No switch was kept" in text(checked[AC])
        assert stdout_of(stateless.call("execute_code", {"code": cwd})).strip() == str(tmp_path)
    finally:
        session.close()
        stateless.close()
    session.assert_secret_kept(jupyter.token, wrong)
    stateless.assert_secret_kept(jupyter.token)


# ---- sandboxes -------------------------------------------------------------------------------------


def sandbox_token(record: dict[str, Any]) -> str:
    """The sandbox's token, from its folder: only the test reads it, to prove it never leaks."""
    return (Path(record["root"]).parent / "token").read_text()


def test_sandbox_tools_every_variant_stateless(tmp_path: Path, reaper: Reaper) -> None:
    server = CheckedClient.serve(tmp_path, stateless=True, reaper=reaper)
    try:
        launched = server.call("launch_sandbox")
        assert not launched.result.get("isError"), launched.result
        record = launched[PS]["sandbox"]
        assert launched[AS] == {"kind": "sandbox.launch", "sandbox": record}, "the object shape: no result"
        process = reaper.watch(record["pid"])
        token = sandbox_token(record)
        assert record["state"] == "running" and record["url"].startswith("http://127.0.0.1:")
        assert token not in record["url"]
        with httpx.Client(base_url=record["url"], timeout=10) as http:
            assert http.get("api/status").status_code in (401, 403), "a sandbox needs its token"
            assert http.get("api/status", headers={"Authorization": f"token {token}"}).status_code == 200

        listed = server.call("list_sandboxes")
        assert listed[AS] == {"kind": "sandboxes.list", "result": [record]}, "the list shape"
        assert listed[PS] == {"sandboxes": [record]}

        used = server.call("use_sandbox", {"sandbox_id": record["id"]})
        assert used[PS] == {"sandbox": record, "runtime": f"sandbox:{record['id']}", "switched": False}
        assert used[AS]["kind"] == "sandbox.use"

        for tool in ("use_sandbox", "terminate_sandbox"):
            missing = server.call(tool, {"sandbox_id": "s-999"})
            assert missing.result["isError"] and missing[PS]["error"]["type"] == "not-found"
            assert "list_sandboxes shows the ids" in text(missing[AC])

        ended = server.call("terminate_sandbox", {"sandbox_id": record["id"]})
        assert ended[PS]["sandbox"]["state"] == "terminated" and ended[AS]["kind"] == "sandbox.terminate"
        assert gone(process), "terminate_sandbox stops the sandbox server"
        assert not Path(record["root"]).parent.exists(), "and removes its folder"
        assert server.call("list_sandboxes")[PS] == {"sandboxes": []}
    finally:
        server.close()
    server.assert_secret_kept(token)


def test_sandbox_runs_the_clients_code_and_sigterm_leaves_nothing(tmp_path: Path, reaper: Reaper) -> None:
    server = CheckedClient.serve(tmp_path, stateless=False, reaper=reaper)
    where = "import os; print(os.getcwd()); print(os.getpid())"
    tokens: list[str] = []
    try:
        first = server.call("launch_sandbox")[AS]["sandbox"]
        tokens.append(sandbox_token(first))
        first_server = reaper.watch(first["pid"])
        server.call("use_sandbox", {"sandbox_id": first["id"]})
        cwd, pid = text(server.call("execute_code", {"code": where})[AC]).split()
        assert cwd == first["root"], "execute_code runs in the sandbox's root folder"
        first_kernel = reaper.watch(int(pid))
        # jupyter_core leaves a blank config folder in the temporary folder of each process of a sandbox: it goes with it.
        temporary = text(server.call("execute_code", {"code": "import tempfile; print(tempfile.gettempdir())"})[AC]).strip()
        assert Path(temporary).parent == Path(first["root"]).parent, temporary
        assert "this client uses it" in text(server.call("list_sandboxes")[AC])

        second = server.call("launch_sandbox")[AS]["sandbox"]
        tokens.append(sandbox_token(second))
        second_server = reaper.watch(second["pid"])
        assert second["id"] != first["id"] and second["root"] != first["root"]

        # Terminating the sandbox this client uses says where its calls go now.
        ended = server.call("terminate_sandbox", {"sandbox_id": first["id"]})
        assert "now run on the embedded kernels" in text(ended[AC])
        assert gone(first_server) and gone(first_kernel), "the sandbox server and its kernel are stopped"
        assert not Path(first["root"]).parent.exists()
        assert text(server.call("execute_code", {"code": where})[AC]).split()[0] == str(tmp_path)

        server.call("use_sandbox", {"sandbox_id": second["id"]})
        cwd, pid = text(server.call("execute_code", {"code": where})[AC]).split()
        assert cwd == second["root"]
        second_kernel = reaper.watch(int(pid))
        assert [s["id"] for s in server.call("list_sandboxes")[AS]["result"]] == [second["id"]]

        took = server.sigterm()
        assert took < 15, f"SIGTERM took {took:.1f} s"
        assert gone(second_server, 5) and gone(second_kernel, 5), "no sandbox server or kernel outlives the server"
        assert not Path(second["root"]).parent.exists()
    finally:
        server.close()
    server.assert_secret_kept(*tokens)
