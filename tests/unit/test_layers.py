"""The layers go one way (docs/architecture.md): what the runtime layer owns, the layers above only read or ask for.

Read from the sources (nothing is imported), so a breach is named by file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mcp_variants.jupyter.hub import ClientState, Hub
from mcp_variants.jupyter.runtime import Backend

SRC = Path(__file__).resolve().parents[2] / "src" / "mcp_variants"
HUB = SRC / "jupyter" / "hub.py"


def _hub_storage() -> set[str]:
    """The private attributes Hub and ClientState keep their state in, as hub.py assigns them."""
    names = set()
    for node in ast.walk(ast.parse(HUB.read_text())):
        if isinstance(node, ast.ClassDef) and node.name in ("Hub", "ClientState"):
            for target in ast.walk(node):
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                        and target.attr.startswith("_") and isinstance(target.ctx, ast.Store)):
                    names.add(target.attr)
    return names


def test_only_hub_py_touches_the_hubs_state() -> None:
    """Everything else changes it through Hub's and ClientState's methods (their properties are read-only views)."""
    storage = _hub_storage()
    assert {"_backends", "_notebook_kernels", "_attached_kernels", "_clients", "_notebook_names"} <= storage
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == HUB:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            # Another class's own private attribute of the same name is reached through self.
            if (isinstance(node, ast.Attribute) and node.attr in storage
                    and not (isinstance(node.value, ast.Name) and node.value.id == "self")):
                found.append(f"{path.relative_to(SRC.parent)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "the Hub's state touched outside jupyter/hub.py:\n" + "\n".join(found)


def test_what_the_hub_shows_cannot_be_written() -> None:
    hub = Hub({})
    client = hub.client("stdio")
    client.use_notebook("a.ipynb", "a")
    with pytest.raises(TypeError):
        hub.notebook_kernels[("embedded", "a.ipynb")] = "k"  # type: ignore[index]
    with pytest.raises(TypeError):
        hub.backends["x"] = None  # type: ignore[index, assignment]
    with pytest.raises(TypeError):
        client.notebook_names["b"] = "b.ipynb"  # type: ignore[index]
    with pytest.raises(AttributeError):
        hub.default_backend = "x"  # type: ignore[misc]
    assert isinstance(hub.attached_kernels, frozenset) and dict(hub.clients) == {"stdio": client}


def test_a_notebook_let_go_of_loses_its_names_and_its_place_as_default() -> None:
    client = ClientState()
    client.use_notebook("a.ipynb", "a")
    client.use_notebook("b.ipynb", "b")
    client.let_go_of("a.ipynb")
    assert client.notebook == "b.ipynb" and dict(client.notebook_names) == {"b": "b.ipynb"}
    client.let_go_of("b.ipynb")
    assert client.notebook is None and not client.notebook_names


def test_a_backend_removed_takes_its_notebooks_kernels_with_it() -> None:
    hub = Hub({})
    hub.add_backend(Backend("remote", "a server", None, None), default=True)  # type: ignore[arg-type]
    hub.set_notebook_kernel("remote", "a.ipynb", "k1", attached=True)
    hub.set_notebook_kernel("embedded", "a.ipynb", "k2")
    assert hub.default_backend == "remote" and hub.client("stdio").backend_key == "remote"
    assert hub.attached_kernels == {("remote", "k1")}
    assert hub.remove_backend("remote") is not None
    assert dict(hub.notebook_kernels) == {("embedded", "a.ipynb"): "k2"} and not hub.backends
    assert hub.drop_notebook_kernel("embedded", "a.ipynb") == "k2" and not hub.notebook_kernels
