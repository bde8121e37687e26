"""Kernels on a real Jupyter Enterprise Gateway (`--gateway-url`, its local process proxy), notebooks under --root.

One gateway for the module (support.scale), in an environment of its own with a kernelspec only it
has. Every call is a stateless 2026-12-01 request for every declared variant, each output checked
against its schema (support.checked.CheckedClient): execute_code, execute_cell, insert_execute_code_cell,
restart_notebook; a run interrupted at its timeout keeps the kernel's state; a kernel that dies is
a kernel-died error within seconds, then a new kernel that says state was lost. The kernels are
the gateway's (its REST API lists them, they are its processes' children), the notebooks the
root's, and no gateway token reaches a response or stderr.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from mcp_variants.client.stdio import StdioConnection
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.checked import CheckedClient, text_of
from support.scale import (
    GatewayProcess,
    gateway_fixture,  # noqa: F401 - the `gateway` fixture
)
from support.servers import serve_stdio

from .conftest import code, read_valid, write_notebook

pytestmark = pytest.mark.timeout(300)

AC, AS, PS = "assistant/content", "assistant/structured", "programmatic/structured"
GATEWAY_ONLY = "gateway-only-python"  # a kernelspec the gateway has and this environment does not


@pytest.fixture(scope="module")
def gateway_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gateway-root")


@pytest.fixture(scope="module")
def connection(gateway: GatewayProcess, gateway_root: Path) -> Iterator[StdioConnection]:
    python = Path(gateway.argv[0])
    spec = gateway.folder / "data" / "kernels" / GATEWAY_ONLY / "kernel.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(json.dumps({"argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                                "display_name": "Python on the gateway", "language": "python"}))
    connection = serve_stdio(gateway_root, "--gateway-url", gateway.url, "--gateway-token", gateway.token, stderr_keep=None)
    try:
        yield connection
    finally:
        connection.close()
    assert gateway.token not in connection.stderr_tail.decode(errors="replace")


@pytest.fixture(scope="module")
def client(connection: StdioConnection) -> CheckedClient:
    return CheckedClient(connection, stateless=True)


def kernel_pids_of(gateway: GatewayProcess) -> set[int]:
    return {p.pid for p in psutil.Process(gateway.pid).children(recursive=True)}


def test_code_runs_in_a_kernel_of_the_gateway(client: CheckedClient, gateway: GatewayProcess) -> None:
    out = client.call("execute_code", {"code": "import os; print(os.getpid())"})
    assert not out.is_error, out.result
    assert int(text_of(out[AC]).split()[-1]) in kernel_pids_of(gateway), "the kernel is a process the gateway started"
    assert out[PS]["kernelId"] in gateway.kernel_ids()
    assert out[AS]["kind"] == "code.execute"

    listed = client.call("list_kernels", {})
    assert out[PS]["kernelId"] in {k["id"] for k in listed[PS]["kernels"]}
    assert GATEWAY_ONLY in {s["name"] for s in listed[PS]["kernelspecs"]}, "the kernelspecs are the gateway's"


def test_notebooks_under_the_root_run_on_the_gateway(client: CheckedClient, gateway: GatewayProcess, gateway_root: Path) -> None:
    path = write_notebook(gateway_root / "on-gateway.ipynb", [code("import sys; x = 6; print(sys.executable)")])
    notebook = json.loads(path.read_text())
    notebook["metadata"]["kernelspec"] = {"name": GATEWAY_ONLY, "display_name": "Python on the gateway", "language": "python"}
    path.write_text(json.dumps(notebook))

    first = client.call("execute_cell", {"notebook": "on-gateway.ipynb", "cell_index": 0})
    assert not first.is_error, first.result
    assert text_of(first[AC]).strip().endswith(str(Path(gateway.argv[0]))), "the notebook's kernelspec, the gateway's Python"
    inserted = client.call("insert_execute_code_cell", {"notebook": "on-gateway.ipynb", "cell_index": 1, "source": "print(x * 7)"})
    assert not inserted.is_error, inserted.result
    assert "42" in text_of(inserted[AC])
    cells = read_valid(gateway_root / "on-gateway.ipynb").cells
    assert [c["outputs"][0]["text"] for c in cells] == [f"{gateway.argv[0]}\n", "42\n"], "outputs are written to the notebook under --root"

    restarted = client.call("restart_notebook", {"notebook": "on-gateway.ipynb"})
    assert not restarted.is_error, restarted.result
    after = client.call("execute_cell", {"notebook": "on-gateway.ipynb", "cell_index": 1})
    assert after.is_error and "NameError" in text_of(after[AC]), "a restarted kernel has lost x"


def test_a_timeout_interrupts_and_the_kernel_keeps_its_state(client: CheckedClient) -> None:
    kept = client.call("execute_code", {"code": "kept = 41"})
    kernel_id = kept[PS]["kernelId"]
    slow = client.call("execute_code", {"code": "print('partial', flush=True)\nimport time\ntime.sleep(60)", "timeout": 2})
    assert slow.is_error and slow[PS]["error"]["type"] == "timeout"
    assert "partial" in text_of(slow[AC])
    again = client.call("execute_code", {"code": "kept + 1"})
    assert again[PS]["kernelId"] == kernel_id and again[PS]["outputs"][0]["data"]["text/plain"] == "42"


def test_a_kernel_that_dies_is_an_error_then_a_new_kernel(client: CheckedClient, gateway: GatewayProcess) -> None:
    before = client.call("execute_code", {"code": "1"})[PS]["kernelId"]
    began = time.monotonic()
    died = client.call("execute_code", {"code": "import os; os._exit(1)"})
    assert died.is_error and died[PS]["error"]["type"] == "kernel-died", died.result
    assert time.monotonic() - began < 15
    after = client.call("execute_code", {"code": "1 + 1"})
    assert not after.is_error and after[PS]["kernelRestarted"] is True and after[PS]["kernelId"] != before
    assert "restarted" in text_of(after[AC])
    assert before not in gateway.kernel_ids(), "the dead kernel is not left on the gateway"


def test_the_server_shuts_down_its_kernels_on_the_gateway(gateway: GatewayProcess, tmp_path: Path) -> None:
    connection = serve_stdio(tmp_path, "--gateway-url", gateway.url, "--gateway-token", gateway.token)
    try:
        kernel_id = CheckedClient(connection, stateless=True).call("execute_code", {"code": "1"})[PS]["kernelId"]
        assert kernel_id in gateway.kernel_ids()
    finally:
        connection.close()
    assert kernel_id not in gateway.kernel_ids()


def test_a_wrong_gateway_token_is_a_clear_error(gateway: GatewayProcess, tmp_path: Path) -> None:
    connection = serve_stdio(tmp_path, "--gateway-url", gateway.url, "--gateway-token", "not-the-token")
    try:
        refused = CheckedClient(connection, stateless=True).call("execute_code", {"code": "1"})
    finally:
        connection.close()
    assert refused.is_error and refused[PS]["error"]["type"] == "unauthorized"
    assert f"Enterprise Gateway at {gateway.url} refused the token" in text_of(refused[AC])


def test_with_a_jupyter_server_notebooks_stay_there_and_kernels_run_on_the_gateway(
        gateway: GatewayProcess, jupyter: JupyterServerProcess, tmp_path: Path) -> None:
    write_notebook(jupyter.root / "kept-there.ipynb", [code("import os; print(os.getpid())")])
    connection = serve_stdio(tmp_path, "--gateway-url", gateway.url, "--gateway-token", gateway.token,
                             "--jupyter-url", jupyter.url, "--jupyter-token", jupyter.token)
    try:
        ran = CheckedClient(connection, stateless=True).call("execute_cell", {"notebook": "kept-there.ipynb", "cell_index": 0})
        assert not ran.is_error, ran.result
        printed = read_valid(jupyter.root / "kept-there.ipynb").cells[0]["outputs"][0]["text"]
        assert int(printed) in kernel_pids_of(gateway), "the notebook on the Jupyter server ran in a kernel of the gateway"
    finally:
        connection.close()
    assert not (tmp_path / "kept-there.ipynb").exists()
