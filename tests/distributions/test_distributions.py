"""The three distributions, built as wheels and installed into fresh virtual environments, as a stranger would.

* mcp-variants-conformance: the suite, the reference client and the core; no MCP SDK, no Jupyter; at most
  20 packages and 60 MB in a fresh venv (issue 19's budget), and `mcp-variants-check` judges a server.
* mcp-variants-sdk: the server API on the official SDK; no Jupyter package; an example server runs from it.
* mcp-variants: the Jupyter server, depending on both.

Every file of src/mcp_variants is in exactly one wheel. Installing needs the package registry: without it
the install tests skip, or fail under MCP_VARIANTS_OUTSIDE=required (make test, CI).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants import __version__
from mcp_variants.processes import ServerProcess, free_port
from support.installs import REPO, SDK_WHEELS, SUITE_WHEELS, WHOLE_WHEELS, extension_listing, install, jupyter_env, megabytes, versions

PARTS = {"mcp-variants-conformance": REPO / "distributions" / "conformance", "mcp-variants-sdk": REPO / "distributions" / "sdk"}
LIGHT_BUDGET = {"packages": 20, "megabytes": 60}
JUPYTER_PACKAGES = {"jupyter-client", "jupyter-server", "jupyter-core", "ipykernel", "nbformat", "pycrdt", "jupyter-ydoc",
                    "jupyter-kernel-client", "notebook", "jupyterlab"}
# world_clock declares no MCP Apps view, assistant/structured or user/content: the 9 scenarios about those do not
# apply to it (tests/sdk/test_examples.py names them), and it is OK without them.
CHECK_CALL = ["--no-default-calls", "--call", 'world_clock={"zone": "UTC"}', "-q"]
ACCEPTED = "\nOK\n"

pytestmark = pytest.mark.timeout(1200)


def wheel_files(wheels: Path) -> dict[str, set[str]]:
    """Each distribution's files under mcp_variants/ (its dist-info left out)."""
    files: dict[str, set[str]] = {}
    for wheel in wheels.glob("*.whl"):
        name = re.sub(r"-[0-9].*$", "", wheel.name).replace("_", "-")
        with zipfile.ZipFile(wheel) as archive:
            files[name] = {n for n in archive.namelist() if n.startswith("mcp_variants/")}
    return files


def test_every_file_of_the_package_is_in_exactly_one_wheel(wheels: Path) -> None:
    files = wheel_files(wheels)
    assert set(files) == {"mcp-variants", *PARTS}, sorted(files)
    sources = {f"mcp_variants/{p.relative_to(REPO / 'src' / 'mcp_variants')}" for p in (REPO / "src" / "mcp_variants").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    shipped = set().union(*files.values())
    assert sources - shipped == set(), "files of src/ in no wheel"
    names = sorted(files)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            assert not files[first] & files[second], f"{first} and {second} both ship {sorted(files[first] & files[second])[:5]}"


def test_the_parts_hold_no_jupyter_and_the_suite_no_sdk(wheels: Path) -> None:
    files = wheel_files(wheels)
    for name in PARTS:
        assert not [f for f in files[name] if f.split("/")[1] in ("jupyter", "tools", "server", "apps")], name
    assert not [f for f in files["mcp-variants-conformance"] if f.startswith("mcp_variants/sdk/")]


def requirements(project: Path) -> dict[str, str]:
    declared = tomllib.loads((project / "pyproject.toml").read_text())["project"]["dependencies"]
    return {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower(): d for d in declared}


def test_the_parts_ask_for_what_the_whole_asks_for() -> None:
    """An editable install (make) gets the whole's dependencies only: each part's must be among them, alike."""
    whole = requirements(REPO)
    for name, folder in PARTS.items():
        for package, requirement in requirements(folder).items():
            if package.startswith("mcp-variants"):
                assert requirement == f"{package}=={__version__}", (name, requirement)
                continue
            assert whole.get(package) == requirement, f"{name} asks for {requirement!r}, mcp-variants for {whole.get(package)!r}"


# ---- installed into fresh environments -----------------------------------------------------------


def installed(venv: Path) -> set[str]:
    return set(versions(venv))


@pytest.fixture(scope="module")
def light_venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield install(SUITE_WHEELS, tmp_path_factory.mktemp("light") / "venv", wheels=wheels, by_pip=True)  # the budget: pip's venv


@pytest.fixture(scope="module")
def sdk_venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield install(SDK_WHEELS, tmp_path_factory.mktemp("sdk") / "venv", wheels=wheels)


def test_the_suite_installs_light(light_venv: Path) -> None:
    packages = installed(light_venv)
    assert "mcp" not in packages and not packages & JUPYTER_PACKAGES, sorted(packages)
    assert len(packages) <= LIGHT_BUDGET["packages"], f"{len(packages)} packages: {sorted(packages)}"
    assert megabytes(light_venv) <= LIGHT_BUDGET["megabytes"], f"{megabytes(light_venv):.1f} MB"


def check(venv: Path, server_python: Path, example: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`mcp-variants-check` of `venv` against an example server run by `server_python`, from a folder of no project."""
    command = [str(venv / "bin" / "mcp-variants-check"), "--server-cmd", f"{server_python} {REPO / 'examples' / example}",
               *CHECK_CALL]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=cwd)


def test_the_light_suite_judges_a_server(light_venv: Path, sdk_venv: Path, tmp_path: Path) -> None:
    """The light suite's check, against a server on the server API installed elsewhere, from an empty folder."""
    done = check(light_venv, sdk_venv / "bin" / "python", "world_clock.py", tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"\d+ scenarios: \d+ pass, 0 fail", done.stdout) and ACCEPTED in done.stdout, done.stdout[-2000:]
    client = subprocess.run([str(light_venv / "bin" / "mcp-variants-check-client"), "--list"], capture_output=True, text=True,
                            timeout=120, cwd=tmp_path)
    assert client.returncode == 0 and client.stdout.strip(), client.stdout + client.stderr


def test_the_server_api_installs_without_jupyter(sdk_venv: Path, tmp_path: Path) -> None:
    packages = installed(sdk_venv)
    assert {"mcp", "mcp-variants-sdk", "mcp-variants-conformance"} <= packages
    assert not packages & JUPYTER_PACKAGES, sorted(packages & JUPYTER_PACKAGES)
    done = check(sdk_venv, sdk_venv / "bin" / "python", "world_clock.py", tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


# ---- the Jupyter server extension, as `pip install mcp-variants` leaves it ------------------------


@pytest.fixture(scope="module")
def server_venv(wheels: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield install(WHOLE_WHEELS, tmp_path_factory.mktemp("server") / "venv", wheels=wheels)


def test_installed_the_extension_is_on_and_serves_mcp_in_jupyter_server(server_venv: Path, tmp_path: Path) -> None:
    """`pip install mcp-variants`, then `jupyter server`: MCP at /mcp with the server's token; and off when disabled."""
    env = jupyter_env(tmp_path)
    jupyter = str(server_venv / "bin" / "jupyter")
    listed = extension_listing(server_venv, env)
    assert re.search(r"mcp_variants\.jupyter_extension\s+\S*enabled", listed), listed
    (tmp_path / "root").mkdir()
    token = "packaging-" + "0" * 32
    port = free_port()
    server = ServerProcess([jupyter, "server", f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
                            f"--ServerApp.root_dir={tmp_path / 'root'}", f"--IdentityProvider.token={token}", "--allow-root",
                            "--ServerApp.open_browser=False"], port, env=env, log=tmp_path / "server.log")
    with server.start(120):
        done = subprocess.run([str(server_venv / "bin" / "mcp-variants"), "check", "--server-url", f"http://127.0.0.1:{port}/mcp",
                               "--header", f"Authorization: token {token}", "-q"],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:] + server.output()[-2000:]
    disabled = subprocess.run([jupyter, "server", "extension", "disable", "mcp_variants.jupyter_extension"], capture_output=True,
                              text=True, timeout=120, env=env)
    assert disabled.returncode == 0, disabled.stderr
    listed = extension_listing(server_venv, env)
    assert re.search(r"mcp_variants\.jupyter_extension\s+\S*disabled", listed), listed


# ---- typed: PEP 561 ----------------------------------------------------------------------------------


def requires(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        lines = archive.read(metadata).decode().splitlines()
    return [line.removeprefix("Requires-Dist: ") for line in lines if line.startswith("Requires-Dist: ")]


def test_one_py_typed_marks_the_package_in_every_install(wheels: Path) -> None:
    """The marker beside mcp_variants/__init__.py covers every subpackage (mypy reads it in the top-level package
    only): it ships with __init__.py, in one wheel, as every file does (two wheels owning it, uninstalling either
    would take it away), and every other wheel depends on that one."""
    files = wheel_files(wheels)
    assert [name for name, shipped in files.items() if "mcp_variants/py.typed" in shipped] == ["mcp-variants-conformance"]
    assert "mcp_variants/__init__.py" in files["mcp-variants-conformance"]
    for wheel in wheels.glob("*.whl"):
        if not wheel.name.startswith("mcp_variants_conformance-"):
            assert f"mcp-variants-conformance=={__version__}" in requires(wheel), (wheel.name, requires(wheel))


def test_a_users_mypy_sees_the_server_api_typed(sdk_venv: Path, tmp_path: Path) -> None:
    """mypy, pointed at the installed server API, types what it returns: a wrong annotation is an error, and no
    'missing library stubs or py.typed marker' (without the marker mypy takes the whole package as Any)."""
    pytest.importorskip("mypy")
    (tmp_path / "server.py").write_text("from mcp_variants.sdk import Results, variant\n\n"
                                        "wrong: int = Results({'assistant/content': 'x'})\n"
                                        "spec: str = variant('assistant/content')\n")
    done = subprocess.run([sys.executable, "-m", "mypy", "--python-executable", str(sdk_venv / "bin" / "python"), "--no-incremental",
                           "server.py"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "py.typed" not in done.stdout, done.stdout
    assert 'Incompatible types in assignment (expression has type "Results", variable has type "int")' in done.stdout, done.stdout
    assert 'expression has type "VariantSpec", variable has type "str"' in done.stdout, done.stdout
