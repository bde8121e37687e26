"""A name means one thing: no two public classes of `mcp_variants` share a name, and no two modules share a basename
unless it names the same role in each package (below). A reader who meets `Hub`, `View` or `results.py` should not
have to ask which one."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mcp_variants"

# One class on two frameworks, deliberately spelled alike: an author moving from the SDK's MCPServer to FastMCP
# keeps writing `Variants`, and `InProcessTransport` in the tests.
SAME_CLASS = {"Variants": {"mcp_variants.sdk._extension", "mcp_variants.fastmcp._extension"},
              "InProcessTransport": {"mcp_variants.sdk._in_process", "mcp_variants.fastmcp._in_process"}}

# A basename that names the same role in each package that has one.
ROLES = {
    "app": "the package's application: the server assembled (server/), the Jupyter ExtensionApp (jupyter_extension/)",
    "cli": "the command line of the package's command: `serve` (server/), `check` (conformance/)",
    "options": "the options of that command line",
    "errors": "what the package raises",
    "resources": "the package's MCP resources: every source's registry (server/), the views' (apps/)",
    "contents": "a runtime's `Contents` (jupyter/runtime.py): in process, over REST, shared documents",
    "kernels": "a runtime's `Kernels` (jupyter/runtime.py): in process, over REST",
    "variables": "a kernel's variables: read in the kernel (jupyter/), the kernel the variable tools ask (tools/shared/)",
}


def modules() -> dict[str, Path]:
    return {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): path for path in sorted(PACKAGE.rglob("*.py"))}


def test_no_two_public_classes_share_a_name() -> None:
    where: defaultdict[str, set[str]] = defaultdict(set)
    for module, path in modules().items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where[node.name].add(module)
    shared = {name: sorted(found) for name, found in where.items() if len(found) > 1 and SAME_CLASS.get(name) != found}
    assert not shared, f"one name, several classes (rename one, or it is the same class twice): {shared}"


def test_no_two_modules_share_a_basename_unless_it_is_a_role() -> None:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for module, path in modules().items():
        if path.name != "__init__.py" and not path.name.startswith("_"):
            where[path.stem].append(module)
    shared = {name: found for name, found in where.items() if len(found) > 1 and name not in ROLES}
    assert not shared, f"one basename, several modules (rename one, or name the role they share in ROLES): {shared}"
    unused = sorted(name for name in ROLES if len(where[name]) < 2)
    assert not unused, f"ROLES lists basenames no two modules share any more: {unused}"
