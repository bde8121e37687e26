"""What the server tells the model and shows the person (issue 49): how to work in notebooks, in the tools' own
names; nothing of SEP-3279, which is for SDK authors and in the docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mcp_variants.server.app import INSTRUCTIONS, TITLE

VARIANTS = Path(__file__).resolve().parents[2] / "variants"


def test_the_instructions_name_only_tools_and_arguments_that_exist() -> None:
    declared = [json.loads(p.read_text()) for p in VARIANTS.glob("*.json")]
    tools = {d["name"] for d in declared}
    arguments = {name for d in declared for name in d["inputSchema"].get("properties", {})}
    named = set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", INSTRUCTIONS))
    assert {"use_notebook", "cell_id", "list_kernels"} <= named
    assert named <= tools | arguments, f"not a tool or an argument: {sorted(named - tools - arguments)}"


def test_the_person_and_the_model_hear_of_notebooks_not_of_the_sep() -> None:
    for said in (TITLE, INSTRUCTIONS):
        assert "SEP" not in said and "variant" not in said.lower(), said
    assert "Jupyter" in TITLE
