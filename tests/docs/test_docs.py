"""The documentation site (mkdocs.yml, docs/): it builds with --strict, and its generated parts
still say what the server says.

- docs/examples/ and docs/api/ are written by scripts/gen_docs.py from the running server;
  `--check` regenerates them in memory and fails on any difference (run `make docs-examples`
  and commit the result).
- `mkdocs build --strict` fails on a page missing from the nav, a broken link or anchor, or a
  missing example fragment (mkdocs.yml `validation`, pymdownx.snippets `check_paths`).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.processes import LOOPBACK, free_port
from support.envs import unavailable

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(600)


def need(module: str) -> None:
    """The docs extra must be installed where the outside tests are required (make test, CI: it installs it);
    elsewhere the test is skipped, as the other outside tests are."""
    if importlib.util.find_spec(module) is None:
        unavailable(f"{module} is not installed: pip install -e '.[docs]'")


def test_every_tool_in_variants_has_a_generated_page() -> None:
    tools = sorted(json.loads(p.read_text())["name"] for p in (REPO / "variants").glob("*.json"))
    missing = [t for t in tools if not (REPO / "docs" / "api" / f"{t}.md").is_file()]
    assert not missing, f"no docs/api page for {missing}: run `make docs-examples`"


def test_every_example_fragment_is_shown() -> None:
    """A fragment in docs/examples/ that no page includes is dead weight (or a page lost its example)."""
    pages = "\n".join(p.read_text() for p in (REPO / "docs").rglob("*.md") if "examples" not in p.parts)
    unused = sorted(p.name for p in (REPO / "docs" / "examples").glob("*.md") if f"examples/{p.name}" not in pages)
    assert not unused, f"no page includes {unused}"


# The guides show these examples whole, in the page itself (a page read as markdown, outside the site, shows its code).
SHOWN_WHOLE = {
    "docs/guides/python-servers.md": ["examples/bookshelf.py", "examples/migration/before.py", "examples/migration/after.py"],
    "docs/guides/first-server.md": ["examples/world_clock.py"],
}


@pytest.mark.parametrize("page", sorted(SHOWN_WHOLE))
def test_the_guides_show_their_examples_as_the_files_are(page: str) -> None:
    text = (REPO / page).read_text()
    stale = [example for example in SHOWN_WHOLE[page] if f"```python\n{(REPO / example).read_text()}```" not in text]
    assert not stale, f"{page} does not show {stale} as they are: paste each file whole into its ```python block"


def test_the_first_servers_call_script_prints_the_outputs_it_asks_for(tmp_path: Path) -> None:
    """first-server.md's `call.py`, run as the page says (beside world_clock.py), against the real example server."""
    text = (REPO / "docs/guides/first-server.md").read_text()
    script = text.split("## 4. Call it yourself", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "world_clock.py").write_text((REPO / "examples/world_clock.py").read_text())
    (tmp_path / "call.py").write_text(script.replace('"python"', repr(sys.executable)))
    done = subprocess.run([sys.executable, "call.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["programmatic/structured", "user/structured"], done.stdout
    assert "'zone': 'Europe/Paris'" in lines[0] and "'title':" in lines[1]


@pytest.mark.parametrize("module", ["mcp_variants.sdk", "mcp_variants.sdk.lowlevel", "mcp_variants.sdk.tasks",
                                    "mcp_variants.sdk.framework"])
def test_the_module_table_names_every_public_name(module: str) -> None:
    """python-servers.md's *The API, in four modules*: a name a module exports is one a reader looks up there."""
    text = (REPO / "docs/guides/python-servers.md").read_text()
    row = next(line for line in text.splitlines() if line.startswith(f"| `{module}` |"))
    missing = [name for name in importlib.import_module(module).__all__ if f"`{name}`" not in row]
    assert not missing, f"python-servers.md's row for {module} does not name {missing}"


def test_the_api_reference_gives_every_public_name_its_docstring() -> None:
    """docs/python-api/ (generated, held equal to the code by the test below): every public name, method and property
    it renders says what it is; a name without a docstring renders as "(no docstring)"."""
    page = (REPO / "docs/python-api/index.md").read_text()
    lines = page.splitlines()
    bare = [lines[max(i - 3, 0)] for i, line in enumerate(lines) if line.strip() == "(no docstring)"]
    assert not bare, f"rendered without a docstring: {bare}"
    # A reader of the reference cannot open a private module: the text points at public names and pages instead.
    private = [line for line in lines[1:] if re.search(r"(?<![\w/])_[a-z_]+\.py", line)]
    assert not private, f"the API reference points at private modules: {private}"


def test_generated_docs_match_the_live_server(tmp_path: Path) -> None:
    """Whatever this machine runs and sets: here a Jupyter server that serves / (its info file, as jupyter-server
    writes it into JUPYTER_RUNTIME_DIR, naming a running process: this one) and --compat in the environment. The
    generator's server sees neither (scripts/docsgen/recording.py, `serve_env`); seeing them, it answered through
    that server, or listed the other server's inputSchemas."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    info = {"url": f"http://{LOOPBACK}:{free_port()}/", "root_dir": "/", "pid": os.getpid(), "token": "t", "version": "2.0.0"}
    (runtime / f"jpserver-{os.getpid()}.json").write_text(json.dumps(info))
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime), "MCP_VARIANTS_COMPAT": "jupyter-mcp-server"}
    run = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_docs.py"), "--check"], cwd=REPO, check=False,
                         capture_output=True, text=True, timeout=540, env=env)
    assert run.returncode == 0, f"{run.stdout[-12000:]}\n{run.stderr[-4000:]}"


def test_site_builds_strict(tmp_path: Path) -> None:
    need("mkdocs")
    need("material")
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)], cwd=REPO, check=False,
                         capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert run.returncode == 0, run.stderr[-8000:]
    tools = sorted(p.stem for p in (REPO / "docs" / "api").glob("*.md"))
    unbuilt = [t for t in tools if not (site / "api" / t / "index.html").is_file() and t != "index"]
    assert not unbuilt, f"pages not built: {unbuilt}"
