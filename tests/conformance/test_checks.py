"""The check language of the vectors (RFC 9535 JSONPath and ops) passes and fails as documented."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.conformance.checks import CheckError, evaluate, render, select

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
def test_rfc_9535_queries(path: str, expected: list[Any]) -> None:
    assert select(path, DOC) == expected


@pytest.mark.parametrize("path", ["response", "@.format", "$.a[", "$.a[?'x']", "$.a[?@.b[*] == 1]", "$.a[?@.b = 1]"])
def test_what_is_not_rfc_9535_is_refused(path: str) -> None:
    """Not a query (no root, `@` outside a filter), malformed, a literal as a test, a non-singular query compared."""
    with pytest.raises(CheckError, match="not an RFC 9535 JSONPath query"):
        select(path, DOC)


OUT = "$.response.result.outputs"
CASES = [
    ({"op": "exists", "path": f"{OUT}[0]"}, True), ({"op": "exists", "path": f"{OUT}[5]"}, False),
    ({"op": "absent", "path": "$.response.error"}, True), ({"op": "absent", "path": OUT}, False),
    ({"op": "equals", "path": f"{OUT}[*].format", "value": "content"}, False),
    ({"op": "equals", "path": "$.response.result.isError", "value": False}, True),
    ({"op": "equals", "path": "$.response.error.code", "value": -32602}, False),
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
    # `every`: each node is the document (`$`) of the nested checks.
    ({"op": "every", "path": f"{OUT}[*]", "checks": [{"op": "exists", "path": "$.format"}]}, True),
    ({"op": "every", "path": f"{OUT}[*]", "checks": [{"op": "exists", "path": "$.content"}]}, False),
    # A quantifier over nothing is false, unless `vacuous` and what it ranges over is there (issue 22).
    ({"op": "every", "path": f"{OUT}[?@.audience=='user']", "checks": []}, False),
    ({"op": "every", "path": f"{OUT}[?@.audience=='user']", "checks": [], "vacuous": True, "over": OUT}, True),
    ({"op": "every", "path": "$.response.error.data[*]", "checks": [], "vacuous": True, "over": "$.response.error.data"}, False),
    ({"op": "every", "path": "$.response.result.tools[*].outputVariants[*]", "checks": [], "vacuous": True,
      "over": "$.response.result.tools[*].outputVariants"}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[?@.audience=='user'].audience", "checks": []}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[?@.audience=='user'].audience", "checks": [], "vacuous": True, "over": OUT}, True),
    ({"op": "forEach", "var": "a", "in": "$.response.result.tools[?@.outputSchema].name", "checks": [], "vacuous": True,
      "over": "$.response.result.tools"}, False),
    ({"op": "forEach", "var": "a", "in": f"{OUT}[*].audience",
      "checks": [{"op": "count", "path": "$.request.params.requestedOutputs[?@.audience=='{{a}}']", "value": 1}]}, True),
    ({"op": "anyOf", "checks": [{"op": "exists", "path": "$.x"}, {"op": "exists", "path": "$.response"}]}, True),
    ({"op": "anyOf", "checks": [{"op": "exists", "path": "$.x"}, {"op": "exists", "path": "$.y"}]}, False),
]


@pytest.mark.parametrize(("check", "ok"), CASES, ids=[f"{c['op']}-{ok}-{i}" for i, (c, ok) in enumerate(CASES)])
def test_ops(check: dict[str, Any], ok: bool) -> None:
    verdict = evaluate({**check, "says": "x"}, DOC)
    assert verdict.ok is ok, verdict


def test_a_string_document_is_a_json_string_not_json_text() -> None:
    """`every` over strings makes each string the document of its nested checks: a string has no members."""
    assert select("$", '{"a": 1}') == ['{"a": 1}'] and select("$.a", '{"a": 1}') == []
    assert evaluate({"op": "every", "path": "$.names[*]", "says": "x", "checks": [{"op": "absent", "path": "$.a", "says": "y"}]},
                    {"names": ['{"a": 1}']}).ok


def test_a_vacuous_quantifier_names_what_it_ranges_over() -> None:
    with pytest.raises(CheckError, match="needs `over`"):
        evaluate({"op": "every", "path": f"{OUT}[?@.audience=='user']", "checks": [], "vacuous": True, "says": "x"}, DOC)


def test_render_substitutes_values_and_escapes_paths() -> None:
    rendered = render({"name": "{{tool}}", "arguments": "{{arguments}}", "path": "$.a[?@.name=='{{tool}}']"},
                      {"tool": "it's", "arguments": {"code": "1"}})
    assert rendered == {"name": "it's", "arguments": {"code": "1"}, "path": "$.a[?@.name=='it\\'s']"}
    assert select(rendered["path"], {"a": [{"name": "it's"}]}) == [{"name": "it's"}]


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


EACH_AUDIENCE_IS_USER = {"op": "forEach", "var": "a", "in": f"{OUT}[*].audience", "says": "each audience is user",
                         "checks": [{"op": "equals", "path": "$.request.params.requestedOutputs[?@.audience=='{{a}}'].audience",
                                     "value": "user", "says": "user"}],
                         "hint": "if {{a}} is not new, name it"}


def test_for_each_leaves_out_the_values_of_except_and_names_them() -> None:
    """`except` (the tools named --established) leaves values unjudged, named in the verdict; the others are judged still,
    each failure with the `hint`, its variable bound."""
    failed = evaluate({**EACH_AUDIENCE_IS_USER, "except": ["assistant"]}, DOC)
    assert not failed.ok and failed.exempted == ("assistant",)
    assert f"[a=\"{UI}\"] user (if {UI} is not new, name it): expected" in failed.detail and "[a=\"assistant\"]" not in failed.detail
    all_exempted = evaluate({**EACH_AUDIENCE_IS_USER, "except": ["assistant", UI, "programmatic"]}, DOC)
    assert not all_exempted.ok, "every value exempted leaves nothing judged: not a pass without `vacuous`"
    vacuous = evaluate({**EACH_AUDIENCE_IS_USER, "except": ["assistant", UI], "vacuous": True, "over": OUT}, DOC)
    assert vacuous.ok and vacuous.exempted == ("assistant", UI) and vacuous.to_json()["exempted"] == ["assistant", UI]
    assert evaluate({**EACH_AUDIENCE_IS_USER, "except": []}, DOC).exempted == ()


def test_for_each_except_must_be_bound_to_a_list() -> None:
    with pytest.raises(CheckError, match="`except` must be a list"):
        evaluate({**EACH_AUDIENCE_IS_USER, "except": "{{established}}"}, DOC)


def test_a_checks_fix_is_said_after_its_failure_only() -> None:
    blocks = "$.response.result.outputs[0].content"
    fix = "return a text block that says what the empty result means"
    passed = evaluate({"op": "minLength", "path": blocks, "says": "a block", "value": 1, "fix": fix}, DOC)
    empty = {**DOC, "response": {"result": {"outputs": [{"audience": "assistant", "format": "content", "content": []}]}}}
    failed = evaluate({"op": "minLength", "path": blocks, "says": "a block", "value": 1, "fix": fix}, empty)
    assert passed.ok and fix not in passed.detail
    assert not failed.ok and failed.detail == f"expected length >= 1, found []. {fix}"
