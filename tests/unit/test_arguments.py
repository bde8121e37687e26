"""Argument aliases and nulls (dropin.py, the Jupyter server's drop-in layer): another server's names, turned into ours before
input validation where the listed inputSchema names them (`serve --compat`), refused where it does not; an
alias and its canonical name that disagree are refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_variants.catalog import CatalogEntry, compat_record, compat_servers, load_catalog, parse_aliases
from mcp_variants.dropin import canonical_arguments, compat_schemas, listed_input_schema, standing_in
from mcp_variants.protocol.declarations import parse_declaration
from mcp_variants.protocol.errors import DeclarationError, ErrorKind, ToolError
from mcp_variants.protocol.tools_list import tool_entry
from mcp_variants.protocol.versions import Era

ANCHOR = "jupyter-mcp-server"
OURS = load_catalog()
FOREIGN = compat_schemas(OURS, ANCHOR)  # serve --compat jupyter-mcp-server: its names listed, and taken


def compat(name: str):
    """How `serve --compat jupyter-mcp-server` reads a call of tool `name`."""
    return lambda arguments: canonical_arguments(OURS[name], arguments, FOREIGN.get(name))


def declared(aliases: dict, properties: dict | None = None) -> CatalogEntry:
    declaration = parse_declaration({
        "name": "t", "inputSchema": {"type": "object", "properties": properties or {"depth": {"type": "integer"},
                                                                                   "create": {"type": "boolean"},
                                                                                   "source": {"type": "string"}}},
        "outputVariants": [{"audience": "assistant", "format": "content"}],
    })
    return CatalogEntry(declaration, parse_aliases("t", aliases, declaration.input_schema))


def test_a_renamed_argument_takes_the_canonical_name():
    tool = compat("insert_cell")
    assert tool({"cell_source": "x = 1", "notebook_name": "a.ipynb"}) == {"source": "x = 1", "notebook": "a.ipynb"}


def test_values_and_offsets_are_translated():
    use, files = compat("use_notebook"), compat("list_files")
    assert use({"notebook_path": "a.ipynb", "mode": "create"}) == {"notebook": "a.ipynb", "create": True}
    assert use({"notebook_path": "a.ipynb", "mode": "connect"})["create"] is False
    assert files({"max_depth": 0, "start_index": 25}) == {"depth": 1, "start": 25}


def test_nulls_are_arguments_not_given():
    tool = compat("read_cell")
    assert tool({"cell_index": None, "cell_id": "abc", "notebook_name": None}) == {"cell_id": "abc"}


def test_an_alias_agreeing_with_its_canonical_name_is_accepted():
    assert compat("insert_cell")({"source": "s", "cell_source": "s"}) == {"source": "s"}
    assert compat("list_files")({"depth": 2, "max_depth": 1}) == {"depth": 2}


@pytest.mark.parametrize(("tool", "arguments", "words"), [
    ("insert_cell", {"source": "a", "cell_source": "b"}, ["cell_source is another name for source", '"a"', '"b"']),
    ("use_notebook", {"notebook": "a.ipynb", "mode": "create", "create": False}, ["mode", "create=true", "create=false"]),
    ("list_files", {"depth": 1, "max_depth": 1}, ["max_depth=1", "depth=2"]),
])
def test_an_alias_disagreeing_with_its_canonical_name_is_refused_saying_why(tool, arguments, words):
    with pytest.raises(ToolError) as refused:
        compat(tool)(arguments)
    assert refused.value.kind is ErrorKind.INVALID_ARGUMENTS
    for word in words:
        assert word in refused.value.message, refused.value.message


def test_an_alias_value_outside_its_words_is_refused():
    with pytest.raises(ToolError, match="mode must be one of"):
        compat("use_notebook")({"notebook": "a.ipynb", "mode": "open"})
    with pytest.raises(ToolError, match="max_depth must be an integer"):
        compat("list_files")({"max_depth": True})


@pytest.mark.parametrize(("aliases", "rule"), [
    ({"x": {"canonical": "missing"}}, "names an argument of inputSchema"),
    ({"depth": {"canonical": "source"}}, "is not itself an argument"),
    ({"x": {"canonical": "depth", "add": 1, "values": {"a": 1}}}, "at most one way"),
    ({"x": {"canonical": "depth", "add": "1"}}, "at most one way"),
    ({"x": {"canonical": "depth", "to": "y"}}, "names an argument of inputSchema"),
])
def test_a_broken_alias_stops_the_server(aliases, rule):
    with pytest.raises(DeclarationError, match=rule):
        declared(aliases)


def test_every_declared_alias_names_a_listed_argument_and_is_not_listed():
    for name, entry in OURS.items():
        properties = entry.declaration.input_schema.get("properties", {})
        for alias in entry.aliases:
            assert alias.canonical in properties and alias.name not in properties, (name, alias)


@given(st.dictionaries(st.sampled_from(["source", "cell_source", "notebook", "notebook_name", "cell_index"]),
                       st.one_of(st.none(), st.text(max_size=3), st.integers(-2, 2))))
def test_the_result_never_holds_an_alias_or_a_null(arguments):
    try:
        result = compat("insert_cell")(arguments)
    except ToolError as refused:
        assert refused.kind is ErrorKind.INVALID_ARGUMENTS
        return
    assert not {"cell_source", "notebook_name"} & result.keys()
    assert None not in result.values()
    for alias, canonical in (("cell_source", "source"), ("notebook_name", "notebook")):
        if arguments.get(alias) is not None:
            assert result[canonical] == arguments[alias]


# ---- what is listed is what is taken ---------------------------------------------------------------


def test_without_compat_an_alias_is_refused_naming_ours():
    for name, declaration in OURS.items():
        for alias in declaration.aliases:
            with pytest.raises(ToolError) as refused:
                canonical_arguments(declaration, {alias.name: "x"})
            assert refused.value.kind is ErrorKind.INVALID_ARGUMENTS
            assert f"{alias.name} is not one of its arguments" in refused.value.message
            assert f"pass {alias.canonical}." in refused.value.message, (name, refused.value.message)


def test_tools_list_shows_the_schema_calls_are_taken_by():
    record = compat_record(ANCHOR)
    assert compat_servers() == [ANCHOR]
    for name, entry in OURS.items():
        assert listed_input_schema(entry, FOREIGN.get(name)) == record["tools"].get(name, entry.declaration.input_schema), name
        assert tool_entry(entry.declaration, Era.OUTPUTS, frozenset())["inputSchema"] == entry.declaration.input_schema


def test_with_compat_a_listed_default_that_differs_from_ours_is_applied():
    execute = compat("execute_code")
    assert FOREIGN["execute_code"].defaults == {"timeout": 30}
    assert execute({"code": "1"}) == {"code": "1", "timeout": 30}
    assert execute({"code": "1", "timeout": 5})["timeout"] == 5
    assert execute({"code": "1", "timeout": None})["timeout"] == 30, "null is an argument not given"
    # Defaults that mean ours are left to the tool: a cursor is no start_index of 0 and a cursor at once.
    assert compat("read_notebook")({"notebook_name": "a.ipynb", "cursor": "20"}) == {
        "notebook": "a.ipynb", "cursor": "20"}


def test_a_listed_schema_naming_an_argument_we_do_not_take_stops_the_server():
    tool = OURS["insert_cell"]
    with pytest.raises(DeclarationError, match="every argument a listed inputSchema names is taken"):
        standing_in(tool, {"type": "object", "properties": {"cell_source": {"type": "string"}, "colour": {"type": "string"}}})
    with pytest.raises(DeclarationError, match="a listed default means a value of ours"):
        standing_in(OURS["use_notebook"], {"type": "object", "properties": {"mode": {"default": "open"}}})


def test_the_servers_tools_list_shows_the_schema_calls_are_taken_by():
    from mcp_variants.server.app import load_tools
    from mcp_variants.server.observe import CallObserver

    record = compat_record(ANCHOR)
    for compat in (None, ANCHOR):
        entries = {e["name"]: e for e in load_tools(CallObserver(), compat).entries(Era.LEGACY_OBJECT, frozenset())}
        for name, entry in OURS.items():
            expected = record["tools"].get(name, entry.declaration.input_schema) if compat else entry.declaration.input_schema
            assert entries[name]["inputSchema"] == expected, (compat, name)
