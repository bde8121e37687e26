"""What importing a runtime pulls in, each in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = (
    "import importlib, sys; importlib.import_module(sys.argv[1]); "
    "print(sorted({m.split('.')[0] for m in sys.modules} & {'jupyter_client', 'jupyter_kernel_client', 'zmq'}))"
)


def imported_by(module: str) -> str:
    return subprocess.run([sys.executable, "-c", PROBE, module], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("module", ["mcp_variants.jupyter.server_backend", "mcp_variants.jupyter.sandboxes"])
def test_the_remote_runtime_does_not_import_jupyter_client(module: str) -> None:
    """The websocket client (and jupyter_client under it) is imported when a kernel is first connected, not before."""
    assert imported_by(module) == "[]"


def test_the_embedded_runtime_imports_jupyter_client() -> None:
    """The probe sees an import when there is one."""
    assert "jupyter_client" in imported_by("mcp_variants.jupyter.embedded")
