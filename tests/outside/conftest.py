"""Fixtures of the outside tests: one HTTP server for the session, Node from install.sh."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.outside import EVERYTHING, EXAMPLES, HttpServer, http_server, node
from support.servers import python_command


@pytest.fixture(scope="session")
def outside_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder the outside tests' servers serve (`--root`)."""
    return tmp_path_factory.mktemp("outside-root")


@pytest.fixture(scope="session")
def server(outside_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """`mcp-variants serve --http` on a free port, shared by the session."""
    log = tmp_path_factory.mktemp("outside-logs") / "http-server.log"
    with http_server(outside_root, log) as running:
        yield running


def example_server(tmp_path_factory: pytest.TempPathFactory, script: Path) -> Iterator[HttpServer]:
    """An example server of examples/ (on mcp_variants.sdk, its `cli`'s --http) over streamable HTTP on a free port,
    stopped by PID at the end (a fork of the fork server, support/servers.py: the examples as a person runs them are
    tests/sdk's)."""
    folder = tmp_path_factory.mktemp(script.stem)
    server = HttpServer(folder, "--host", "127.0.0.1", log=folder / f"{script.stem}.log", command=[*python_command(), str(script)])
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="session")
def everything_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """examples/everything.py: the conformance suite's fixture server on mcp_variants.sdk."""
    yield from example_server(tmp_path_factory, EVERYTHING)


@pytest.fixture(scope="session")
def world_clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """examples/world_clock.py: a new server on mcp_variants.sdk, with none of the suite's fixtures."""
    yield from example_server(tmp_path_factory, EXAMPLES / "world_clock.py")


@pytest.fixture(scope="session")
def migrated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """examples/migration/after.py: an MCPServer tool migrated to declared variants."""
    yield from example_server(tmp_path_factory, EXAMPLES / "migration" / "after.py")


@dataclass(frozen=True)
class Endpoint:
    url: str  # what the suite is pointed at (--url)


# The official suite sends no credentials: the Jupyter server it reaches has authentication turned off (no token,
# no password, and so no XSRF check), loopback only, as a person may run one; the extension's own auth is tested
# in tests/integration/test_jupyter_extension.py.
NO_AUTH = ("--IdentityProvider.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True")


@pytest.fixture(scope="session")
def extension_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoint]:
    """A jupyter-server with the mcp-variants extension, its MCP endpoint at {url}mcp."""
    from support.extension import ENDPOINT, extension_server

    with extension_server(tmp_path_factory.mktemp("extension-root"), *NO_AUTH).start(90) as process:
        yield Endpoint(process.url + ENDPOINT)


@pytest.fixture(scope="session")
def node_bin() -> Path:
    """tests/outside/node_modules/.bin/node (Node 22); skips, or fails under MCP_VARIANTS_OUTSIDE=required."""
    return node()
