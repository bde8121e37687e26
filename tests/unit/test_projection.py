"""Projection: exactly one output per requested selector, the legacy pair, errors, validation."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.protocol.declarations import parse_declaration
from mcp_variants.protocol.errors import INTERNAL_ERROR, ProtocolError, ToolError
from mcp_variants.protocol.projection import (
    Outcome,
    ToolProjectors,
    build_result,
    default_error_projection,
    legacy_output_schema,
    usable_content,
)
from mcp_variants.protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    Selector,
)
from mcp_variants.protocol.validation import OutputValidators
from mcp_variants.protocol.versions import Era
from mcp_variants.tools.shared.tables import TABLE_PROJECTORS, Table
from support.oracles import ERROR_SCHEMA, ERROR_VALIDATOR, UI, raw_tool, schema_errors, sel, variant_validator

LEGACY_ERAS = [Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_ANY]

# A synthetic tool whose projectors make the value's shape obvious.
SYNTH_RAW = raw_tool(
    name="synth",
    variants=[
        sel("assistant", "content"),
        {**sel("assistant", "structured"), "schema": {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}},
        sel("user", "content"),
        {**sel("user", "structured"), "schema": {"type": "object", "required": ["label"], "properties": {"label": {"type": "string"}}}},
        {**sel("programmatic", "structured"), "schema": {"type": "object", "required": ["n", "double"],
                                                         "properties": {"n": {"type": "integer"}, "double": {"type": "integer"}},
                                                         "additionalProperties": False}},
        {**sel(UI, "structured"), "schema": {"type": "object", "required": ["view"], "properties": {"view": {"const": "n"}}}},
    ],
)
SYNTH = parse_declaration(SYNTH_RAW)


def synth_projectors(overrides: dict[Selector, Any] | None = None) -> ToolProjectors:
    success = {
        ASSISTANT_CONTENT: lambda n: [{"type": "text", "text": f"n is {n}"}],
        ASSISTANT_STRUCTURED: lambda n: {"n": n},
        USER_CONTENT: lambda n: [{"type": "text", "text": f"You got {n}."}],
        USER_STRUCTURED: lambda n: {"label": str(n)},
        PROGRAMMATIC_STRUCTURED: lambda n: {"n": n, "double": 2 * n},
        UI_STRUCTURED: lambda n: {"view": "n"},
    }
    success.update(overrides or {})
    return ToolProjectors(success=success)


@pytest.fixture(scope="module")
def synth_validators() -> OutputValidators:
    return OutputValidators([SYNTH], ERROR_SCHEMA)


def keys(output: dict[str, Any]) -> tuple[str, str]:
    return output["audience"], output["format"]


ALL = (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, USER_CONTENT, USER_STRUCTURED, PROGRAMMATIC_STRUCTURED, UI_STRUCTURED)


# ---- 2026-12-01: outputs -------------------------------------------------------------------------------


@pytest.mark.parametrize("selectors", [
    (ASSISTANT_CONTENT,),
    (PROGRAMMATIC_STRUCTURED,),
    (USER_STRUCTURED, ASSISTANT_CONTENT),
    ALL,
    tuple(reversed(ALL)),
], ids=["fallback", "programmatic", "two", "all", "all-reversed"])
def test_exactly_one_output_per_selector(selectors: tuple[Selector, ...], synth_validators: OutputValidators) -> None:
    result, _ = build_result(SYNTH, selectors, Era.OUTPUTS, Outcome(value=7), synth_projectors(), synth_validators)
    assert set(result) == {"outputs"}
    assert [keys(o) for o in result["outputs"]] == [(s.audience, s.format) for s in selectors]
    for output, selector in zip(result["outputs"], selectors, strict=True):
        if selector.format == "content":
            assert set(output) == {"audience", "format", "content"}
        else:
            assert set(output) == {"audience", "format", "structuredContent"}
    by_selector = {keys(o): o for o in result["outputs"]}
    if ("programmatic", "structured") in by_selector:
        assert by_selector[("programmatic", "structured")]["structuredContent"] == {"n": 7, "double": 14}
    if ("assistant", "content") in by_selector:
        assert by_selector[("assistant", "content")]["content"] == [{"type": "text", "text": "n is 7"}]


def test_unrequested_projectors_never_run(synth_validators: OutputValidators) -> None:
    called: list[Selector] = []

    def spy(selector: Selector, project: Any) -> Any:
        def run(value: Any) -> Any:
            called.append(selector)
            return project(value)
        return run

    base = synth_projectors()
    projectors = ToolProjectors(success={s: spy(s, p) for s, p in base.success.items()})
    build_result(SYNTH, (USER_STRUCTURED,), Era.OUTPUTS, Outcome(value=1), projectors, synth_validators)
    assert called == [USER_STRUCTURED]
    called.clear()
    build_result(SYNTH, (ASSISTANT_CONTENT,), Era.CONTENT_ONLY, Outcome(value=1), projectors, synth_validators)
    assert called == [ASSISTANT_CONTENT]
    called.clear()
    build_result(SYNTH, (ASSISTANT_CONTENT,), Era.LEGACY_ANY, Outcome(value=1), projectors, synth_validators)
    assert sorted(called) == sorted([ASSISTANT_CONTENT, ASSISTANT_STRUCTURED])


def test_result_meta_is_carried(synth_validators: OutputValidators) -> None:
    meta = {"io.modelcontextprotocol/cache": {"ttlMs": 5, "cacheScope": "private"}}
    for era in Era:
        result, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), era, Outcome(value=1, meta=meta), synth_projectors(), synth_validators)
        assert result["_meta"] == meta
        assert result["_meta"] is not meta  # a copy
        failed, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), era, Outcome(failure=ToolError("x", "y"), meta=meta),
                              synth_projectors(), synth_validators)
        assert failed["_meta"] == meta and failed["isError"] is True
    assert "_meta" not in build_result(SYNTH, (ASSISTANT_CONTENT,), Era.OUTPUTS, Outcome(value=1), synth_projectors(),
                                       synth_validators).result


# ---- legacy eras -------------------------------------------------------------------------------------------


def test_content_only_era_gives_content_only(synth_validators: OutputValidators) -> None:
    result, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), Era.CONTENT_ONLY, Outcome(value=3), synth_projectors(), synth_validators)
    assert result == {"content": [{"type": "text", "text": "n is 3"}]}


@pytest.mark.parametrize("era", [Era.LEGACY_OBJECT, Era.LEGACY_ANY])
def test_legacy_pair_from_assistant_variants(era: Era, synth_validators: OutputValidators) -> None:
    result, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), era, Outcome(value=3), synth_projectors(), synth_validators)
    assert result == {"content": [{"type": "text", "text": "n is 3"}], "structuredContent": {"n": 3}}


ARRAY_ROOT = parse_declaration(raw_tool(name="arr", variants=[
    sel("assistant", "content"), {**sel("assistant", "structured"), "schema": {"type": "array", "items": {"type": "integer"}}},
]))
NO_ASSISTANT_STRUCTURED = parse_declaration(raw_tool(name="prog", variants=[
    sel("assistant", "content"), {**sel("programmatic", "structured"), "schema": {"type": "object"}},
    {**sel("user", "structured"), "schema": {"type": "object"}},
]))


@pytest.mark.parametrize(("era", "has_structured"), [
    (Era.CONTENT_ONLY, False), (Era.LEGACY_OBJECT, False), (Era.LEGACY_ANY, True), (Era.OUTPUTS, False),
])
def test_object_root_rule_for_legacy_structured_content(era: Era, has_structured: bool) -> None:
    validators = OutputValidators([ARRAY_ROOT], ERROR_SCHEMA)
    projectors = ToolProjectors(success={ASSISTANT_CONTENT: lambda v: [{"type": "text", "text": str(v)}],
                                         ASSISTANT_STRUCTURED: lambda v: v})
    result, _ = build_result(ARRAY_ROOT, (ASSISTANT_CONTENT,), era, Outcome(value=[1, 2]), projectors, validators)
    assert ("structuredContent" in result) is has_structured
    if has_structured:
        assert result["structuredContent"] == [1, 2]
    assert (legacy_output_schema(ARRAY_ROOT, era) is not None) is has_structured


@pytest.mark.parametrize("era", LEGACY_ERAS)
def test_legacy_never_projects_other_audiences(era: Era) -> None:
    validators = OutputValidators([NO_ASSISTANT_STRUCTURED], ERROR_SCHEMA)
    projectors = ToolProjectors(success={
        ASSISTANT_CONTENT: lambda v: [{"type": "text", "text": "ok"}],
        PROGRAMMATIC_STRUCTURED: lambda v: pytest.fail("programmatic projected at a legacy era"),
        USER_STRUCTURED: lambda v: pytest.fail("user projected at a legacy era"),
    })
    result, _ = build_result(NO_ASSISTANT_STRUCTURED, (ASSISTANT_CONTENT,), era, Outcome(value=0), projectors, validators)
    assert result == {"content": [{"type": "text", "text": "ok"}]}
    assert legacy_output_schema(NO_ASSISTANT_STRUCTURED, era) is None


@pytest.mark.parametrize("era", LEGACY_ERAS)
def test_legacy_failure_is_content_only(era: Era, synth_validators: OutputValidators) -> None:
    result, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), era, Outcome(failure=ToolError("timeout", "Took too long")),
                          synth_projectors(), synth_validators)
    assert result == {"content": [{"type": "text", "text": "Took too long"}], "isError": True}


# ---- failures at 2026-12-01 ----------------------------------------------------------------------------------


def test_failure_gives_one_error_output_per_selector(synth_validators: OutputValidators) -> None:
    failure = ToolError("not-found", "No such thing", details={"ename": "KeyError", "evalue": "'x'", "traceback": ["tb"]})
    selectors = (PROGRAMMATIC_STRUCTURED, ASSISTANT_CONTENT, USER_STRUCTURED, UI_STRUCTURED, USER_CONTENT)
    result, _ = build_result(SYNTH, selectors, Era.OUTPUTS, Outcome(failure=failure), synth_projectors(), synth_validators)
    assert result["isError"] is True
    assert set(result) == {"outputs", "isError"}
    assert [keys(o) for o in result["outputs"]] == [(s.audience, s.format) for s in selectors]
    for output in result["outputs"]:
        if output["format"] == "structured":
            value = output["structuredContent"]
            assert schema_errors(ERROR_VALIDATOR, value) == []
            assert value["error"] == {"type": "not-found", "message": "No such thing", "ename": "KeyError",
                                      "evalue": "'x'", "traceback": ["tb"]}
            # the error shape, not the success one: it would break programmatic's schema
            assert schema_errors(variant_validator(SYNTH, PROGRAMMATIC_STRUCTURED), value) != [] or output["audience"] != "programmatic"
        else:
            assert output["content"] == [{"type": "text", "text": "No such thing"}]


def test_default_error_projection_shapes() -> None:
    failure = ToolError("timeout", "slow", details={"ename": "E"})
    assert default_error_projection(USER_CONTENT, failure) == [{"type": "text", "text": "slow"}]
    assert default_error_projection(UI_STRUCTURED, failure) == {"error": {"type": "timeout", "message": "slow", "ename": "E"}}


def test_tool_error_projectors_are_used(synth_validators: OutputValidators) -> None:
    projectors = ToolProjectors(
        success=synth_projectors().success,
        errors={PROGRAMMATIC_STRUCTURED: lambda f: {"error": {"type": f.kind, "message": "custom"}, "partial": f.partial}},
    )
    result, _ = build_result(SYNTH, (PROGRAMMATIC_STRUCTURED, ASSISTANT_STRUCTURED), Era.OUTPUTS,
                          Outcome(failure=ToolError("execution-error", "boom", partial=[1])), projectors, synth_validators)
    assert result["outputs"][0]["structuredContent"] == {"error": {"type": "execution-error", "message": "custom"}, "partial": [1]}
    assert result["outputs"][1]["structuredContent"] == {"error": {"type": "execution-error", "message": "boom"}}


@pytest.mark.parametrize("bad", [
    {"n": "seven"},  # assistant/structured
    None,
])
def test_schema_breaking_projector_yields_is_error_and_reports_the_breach(bad: Any, synth_validators: OutputValidators) -> None:
    projectors = synth_projectors({ASSISTANT_STRUCTURED: lambda n: bad})
    selectors = (ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED)
    result, breach = build_result(SYNTH, selectors, Era.OUTPUTS, Outcome(value=7), projectors, synth_validators)
    assert result["isError"] is True
    assert [keys(o) for o in result["outputs"]] == [(s.audience, s.format) for s in selectors]
    for output in result["outputs"]:
        if output["format"] == "structured":
            assert schema_errors(ERROR_VALIDATOR, output["structuredContent"]) == []
            assert output["structuredContent"]["error"]["type"] == "invalid-output"
    assert breach is not None, "the schema breach was not reported"
    assert "synth" in str(breach) and "assistant/structured" in str(breach)


@pytest.mark.parametrize("era", [Era.LEGACY_OBJECT, Era.LEGACY_ANY])
def test_schema_breaking_legacy_structured_content_is_an_error(era: Era, synth_validators: OutputValidators) -> None:
    projectors = synth_projectors({ASSISTANT_STRUCTURED: lambda n: {"n": 1.5}})
    result, breach = build_result(SYNTH, (ASSISTANT_CONTENT,), era, Outcome(value=7), projectors, synth_validators)
    assert result["isError"] is True
    assert "structuredContent" not in result and "outputs" not in result
    assert breach is not None


def test_unrequested_schema_breaking_projector_does_not_matter(synth_validators: OutputValidators) -> None:
    projectors = synth_projectors({PROGRAMMATIC_STRUCTURED: lambda n: "not an object"})
    result, breach = build_result(SYNTH, (ASSISTANT_STRUCTURED,), Era.OUTPUTS, Outcome(value=7), projectors, synth_validators)
    content_only, content_breach = build_result(SYNTH, (ASSISTANT_CONTENT,), Era.CONTENT_ONLY, Outcome(value=7),
                                    synth_projectors({ASSISTANT_STRUCTURED: lambda n: "bad"}), synth_validators)
    assert result == {"outputs": [{"audience": "assistant", "format": "structured", "structuredContent": {"n": 7}}]}
    assert content_only == {"content": [{"type": "text", "text": "n is 7"}]}
    assert breach is None and content_breach is None


def test_error_representation_breaking_error_schema_is_32603(synth_validators: OutputValidators) -> None:
    projectors = ToolProjectors(success=synth_projectors().success, errors={USER_STRUCTURED: lambda f: {"oops": True}})
    with pytest.raises(ProtocolError) as caught:
        build_result(SYNTH, (ASSISTANT_CONTENT, USER_STRUCTURED), Era.OUTPUTS,
                     Outcome(failure=ToolError("x", "y")), projectors, synth_validators)
    assert caught.value.code == INTERNAL_ERROR == -32603
    assert caught.value.data.get("tool") == "synth"


def test_bad_error_details_are_32603_not_an_invalid_error_output(synth_validators: OutputValidators) -> None:
    """Details that break the error shape (ename must be a string) cannot reach the client."""
    with pytest.raises(ProtocolError) as caught:
        build_result(SYNTH, (ASSISTANT_STRUCTURED,), Era.OUTPUTS,
                     Outcome(failure=ToolError("x", "y", details={"ename": 5})), synth_projectors(), synth_validators)
    assert caught.value.code == -32603


def test_success_breach_then_broken_error_representation_is_32603(synth_validators: OutputValidators) -> None:
    projectors = ToolProjectors(
        success=synth_projectors({USER_STRUCTURED: lambda n: {"label": 1}}).success,
        errors={USER_STRUCTURED: lambda f: {"no": "error key"}},
    )
    with pytest.raises(ProtocolError) as caught:
        build_result(SYNTH, (USER_STRUCTURED,), Era.OUTPUTS, Outcome(value=1), projectors, synth_validators)
    assert caught.value.code == -32603


def test_content_outputs_are_not_schema_validated_on_error(synth_validators: OutputValidators) -> None:
    projectors = ToolProjectors(success=synth_projectors().success,
                                errors={ASSISTANT_CONTENT: lambda f: [{"type": "text", "text": "custom " + f.message}]})
    result, _ = build_result(SYNTH, (ASSISTANT_CONTENT,), Era.OUTPUTS, Outcome(failure=ToolError("x", "y")), projectors,
                          synth_validators)
    assert result == {"outputs": [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "custom y"}]}],
                      "isError": True}


# ---- real projectors, fixed values ------------------------------------------------------------------------------


def _empty_listing() -> Table:
    return Table(kind="kernels.list", title="Kernels", columns=(("id", "ID"),), rows=[], programmatic={"kernels": []},
                   text_limit=100, empty_message="No kernels are running.")


def test_real_listing_empty(declarations, validators) -> None:
    declaration = declarations["list_kernels"]
    selectors = tuple(v.selector for v in declaration.offered(frozenset({UI})))
    result, _ = build_result(declaration, selectors, Era.OUTPUTS, Outcome(value=_empty_listing()), TABLE_PROJECTORS, validators)
    assert "isError" not in result
    by = {keys(o): o for o in result["outputs"]}
    assert by[("assistant", "content")]["content"] == [{"type": "text", "text": "No kernels are running."}]
    assert by[("assistant", "structured")]["structuredContent"]["count"] == 0
    assert by[("programmatic", "structured")]["structuredContent"] == {"kernels": []}
    for output in result["outputs"]:
        if output["format"] == "structured":
            selector = Selector(output["audience"], output["format"])
            assert schema_errors(variant_validator(declaration, selector), output["structuredContent"]) == []


def test_real_listing_failure_uses_error_shape(declarations, validators) -> None:
    declaration = declarations["list_files"]
    result, _ = build_result(declaration, (PROGRAMMATIC_STRUCTURED, USER_STRUCTURED), Era.OUTPUTS,
                          Outcome(failure=ToolError("not-found", "No folder 'x'")), TABLE_PROJECTORS, validators)
    assert result["isError"] is True
    for output in result["outputs"]:
        assert output["structuredContent"] == {"error": {"type": "not-found", "message": "No folder 'x'"}}


class FrameworkResult:
    """A framework's own result object (no JSON), holding its structuredContent."""

    def __init__(self, structured: Any) -> None:
        self.structured = structured


WRAPPED = {"type": "object", "properties": {"result": {"type": ["integer", "null"]}}, "required": ["result"]}
OWN_RESULT_FIELD = {"type": "object", "properties": {"result": {"type": ["integer", "null"]}, "note": {"type": "string"}}}


@pytest.mark.parametrize(("schema", "structured", "text"), [
    (WRAPPED, {"result": None}, "null"),  # the framework wrapped None: the model reads what the tool returned
    (WRAPPED, {"result": []}, "[]"),
    (OWN_RESULT_FIELD, {"result": None}, '{"result": null}'),  # a schema of the tool's own: its structuredContent as is
    (None, None, "null"),
])
def test_an_empty_content_reads_as_the_value_a_framework_wrapped(schema: dict[str, Any] | None, structured: Any, text: str) -> None:
    projectors = ToolProjectors(success={}, established_structured=lambda result: result.structured)
    assert usable_content([], FrameworkResult(structured), projectors, schema) == [{"type": "text", "text": text}]
    kept = [{"type": "text", "text": "3"}]
    assert usable_content(kept, FrameworkResult(structured), projectors, schema) is kept  # a content that says something
