"""The lower end of the uvicorn range (pyproject.toml's floor; uvicorn has no upper bound, docs/support.md) where it is
read: sdk/_connections.py's h11 protocol, with a read deadline and a connection cap, serving a server of the public API
on uvicorn's floor, in an environment of its own with this checkout's src/ on the path. The upper end is the project's
own environment (test_fastmcp_wire.py's stalled connections), and uvicorn's newest is `make canary`'s."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from support.envs import cached_venv
from support.servers import HttpServer
from support.stalled import check_server_handles_stalled

from .test_fastmcp_tasks import SRC

pytestmark = [pytest.mark.wire, pytest.mark.timeout(900)]

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
SAMPLE = Path(__file__).with_name("sample_server.py")


def uvicorn_floor() -> str:
    (requirement,) = (r for r in map(Requirement, tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"])
                      if r.name == "uvicorn")
    (floor,) = (s.version for s in requirement.specifier if s.operator == ">=")
    return floor


REQUIREMENTS = ("mcp==2.3.0", "mcp-types==2.3.0", f"uvicorn=={uvicorn_floor()}", "jsonschema>=4.23", "jsonschema-rs>=0.29",
                "orjson>=3.10", "pyyaml>=6", "psutil>=5.9", "anyio>=4.5")

GUARDED = """\
import sys
from importlib.metadata import version

import anyio

sys.path.insert(0, {folder!r})
from sample_server import mcp

from mcp_variants.sdk import HttpLimits, serve_http

assert version("uvicorn") == {uvicorn!r}, version("uvicorn")
port = int(sys.argv[sys.argv.index("--port") + 1])
anyio.run(lambda: serve_http(mcp, port=port, limits=HttpLimits(read_timeout=2, max_connections=20)))
"""


def test_the_lower_end_keeps_the_read_deadline_and_the_connection_cap(tmp_path: Path) -> None:
    """On uvicorn's floor, 100 half-sent requests against a cap of 20 leave a client served, and close by the deadline."""
    python = cached_venv("uvicorn-lowest", REQUIREMENTS) / "bin" / "python"
    script = tmp_path / "guarded.py"
    script.write_text(GUARDED.format(folder=str(SAMPLE.parent), uvicorn=uvicorn_floor()))
    server = HttpServer(tmp_path, log=tmp_path / "server.log", command=[str(python), str(script)],
                        env={**os.environ, "PYTHONPATH": str(SRC)})
    check_server_handles_stalled(server, 100, cap=20, deadline=10)
