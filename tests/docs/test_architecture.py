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
        if parts[0] == "mcp_variants":  # a module, or a name in one: mcp_variants.server.cli.build_parser
            for i in range(len(parts), 0, -1):
                module = REPO / "src" / Path(*parts[:i])
                if module.with_suffix(".py").exists() or module.is_dir():
                    return all(part in self.names for part in parts[i:])
            return False
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


# ---- what the modules' docstrings name ----------------------------------------------------------------------------

# Files of other projects a docstring speaks of (the official suite's scorecard file).
FOREIGN_FILES = {"checks.json", "schema.json"}
# A file a docstring names, in backticks or not: a.py, sdk/_stdio.py, docs/sdk-change.md, server/../sdk/_stdio.py;
# with a name after it (sdk/_serve.py.lowlevel_server is not how we write it; server/app.served is a NAME).
FILE_REFERENCE = re.compile(r"(?<![\w/.:<>{}-])((?:[\w.-]+/)*\w[\w-]*\.(?:py|json|md|yaml))(?![\w/])")
# A bullet of a package's face that names its modules: "* `rules` quotes ...", "- `sync`, `text`: ...".
BULLET = re.compile(r"^\s*[-*]\s+((?:`\w+`(?:,\s*|\s+and\s+)?)+)", re.MULTILINE)


def _docstrings() -> list[tuple[Path, str]]:
    found = []
    for base in ("src", "bench", "scripts"):
        for path in sorted((REPO / base).rglob("*.py")):
            doc = ast.get_docstring(ast.parse(path.read_text()))
            if doc:
                found.append((path, doc))
    return found


def _file_exists(tree: Tree, here: Path, reference: str) -> bool:
    """Under the repository or the package (by suffix, as the page's paths are), or relative to the module's folder."""
    beside = (here.parent / reference).resolve()
    return reference in FOREIGN_FILES or tree.has_path(reference) or beside.exists() and beside.is_relative_to(REPO)


def _package_names(package: Path) -> set[str]:
    """What a package face may name bare: its modules and subpackages, and the names defined at the top of them."""
    names = {p.stem for p in package.iterdir() if p.suffix == ".py"} | {p.name for p in package.iterdir() if p.is_dir()}
    for path in package.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            names.update(_defined_in([node]))
    return names


def test_every_file_and_name_a_module_docstring_names_exists() -> None:
    """A module's docstring names what is there: each file it names (a.py, sdk/_stdio.py, docs/x.md) exists, each
    `Class.member` or `module.name` of ours it puts in backticks is defined, and a package's face (its __init__.py)
    lists in its bullets only its own modules and their names. A rename that forgets a docstring fails here."""
    tree = Tree()
    missing = []
    for path, doc in _docstrings():
        where = path.relative_to(REPO).as_posix()
        missing += [f"{where}: {ref}" for ref in FILE_REFERENCE.findall(doc) if not _file_exists(tree, path, ref)]
        for quoted in re.findall(r"`([^`\n]+)`", doc):
            name = NAME.fullmatch(quoted.strip())
            if name is None or PATH.fullmatch(quoted.strip()) or "." not in name.group(2) and not name.group(1):
                continue
            first = name.group(2).split(".")[0]
            ours = name.group(1) or first in tree.members or f"{first}.py" in tree.basenames or first == "mcp_variants"
            if ours and not tree.has_name(name.group(1), name.group(2)):
                missing.append(f"{where}: `{quoted}`")
        if path.name == "__init__.py" and path.is_relative_to(PACKAGE):
            own = _package_names(path.parent)
            listed = [word for head in BULLET.findall(doc) for word in re.findall(r"`(\w+)`", head)]
            missing += [f"{where}: `{word}`" for word in listed if word not in own]
    assert not missing, "docstrings name what the tree does not have:\n" + "\n".join(missing)


def test_the_docstring_check_catches_a_stale_name(tmp_path: Path) -> None:
    tree = Tree()
    module = PACKAGE / "sdk" / "_serve.py"
    assert not _file_exists(tree, module, "sdk/stdio.py") and _file_exists(tree, module, "sdk/_stdio.py")
    assert _file_exists(tree, module, "_bridge.py") and not _file_exists(tree, module, "migrate.py")
    assert not tree.has_name("", "StdioServerConnection.listen") and tree.has_name("", "StdioServerConnection.serve")
    assert "results" not in _package_names(PACKAGE / "conformance") and "scorecards" in _package_names(PACKAGE / "conformance")
    assert [re.findall(r"`(\w+)`", head) for head in BULLET.findall("x\n- `sync`, `text`: no I/O\n* `rules` quotes")] == [
        ["sync", "text"], ["rules"]]
