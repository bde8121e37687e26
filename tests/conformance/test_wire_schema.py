"""The 2026-12-01 wire schema: built from the official 2026-07-28 schema plus SEP-3279's
additions, valid JSON Schema, accepting the SEP's own examples and refusing their breakages,
and met by every 2026-12-01 message our server sends in the conformance run.

That the shipped 2026-07-28 file is the one in the conformance package is checked in
tests/outside (it needs the package).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from mcp_variants.conformance.wire_schema import SCHEMA_DIR, build_outputs_schema, schema_text, validate_wire_message, wire_schema

from .conftest import Suite, target_labels

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-12-01", "io.modelcontextprotocol/clientCapabilities": {}}
SEP_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "search_customers", "arguments": {"query": "Globex"},
    "requestedOutputs": [{"audience": "assistant", "format": "content"},
                         {"audience": "io.modelcontextprotocol/ui", "format": "structured"}],
    "_meta": ENVELOPE}}
SEP_RESULT = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "outputs": [
    {"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "I found 37 Globex customer records."}]},
    {"audience": "io.modelcontextprotocol/ui", "format": "structured", "structuredContent": {"rows": []}}],
    "_meta": {"io.modelcontextprotocol/ui": {"datasetVersion": "v18"}}}}
SEP_TOOL = {"name": "refresh_dashboard", "inputSchema": {"type": "object"}, "outputVariants": [
    {"audience": "assistant", "format": "content"},
    {"audience": "io.modelcontextprotocol/ui", "format": "structured",
     "schema": {"type": "object", "properties": {"datasetVersion": {"type": "string"}}, "required": ["datasetVersion"]}}],
    "_meta": {"ui": {"resourceUri": "ui://dashboard/index.html", "visibility": ["app"]}}}
SEP_LISTING = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [SEP_TOOL]}}


def schema(version: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / f"{version}.json").read_text())


def test_the_2026_12_01_schema_is_the_2026_07_28_one_plus_sep_3279() -> None:
    """Regenerate with: python scripts/extract_wire_schema.py"""
    assert (SCHEMA_DIR / "2026-12-01.json").read_text() == schema_text(build_outputs_schema(schema("2026-07-28")))


def test_it_is_valid_json_schema_with_the_additions() -> None:
    built = schema("2026-12-01")
    Draft202012Validator.check_schema(built)
    defs = built["$defs"]
    for name in ("ToolResultVariant", "ToolResultOutputSelector", "ToolResultOutput"):
        assert name in defs
    assert "outputVariants" in defs["Tool"]["required"] and "outputSchema" not in defs["Tool"]["properties"]
    assert "requestedOutputs" in defs["CallToolRequestParams"]["properties"]
    assert defs["CallToolResult"]["required"] == ["outputs", "resultType"]
    assert {"content", "structuredContent"}.isdisjoint(defs["CallToolResult"]["properties"])


@pytest.mark.parametrize(("message", "method"), [(SEP_CALL, None), (SEP_RESULT, "tools/call"), (SEP_LISTING, "tools/list")])
def test_the_seps_examples_are_valid(message: dict[str, Any], method: str | None) -> None:
    assert validate_wire_message(message, method) == []


def _broken(message: dict[str, Any], path: list[Any], value: Any = ...) -> dict[str, Any]:
    out = copy.deepcopy(message)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize(("message", "method", "where"), [
    (_broken(SEP_LISTING, ["result", "tools", 0, "outputVariants"]), "tools/list", "'outputVariants' is a required property"),
    (_broken(SEP_LISTING, ["result", "tools", 0, "outputVariants", 0, "format"], "blob"), "tools/list", "outputVariants/0"),
    (_broken(SEP_CALL, ["params", "requestedOutputs", 0, "format"]), None, "requestedOutputs/0: 'format' is a required property"),
    (_broken(SEP_RESULT, ["result", "outputs"]), "tools/call", "'outputs' is a required property"),
    (_broken(SEP_RESULT, ["result", "outputs", 1, "structuredContent"]), "tools/call", "outputs/1"),
    (_broken(SEP_RESULT, ["result", "outputs", 0, "content"], "text"), "tools/call", "outputs/0"),
])
def test_their_breakages_are_not(message: dict[str, Any], method: str | None, where: str) -> None:
    problems = validate_wire_message(message, method)
    assert problems and any(where in p for p in problems), problems


def test_the_2026_07_28_shapes_are_no_longer_valid_at_2026_12_01() -> None:
    legacy = {"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "content": [{"type": "text", "text": "hi"}]}}
    assert validate_wire_message(legacy, "tools/call", version="2026-07-28") == []
    assert validate_wire_message(legacy, "tools/call")


def test_every_2026_12_01_message_of_the_server_is_valid(suite: Suite) -> None:
    card = suite.scorecard(target_labels(suite.config)[0])
    wire = card["wireSchema"]
    assert wire["ok"] and wire["messagesValidated"] > 50, wire
    assert wire["harnessViolations"] == [], "the suite itself sent a message the schema refuses"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key and index path in `value`, deepest last."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    return [p for key, child in items for p in [(*prefix, key), *_paths(child, (*prefix, key))]]


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
_DEFINITIONS = {"JSONRPCRequest": SEP_CALL, "CallToolRequest": SEP_CALL, "CallToolResult": SEP_RESULT["result"],
                "ListToolsResult": SEP_LISTING["result"], "JSONRPCResultResponse": SEP_RESULT}


@settings(max_examples=300)
@given(st.sampled_from(sorted(_DEFINITIONS)), st.data())
def test_the_fast_verdict_is_the_explainers(name: str, data: st.DataObject) -> None:
    """jsonschema-rs says whether a message is valid and jsonschema explains why not: for any breakage of the SEP's
    examples (a member removed or replaced by any JSON value) they agree, so no invalid message passes unexplained."""
    message = copy.deepcopy(_DEFINITIONS[name])
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(message)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        message = _broken(message, list(path), data.draw(st.just(...) | _JSON))
    wire = wire_schema()
    assert wire._check(name).is_valid(message) == (not any(wire._validator(name).iter_errors(message)))
