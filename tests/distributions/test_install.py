"""Every install command of README.md and docs/, run as written in a fresh venv, and what it installed doing its job
from an empty folder.

Installing needs the package registry: without it these skip, or fail under MCP_VARIANTS_OUTSIDE=required (make
test, CI). The commands with `dist/` (the built wheels) and the build itself run in test_distributions.py, the
JupyterLab one in test_ranges.py.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.installs import (
    BUILD,
    INSTALL_TIMEOUT,
    LAB,
    LEAN,
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
    megabytes,
    outputs,
    requested,
    served_tools,
    versions,
)

pytestmark = pytest.mark.timeout(1200)

ROOT_ALONE = "pip install ."
LEAN_BUDGET_MB = 170  # 139 MB of files at issue 49, 310 MB with pyarrow (docs/choices.md, "The server's size")
SDK_README = REPO / "distributions" / "sdk" / "README.md"


# ---- what each install must then do, from an empty folder ----------------------------------------------------


def run(venv: Path, program: str, *args: str, cwd: Path) -> str:
    done = subprocess.run([str(venv / "bin" / program), *args], capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, f"{program} {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout + done.stderr


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
    """What the extra adds (the server itself: WHOLE, the same line without the extra, and server_works)."""
    run(venv, "python", "-c", "import opentelemetry.sdk.trace, mcp_variants.telemetry", cwd=empty)
    assert "--server-cmd" in run(venv, "mcp-variants-check", "--help", cwd=empty)


def with_redis(venv: Path, empty: Path) -> None:
    """What the extra adds: the shared state store's client (the server itself: WHOLE and server_works)."""
    run(venv, "python", "-c", "import redis.asyncio, mcp_variants.state.redis_client", cwd=empty)


def with_fastmcp(venv: Path, empty: Path) -> None:
    """The server API with FastMCP: its layer imports beside FastMCP, and the suite's command runs."""
    suite_works(venv, empty)
    run(venv, "python", "-c", "import fastmcp, mcp_variants.fastmcp", cwd=empty)


def with_lab(venv: Path, empty: Path) -> None:
    """What the extra adds (the editable server itself: `pip install -e .` and editable_works)."""
    run(venv, "python", "-c", "import jupyterlab, jupyter_collaboration, mcp_variants.server.cli", cwd=empty)


def with_smolagents(venv: Path, empty: Path) -> None:
    """What the extra adds: smolagents beside the reference client's tools for its CodeAgent (docs/guides/code-mode.md)."""
    suite_works(venv, empty)
    run(venv, "python", "-c", "import smolagents, mcp_variants.client.smolagents_tools", cwd=empty)


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
    "pip install ./distributions/conformance ./distributions/sdk '.[redis]'": (with_redis, False),
    "pip install ./distributions/conformance './distributions/sdk[fastmcp]'": (with_fastmcp, False),
    "pip install './distributions/conformance[smolagents]'": (with_smolagents, False),
}
RUN_ELSEWHERE = {
    BUILD: "the wheels fixture (conftest.py)",
    WHOLE_WHEELS: "test_distributions.py::server_venv",
    SDK_WHEELS: "test_distributions.py::sdk_venv",
    SUITE_WHEELS: "test_distributions.py::light_venv",
    LAB: "test_ranges.py::test_the_whole_server_goes_into_jupyterlabs_environment",
    ROOT_ALONE: "test_the_root_alone_fails_naming_what_it_lacks (the README says it cannot work)",
    LEAN: "test_the_lean_install_leaves_pyarrow_out",
    "pip install 'fastmcp==4.1.4' fastmcp-tasks==4.1.4": "tests/sdk/test_fastmcp_tasks.py (REQUIREMENTS: its own environment)",
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


def test_the_lean_install_leaves_pyarrow_out(tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    """uv's line with distributions/overrides.txt, not editable, in a fresh venv: the whole server without pyarrow,
    its size recorded (the JUnit report's property `venv_megabytes`) and held to a budget."""
    venv = install(LEAN, tmp_path / "venv")
    (tmp_path / "empty").mkdir()
    server_works(venv, tmp_path / "empty")
    assert "pyarrow" not in versions(venv), "distributions/overrides.txt leaves it out"
    size = megabytes(venv)
    record_property("venv_megabytes", round(size, 1))
    print(f"the lean server venv: {size:.1f} MB, {len(versions(venv))} packages")
    assert size <= LEAN_BUDGET_MB, f"{size:.1f} MB: what grew? (uv pip tree --invert --package NAME)"
