"""The official `conformance traceability --strict` (@modelcontextprotocol/conformance 0.2.0-alpha.12)
over the results `mcp-variants check` and `mcp-variants check-client` write, with sep-3279.yaml.

The command reads `src/seps/sep-*.yaml` relative to its working folder (it is meant to run in a
checkout of the conformance repository) and `<results>/**/checks.json`. So it runs here in a
scratch folder whose `src/seps/` holds our file; from anywhere else it finds no SEP file. Our
own, stricter check (every normative sentence of the SEP covered) is
tests/conformance/test_traceability.py.

Also here, because it needs the package: the shipped 2026-07-28 wire schema is exactly the one
the package embeds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcp_variants.conformance.traceability import YAML_PATH
from support.outside import HERE, node_env, node_package

ROOT = HERE.parents[1]
MCP_VARIANTS = [sys.executable, "-m", "mcp_variants"]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """checks.json of every scenario: server and host (our server, stdio) and client mode (the reference client)."""
    out = tmp_path_factory.mktemp("official-results")
    for command in (["check", "-q"], ["check-client", "-q"]):
        done = subprocess.run([*MCP_VARIANTS, *command, "-o", str(out)], check=False, capture_output=True, text=True, timeout=600,
                              cwd=tmp_path_factory.mktemp("cwd"))
        assert done.returncode == 0, done.stdout + done.stderr
    return out


def traceability(node_bin: Path, results: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    entry = node_package("conformance-next/dist/index.js")
    return subprocess.run([str(node_bin), str(entry), "traceability", "--results", str(results), "--strict", "--source", "mcp-variants"],
                          check=False, capture_output=True, text=True, timeout=120, cwd=cwd, env=node_env())


def seps_folder(tmp_path: Path, yaml_text: str) -> Path:
    (tmp_path / "src" / "seps").mkdir(parents=True)
    (tmp_path / "src" / "seps" / "sep-3279.yaml").write_text(yaml_text)
    return tmp_path


def manifest(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / "src" / "seps" / "traceability.json").read_text())
    return data["seps"]["3279"]


def test_the_official_traceability_is_strict_clean(node_bin: Path, results: Path, tmp_path: Path) -> None:
    folder = seps_folder(tmp_path, YAML_PATH.read_text())
    done = traceability(node_bin, results, folder)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = yaml.safe_load(YAML_PATH.read_text())["requirements"]
    summary = manifest(folder)["summary"]
    assert summary == {"tested": sum(1 for r in rows if "check" in r), "untested": 0,
                       "excluded": sum(1 for r in rows if "excluded" in r), "untracked": 0, "unkeyed": 0}, summary


def test_it_fails_a_declared_check_that_no_scenario_emitted(node_bin: Path, results: Path, tmp_path: Path) -> None:
    extra = "  - check: sep-3279-never-emitted\n    text: 'Nothing emits this.'\n"
    folder = seps_folder(tmp_path, YAML_PATH.read_text().replace("requirements:\n", "requirements:\n" + extra, 1))
    done = traceability(node_bin, results, folder)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "untested: sep-3279-never-emitted" in done.stderr
    assert [r["check"] for r in manifest(folder)["requirements"] if r["status"] == "untested"] == ["sep-3279-never-emitted"]


def test_it_reads_only_the_sep_files_of_its_working_folder(node_bin: Path, results: Path) -> None:
    """From our checkout (src/, but no src/seps/) it cannot find sep-3279.yaml: why the scratch folder."""
    done = traceability(node_bin, results, ROOT)
    assert done.returncode != 0 and "ENOENT" in done.stderr and "src/seps" in done.stderr, done.stdout + done.stderr
    assert not (ROOT / "src" / "seps").exists()


def test_the_shipped_2026_07_28_schema_is_the_packages(node_bin: Path) -> None:
    node_package("conformance-next/dist/index.js")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "extract_wire_schema.py"), "--check"],
                          check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "@modelcontextprotocol/conformance 0.2.0-alpha.12" in done.stdout
