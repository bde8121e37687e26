"""What importing a runtime pulls in, each in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = {"jupyter_client", "jupyter_kernel_client", "zmq"}
PROBE = (
    "import importlib, sys; importlib.import_module(sys.argv[1]); "
    f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {HEAVY!r}))"
)
# What a server that only lists its tools must not import: the kernels' clients, the remote runtime's
# HTTP, websocket and CRDT libraries, the notebook format, images, IPython.
START_UP_FREE = HEAVY | {"ipykernel", "IPython", "httpx", "websockets", "pycrdt", "jupyter_ydoc", "nbformat", "PIL", "psutil", "tornado"}
START_UP_PROBE = (
    "import sys; from pathlib import Path; from mcp_variants.server.app import build_server; "
    "from mcp_variants.server.compose import ServerConfig, compose, local_runtimes; from mcp_variants.sdk import serve_stdio; "
    "build_server(compose(ServerConfig(), lambda limits: local_runtimes(Path(sys.argv[1]), limits))); "
    f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {START_UP_FREE!r}))"
)


def imported_by(module: str) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, module], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("module", ["mcp_variants.jupyter.server_backend", "mcp_variants.jupyter.sandboxes",
                                    "mcp_variants.jupyter.embedded"])
def test_the_runtimes_do_not_import_jupyter_client(module: str) -> None:
    """The kernels' clients (jupyter_client, the websocket client) are imported when a kernel is first needed, not before."""
    assert imported_by(module) == "[]"


def test_the_probe_sees_an_import() -> None:
    assert "jupyter_client" in imported_by("jupyter_client.manager")


def test_a_server_ready_to_list_its_tools_imports_none_of_the_runtimes(tmp_path: Path) -> None:
    """Start-up (the embedded runtime, its default kernelspec checked) pays for none of what only calls use."""
    probe = subprocess.run([sys.executable, "-c", START_UP_PROBE, str(tmp_path)], capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "[]"
