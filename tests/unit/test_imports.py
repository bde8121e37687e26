"""Every module of mcp_variants imports on its own, and the import graph has no cycle.

A module that imports only after another one was imported first (a cycle, or a name it takes
from a package that a sibling fills) fails in whoever imports it first: a user's script, a tool
run alone, a worker. So each module is imported in a fresh interpreter of its own (a child
forked from one that imported only third-party libraries: tests/support/fresh_imports.py), and
the graph read from the sources (every import statement, those in functions and under `if
TYPE_CHECKING:` included) has no cycle between modules nor between the
parts of any package. client/ and conformance/ stand on the core alone, and each light wheel
(distributions/) ships what its modules import and, of the shared modules, nothing else.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
FRESH_IMPORTS = REPO / "tests" / "support" / "fresh_imports.py"
# What the reference client and the conformance suite must never import, even through another module:
# they judge servers (ours included) and stand beside it, on the core (protocol/) alone.
NOT_BELOW_CLIENT = ("server", "tools", "jupyter", "sdk")


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    package: bool

    @property
    def ancestors(self) -> set[str]:
        parts = self.name.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts))}


def modules(root: Path, package: str) -> dict[str, Module]:
    """Every module of `package` under `root`, by name, from its files (nothing is imported)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        found[name] = Module(name, path, is_package)
    return found


def _statements(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, those under `if TYPE_CHECKING:` too: a cycle a type checker follows is one a reader
    follows, and it stays a cycle the day one of its imports is needed at run time."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        else:
            yield from _statements(node)


def _imports(found: Mapping[str, Module]) -> Iterator[tuple[Module, ast.Import | ast.ImportFrom]]:
    """Each import statement of each module of `found` (`_statements`), with its module."""
    for module in found.values():
        for node in _statements(ast.parse(module.path.read_text())):
            yield module, node


def graph(found: Mapping[str, Module]) -> dict[str, set[str]]:
    """module -> the modules of `found` it imports. Importing a.b.c runs a and a.b first: an edge to each
    package on the way that the importer is not already inside (an import of its own package's names included)."""
    edges: dict[str, set[str]] = {name: set() for name in found}
    for module, node in _imports(found):
        here = module.name if module.package else module.name.rpartition(".")[0]
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = ".".join(here.split(".")[:len(here.split(".")) - node.level + 1]) if node.level else ""
            source = ".".join(part for part in (base, node.module) if part)
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in found else source for alias in node.names]
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                if step in found and step != module.name and (i == len(parts) or step not in module.ancestors):
                    edges[module.name].add(step)
    return edges


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def parts_of(package: str, edges: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The graph between the direct parts of `package` (each subpackage taken whole with what is inside it)."""
    def part(name: str) -> str | None:
        if not name.startswith(package + "."):
            return None
        return f"{package}.{name[len(package) + 1:].split('.')[0]}"

    contracted: dict[str, set[str]] = {}
    for source, targets in edges.items():
        a = part(source)
        if a is None:
            continue
        contracted.setdefault(a, set()).update(b for b in map(part, targets) if b is not None and b != a)
    return contracted


def reachable(start: str, edges: Mapping[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for target in edges[todo.pop()] - seen:
            seen.add(target)
            todo.append(target)
    return seen


PACKAGE = modules(SRC, "mcp_variants")
EDGES = graph(PACKAGE)


def libraries(found: Mapping[str, Module]) -> list[str]:
    """Every module outside the package that its sources import (in functions too), as written."""
    names = set()
    for _, node in _imports(found):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif not node.level and node.module:
            names.add(node.module)
    return sorted(name for name in names if name.partition(".")[0] != "mcp_variants")


def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    """Each in a child forked from an interpreter that imported only the libraries the sources name
    (support/fresh_imports.py: theirs is most of the start-up, and none of ours is there), in a few such interpreters at once."""
    names = sorted(PACKAGE)
    workers = os.cpu_count() or 2
    preload = libraries(PACKAGE)  # here, not in the threads: CPython 3.11's ast.parse is not safe in two threads at once

    def imports(share: list[str]) -> dict[str, str | None]:
        done = subprocess.run([sys.executable, str(FRESH_IMPORTS), *preload, "--", *share],
                              capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)})
        assert done.returncode == 0, done.stderr[-3000:]
        return dict(json.loads(done.stdout))

    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = [result for share in pool.map(imports, [names[i::workers] for i in range(workers)]) for result in share.items()]
    assert sorted(name for name, _ in results) == names
    failed = [f"{name}: {problem}" for name, problem in results if problem]
    assert not failed, "modules that do not import on their own:\n" + "\n".join(failed)


def test_the_import_graph_has_no_cycle() -> None:
    """Between modules, and between the parts of every package (client/ and conformance/, say), in mcp_variants and bench/."""
    bench = graph(modules(REPO, "bench"))
    found = cycles(EDGES) + cycles(bench)
    for edges in (EDGES, bench):
        packages = {name.rpartition(".")[0] for name in edges if "." in name}
        found += [c for package in sorted(packages) for c in cycles(parts_of(package, edges))]
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_client_and_the_suite_stand_on_the_core_alone() -> None:
    forbidden = tuple(f"mcp_variants.{layer}" for layer in NOT_BELOW_CLIENT)
    wrong = {name: sorted(m for m in reachable(name, EDGES) if m.startswith(forbidden))
             for name in EDGES if name.startswith(("mcp_variants.client", "mcp_variants.conformance"))}
    assert not {k: v for k, v in wrong.items() if v}, wrong


def test_the_graph_sees_what_python_sees(tmp_path: Path) -> None:
    """The reader finds the cycle that broke `import mcp_variants.jupyter.live.sessions`, written as it was; one
    through an import in a function; one through a type-only import (`if TYPE_CHECKING:`)."""
    tree = {"p/__init__.py": "", "p/remote/__init__.py": "from ..live.sessions import Kernels\n",
            "p/remote/kernels.py": "", "p/live/__init__.py": "", "p/live/sessions.py": "from ..remote.kernels import K\n",
            "p/lazy.py": "def f():\n    from . import eager\n", "p/eager.py": "from .lazy import f\n",
            "p/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .hinted import X\n",
            "p/hinted.py": "from .typed import Y\n"}
    for relative, text in tree.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    edges = graph(modules(tmp_path, "p"))
    assert sorted(cycles(edges)) == [["p.eager", "p.lazy"], ["p.hinted", "p.typed"], ["p.live.sessions", "p.remote"]]
    assert sorted(cycles(parts_of("p", edges))) == [["p.eager", "p.lazy"], ["p.hinted", "p.typed"], ["p.live", "p.remote"]]


def shipped(distribution: str) -> set[str]:
    """The modules a distribution of distributions/ ships: its pyproject.toml's force-include, read as modules."""
    folder = REPO / "distributions" / distribution
    included = tomllib.loads((folder / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    found = set()
    for source in included:
        path = (folder / source).resolve()
        if path.name == "__init__.py":
            found.add(".".join(path.parent.relative_to(SRC).parts))
        elif path.suffix == ".py" or path.is_dir():
            prefix = ".".join(path.relative_to(SRC).with_suffix("").parts)
            found |= {name for name in PACKAGE if name == prefix or name.startswith(prefix + ".")}
    return found


def test_each_light_wheel_ships_what_it_imports_and_no_shared_module_it_does_not() -> None:
    """mcp-variants-conformance holds what client/, conformance/ and protocol/ import, and of the modules at the top
    of the package only those (the Jupyter server launcher, say, is the application's); mcp-variants-sdk, on it,
    what sdk/ and fastmcp/ import."""
    suite, sdk = shipped("conformance"), shipped("sdk")
    assert {"mcp_variants.protocol", "mcp_variants.client.session", "mcp_variants.processes"} <= suite
    assert {"mcp_variants.sdk", "mcp_variants.fastmcp._serve"} <= sdk
    for wheel, roots, beneath in ((suite, ("client", "conformance", "protocol"), set()), (sdk, ("sdk", "fastmcp"), suite)):
        own = [name for name in wheel if name.partition(".")[2].partition(".")[0] in roots]
        needed = set(own).union(*(reachable(name, EDGES) for name in own))
        assert needed <= wheel | beneath, f"imported, not shipped: {sorted(needed - wheel - beneath)}"
        unneeded = {name for name in wheel - needed if name.count(".") == 1 and name != "mcp_variants"}
        assert not unneeded, f"shipped, imported by none of {roots}: {sorted(unneeded)}"
