"""Kernels of the user's choosing (issue 11): a second Python environment, with a package the server's
environment lacks, registered as a kernelspec, used through --kernel and through a notebook's
metadata.kernelspec; and a kernel that is not Python (bash_kernel) through execute_code, execute_cell and
the notebook tools, with every declared variant valid against its schema.

The environment is made once by pip (tests/support/envs.py) and registered under a JUPYTER_PATH folder of
this module's own, which the servers it starts inherit.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants.client.stdio import StdioConnection
from support.checked import CheckedClient, text_of
from support.envs import KERNEL_REQUIREMENTS, MISSING_PACKAGE, cached_venv, kernelspecs
from support.processes import Reaper, kernels_of, started_by_exec
from support.servers import serve_stdio

from .conftest import code, read_valid, write_notebook

AC, AS, PS = "assistant/content", "assistant/structured", "programmatic/structured"

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def second_env() -> Path:
    assert importlib.util.find_spec(MISSING_PACKAGE) is None, f"the server's environment must lack {MISSING_PACKAGE}"
    return cached_venv("kernels", KERNEL_REQUIREMENTS)


@pytest.fixture(scope="module")
def jupyter_path(second_env: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(kernelspecs(second_env, tmp_path_factory.mktemp("kernelspecs")))


def serve(root: Path, jupyter_path: str, *extra: str) -> StdioConnection:
    """Our server on stdio, seeing the module's kernelspecs (the child inherits JUPYTER_PATH at its start)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUPYTER_PATH", os.pathsep.join(p for p in (jupyter_path, os.environ.get("JUPYTER_PATH")) if p))
        return serve_stdio(root, *extra)


def server_fixture(*extra: str):
    """A module's server on stdio with these options (the kernelspecs of `jupyter_path` visible to it)."""

    @pytest.fixture(scope="module")
    def fixture(root: Path, jupyter_path: str) -> Iterator[CheckedClient]:
        connection = serve(root, jupyter_path, *extra)
        try:
            yield CheckedClient(connection, stateless=True)
        finally:
            connection.close()

    return fixture


default_server = server_fixture()
second_server = server_fixture("--kernel", "second-python")
bash_server = server_fixture("--kernel", "bash")


IMPORT = f"import {MISSING_PACKAGE}, sys; print({MISSING_PACKAGE}.__name__, sys.executable)"


def test_the_servers_own_kernel_lacks_the_package_and_says_what_to_do(default_server: CheckedClient) -> None:
    out = default_server.call("execute_code", {"code": IMPORT})
    assert out.is_error
    message = out[AS]["error"]["message"]
    assert f"No module named '{MISSING_PACKAGE}'" in message and "--kernel" in message and "pip install" in message


def test_list_kernels_shows_the_kernelspecs(default_server: CheckedClient, second_env: Path) -> None:
    listed = default_server.call("list_kernels", {})
    specs = {s["name"]: s for s in listed[PS]["kernelspecs"]}
    assert {"python3", "second-python", "bash"} <= specs.keys()
    assert specs["python3"]["isDefault"] and not specs["second-python"]["isDefault"]
    assert specs["bash"]["language"] == "bash"
    # Where the user's code runs, so where its packages come from (issue 49): the runtime, each Python kernel's Python.
    assert listed[PS]["runtime"] == {"key": "embedded", "label": "the embedded kernels"}
    assert specs["second-python"]["python"] == str(second_env / "bin" / "python") and "python" not in specs["bash"]
    said = text_of(listed[AC])
    assert "Runtime: the embedded kernels." in said and f"runs {second_env / 'bin' / 'python'}" in said
    assert "this server's own environment" in said


def test_kernel_flag_runs_the_second_environment(second_server: CheckedClient, second_env: Path) -> None:
    out = second_server.call("execute_code", {"code": IMPORT})
    assert not out.is_error, out.result
    assert f"{MISSING_PACKAGE} {second_env / 'bin' / 'python'}" in text_of(out[AC])
    kernels = second_server.call("list_kernels", {})[PS]
    assert {k["name"] for k in kernels["kernels"]} == {"second-python"}
    assert next(s for s in kernels["kernelspecs"] if s["isDefault"])["name"] == "second-python"


def test_a_notebooks_metadata_picks_its_kernel(default_server: CheckedClient, root: Path, second_env: Path) -> None:
    path = write_notebook(root / "second.ipynb", [code(IMPORT)])
    notebook = json.loads(path.read_text())
    notebook["metadata"]["kernelspec"] = {"name": "second-python", "display_name": "Second Python", "language": "python"}
    path.write_text(json.dumps(notebook))
    opened = default_server.call("use_notebook", {"notebook": "second.ipynb"})
    assert opened[PS]["kernelName"] == "second-python"
    out = default_server.call("execute_cell", {"notebook": "second.ipynb", "cell_index": 0})
    assert not out.is_error, out.result
    assert str(second_env / "bin" / "python") in text_of(out[AC])
    missing = write_notebook(root / "elsewhere.ipynb", [code("1")])
    notebook = json.loads(missing.read_text())
    notebook["metadata"]["kernelspec"] = {"name": "not-installed-here", "display_name": "?", "language": "python"}
    missing.write_text(json.dumps(notebook))
    fallback = default_server.call("use_notebook", {"notebook": "elsewhere.ipynb"})
    assert fallback[PS]["kernelName"] == "python3" and "'not-installed-here'" in text_of(fallback[AC])


def test_bash_through_execute_code_and_the_notebook_tools(bash_server: CheckedClient, root: Path) -> None:
    out = bash_server.call("execute_code", {"code": "echo hello-from-bash; echo $((6 * 7))"})
    assert not out.is_error, out.result
    assert "hello-from-bash" in text_of(out[AC]) and "42" in text_of(out[AC])

    made = bash_server.call("use_notebook", {"notebook": "shell.ipynb", "create": True})
    assert made[PS]["kernelName"] == "bash"
    assert read_valid(root / "shell.ipynb").metadata["kernelspec"]["name"] == "bash", "a new notebook names its kernelspec"
    first_source = "GREETING=hi; echo $GREETING"
    ran = bash_server.call("insert_execute_code_cell", {"notebook": "shell.ipynb", "cell_index": -1, "source": first_source})
    assert not ran.is_error and "hi" in text_of(ran[AC])
    again_source = 'echo "$GREETING again"'
    bash_server.call("insert_cell", {"notebook": "shell.ipynb", "cell_index": -1, "source": again_source})
    again = bash_server.call("execute_cell", {"notebook": "shell.ipynb", "cell_index": 1})
    assert "hi again" in text_of(again[AC]), "the notebook's bash kernel keeps its state"
    assert read_valid(root / "shell.ipynb").cells[1]["outputs"], "outputs are written back"
    read = bash_server.call("read_notebook", {"notebook": "shell.ipynb", "detail": "detailed"})
    assert [c["source"] for c in read[PS]["cells"]] == [first_source, again_source]
    restarted = bash_server.call("restart_notebook", {"notebook": "shell.ipynb"})
    assert not restarted.is_error


def test_kernels_add_no_thread_to_the_server(tmp_path: Path, reaper: Reaper) -> None:
    """The kernels' managers and clients share one ZMQ context and start no heartbeat: three kernels, and the server
    has as many threads as with one (each kernel added five before: a context for its manager and one for its
    client, an I/O thread and a reaper each, and the heartbeat's, which woke the idle server every second)."""
    server = CheckedClient.serve(tmp_path, "--embedded", stateless=True, reaper=reaper, fresh=True)
    try:
        process = started_by_exec(server.stdio.process.pid)
        threads = []
        for index in range(3):
            notebook = f"kernel-{index}.ipynb"
            assert not server.call("use_notebook", {"notebook": notebook, "create": True}).result.get("isError")
            ran = server.call("insert_execute_code_cell", {"notebook": notebook, "source": f"print({index} * 7)"})
            assert text_of(ran[AC]).strip() == str(index * 7), ran[AC]
            threads.append(process.num_threads())
        assert len(kernels_of(process.pid)) == 3
        assert threads == [threads[0]] * 3, f"the server's threads with one, two and three kernels: {threads}"
    finally:
        server.close()
