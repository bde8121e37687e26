"""A drop-in for jupyter-mcp-server 2.2.4 (issues 11 and 21), checked against the real thing.

jupyter-mcp-server 2.2.4 is installed from PyPI into a throwaway environment (tests/.envs/anchor, made
once; tests/support/envs.py) and asked for its tools/list over stdio (tests/support/anchor.py). Then:

* variants/compat/jupyter-mcp-server.json is what it lists (scripts/record_compat.py wrote it), and
  `serve --compat jupyter-mcp-server` lists exactly its inputSchema for every tool both servers have;
* every argument of every tool both servers have is accepted by ours, under its name or as a declared
  alias (variants/<tool>.json `argumentAliases`), with a compatible type, enum and default; the defaults
  that differ are the ones docs/guides/migrating.md names (DIFFERENT_DEFAULTS);
* a replay of calls written in its argument style (create, insert, execute, read, edit with replace_all,
  delete several, move by id, list with paging, ...) passes against our server with --compat on stdio and
  streamable HTTP, at 2025-11-25 (a session) and 2026-12-01 (stateless, every declared variant requested and
  each structured one validated against its schema; the wire schema checked by the raw client).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.catalog import compat_record
from mcp_variants.conformance.wire import StdioTarget, Target
from support.anchor import ANCHOR, HANDSHAKE, anchor_tools, record_of
from support.servers import HttpServer, serve_command

REPO = Path(__file__).resolve().parents[2]
MIGRATING = REPO / "docs" / "guides" / "migrating.md"
OUTPUTS = "2026-12-01"
COMPAT = ("--compat", ANCHOR)
UI = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
OUR_ONLY = {"launch_sandbox", "list_sandboxes", "use_sandbox", "terminate_sandbox", "read_notebook_page",
            "list_variables", "inspect_variable", "execute_notebook", "read_output"}
# Defaults of theirs that ours does not declare, each accepted with the same meaning or documented as different.
DIFFERENT_DEFAULTS = {
    ("execute_code", "timeout"): "30 s there and with --compat (applied); the server's --timeout (300 s) without",
    ("execute_cell", "timeout"): "0, the configured default, there; 0 or omitted mean the server's --timeout here",
    ("insert_execute_code_cell", "timeout"): "0, the configured default, there; 0 or omitted mean the server's --timeout here",
}

pytestmark = pytest.mark.timeout(600)


# ---- the anchor's tools/list -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def anchor_listing() -> list[dict[str, Any]]:
    listed = anchor_tools()
    assert len(listed) >= 18, sorted(tool["name"] for tool in listed)
    return listed


@pytest.fixture(scope="module")
def their_tools(anchor_listing: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool["inputSchema"] for tool in anchor_listing}


def listed_by(root: Path, *extra: str) -> dict[str, dict[str, Any]]:
    """Our tools/list's inputSchemas, served with `extra`."""
    with StdioTarget(serve_command(root, *extra), timeout=120) as ours:
        listed = ours.exchange(HANDSHAKE, None, "tools/list", {})
    return {tool["name"]: tool["inputSchema"] for tool in listed.result["tools"]}


@pytest.fixture(scope="module")
def our_tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return listed_by(tmp_path_factory.mktemp("ours"))


def declared_aliases(tool: str) -> dict[str, dict[str, Any]]:
    """variants/<tool>.json `argumentAliases`: our data, listed by --compat (in their inputSchema), not by ours."""
    return dict(json.loads((REPO / "variants" / f"{tool}.json").read_text()).get("argumentAliases", {}))


def types_of(schema: dict[str, Any]) -> set[str]:
    """The JSON types a property schema admits, null left out (an optional argument's null means omitted)."""
    if "anyOf" in schema:
        return set().union(*(types_of(s) for s in schema["anyOf"])) - {"null"}
    if "type" in schema:
        kinds = schema["type"]
        return set(kinds if isinstance(kinds, list) else [kinds]) - {"null"}
    if "enum" in schema:
        return {{bool: "boolean", str: "string", int: "integer"}[type(v)] for v in schema["enum"]}
    return set()


def translated(alias: dict[str, Any] | None, value: Any) -> Any:
    """Their value as ours (the alias's `values` or `add`)."""
    if alias and "values" in alias:
        return alias["values"][value]
    if alias and "add" in alias:
        return value + alias["add"]
    return value


def test_we_have_every_tool_they_have(their_tools, our_tools):
    assert set(their_tools) <= set(our_tools), sorted(set(their_tools) - set(our_tools))
    assert set(our_tools) - set(their_tools) <= OUR_ONLY


def test_the_compat_record_is_what_they_list(anchor_listing):
    assert compat_record(ANCHOR) == record_of(anchor_listing), "run python scripts/record_compat.py"


def test_with_compat_our_inputschemas_are_theirs(their_tools, our_tools, tmp_path: Path):
    listed = listed_by(tmp_path, *COMPAT)
    for tool, theirs in their_tools.items():
        assert listed[tool] == theirs, tool
    assert {tool: listed[tool] for tool in OUR_ONLY} == {tool: our_tools[tool] for tool in OUR_ONLY}


def test_every_argument_is_accepted_with_a_compatible_type_enum_and_default(their_tools, our_tools):
    problems: list[str] = []
    for tool, theirs in sorted(their_tools.items()):
        ours = our_tools[tool]
        properties, aliases = ours["properties"], declared_aliases(tool)
        for name, spec in theirs.get("properties", {}).items():
            alias = aliases.get(name)
            target = name if name in properties else alias["canonical"] if alias else None
            if target is None:
                problems.append(f"{tool}.{name}: neither an argument nor an alias of ours")
                continue
            mine = properties[target]
            accepts = Draft202012Validator(mine)
            wanted = {"integer": {"integer", "number"}}.get
            for kind in types_of(spec):
                if alias and "values" in alias:
                    continue  # a word for a value of ours: checked through its enum below
                if not ({kind} | (wanted(kind) or set())) & types_of(mine):
                    problems.append(f"{tool}.{name}: {kind} there, {sorted(types_of(mine))} as {target} here")
            for value in spec.get("enum", []):
                if not accepts.is_valid(translated(alias, value)):
                    problems.append(f"{tool}.{name}: {value!r} of its enum is refused as {target}")
            default = spec.get("default")
            if default is None:
                continue  # none, or null: an argument not given, which ours accepts (protocol/arguments.py)
            value = translated(alias, default)
            if not accepts.is_valid(value):
                problems.append(f"{tool}.{name}: its default {default!r} is refused as {target}={value!r}")
            elif mine.get("default") != value and (tool, name) not in DIFFERENT_DEFAULTS:
                problems.append(f"{tool}.{name}: default {default!r} there, {mine.get('default', 'none')!r} as {target} here")
        for name in ours.get("required", []):
            spellings = {name} | {a for a, spec in aliases.items() if spec["canonical"] == name}
            if not spellings & set(theirs.get("required", [])):
                problems.append(f"{tool}: ours requires {name}, which a call of theirs may leave out")
    assert not problems, "\n".join(problems)


def test_the_defaults_that_differ_are_documented(their_tools):
    text = MIGRATING.read_text()
    for tool, name in DIFFERENT_DEFAULTS:
        assert name in their_tools[tool]["properties"], (tool, name)
        row = next((line for line in text.splitlines() if line.startswith(f"| `{tool}` ")), "")
        assert f"`{name}`" in row, f"docs/guides/migrating.md: the {tool} row does not say how {name}'s default differs"


# ---- the replay --------------------------------------------------------------------------------------


class Replay:
    """Calls in their argument style against one of our servers at one version, every result checked."""

    def __init__(self, target: Target, version: str, root: Path, tag: str) -> None:
        self.target, self.version, self.root = target, version, root
        self.notebook = f"replay-{tag}.ipynb"
        self.schemas: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.outputs: dict[str, dict[str, Any]] = {}
        self.tools = {t["name"]: t for t in self.request("tools/list", {})["tools"]}

    @property
    def extensions(self) -> dict[str, Any] | None:
        return UI if self.version == OUTPUTS else None

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        trip = self.target.exchange(self.version, self.extensions, method, params, 120)
        assert not trip.schema_violations, trip.schema_violations[:3]
        return trip.result

    def call(self, tool: str, arguments: dict[str, Any], *, fails: bool = False) -> str:
        """The call's text for the model; every output checked against its schema."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        declared = self.tools[tool]
        if self.version == OUTPUTS:
            params["requestedOutputs"] = [{"audience": v["audience"], "format": v["format"]} for v in declared["outputVariants"]]
        result = self.request("tools/call", params)
        shown = json.dumps(result)[:1500]
        assert bool(result.get("isError")) is fails, f"{tool} {arguments}: {shown}"
        if self.version != OUTPUTS:
            if not fails and "outputSchema" in declared:
                errors = list(Draft202012Validator(declared["outputSchema"]).iter_errors(result["structuredContent"]))
                assert not errors, f"{tool}: structuredContent breaks its outputSchema: {errors[0].message}"
            return "".join(b.get("text", "") for b in result["content"])
        self.outputs = {}
        for output, variant in zip(result["outputs"], declared["outputVariants"], strict=True):
            key = f"{output['audience']}/{output['format']}"
            assert key == f"{variant['audience']}/{variant['format']}", (key, variant)
            self.outputs[key] = output.get("structuredContent", output.get("content"))
            if output["format"] == "structured" and not fails:
                errors = list(Draft202012Validator(variant["schema"]).iter_errors(output["structuredContent"]))
                assert not errors, f"{tool} {key} breaks its schema: {errors[0].message}: {shown}"
        return "".join(b.get("text", "") for b in self.outputs["assistant/content"] if b.get("type") == "text")

    def cells(self) -> list[dict[str, Any]]:
        cells: list[dict[str, Any]] = json.loads((self.root / self.notebook).read_text())["cells"]
        for cell in cells:
            cell["text"] = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        return cells


def replay(r: Replay) -> None:
    nb = r.notebook  # a name that is its path too: a stateless request has no session to remember names in
    text = r.call("use_notebook", {"notebook_name": nb, "notebook_path": nb, "mode": "create", "kernel_id": None})
    assert "Created" in text
    r.call("insert_cell", {"cell_index": 0, "cell_type": "markdown", "cell_source": "# Replay", "notebook_name": nb})
    text = r.call("insert_execute_code_cell", {"notebook_name": nb, "cell_index": -1, "cell_source": "x = 1\nx = 1\nprint('ran', x)",
                                               "timeout": 0, "stream": True, "progress_interval": 5})
    assert "ran 1" in text
    for source in ("y = 2", "z = 3", "w = 4"):
        r.call("insert_cell", {"cell_index": -1, "cell_type": "code", "cell_source": source, "notebook_name": nb})
    assert "42" in r.call("execute_code", {"code": "print(6 * 7)", "timeout": 30, "kernel_id": None, "progress_interval": 5})
    if r.version == HANDSHAKE:  # a session: its current notebook's kernel, where the cell ran (a stateless request has none)
        assert "ran 1" in r.call("execute_code", {"code": "print('ran', x)"})
    r.call("execute_cell", {"notebook_name": nb, "cell_index": 2, "cell_id": None, "timeout": 0, "stream": False, "progress_interval": 5})
    assert [c["text"] for c in r.cells()] == ["# Replay", "x = 1\nx = 1\nprint('ran', x)", "y = 2", "z = 3", "w = 4"]
    assert r.cells()[2]["execution_count"] is not None

    text = r.call("read_notebook", {"notebook_name": nb, "response_format": "brief", "start_index": 0, "limit": 20})
    assert "y = 2" in text
    text = r.call("read_notebook", {"notebook_name": nb, "response_format": "detailed", "start_index": 3, "limit": 1})
    assert "z = 3" in text and "y = 2" not in text
    assert "ran 1" in r.call("read_cell", {"cell_index": 1, "include_outputs": True, "notebook_name": nb, "cell_id": None})

    r.call("edit_cell_source", {"old_string": "x = 1", "new_string": "x = 2", "replace_all": True, "cell_index": 1, "notebook_name": nb})
    assert r.cells()[1]["text"] == "x = 2\nx = 2\nprint('ran', x)"
    r.call("edit_cell_source", {"old_string": "x = 2", "new_string": "x = 3", "replace_all": False, "cell_index": 1, "notebook_name": nb},
           fails=True)
    ids = [c["id"] for c in r.cells()]
    r.call("overwrite_cell_source", {"cell_source": "y = 20", "cell_id": ids[2], "notebook_name": nb})
    r.call("move_cell", {"source_cell_id": ids[4], "target_cell_id": ids[1], "notebook_name": nb})
    assert [c["id"] for c in r.cells()] == [ids[0], ids[4], ids[1], ids[2], ids[3]]
    text = r.call("delete_cell", {"cell_ids_to_delete": [ids[3], ids[2]], "include_source": True, "notebook_name": nb})
    assert "y = 20" in text and "z = 3" in text, "the model is told what it deleted"
    assert [c["id"] for c in r.cells()] == [ids[0], ids[4], ids[1]]
    r.call("delete_cell", {"cell_indices": [0, 1], "include_source": False, "notebook_name": nb})
    assert [c["id"] for c in r.cells()] == [ids[1]]
    r.call("clear_cell_output", {"cell_index": 0, "notebook_name": nb, "cell_id": None})
    assert r.cells()[0]["outputs"] == []

    folder = r.root / nb[:-6]
    (folder / "inner").mkdir(parents=True)
    for name in ("a.txt", "b.txt", "inner/c.txt"):
        (folder / name).write_text(name)
    page = r.call("list_files", {"path": folder.name, "max_depth": 1, "start_index": 0, "limit": 3, "pattern": ""})
    assert "a.txt" in page and "b.txt" in page and "inner" in page and "c.txt" not in page
    page = r.call("list_files", {"path": folder.name, "max_depth": 1, "start_index": 3, "limit": 3, "pattern": ""})
    assert "inner/c.txt" in page and "a.txt" not in page
    assert "a.txt" not in r.call("list_files", {"path": folder.name, "max_depth": 0, "start_index": 0, "limit": 0, "pattern": "*/c.txt"})
    r.call("list_kernels", {})
    r.call("list_notebooks", {})
    r.call("restart_notebook", {"notebook_name": nb})
    r.call("unuse_notebook", {"notebook_name": nb})


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("replay-root")


@pytest.fixture(scope="module")
def targets(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Target]]:
    http = HttpServer(root, *COMPAT, log=tmp_path_factory.mktemp("replay-logs") / "http.log")
    stdio = StdioTarget(serve_command(root, *COMPAT), cwd=str(root), timeout=120)
    try:
        yield {"stdio": stdio, "http": http.target}
    finally:
        stdio.close()
        http.close()


@pytest.mark.parametrize("version", [HANDSHAKE, OUTPUTS])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_replay_in_their_argument_style_passes(targets, root, transport, version):
    replay(Replay(targets[transport], version, root, f"{transport}-{version}"))
