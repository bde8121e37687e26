"""Fixtures of the wire suite; what they share is tests/support/wire.py.

Servers run the `mcp_variants` that `sys.executable` imports (the editable install of
this checkout). To test another tree, set PYTHONPATH=<tree>/src: the server processes
inherit it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.wire import OUTPUTS_VERSION, UI_EXTENSIONS, ServerPool, WireClient

# ---- fixtures -------------------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: takes several seconds of wall time (sleeps in a kernel)")


@pytest.fixture(scope="session")
def pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerPool]:
    root = tmp_path_factory.mktemp("wire-root")
    logs = tmp_path_factory.mktemp("wire-logs")
    pool = ServerPool(root, logs)
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def root(pool: ServerPool) -> Path:
    """The folder every shared server serves (`--root`)."""
    return pool.root


@pytest.fixture(scope="session")
def connect(pool: ServerPool) -> Any:
    """connect(transport, version, extensions=None) -> WireClient (cached per triple)."""
    return pool.connect


@pytest.fixture(scope="session")
def outputs_client(connect: Any) -> Any:
    """A 2026-12-01 client on a given transport: outputs_client(transport, ui=False)."""

    def make(transport: str, ui: bool = False) -> WireClient:
        return connect(transport, OUTPUTS_VERSION, UI_EXTENSIONS if ui else None)

    return make


@pytest.fixture(scope="session")
def variant_schemas(connect: Any) -> dict[tuple[str, str, str], dict[str, Any] | None]:
    """{(tool, audience, format): schema} from a 2026-12-01 tools/list with the ui extension."""
    tools = connect("stdio", OUTPUTS_VERSION, UI_EXTENSIONS).tools()
    return {
        (name, v["audience"], v["format"]): v.get("schema")
        for name, tool in tools.items()
        for v in tool["outputVariants"]
    }
