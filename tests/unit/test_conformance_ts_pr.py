"""conformance-ts/ is what a pull request to @modelcontextprotocol/conformance carries: nothing in it may be this
project's (its tools, its files), and its traceability yaml is generated from ours (conformance-ts/pr/sep_yaml.py)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "conformance-ts"
TOOLS = ROOT / "src" / "mcp_variants" / "tools"


def sep_yaml() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sep_yaml", TS / "pr" / "sep_yaml.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pull_requests_yaml_is_a_file_generated_from_ours() -> None:
    generator = sep_yaml()
    assert not generator.TARGET.is_symlink(), "a symlink does not survive `cp -r` into the suite"
    assert generator.TARGET.read_text() == generator.generate(generator.SOURCE.read_text()), \
        "stale: run python conformance-ts/pr/sep_yaml.py"


def test_the_two_yamls_have_the_same_rows() -> None:
    ours = yaml.safe_load((ROOT / "src" / "mcp_variants" / "conformance" / "sep-3279.yaml").read_text())
    theirs = yaml.safe_load((TS / "src" / "seps" / "sep-3279.yaml").read_text())
    assert theirs["sep"] == ours["sep"]
    key = [(r.get("check"), r.get("text"), "excluded" in r) for r in ours["requirements"]]
    assert [(r.get("check"), r.get("text"), "excluded" in r) for r in theirs["requirements"]] == key


def test_no_tool_or_file_of_this_project_in_what_the_pull_request_carries() -> None:
    tools = {p.stem for p in TOOLS.glob("*.py") if p.stem != "__init__"}
    assert {"list_files", "execute_code"} <= tools
    carried = [*(TS / "src" / "scenarios").rglob("*.ts"), TS / "src" / "seps" / "sep-3279.yaml",
               *(TS / "pr" / "suite").rglob("*.ts")]
    for path in carried:
        text = path.read_text()
        named = {t for t in tools if re.search(rf"\b{t}\b", text)}
        assert not named, f"{path.relative_to(ROOT)} names this project's tools {sorted(named)}"
        assert "mcp_variants" not in text and "mcp-variants" not in text, f"{path.relative_to(ROOT)} names this project"
