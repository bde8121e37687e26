"""`mcp-variants doctor` (issue 49): the setup said before a desktop client starts the server, from real parts: a real
jupyter-server's info file and API, real kernelspecs, the kernel's own Python asked for the packages named."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.client.stdio import StdioConnection
from mcp_variants.jupyter.server_launcher import JupyterServerProcess
from support.extension import extension_server
from support.servers import REQUEST_TIMEOUT

pytestmark = pytest.mark.timeout(180)


def doctor(*args: str, runtime: Path) -> tuple[int, dict[str, Any]]:
    """The doctor's JSON report, looking for Jupyter servers in `runtime` (as in a user's runtime folder)."""
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime)}
    for name in ("JUPYTER_URL", "JUPYTER_TOKEN", "MCP_VARIANTS_EMBEDDED", "MCP_VARIANTS_KERNEL", "MCP_VARIANTS_ROOT"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "mcp_variants", "doctor", "--json", *args], capture_output=True, text=True,
                          timeout=120, env=env)
    return done.returncode, json.loads(done.stdout)


def said(report: dict[str, Any], topic: str) -> list[str]:
    return [f["said"] for f in report["findings"] if f["topic"] == topic]


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    with JupyterServerProcess(tmp_path_factory.mktemp("doctor-jupyter")).start(60) as process:
        yield process


def test_no_jupyter_server_on_the_folder_means_embedded_and_says_why(jupyter: JupyterServerProcess, tmp_path: Path) -> None:
    code, report = doctor("--root", str(tmp_path), "--need", "ipykernel", "--need", "no_such_package_xyz",
                          runtime=jupyter.folder / "runtime")
    assert report["runtime"] == "embedded" and f"no Jupyter server of this user serves {tmp_path.resolve()}" in report["why"]
    (server,) = said(report, "jupyter server")
    assert jupyter.url in server and f"which does not contain {tmp_path.resolve()}" in server, "found, and why it does not count"
    assert server.endswith("so it is not used"), server
    assert jupyter.token not in json.dumps(report)
    (kernel,) = said(report, "kernel")
    assert "the server's own environment" in kernel and sys.executable in kernel
    packages = {f["said"].split()[0]: f["ok"] for f in report["findings"] if f["topic"] == "package"}
    assert packages == {"ipykernel": True, "no_such_package_xyz": False}
    assert code == 1 and report["ok"] is False, "a package missing needs fixing"
    assert any("stderr" in line for line in said(report, "logs"))


def test_the_jupyter_server_on_the_folder_is_the_runtime(jupyter: JupyterServerProcess) -> None:
    code, report = doctor("--root", str(jupyter.root), "--need", "ipykernel", runtime=jupyter.folder / "runtime")
    assert code == 0 and report["ok"], report
    assert report["runtime"] == "remote" and jupyter.url in report["why"], report["why"]
    (server,) = said(report, "jupyter server")
    assert server.endswith("it counts"), server
    (live,) = [f for f in report["findings"] if f["topic"] == "live"]
    assert live["ok"] is None and "jupyter-collaboration" in live["said"], "a plain jupyter-server: not live"
    assert "Jupyter server's kernelspec" in said(report, "kernel")[0]
    assert jupyter.token not in json.dumps(report)
    assert not said(report, "extension"), "a plain jupyter-server serves no MCP of its own"


def test_a_jupyter_server_with_the_extension_is_said_to_serve_mcp(tmp_path_factory: pytest.TempPathFactory) -> None:
    with extension_server(tmp_path_factory.mktemp("doctor-extension")).start(60) as server:
        code, report = doctor("--root", str(server.root), runtime=server.folder / "runtime")
    assert code == 0 and report["runtime"] == "remote", report
    (endpoint,) = said(report, "extension")
    assert f"mcp-variants connect {server.url}mcp" in endpoint, endpoint


def test_embedded_and_an_unknown_kernel(jupyter: JupyterServerProcess) -> None:
    code, report = doctor("--root", str(jupyter.root), "--embedded", "--kernel", "no-such-env", runtime=jupyter.folder / "runtime")
    assert report["runtime"] == "embedded" and "--embedded" in report["why"]
    (kernel,) = said(report, "kernel")
    assert code == 1 and "no kernelspec 'no-such-env'" in kernel and "ipykernel install --user --name no-such-env" in kernel


def test_the_client_entry_it_prints_starts_the_server(tmp_path: Path) -> None:
    """What the doctor tells the user to paste into their client's config, run as the client runs it."""
    _, report = doctor("--root", str(tmp_path), "--embedded", runtime=tmp_path / "runtime")
    entry = report["clientEntry"]["mcpServers"]["jupyter"]
    with StdioConnection([entry["command"], *entry["args"]]) as server:
        answer = server.initialize("2025-11-25")
        assert answer["result"]["serverInfo"]["name"], answer
        assert "tools" in server.request("tools/list", {}, timeout=REQUEST_TIMEOUT)["result"]
