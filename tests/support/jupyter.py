"""A real jupyter-server for the tests that need one (the remote runtime, connect_to_jupyter)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from mcp_variants.processes import JupyterServerProcess


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServerProcess]:
    """A stock jupyter-server (no TCP_NODELAY tuning) on 127.0.0.1 with a token of its own, for one
    test module; stopped by PID at the end, with any kernel a failed test left behind."""
    with JupyterServerProcess(tmp_path_factory.mktemp("jupyter")).start() as server:
        yield server


def kernel_ids(server: JupyterServerProcess) -> set[str]:
    """The ids of the kernels the server runs now (its REST API)."""
    response = httpx.get(f"{server.url}api/kernels", headers=server.auth_headers, timeout=10)
    response.raise_for_status()
    return {kernel["id"] for kernel in response.json()}
