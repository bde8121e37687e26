"""Our own code is a user of its own API: a private module of mcp_variants.sdk (`mcp_variants.sdk._*`) is imported
only by mcp_variants.sdk, one of mcp_variants.fastmcp (`mcp_variants.fastmcp._*`) only by mcp_variants.fastmcp, in
src/, examples/, bench/ or scripts/. The FastMCP layer is outside the SDK layer, as a layer for any other framework
would be.

What the Jupyter server needs of the layer is public: `mcp_variants.sdk` (the transports, `HttpLimits`),
`mcp_variants.sdk.lowlevel` (tools as data, the request's version, era and client key, the binding rule, `listen`)
and `mcp_variants.sdk.tasks` (the task store protocol); what the FastMCP layer needs, those and
`mcp_variants.sdk.framework` (the seams of a framework's layer). Read from the sources with `ast`: every import
statement, in functions and under `if TYPE_CHECKING:` too, relative ones resolved, and `importlib.import_module` of a
literal.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("src", "examples", "bench", "scripts")
PRIVATE_OWNERS = ("mcp_variants.sdk", "mcp_variants.fastmcp")


def module_name(path: Path) -> str | None:
    """The dotted name of a file under src/ (None elsewhere: its imports are absolute or its own)."""
    try:
        parts = list(path.relative_to(REPO / "src").with_suffix("").parts)
    except ValueError:
        return None
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str | None, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, the full name of each module or name imported), relative imports resolved against `module`."""
    here = ((module or "") if is_package else (module or "").rpartition(".")[0]).split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[:len(here) - node.level + 1]) if node.level else ""
            source = ".".join(part for part in (base, node.module) if part)
            yield node.lineno, source
            for alias in node.names:
                yield node.lineno, f"{source}.{alias.name}"
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield node.lineno, node.args[0].value


def private_of(name: str) -> str | None:
    """The owner (mcp_variants.sdk or .fastmcp) whose private module `name` is, if it is one."""
    for owner in PRIVATE_OWNERS:
        if name.startswith(owner + "."):
            first = name[len(owner) + 1:].split(".")[0]
            if first.startswith("_"):
                return owner
    return None


def within(module: str | None, owner: str) -> bool:
    return module is not None and (module == owner or module.startswith(owner + "."))


def violations(path: Path, text: str) -> list[str]:
    module = module_name(path)
    found = []
    for line, name in imported(ast.parse(text), module, path.name == "__init__.py"):
        owner = private_of(name)
        if owner is not None and not within(module, owner):
            found.append(f"{path.relative_to(REPO)}:{line}: {name}")
    return sorted(set(found))


def sources() -> Iterator[Path]:
    for folder in SCANNED:
        yield from sorted(p for p in (REPO / folder).rglob("*.py") if ".venv" not in p.parts and "node_modules" not in p.parts)


def test_no_private_module_of_the_layer_is_imported_from_outside_it() -> None:
    found = [v for path in sources() for v in violations(path, path.read_text())]
    assert not found, ("imports of a private module of mcp_variants.sdk / .fastmcp from outside its package (use the "
                       "public mcp_variants.sdk, .sdk.lowlevel, .sdk.tasks, .sdk.framework; make public what is "
                       "missing):\n" + "\n".join(found))


@pytest.mark.parametrize("statement", [
    "from ..sdk._http import HttpLimits",
    "from ..sdk import _bridge",
    "from .. import sdk; from ..sdk._serve import listen",
    "import mcp_variants.sdk._bridge",
    "from mcp_variants.fastmcp._serve import serve_http",
    "def f():\n    from ..sdk._serve import serve_stdio",
    "import importlib\nimportlib.import_module('mcp_variants.sdk._task_store')",
])
def test_each_form_of_a_private_import_is_caught(statement: str) -> None:
    assert violations(REPO / "src" / "mcp_variants" / "server" / "cli.py", statement)


@pytest.mark.parametrize("statement", [
    "from ..sdk import HttpLimits, serve_http",
    "from ..sdk.lowlevel import ToolSet",
    "from ..sdk.tasks import TaskStore",
    "from mcp.server.lowlevel import Server",
    "from ._private import x",
])
def test_public_imports_pass(statement: str) -> None:
    assert not violations(REPO / "src" / "mcp_variants" / "server" / "cli.py", statement)


@pytest.mark.parametrize(("module", "statement"), [
    ("sdk/_serve.py", "from ._guard import MessageGuard"),
    ("sdk/__init__.py", "from ._declare import Results"),
    ("sdk/framework.py", "from ._extension import with_variants"),
    ("fastmcp/_extension.py", "from ._lowlevel import lowlevel_server"),
    ("fastmcp/__init__.py", "from ._serve import cli"),
])
def test_a_layer_may_use_its_own_private_modules(module: str, statement: str) -> None:
    assert not violations(REPO / "src" / "mcp_variants" / module, statement)


@pytest.mark.parametrize(("module", "statement"), [
    ("fastmcp/_serve.py", "from ..sdk._guard import MessageGuard"),
    ("fastmcp/__init__.py", "from ..sdk._declare import Results"),
    ("fastmcp/_extension.py", "import mcp_variants.sdk._extension"),
    ("sdk/_serve.py", "from ..fastmcp._lowlevel import lowlevel_server"),
])
def test_neither_layer_uses_the_others_private_modules(module: str, statement: str) -> None:
    """The FastMCP layer is built on the SDK layer's public seams (`mcp_variants.sdk.framework`), as a layer for
    another framework would be; the SDK layer knows nothing of FastMCP's."""
    assert violations(REPO / "src" / "mcp_variants" / module, statement)
