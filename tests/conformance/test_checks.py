"""The check language of the vectors (JSONPath subset and ops) passes and fails as documented."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.conformance.checks import CheckError, evaluate, render
from mcp_variants.conformance.jsonpath import JsonPathError, collection, query

UI = "io.modelcontextprotocol/ui"
DOC: dict[str, Any] = {
    "request": {"params": {"requestedOutputs": [{"audience": "assistant", "format": "content"}, {"audience": UI, "format": "structured"}]}},
    "response": {"result": {
        "outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "hi"}]},
                    {"audience": UI, "format": "structured", "structuredContent": {"rows": [1]}}],
        "_meta": {"io.example/x": 1}, "isError": False}},
    "steps": {"list": {"response": {"result": {"tools": [{"name": "t", "outputVariants": [
        {"audience": UI, "format": "structured", "schema": {"type": "object", "required": ["rows"]}}]}]}}}},
}


@pytest.mark.parametrize(("path", "expected"), [
    ("$.response.result.outputs[*].audience", ["assistant", UI]),
    (f"$.response.result.outputs[?@.audience=='{UI}' && @.format=='structured'].structuredContent.rows[0]", [1]),
    ("$.response.result.outputs[?@.audience=='user' || @.format=='content'].format", ["content"]),
    ("$.response.result.outputs[?!@.content].format", ["structured"]),
    ("$.response.result.outputs[?@.content[?@.type=='text']].audience", ["assistant"]),
    ("$.response.result._meta['io.example/x']", [1]),
    ("$.response.result.outputs[-1].format", ["structured"]),
    ("$.response.result.outputs[?@.missing != 'x'].format", ["content", "structured"]),
    ("$.response.result.outputs[?@.missing == 'x'].format", []),
    ("$.response.result.isError", [False]),
    ("$.response.result.outputs.*.format", ["content", "structured"]),
])
def test_jsonpath_subset(path: str, expected: list[Any]) -> None:
    assert query(path, DOC) == expected


@pytest.mark.parametrize("path", ["response", "$..audience", "$.a[?@.n > 1]", "$.a[", "$.a[?'x']"])
def test_jsonpath_refuses_what_it_does_not_implement(path: str) -> None:
    with pytest.raises(JsonPathError):
        query(path, DOC)


OUT = "$.response.result.outputs"
CASES = [
    ({"op": "exists", "path": f"{OUT}[0]"}, True), ({"op": "exists", "path": f"{OUT}[5]"}, False),
    ({"op": "absent", "path": "$.response.error"}, True), ({"op": "absent", "path": OUT}, False),
    ({"op": "equals", "path": f"{OUT}[*].format", "value": "content"}, False),
    ({"op": "equals", "path": "$.response.result.isError", "value": False}, True),
    ({"op": "equals", "path": "$.response.error.code", "value": -32602}, False),
    ({"op": "notEquals", "path": "$.response.result.isError", "value": True}, True),
    ({"op": "notEquals", "path": "$.response.result.nothing", "value": True}, True),
    ({"op": "count", "path": f"{OUT}[*]", "value": 2}, True), ({"op": "count", "path": f"{OUT}[*]", "value": 1}, False),
    ({"op": "length", "path": OUT, "value": 2}, True), ({"op": "minLength", "path": f"{OUT}[0].content", "value": 2}, False),
    ({"op": "oneOf", "path": f"{OUT}[*].audience", "values": ["assistant", UI]}, True),
    ({"op": "oneOf", "path": f"{OUT}[*].audience", "values": ["assistant"]}, False),
    ({"op": "oneOf", "path": f"{OUT}[*].nothing", "values": ["user"]}, True),
    ({"op": "type", "path": OUT, "value": "array"}, True), ({"op": "type", "path": OUT, "value": "object"}, False),
    ({"op": "sameSelectors", "path": f"{OUT}[*]", "otherPath": "$.request.params.requestedOutputs[*]"}, True),
    ({"op": "sameSelectors", "path": f"{OUT}[0]", "otherPath": "$.request.params.requestedOutputs[*]"}, False),
    ({"op": "uniqueSelectors", "path": f"{OUT}[*]"}, True),
    ({"op": "validAgainst", "path": f"{OUT}[1].structuredContent",
      "schemaPath": "$.steps.list.response.result.tools[0].outputVariants[0].schema"}, True),
    ({"op": "validAgainst", "path": f"{OUT}[0]", "schemaPath": "$.steps.list.response.result.tools[0].outputVariants[0].schema"}, False),
    ({"op": "validAgainst", "path": f"{OUT}[1]", "schemaPath": "$.nowhere"}, False),
    ({"op": "validAgainst", "path": f"{OUT}[1]", "schemaPath": "$.nowhere", "vacuous": True}, True),
    ({"op": "equalsOther", "path": f"{OUT}[0].audience", "otherPath": "$.request.params.requestedOutputs[0].audience"}, True),
    ({"op": "notInOther", "path": f"{OUT}[*].audience", "otherPath": "$.request.params.requestedOutputs[*].audience"}, False),
    ({"op": "containsText", "path": "$.response", "value": "hi"}, True),
    ({"op": "notContainsText", "path": "$.response", "value": "rows"}, False),
    ({"op": "every", "path": f"{OUT}[*]", "checks": [{"op": "exists", "path": "@.format"}]}, True),
    ({"op": "every", "path": f"{OUT}[*]", "checks": [{"op": "exists", "path": "@.content"}]}, False),
    # A quantifier over nothing is false, unless `vacuous` and what it ranges over is there (issue 22).
    ({"op": "every", "path": f"{OUT}[?@.audience=='user']", "checks": []}, False),
    ({"op": "every", "path": f"{OUT}[?@.audience=='user']", "checks": [], "vacuous": True}, True),
    ({"op": "every", "path": "$.response.error.data[*]", "checks": [], "vacuous": True}, False),
    ({"op": "every", "path": "$.response.result.tools[*].outputVariants[*]", "checks": [], "vacuous": True}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[?@.audience=='user'].audience", "checks": []}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[?@.audience=='user'].audience", "checks": [], "vacuous": True}, True),
    ({"op": "forEach", "var": "a", "in": "$.response.result.tools[?@.outputSchema].name", "checks": [], "vacuous": True}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[*].audience",
      "checks": [{"op": "count", "path": "$.request.params.requestedOutputs[?@.audience=='{{a}}']", "value": 1}]}, True),
    ({"op": "anyOf", "checks": [{"op": "exists", "path": "$.x"}, {"op": "exists", "path": "$.response"}]}, True),
    ({"op": "anyOf", "checks": [{"op": "exists", "path": "$.x"}, {"op": "exists", "path": "$.y"}]}, False),
]


@pytest.mark.parametrize(("check", "ok"), CASES, ids=[f"{c['op']}-{ok}-{i}" for i, (c, ok) in enumerate(CASES)])
def test_ops(check: dict[str, Any], ok: bool) -> None:
    verdict = evaluate({**check, "says": "x"}, DOC)
    assert verdict.ok is ok, verdict


@pytest.mark.parametrize(("path", "ranges_over"), [
    ("$.response.result.tools[*]", "$.response.result.tools"),
    ("$.response.result.tools[*].outputVariants[?@.format=='structured']", "$.response.result.tools[*].outputVariants"),
    ("$.response.result.tools[?@.outputSchema].name", "$.response.result.tools"),
    ("@.content[*]", "@.content"), ("$.a.b", "$.a"), ("$.a.*", "$.a"), ("$", "$"),
])
def test_the_collection_a_path_ranges_over(path: str, ranges_over: str) -> None:
    assert collection(path) == ranges_over


def test_render_substitutes_values_and_escapes_paths() -> None:
    rendered = render({"name": "{{tool}}", "arguments": "{{arguments}}", "path": "$.a[?@.name=='{{tool}}']"},
                      {"tool": "it's", "arguments": {"code": "1"}})
    assert rendered == {"name": "it's", "arguments": {"code": "1"}, "path": "$.a[?@.name=='it\\'s']"}
    assert query(rendered["path"], {"a": [{"name": "it's"}]}) == [{"name": "it's"}]


def test_unbound_placeholder_in_a_path_is_an_error() -> None:
    with pytest.raises(CheckError):
        evaluate({"op": "exists", "path": "$.a[?@.name=='{{tool}}']", "says": "x"}, DOC)


def test_unknown_op_is_an_error() -> None:
    with pytest.raises(CheckError):
        evaluate({"op": "looksRight", "path": "$", "says": "x"}, DOC)


def test_a_declared_schema_that_is_not_2020_12_fails_every_time() -> None:
    """check_schema's verdict is memoised by the schema's text: the second look gives the first's, and a
    schema differing only in one value is judged afresh."""
    check = {"op": "validAgainst", "path": "$.value", "schemaPath": "$.schema", "says": "x"}
    for _ in range(2):
        bad = evaluate(check, {"value": 1, "schema": {"type": "integer", "minimum": "0"}})
        assert not bad.ok and "not valid JSON Schema 2020-12: '0' is not of type 'number'" in bad.detail, bad
        assert evaluate(check, {"value": 1, "schema": {"type": "integer", "minimum": 0}}).ok
        assert not evaluate(check, {"value": 1, "schema": {"type": "integer", "minimum": 2}}).ok
