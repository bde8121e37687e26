"""Every install command of README.md and docs/, run as written in a fresh venv, and what it installed doing its job
from an empty folder; the whole server into JupyterLab's environment; the dependency ranges at both ends.

Installing needs the package registry: without it these skip, or fail under MCP_VARIANTS_OUTSIDE=required (make
test, CI). The commands with `dist/` (the built wheels) and the build itself run in test_distributions.py.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from mcp_variants.conformance.wire import HttpTarget, StdioTarget
from mcp_variants.processes import ServerProcess, free_port
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.installs import (
    BUILD,
    INSTALL_TIMEOUT,
    REPO,
    SDK,
    SDK_WHEELS,
    SUITE,
    SUITE_WHEELS,
    WHOLE,
    WHOLE_WHEELS,
    documented_commands,
    extension_listing,
    install,
    jupyter_env,
    versions,
)

pytestmark = pytest.mark.timeout(1200)

LAB = "pip install jupyterlab jupyter-collaboration"
ROOT_ALONE = "pip install ."
SDK_README = REPO / "distributions" / "sdk" / "README.md"


# ---- what each install must then do, from an empty folder ----------------------------------------------------


def run(venv: Path, program: str, *args: str, cwd: Path) -> str:
    done = subprocess.run([str(venv / "bin" / program), *args], capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, f"{program} {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout + done.stderr


def requested(*selectors: str) -> list[dict[str, str]]:
    return [dict(zip(("audience", "format"), s.rsplit("/", 1), strict=True)) for s in selectors]


def outputs(result: dict[str, Any]) -> dict[str, Any]:
    return {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in result["outputs"]}


def suite_works(venv: Path, empty: Path, check: tuple[str, ...] = ("mcp-variants-check",)) -> None:
    """Its modules import and its command runs (`check`: the server's `mcp-variants check` in an editable install,
    which has the scripts of the root's pyproject.toml only)."""
    run(venv, "python", "-c", "import mcp_variants.conformance, mcp_variants.client, mcp_variants.protocol", cwd=empty)
    assert "--server-cmd" in run(venv, *check, "--help", cwd=empty)


def sdk_works(venv: Path, empty: Path, check: tuple[str, ...] = ("mcp-variants-check",)) -> None:
    """The suite's command, and the server of the server API's README answering one call."""
    suite_works(venv, empty, check)
    code = re.search(r"```python\n(.*?)```", SDK_README.read_text(), re.S)
    assert code, f"no server in {SDK_README}"
    (empty / "adder.py").write_text(code.group(1))
    with StdioTarget([str(venv / "bin" / "python"), "adder.py"], cwd=str(empty), timeout=60) as target:
        trip = target.exchange(OUTPUTS_VERSION, None, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3},
                                                                     "requestedOutputs": requested("programmatic/structured")})
        assert outputs(trip.result) == {"programmatic/structured": {"sum": 5}}, trip.response


def served_tools(venv: Path, empty: Path) -> list[str]:
    """tools/list of `mcp-variants serve` over stdio."""
    (empty / "notebooks").mkdir(exist_ok=True)
    with StdioTarget([str(venv / "bin" / "mcp-variants"), "serve", "--root", "notebooks", "--embedded"], cwd=str(empty),
                     timeout=120) as target:
        return [tool["name"] for tool in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]]


def editable_works(venv: Path, empty: Path) -> None:
    """The whole server: `mcp-variants serve` lists its tools, the Jupyter server extension is on, and the parts work
    (an editable install, all of src/ on the path, has the commands of the root's pyproject.toml only)."""
    assert "execute_code" in served_tools(venv, empty)
    assert re.search(r"mcp_variants\.jupyter_extension\s+\S*enabled", listing := extension_listing(venv, jupyter_env(empty))), listing
    sdk_works(venv, empty, ("mcp-variants", "check"))


def server_works(venv: Path, empty: Path) -> None:
    """The whole server from its three distributions: the suite's own command too."""
    editable_works(venv, empty)
    assert "--server-cmd" in run(venv, "mcp-variants-check", "--help", cwd=empty)


def with_otel(venv: Path, empty: Path) -> None:
    run(venv, "python", "-c", "import opentelemetry.sdk.trace", cwd=empty)
    server_works(venv, empty)


def with_lab(venv: Path, empty: Path) -> None:
    run(venv, "python", "-c", "import jupyterlab, jupyter_collaboration", cwd=empty)
    editable_works(venv, empty)


def ipykernel_works(venv: Path, empty: Path) -> None:
    assert "kernelspec" in run(venv, "python", "-m", "ipykernel", "install", "--help", cwd=empty)


# command as documented: (what must then work, by pip rather than uv). pip where the whole server is installed from a
# clone, as a stranger types it (pip's resolver must take the parts from the paths on the line); uv, the same
# arguments, elsewhere.
RUN_HERE: dict[str, tuple[Callable[[Path, Path], None], bool]] = {
    WHOLE: (server_works, True),
    SDK: (sdk_works, False),
    SUITE: (suite_works, False),
    "pip install -e .": (editable_works, False),
    "pip install -e '.[lab]'": (with_lab, False),
    "pip install ./distributions/conformance ./distributions/sdk '.[otel]'": (with_otel, False),
    "python -m pip install ipykernel": (ipykernel_works, False),
}
RUN_ELSEWHERE = {
    BUILD: "the wheels fixture (conftest.py)",
    WHOLE_WHEELS: "test_distributions.py::server_venv",
    SDK_WHEELS: "test_distributions.py::sdk_venv",
    SUITE_WHEELS: "test_distributions.py::light_venv",
    LAB: "test_the_whole_server_goes_into_jupyterlabs_environment",
    ROOT_ALONE: "test_the_root_alone_fails_naming_what_it_lacks (the README says it cannot work)",
}


def test_every_install_command_of_the_docs_is_run() -> None:
    documented = documented_commands()
    untested = {command: where for command, where in documented.items() if command not in RUN_HERE | RUN_ELSEWHERE}
    assert not untested, f"install commands in the docs that no test runs: {untested}"
    undocumented = (set(RUN_HERE) | set(RUN_ELSEWHERE)) - set(documented)
    assert not undocumented, f"commands tested that no doc shows any more: {sorted(undocumented)}"


@pytest.mark.parametrize("command", RUN_HERE)
def test_the_documented_install_works(command: str, tmp_path: Path) -> None:
    works, by_pip = RUN_HERE[command]
    venv = install(command, tmp_path / "venv", by_pip=by_pip)
    (tmp_path / "empty").mkdir()
    works(venv, tmp_path / "empty")


def test_the_root_alone_fails_naming_what_it_lacks(tmp_path: Path) -> None:
    """What a stranger types first: pip refuses it, and says which distribution it could not find."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", *shlex.split(ROOT_ALONE)[2:]], capture_output=True,
                          text=True, timeout=INSTALL_TIMEOUT, cwd=REPO)
    assert done.returncode != 0, done.stdout[-2000:]
    assert "No matching distribution found for mcp-variants-conformance" in done.stderr, done.stderr[-3000:]


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
# The newest release of each within its range when the range was set: the highest end that exists.
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
    server of the server API over streamable HTTP (uvicorn, and sdk/connections.py's h11 protocol) in two eras."""
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
