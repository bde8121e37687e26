"""Declaration rules: each broken rule is a DeclarationError naming the tool and the rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.catalog import load_declarations
from mcp_variants.protocol.declarations import DRAFT_2020_12, parse_declaration
from mcp_variants.protocol.errors import DeclarationError
from mcp_variants.protocol.types import ASSISTANT_CONTENT, CORE_COMBINATIONS, Selector
from mcp_variants.tools import TOOLS
from support.oracles import UI, raw_tool, sel

AC = sel("assistant", "content")
OBJ = {"type": "object"}

RULE_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("missing assistant/content", raw_tool(variants=[sel("user", "content")]), "every tool declares assistant/content"),
    ("no variants at all", raw_tool(variants=[]), "every tool declares assistant/content"),
    ("only assistant/structured", raw_tool(variants=[{**sel("assistant", "structured"), "schema": OBJ}]),
     "every tool declares assistant/content"),
    ("duplicate content pair", raw_tool(variants=[AC, AC]), "no audience/format pair is declared twice"),
    ("duplicate structured pair",
     raw_tool(variants=[AC, {**sel("programmatic", "structured"), "schema": OBJ}, {**sel("programmatic", "structured"), "schema": OBJ}]),
     "no audience/format pair is declared twice"),
    ("programmatic/content is not core", raw_tool(variants=[AC, sel("programmatic", "content")]),
     "only core combinations or known extension audiences"),
    ("unknown extension audience", raw_tool(variants=[AC, {**sel("com.example/viewer", "structured"), "schema": OBJ}]),
     "only core combinations or known extension audiences"),
    ("unknown bare audience", raw_tool(variants=[AC, sel("robot", "content")]),
     "only core combinations or known extension audiences"),
    ("ui audience with content format", raw_tool(variants=[AC, sel(UI, "content")]),
     "only core combinations or known extension audiences"),
    ("structured without schema", raw_tool(variants=[AC, sel("assistant", "structured")]),
     "every structured variant declares a schema"),
    ("structured with a non-object schema", raw_tool(variants=[AC, {**sel("user", "structured"), "schema": "object"}]),
     "every structured variant declares a schema"),
    ("schema invalid under 2020-12", raw_tool(variants=[AC, {**sel("assistant", "structured"), "schema": {"type": 5}}]),
     "schemas are valid JSON Schema 2020-12"),
    ("schema with a bad keyword value",
     raw_tool(variants=[AC, {**sel("programmatic", "structured"), "schema": {"type": "object", "required": "x"}}]),
     "schemas are valid JSON Schema 2020-12"),
    ("wrong $schema (draft-07)",
     raw_tool(variants=[AC, {**sel("assistant", "structured"),
                             "schema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}]),
     "schemas are JSON Schema 2020-12"),
    ("wrong $schema (2019-09)",
     raw_tool(variants=[AC, {**sel("user", "structured"),
                             "schema": {"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object"}}]),
     "schemas are JSON Schema 2020-12"),
    ("content variant with schema", raw_tool(variants=[{**AC, "schema": OBJ}]), "content variants carry no schema"),
    ("user/content with schema", raw_tool(variants=[AC, {**sel("user", "content"), "schema": OBJ}]),
     "content variants carry no schema"),
    ("inputSchema not object", raw_tool(inputSchema={"type": "string"}), "inputSchema is an object schema"),
    ("inputSchema missing", {k: v for k, v in raw_tool().items() if k != "inputSchema"}, "inputSchema is an object schema"),
    ("inputSchema not a dict", raw_tool(inputSchema=["object"]), "inputSchema is an object schema"),
    ("inputSchema invalid under 2020-12", raw_tool(inputSchema={"type": "object", "properties": 3}),
     "schemas are valid JSON Schema 2020-12"),
    ("inputSchema with a wrong $schema",
     raw_tool(inputSchema={"type": "object", "$schema": "http://json-schema.org/draft-04/schema#"}),
     "schemas are JSON Schema 2020-12"),
    ("outputVariants missing", {k: v for k, v in raw_tool().items() if k != "outputVariants"},
     "a tool declares outputVariants"),
    ("variant not an object", raw_tool(variants=[AC, "user/content"]), "a variant is an object"),
    ("variant with an unknown format", raw_tool(variants=[AC, sel("user", "html")]), "a variant has an audience and a format"),
    ("variant without audience", raw_tool(variants=[AC, {"format": "content"}]), "a variant has an audience and a format"),
]


@pytest.mark.parametrize(("raw", "rule"), [pytest.param(raw, rule, id=case) for case, raw, rule in RULE_CASES])
def test_each_rule_raises_naming_tool_and_rule(raw: dict[str, Any], rule: str) -> None:
    raw = json.loads(json.dumps(raw))  # no sharing between cases
    raw["name"] = "broken_tool"
    with pytest.raises(DeclarationError) as caught:
        parse_declaration(raw)
    assert caught.value.tool == "broken_tool"
    assert caught.value.rule == rule
    assert "broken_tool" in str(caught.value)
    assert rule in str(caught.value)


def test_declaration_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        parse_declaration(raw_tool(variants=[]))


def test_missing_name_is_refused() -> None:
    raw = raw_tool()
    del raw["name"]
    with pytest.raises(DeclarationError) as caught:
        parse_declaration(raw)
    assert caught.value.rule == "a tool has a name"


@pytest.mark.parametrize("bad_format", [["content"], {"f": "content"}])
def test_unhashable_format_is_a_declaration_error(bad_format: Any) -> None:
    with pytest.raises(DeclarationError) as caught:
        parse_declaration(raw_tool(variants=[AC, {"audience": "user", "format": bad_format}]))
    assert caught.value.tool == "t"


def test_every_accepted_shape_parses() -> None:
    declaration = parse_declaration(raw_tool(
        name="full",
        title="Full",
        variants=[
            AC,
            {**sel("assistant", "structured"), "schema": {"$schema": DRAFT_2020_12, "type": "object"}},
            sel("user", "content"),
            {**sel("user", "structured"), "schema": {"type": "array"}},
            {**sel("programmatic", "structured"), "schema": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            {**sel(UI, "structured"), "schema": {"type": "object"}},
        ],
        annotations={"readOnlyHint": True},
        _meta={"k": "v"},
    ))
    assert declaration.name == "full" and declaration.title == "Full"
    assert [str(v.selector) for v in declaration.variants] == [
        "assistant/content", "assistant/structured", "user/content", "user/structured", "programmatic/structured",
        f"{UI}/structured",
    ]
    assert declaration.variant(ASSISTANT_CONTENT).schema is None
    assert declaration.annotations == {"readOnlyHint": True} and declaration.meta == {"k": "v"}
    assert [v.selector for v in declaration.offered(frozenset())] == [v.selector for v in declaration.variants[:5]]
    assert len(declaration.offered(frozenset({UI}))) == 6


def test_minimal_declaration_parses() -> None:
    declaration = parse_declaration(raw_tool())
    assert declaration.variants[0].selector == ASSISTANT_CONTENT
    assert declaration.title is None and declaration.description == "a test tool"


# ---- the real variants/ directory ------------------------------------------------------------


def test_real_variants_directory_loads(declarations) -> None:
    assert set(declarations) >= {"execute_code", "list_files", "list_kernels"}
    for name, declaration in declarations.items():
        assert declaration.name == name
        assert declaration.variant(ASSISTANT_CONTENT) is not None, f"{name} lacks assistant/content"


def test_real_declarations_use_only_core_or_ui_and_valid_schemas(declarations) -> None:
    for declaration in declarations.values():
        selectors = [v.selector for v in declaration.variants]
        assert len(selectors) == len(set(selectors))
        for variant in declaration.variants:
            s = variant.selector
            assert (s.audience, s.format) in CORE_COMBINATIONS or s == Selector(UI, "structured")
            if s.format == "structured":
                Draft202012Validator.check_schema(variant.schema)
            else:
                assert variant.schema is None


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_real_schemas_are_self_contained(declarations) -> None:
    """Shapes are inlined: no schema on the wire points at a file."""
    for declaration in declarations.values():
        for variant in declaration.variants:
            for ref in _refs(variant.schema):
                assert ref.startswith("#"), f"{declaration.name} {variant.selector} keeps $ref {ref!r}"


def test_every_real_tool_has_a_projector_for_each_declared_variant(declarations) -> None:
    assert set(declarations) == set(TOOLS), "every declared tool is implemented, and every tool declared"
    for name, declaration in declarations.items():
        assert set(TOOLS[name].projectors.success) >= {v.selector for v in declaration.variants}


def test_load_declarations_refuses_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / "shapes").mkdir()
    (tmp_path / "shapes" / "thing.json").write_text(json.dumps({"$comment": "x", "type": 5}))
    (tmp_path / "bad.json").write_text(json.dumps(raw_tool(
        name="bad_tool", variants=[AC, {**sel("assistant", "structured"), "schema": {"$ref": "shapes/thing.json"}}],
    )))
    with pytest.raises(DeclarationError) as caught:
        load_declarations(tmp_path)
    assert caught.value.tool == "bad_tool"
    assert caught.value.rule == "schemas are valid JSON Schema 2020-12"


def test_load_declarations_inlines_shapes(tmp_path: Path) -> None:
    (tmp_path / "shapes").mkdir()
    (tmp_path / "shapes" / "thing.json").write_text(json.dumps({"$comment": "dropped", "type": "object"}))
    (tmp_path / "ok.json").write_text(json.dumps(raw_tool(
        name="ok_tool", variants=[AC, {**sel("programmatic", "structured"), "schema": {"$ref": "shapes/thing.json"}}],
    )))
    declaration = load_declarations(tmp_path)["ok_tool"]
    assert declaration.variant(Selector("programmatic", "structured")).schema == {"type": "object"}


def test_default_directory_loads_the_same_declarations(declarations) -> None:
    assert load_declarations() == declarations
