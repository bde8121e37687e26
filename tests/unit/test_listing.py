"""tools/list entries per era: outputVariants at 2026-12-01, the legacy outputSchema before, never both."""

from __future__ import annotations

import pytest

from mcp_variants.protocol.declarations import parse_declaration
from mcp_variants.protocol.tools_list import tool_entry
from mcp_variants.protocol.types import ASSISTANT_STRUCTURED, UI_STRUCTURED
from mcp_variants.protocol.versions import SUPPORTED_VERSIONS, Era, era_for
from support.oracles import DECLARATIONS, UI, raw_tool, sel

NONE: frozenset[str] = frozenset()
WITH_UI = frozenset({UI})


@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
@pytest.mark.parametrize("extensions", [NONE, WITH_UI], ids=["plain", "ui"])
def test_outputs_era_lists_variants_and_no_output_schema(tool: str, extensions: frozenset[str]) -> None:
    declaration = DECLARATIONS[tool]
    entry = tool_entry(declaration, Era.OUTPUTS, extensions)
    assert "outputSchema" not in entry
    variants = entry["outputVariants"]
    expected = [v for v in declaration.variants if v.selector.is_core or v.selector.audience in extensions]
    assert variants == [v.to_wire() for v in expected]
    assert ({"audience": UI, "format": "structured"} in [{"audience": v["audience"], "format": v["format"]} for v in variants]) is (
        UI in extensions and declaration.variant(UI_STRUCTURED) is not None
    )
    for wire in variants:
        if wire["format"] == "structured":
            assert isinstance(wire["schema"], dict)
        else:
            assert "schema" not in wire
    assert entry["name"] == tool and entry["inputSchema"] == declaration.input_schema
    assert entry["title"] == declaration.title
    assert entry["annotations"] == declaration.annotations


@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
@pytest.mark.parametrize("era", [Era.LEGACY_OBJECT, Era.LEGACY_ANY])
@pytest.mark.parametrize("extensions", [NONE, WITH_UI], ids=["plain", "ui"])
def test_legacy_eras_list_assistant_structured_schema(tool: str, era: Era, extensions: frozenset[str]) -> None:
    declaration = DECLARATIONS[tool]
    entry = tool_entry(declaration, era, extensions)
    assert "outputVariants" not in entry
    variant = declaration.variant(ASSISTANT_STRUCTURED)
    if variant is None or (era is Era.LEGACY_OBJECT and variant.schema.get("type") != "object"):
        assert "outputSchema" not in entry
    else:
        assert entry["outputSchema"] == variant.schema


@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
@pytest.mark.parametrize("extensions", [NONE, WITH_UI], ids=["plain", "ui"])
def test_content_only_era_has_neither(tool: str, extensions: frozenset[str]) -> None:
    entry = tool_entry(DECLARATIONS[tool], Era.CONTENT_ONLY, extensions)
    assert "outputVariants" not in entry and "outputSchema" not in entry


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
def test_never_both_at_any_version(version: str, tool: str) -> None:
    for extensions in (NONE, WITH_UI):
        entry = tool_entry(DECLARATIONS[tool], era_for(version), extensions)
        assert not ("outputVariants" in entry and "outputSchema" in entry)
        assert ("outputVariants" in entry) is (version == "2026-12-01")


def test_eras_of_versions() -> None:
    assert [era_for(v) for v in SUPPORTED_VERSIONS] == [
        Era.CONTENT_ONLY, Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_OBJECT, Era.LEGACY_ANY, Era.OUTPUTS,
    ]
    with pytest.raises(KeyError):
        era_for("2099-01-01")


ARRAY_ROOT = parse_declaration(raw_tool(name="arr", title=None, variants=[
    sel("assistant", "content"), {**sel("assistant", "structured"), "schema": {"type": "array"}},
]))
PROGRAMMATIC_ONLY = parse_declaration(raw_tool(name="prog", variants=[
    sel("assistant", "content"),
    {**sel("programmatic", "structured"), "schema": {"type": "object"}},
    {**sel("user", "structured"), "schema": {"type": "object"}},
    {**sel(UI, "structured"), "schema": {"type": "object"}},
]))


def test_array_root_only_at_legacy_any() -> None:
    assert "outputSchema" not in tool_entry(ARRAY_ROOT, Era.LEGACY_OBJECT, NONE)
    assert tool_entry(ARRAY_ROOT, Era.LEGACY_ANY, NONE)["outputSchema"] == {"type": "array"}
    assert "title" not in tool_entry(ARRAY_ROOT, Era.OUTPUTS, NONE)


@pytest.mark.parametrize("era", [Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_ANY])
def test_no_other_audience_schema_becomes_output_schema(era: Era) -> None:
    assert "outputSchema" not in tool_entry(PROGRAMMATIC_ONLY, era, WITH_UI)


def test_minimal_entry_has_no_optional_keys() -> None:
    entry = tool_entry(parse_declaration(raw_tool(name="m")), Era.OUTPUTS, NONE)
    assert entry == {"name": "m", "description": "a test tool", "inputSchema": {"type": "object"},
                     "outputVariants": [{"audience": "assistant", "format": "content"}]}
