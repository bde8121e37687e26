"""Property tests: projection over the real tools never returns an unrequested output,
and never returns a structured output that fails its schema.

The judge is independent of the server: schemas read from variants/ and checked with
the pure-Python jsonschema Draft202012Validator (the server uses jsonschema-rs).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_variants.jupyter.errors import JupyterErrorKind
from mcp_variants.protocol.errors import ProtocolError, ToolError
from mcp_variants.protocol.projection import Outcome, ToolProjectors, build_result
from mcp_variants.protocol.selection import select
from mcp_variants.protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, Selector
from mcp_variants.protocol.versions import Era
from mcp_variants.tools.shared.executions import ExecutionView, execution_outcome
from mcp_variants.tools.shared.text import cap_each, cap_text
from support.oracles import (
    DECLARATIONS,
    ERROR_VALIDATOR,
    EXECUTION_TOOLS,
    PROPERTY,
    PROPERTY_TOOLS,
    REAL_PROJECTORS,
    VALUES,
    assert_content_blocks,
    cell_execution_views,
    execution_views,
    executions,
    failure_details,
    failure_kinds,
    negotiated,
    requested_subsets,
    schema_errors,
    texts,
    variant_validator,
)

TOOLS = PROPERTY_TOOLS
LEGACY_ERAS = [Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_ANY]
VALIDATORS = {
    (name, v.selector): variant_validator(d, v.selector)
    for name, d in DECLARATIONS.items()
    for v in d.variants
    if v.schema is not None
}


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, frozenset[str], tuple[Selector, ...]]:
    """A tool, the negotiated extensions and selectors that select() accepted for a valid request."""
    tool = draw(st.sampled_from(TOOLS))
    extensions = draw(negotiated)
    requested = draw(requested_subsets(DECLARATIONS[tool], extensions))
    selectors = select({"name": tool, "requestedOutputs": requested}, DECLARATIONS[tool], Era.OUTPUTS, extensions)
    assert [s.to_wire() for s in selectors] == requested
    return tool, extensions, selectors


def selectors_of(outputs: list[dict[str, Any]]) -> Counter[Selector]:
    return Counter(Selector(o["audience"], o["format"]) for o in outputs)


def check_outputs(tool: str, selectors: tuple[Selector, ...], result: dict[str, Any], *, is_error: bool) -> None:
    """Exactly the requested outputs; every structured one valid against its schema."""
    assert "content" not in result and "structuredContent" not in result, "a legacy field at 2026-12-01"
    assert set(result) <= {"outputs", "isError", "_meta"}
    assert result.get("isError", False) is is_error, result
    outputs = result["outputs"]
    assert len(outputs) == len(selectors)
    assert selectors_of(outputs) == Counter(selectors)
    for output in outputs:
        selector = Selector(output["audience"], output["format"])
        if selector.format == "content":
            assert set(output) == {"audience", "format", "content"}
            assert_content_blocks(output["content"])
        else:
            assert set(output) == {"audience", "format", "structuredContent"}
            validator = ERROR_VALIDATOR if is_error else VALIDATORS[(tool, selector)]
            problems = schema_errors(validator, output["structuredContent"])
            assert problems == [], f"{tool} {selector} {'error ' if is_error else ''}output breaks its schema: {problems}"


# ---- success ----------------------------------------------------------------------------------------------


@PROPERTY
@given(call=calls(), data=st.data())
def test_success_outputs_are_exactly_the_requested_and_valid(call, data, real_validators) -> None:
    tool, _, selectors = call
    value = data.draw(VALUES[tool], label="value")
    result, breach = build_result(DECLARATIONS[tool], selectors, Era.OUTPUTS, Outcome(value=value), REAL_PROJECTORS[tool], real_validators)
    # A realistic internal value must project to a success: an isError here is a projector bug.
    assert breach is None, str(breach)
    check_outputs(tool, selectors, result, is_error=False)


@PROPERTY
@given(tool=st.sampled_from(TOOLS), era=st.sampled_from(LEGACY_ERAS), extensions=negotiated, data=st.data())
def test_legacy_eras_give_the_legacy_pair(tool, era, extensions, data, real_validators) -> None:
    declaration = DECLARATIONS[tool]
    selectors = select({"name": tool}, declaration, era, extensions)
    assert selectors == (ASSISTANT_CONTENT,)
    value = data.draw(VALUES[tool], label="value")
    result, _ = build_result(declaration, selectors, era, Outcome(value=value), REAL_PROJECTORS[tool], real_validators)
    assert "outputs" not in result and "isError" not in result
    assert_content_blocks(result["content"])
    if era is Era.CONTENT_ONLY:
        assert set(result) == {"content"}
    else:  # every real assistant/structured schema has an object root
        assert set(result) == {"content", "structuredContent"}
        assert schema_errors(VALIDATORS[(tool, ASSISTANT_STRUCTURED)], result["structuredContent"]) == []
        assert result["structuredContent"] == REAL_PROJECTORS[tool].success[ASSISTANT_STRUCTURED](value)
    assert result["content"] == REAL_PROJECTORS[tool].success[ASSISTANT_CONTENT](value)


# ---- adversarial projectors: a schema breach never reaches the client as a success -------------------------------

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False),
              st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)


@PROPERTY
@given(call=calls(), data=st.data())
def test_random_structured_data_is_valid_or_an_error(call, data, real_validators) -> None:
    tool, _, selectors = call
    value = data.draw(VALUES[tool], label="value")
    real = REAL_PROJECTORS[tool]
    # Each structured projector returns either its true projection, or it mangled, or random JSON.
    success: dict[Selector, Any] = {}
    for selector, project in real.success.items():
        mode = data.draw(st.sampled_from(["real", "random", "drop-key", "wrong-type"]), label=f"mode {selector}")
        if selector.format == "content" or mode == "real":
            success[selector] = project
        elif mode == "random":
            success[selector] = (lambda r: lambda v: r)(data.draw(json_values, label=f"random {selector}"))
        elif mode == "drop-key":
            success[selector] = (lambda p: lambda v: {k: x for k, x in list(p(v).items())[1:]})(project)
        else:
            success[selector] = (lambda p: lambda v: {k: (str(x) if not isinstance(x, str) else 0) for k, x in p(v).items()})(project)
    projectors = ToolProjectors(success=success, errors=real.errors)
    expected_ok = all(
        s.format == "content" or not schema_errors(VALIDATORS[(tool, s)], success[s](value)) for s in selectors
    )
    result, breach = build_result(DECLARATIONS[tool], selectors, Era.OUTPUTS, Outcome(value=value), projectors, real_validators)
    check_outputs(tool, selectors, result, is_error=not expected_ok)
    assert (breach is not None) is (not expected_ok)


# ---- failures ---------------------------------------------------------------------------------------------------------


@st.composite
def failures(draw: st.DrawFn, tool: str) -> ToolError:
    views = cell_execution_views if tool != "execute_code" else execution_views
    if tool in EXECUTION_TOOLS and draw(st.booleans()):
        # How execute_code really fails: a run that did not end well, with its partial output.
        execution = draw(executions)
        execution.status = draw(st.sampled_from(["error", "timeout", "died"]))
        cell = draw(views).cell
        view, failure = execution_outcome(execution, "code.execute", draw(st.integers(0, 20_000)), draw(st.floats(0.001, 3600)), cell)
        assert failure is not None and failure.partial is view
        return failure
    partial = draw(st.one_of(st.none(), views)) if tool in EXECUTION_TOOLS else None
    return ToolError(draw(failure_kinds), draw(texts), details=draw(failure_details), partial=partial)


@PROPERTY
@given(call=calls(), data=st.data(), meta=st.dictionaries(st.sampled_from(["a", "io.modelcontextprotocol/cache"]),
                                                            st.integers(0, 10), max_size=2))
def test_failures_give_exactly_the_requested_error_outputs(call, data, meta, real_validators) -> None:
    tool, _, selectors = call
    failure = data.draw(failures(tool), label="failure")
    try:
        result, _ = build_result(DECLARATIONS[tool], selectors, Era.OUTPUTS, Outcome(failure=failure, meta=meta),
                              REAL_PROJECTORS[tool], real_validators)
    except ProtocolError as error:  # pragma: no cover - only a failure message
        pytest.fail(f"a well-formed failure could not be represented: {error.message} {error.data}")
    assert result.pop("_meta", {}) == meta
    check_outputs(tool, selectors, result, is_error=True)
    for output in result["outputs"]:
        if output["format"] == "structured":
            assert output["structuredContent"]["error"]["type"] == failure.kind
            assert output["structuredContent"]["error"]["message"] == failure.message
        else:
            texts = [b.get("text", "") for b in output["content"]]
            said = f"{failure.details.get('ename', '')}: {failure.details.get('evalue', '')}".rstrip(": ")
            # A code's error is said once: by the traceback shown, when it holds the message's error line.
            said_once = failure.kind == JupyterErrorKind.EXECUTION_ERROR and said and failure.message.startswith(said)
            assert failure.message in texts or (said_once and any(said in text for text in texts)), texts


@PROPERTY
@given(tool=st.sampled_from(TOOLS), era=st.sampled_from(LEGACY_ERAS), data=st.data())
def test_legacy_failures_are_content_only(tool, era, data, real_validators) -> None:
    failure = data.draw(failures(tool), label="failure")
    result, _ = build_result(DECLARATIONS[tool], (ASSISTANT_CONTENT,), era, Outcome(failure=failure), REAL_PROJECTORS[tool],
                          real_validators)
    assert set(result) == {"content", "isError"} and result["isError"] is True
    assert_content_blocks(result["content"])


@PROPERTY
@given(view=st.one_of(execution_views, cell_execution_views))
def test_execution_programmatic_keeps_every_output(view: ExecutionView) -> None:
    """programmatic/structured carries the nbformat outputs whole; assistant/structured counts them."""
    projectors = REAL_PROJECTORS["execute_code"].success
    programmatic = projectors[Selector("programmatic", "structured")](view)
    assert programmatic["outputs"] == view.execution.outputs
    assert programmatic.get("cell") == view.cell
    structured = projectors[ASSISTANT_STRUCTURED](view)
    assert structured["count"] == len(structured["outputs"]) == len(structured["result"])
    images = sum(1 for o in view.execution.outputs if o["output_type"] != "stream" and any(
        k.startswith("image/") for k in o.get("data", {})))
    assert structured["images"] == images


@given(st.lists(st.text(max_size=300), min_size=1, max_size=6), st.integers(0, 600))
def test_texts_sharing_a_budget_keep_what_fits_and_cut_the_rest_whole_to_the_cap(texts, limit):
    """tools/shared/text.cap_each (delete_cell's sources for the model): within the budget together, each
    kept whole or cut at its share with a marker, and a text no longer than an equal share never cut."""
    capped = cap_each(texts, limit, hint="h")
    kept = [c.text.split("\n[... ", 1)[0] if c.cut else c.text for c in capped]
    assert sum(len(k.encode()) for k in kept) <= limit
    for text, c, k in zip(texts, capped, kept, strict=True):
        assert text.startswith(k) and c.cut == (k != text)
        if len(text.encode()) <= limit // len(texts):
            assert not c.cut


@given(st.text(alphabet=st.sampled_from("ab\n\u00e9"), max_size=400), st.integers(2, 300))
def test_a_cut_output_keeps_its_start_and_its_end_and_counts_what_it_cut(text, limit):
    """tools/shared/text.cap_text(tail=True) (a run's output for the model): whole when it fits; else at most half the
    budget from each end around a marker that counts exactly the bytes between them."""
    capped = cap_text(text, limit, hint="h", tail=True)
    if len(text.encode()) <= limit:
        assert capped == (text, False)
        return
    head, marker, end = re.fullmatch(r"(.*?)\n(\[\.\.\. \d+ more bytes cut; h\])\n(.*)", capped.text, re.S).groups()
    kept = len(text.encode()) - int(marker.split()[1]) - len(end.encode())  # the head's bytes, its last newline included
    assert capped.cut and text.encode()[:kept] in (head.encode(), head.encode() + b"\n") and text.endswith(end)
    assert kept <= limit // 2 and len(end.encode()) <= limit // 2
