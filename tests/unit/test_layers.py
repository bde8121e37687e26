"""The layers go one way (docs/architecture.md): what the runtime layer owns, the layers above only read or ask for.

Read from the sources (nothing is imported), so a breach is named by file and line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcp_variants.jupyter.refusals import Recourse, RuntimeRefusal, no_folder
from mcp_variants.jupyter.registry import ClientState, RuntimeRegistry
from mcp_variants.jupyter.runtime import Backend
from mcp_variants.protocol.errors import ErrorKind, ToolError
from mcp_variants.protocol.projection import Outcome
from mcp_variants.tools.shared.hints import HINTS, hinted, with_hints

SRC = Path(__file__).resolve().parents[2] / "src" / "mcp_variants"
REGISTRY = SRC / "jupyter" / "registry.py"


def _registry_storage() -> set[str]:
    """The private attributes RuntimeRegistry and ClientState keep their state in, as registry.py assigns them."""
    names = set()
    for node in ast.walk(ast.parse(REGISTRY.read_text())):
        if isinstance(node, ast.ClassDef) and node.name in ("RuntimeRegistry", "ClientState"):
            for target in ast.walk(node):
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                        and target.attr.startswith("_") and isinstance(target.ctx, ast.Store)):
                    names.add(target.attr)
    return names


def test_only_registry_py_touches_the_registrys_state() -> None:
    """Everything else changes it through RuntimeRegistry's and ClientState's methods (their properties are read-only views)."""
    storage = _registry_storage()
    assert {"_backends", "_notebook_kernels", "_attached_kernels", "_clients", "_notebook_names"} <= storage
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == REGISTRY:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            # Another class's own private attribute of the same name is reached through self.
            if (isinstance(node, ast.Attribute) and node.attr in storage
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                found.append(f"{path.relative_to(SRC.parent)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "the registry's state touched outside jupyter/registry.py:\n" + "\n".join(found)


def test_what_the_registry_shows_cannot_be_written() -> None:
    registry = RuntimeRegistry({})
    client = registry.client("stdio")
    client.use_notebook("a.ipynb", "a")
    with pytest.raises(TypeError):
        registry.notebook_kernels[("embedded", "a.ipynb")] = "k"  # type: ignore[index]
    with pytest.raises(TypeError):
        registry.backends["x"] = None  # type: ignore[index, assignment]
    with pytest.raises(TypeError):
        client.notebook_names["b"] = "b.ipynb"  # type: ignore[index]
    with pytest.raises(AttributeError):
        registry.default_backend = "x"  # type: ignore[misc]
    assert isinstance(registry.attached_kernels, frozenset) and dict(registry.clients) == {"stdio": client}


def test_a_notebook_let_go_of_loses_its_names_and_its_place_as_default() -> None:
    client = ClientState()
    client.use_notebook("a.ipynb", "a")
    client.use_notebook("b.ipynb", "b")
    client.let_go_of("a.ipynb")
    assert client.notebook == "b.ipynb" and dict(client.notebook_names) == {"b": "b.ipynb"}
    client.let_go_of("b.ipynb")
    assert client.notebook is None and not client.notebook_names


def test_a_backend_removed_takes_its_notebooks_kernels_with_it() -> None:
    registry = RuntimeRegistry({})
    registry.add_backend(Backend("remote", "a server", None, None), default=True)  # type: ignore[arg-type]
    registry.set_notebook_kernel("remote", "a.ipynb", "k1", attached=True)
    registry.set_notebook_kernel("embedded", "a.ipynb", "k2")
    assert registry.default_backend == "remote" and registry.client("stdio").backend_key == "remote"
    assert registry.attached_kernels == {("remote", "k1")}
    assert registry.remove_backend("remote") is not None
    assert dict(registry.notebook_kernels) == {("embedded", "a.ipynb"): "k2"} and not registry.backends
    assert registry.drop_notebook_kernel("embedded", "a.ipynb") == "k2" and not registry.notebook_kernels


TOOL_NAMES = sorted(path.stem for path in (SRC / "tools").glob("*.py") if path.stem != "__init__")


def _said(tree: ast.Module) -> list[ast.Constant]:
    """The string literals of a module that may reach a client: all of them but docstrings (and other bare strings)."""
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare]


def _tools_named(text: str) -> list[str]:
    words = set(re.findall(r"[A-Za-z0-9_]+", text))
    return [name for name in TOOL_NAMES if name in words]


def test_the_runtime_layer_names_no_tool_in_what_it_says() -> None:
    """jupyter/ speaks of kernels, notebooks and servers; the hint to call a tool is added by tools/ (shared/hints.py)."""
    assert {"list_files", "use_notebook", "execute_code"} <= set(TOOL_NAMES)
    found = []
    for path in sorted((SRC / "jupyter").rglob("*.py")):
        for node in _said(ast.parse(path.read_text())):
            if named := _tools_named(node.value):
                found.append(f"{path.relative_to(SRC.parent)}:{node.lineno}: {', '.join(named)} in {node.value!r}")
    assert not found, "strings of the runtime layer that name tools:\n" + "\n".join(found)


def test_the_scan_skips_docstrings_and_sees_f_strings() -> None:
    tree = ast.parse('"""list_files."""\ndef f():\n    """use_notebook"""\n    x = "read_cell"\n    return f"{x}; list_kernels shows"\n')
    assert sorted(name for node in _said(tree) for name in _tools_named(node.value)) == ["list_kernels", "read_cell"]


def test_every_recourse_has_its_hint_and_a_tools_refusal_gets_it() -> None:
    assert set(HINTS) == set(Recourse)
    refusal = no_folder("x")
    assert refusal.message == "No folder 'x' under the root."  # whole without the hint: resources and the CLI say it so

    async def raising(ctx: Any, args: dict[str, Any]) -> Outcome:
        raise refusal

    async def returning(ctx: Any, args: dict[str, Any]) -> Outcome:
        return Outcome(failure=RuntimeRefusal(ErrorKind.NOT_FOUND, "No cell with id 'c'.", recourse=Recourse.CELL_IDS))

    with pytest.raises(ToolError) as raised:
        anyio.run(with_hints(raising), None, {})
    assert raised.value.message == "No folder 'x' under the root. Call list_files without a path to see what there is."
    assert raised.value.kind is ErrorKind.NOT_FOUND
    failure = anyio.run(with_hints(returning), None, {}).failure
    assert failure is not None and failure.message == "No cell with id 'c'. read_notebook lists the cell ids."
    plain = ToolError(ErrorKind.TIMEOUT, "Too slow.")
    assert hinted(plain) is plain
