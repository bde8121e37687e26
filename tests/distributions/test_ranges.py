"""The whole server beside what an environment already has: into JupyterLab's, and with mcp, mcp-types and uvicorn
at each end of the ranges pyproject.toml allows (docs/choices.md, "Installing").

Installing needs the package registry: without it these skip, or fail under MCP_VARIANTS_OUTSIDE=required (make
test, CI).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from mcp_variants.conformance.wire import HttpTarget
from mcp_variants.processes import ServerProcess, free_port
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.installs import (
    LAB,
    REPO,
    WHOLE,
    WHOLE_WHEELS,
    extension_listing,
    install,
    jupyter_env,
    outputs,
    requested,
    served_tools,
    versions,
)

pytestmark = pytest.mark.timeout(1200)


# ---- JupyterLab's environment ---------------------------------------------------------------------------------


def test_the_whole_server_goes_into_jupyterlabs_environment(tmp_path: Path) -> None:
    """Into a venv that runs JupyterLab with real-time collaboration, by uv: nothing there changes version, and the
    JupyterLab then started serves MCP at /mcp with its token, collaboration still on."""
    venv = install(LAB, tmp_path / "venv")
    before = versions(venv)
    install(WHOLE, venv, into_existing=True)
    after = versions(venv)
    assert {"mcp-variants", "mcp-variants-sdk", "mcp-variants-conformance"} <= set(after)
    assert {name: (version, after.get(name)) for name, version in before.items() if after.get(name) != version} == {}
    env = jupyter_env(tmp_path)
    listing = extension_listing(venv, env)
    for extension in ("mcp_variants.jupyter_extension", "jupyter_server_ydoc"):
        assert re.search(rf"{re.escape(extension)}\s+\S*enabled", listing), listing
    (tmp_path / "root").mkdir()
    token = "lab-" + "0" * 32
    port = free_port()
    lab = ServerProcess([str(venv / "bin" / "jupyter"), "lab", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                         "--ServerApp.ip=127.0.0.1", f"--ServerApp.root_dir={tmp_path / 'root'}", f"--IdentityProvider.token={token}",
                         "--allow-root", "--ServerApp.open_browser=False"], port, env=env, log=tmp_path / "lab.log")
    with lab.start(120), HttpTarget(f"http://127.0.0.1:{port}/mcp", headers={"Authorization": f"token {token}"}) as target:
        trip = target.exchange(OUTPUTS_VERSION, None, "tools/list", {})
        assert trip.response and "result" in trip.response, f"{trip.response}\n{lab.output()[-2000:]}"
        assert "execute_code" in [tool["name"] for tool in trip.result["tools"]]


# ---- the dependency ranges, at both ends ----------------------------------------------------------------------

RANGED = ("mcp", "mcp-types", "uvicorn")
# The newest release of each within its range when the range was set: the highest end that exists (uvicorn has no upper
# bound: its newest tested; `make canary` runs whatever is newest, docs/support.md).
HIGHEST = {"mcp": "2.3.0", "mcp-types": "2.3.0", "uvicorn": "0.55.0"}


def declared(project: Path) -> dict[str, Requirement]:
    requirements = (Requirement(r) for r in tomllib.loads((project / "pyproject.toml").read_text())["project"]["dependencies"])
    return {r.name: r for r in requirements if r.name in RANGED}


def ends() -> dict[str, dict[str, str]]:
    """The lowest end (each range's floor) and the highest (HIGHEST), each version checked to be in its range."""
    ranges = declared(REPO)
    lowest = {name: next(s.version for s in r.specifier if s.operator == ">=") for name, r in ranges.items()}
    for end in (lowest, HIGHEST):
        assert all(ranges[name].specifier.contains(version) for name, version in end.items()), (end, ranges)
    return {"lowest": lowest, "highest": HIGHEST}


def test_the_parts_declare_the_same_ranges() -> None:
    for part in ("conformance", "sdk"):
        for name, requirement in declared(REPO / "distributions" / part).items():
            assert requirement == declared(REPO)[name], (part, str(requirement))


@pytest.mark.parametrize("end", ["lowest", "highest"])
def test_the_server_works_at_each_end_of_its_ranges(end: str, wheels: Path, tmp_path: Path) -> None:
    """The whole server from the wheels with mcp, mcp-types and uvicorn at one end: its tools over stdio, and a
    server of the server API over streamable HTTP (uvicorn, and sdk/_connections.py's h11 protocol) in two eras."""
    pins = ends()[end]
    venv = install(WHOLE_WHEELS, tmp_path / "venv", wheels=wheels, also=tuple(f"{name}=={v}" for name, v in pins.items()))
    assert {name: versions(venv)[name] for name in pins} == pins
    (tmp_path / "empty").mkdir()
    assert "execute_code" in served_tools(venv, tmp_path / "empty")
    port = free_port()
    server = ServerProcess([str(venv / "bin" / "python"), str(REPO / "examples" / "world_clock.py"), "--http", "--port", str(port)], port,
                           cwd=tmp_path / "empty", log=tmp_path / "server.log")
    with server.start(60), HttpTarget(f"http://127.0.0.1:{port}/mcp") as target:
        call = {"name": "world_clock", "arguments": {"zone": "UTC"}}
        modern = target.exchange(OUTPUTS_VERSION, None, "tools/call", {**call, "requestedOutputs": requested("programmatic/structured")})
        assert outputs(modern.result)["programmatic/structured"]["zone"] == "UTC", f"{modern.response}\n{server.output()[-2000:]}"
        legacy = target.exchange("2025-11-25", None, "tools/call", call)
        assert "in UTC" in legacy.result["content"][0]["text"], f"{legacy.response}\n{server.output()[-2000:]}"
