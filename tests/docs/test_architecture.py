"""docs/architecture.md, the page a newcomer reads first, names only what is there: every path it puts in backticks
exists, and every Python name it puts in backticks (a class, a function, a module, `Class.member`) is defined in
the tree. A rename or a move that forgets the page fails here."""

from __future__ import annotations

import ast
import builtins
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "mcp_variants"
PAGE = REPO / "docs" / "architecture.md"
# Where the names the page speaks of are defined or imported.
SOURCES = ("src", "bench", "scripts", "tests/support")
# Names of the dependencies the page speaks of that no module of ours imports by that name.
FOREIGN = {"ServerMiddleware", "get_document"}
# MCP methods that read like paths of ours.
METHODS = {"tools/list", "server/discover"}
# A backticked path: a file (a.py, variants/*.json) or a folder (jupyter/inprocess/); not a wire method (tools/list).
PATH = re.compile(r"[\w./*-]+\.(?:py|json|md|yaml)|[\w-]+(?:/[\w.*-]+)+/?")
# A backticked Python name: optionally after a module path (server/view_resources.ViewResources), optionally called.
NAME = re.compile(r"((?:\w+/)*)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?")


class Tree:
    """What the page may name: the files (by relative path under the repository and under the package), every name
    defined, imported or taken as a parameter, and each class's members."""

    def __init__(self) -> None:
        self.files = _project_files()
        self.relative = {p.relative_to(base).as_posix() for base in (REPO, PACKAGE) for p in self.files if p.is_relative_to(base)}
        self.basenames = {p.name for p in self.files} | {p.stem for p in self.files if p.suffix == ".py"}
        self.names: set[str] = set(dir(builtins)) | FOREIGN
        self.members: dict[str, set[str]] = {}
        self.bases: dict[str, set[str]] = {}
        for base in SOURCES:
            for path in (REPO / base).rglob("*.py"):
                self._read(ast.parse(path.read_text()))

    def _read(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                self.names.add(node.name)
            if isinstance(node, ast.ClassDef):
                self_attributes = {target.attr for inner in ast.walk(node) for target in _targets(inner)
                                   if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                   and target.value.id == "self"}
                bases = {base.id for base in node.bases if isinstance(base, ast.Name)}
                self.members.setdefault(node.name, set()).update(_defined_in(node.body), self_attributes)
                self.bases.setdefault(node.name, set()).update(bases)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                self.names.update(_defined_in([node]))
            elif isinstance(node, ast.ImportFrom):
                self.names.update(alias.asname or alias.name for alias in node.names)
            elif isinstance(node, ast.arg):
                self.names.add(node.arg)

    def has_path(self, path: str) -> bool:
        path = re.sub(r"/(\*|[A-Z]+)\.\w+$", "", path).rstrip("/")  # a folder's files: variants/*.json, compat/SERVER.json
        if "/" not in path:
            return path in self.basenames
        if any(known in self.relative or any(other.endswith("/" + known) for other in self.relative)
               for known in (path, path + ".py")):
            return True
        module, _, name = path.rpartition(".")  # server/view_resources.ViewResources
        return name not in ("py", "json", "md", "yaml") and bool(module) and self.has_path(module + ".py") and name in self.names

    def has_name(self, module_path: str, dotted: str) -> bool:
        parts = dotted.split(".")
        if module_path:
            return self.has_path(module_path + parts[0] + ".py") or self.has_path(module_path + parts[0])
        if parts[0] == "mcp_variants":
            return (REPO / "src" / Path(*parts)).with_suffix(".py").exists() or (REPO / "src" / Path(*parts)).is_dir()
        if len(parts) > 1 and f"{parts[0]}.py" in self.basenames:  # output_links.OutputStore
            return parts[1] in self.names
        for before, part in zip([None, *parts], parts, strict=False):
            if _pythonic(part) and part not in self.names and part not in self.basenames:
                return False
            if before in self.members and not self._has_member(before, part):
                return False
        return True

    def _has_member(self, cls: str, member: str) -> bool:
        """A class's own member, or one of a base class of ours; a base from a dependency may have any."""
        if member in self.members.get(cls, set()):
            return True
        return any(base not in self.members or self._has_member(base, member) for base in self.bases.get(cls, ()))


def _project_files() -> list[Path]:
    """The project's files and their folders, as git sees them (tracked, or new and not ignored): not what the tests
    and tools make inside the checkout (tests/.envs' venvs, node_modules), whose files would answer for ours."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout.split("\n")
    files = [REPO / line for line in listed if line]
    return sorted({*files, *(folder for file in files for folder in file.parents if folder.is_relative_to(REPO) and folder != REPO)})


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target] if isinstance(node, ast.AnnAssign) else []


def _defined_in(body: list[ast.stmt]) -> set[str]:
    found: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif isinstance(node, ast.Assign):
            found.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return found


def _pythonic(part: str) -> bool:
    """A class (CamelCase) or a function, module or attribute (snake_case); not a wire name (isError, _meta)."""
    camel = part[0].isupper() and any(c.islower() for c in part)
    snake = not part.startswith("_") and "_" in part.strip("_") and part.islower()
    return camel or snake


def test_every_path_and_name_in_the_architecture_page_exists() -> None:
    tree = Tree()
    missing = []
    for quoted in re.findall(r"`([^`\n]+)`", PAGE.read_text()):
        token = quoted.strip()
        if "://" in token or token in METHODS:
            continue
        if PATH.fullmatch(token):
            # A folder path that is no folder of ours is a wire method (tools/list, server/discover), not a path.
            first = token.split("/")[0]
            ours = (REPO / first).exists() or (PACKAGE / first).exists() or token.endswith((".py", ".json", ".md", ".yaml"))
            if ours and not tree.has_path(token):
                missing.append(token)
        elif (name := NAME.fullmatch(token)) and not tree.has_name(name.group(1), name.group(2)):
            missing.append(token)
    assert not missing, f"docs/architecture.md names what the tree does not have: {missing}"
