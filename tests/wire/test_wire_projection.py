"""Projection of one tool run into exactly the requested outputs, or the legacy pair.

SEP "Tool call result" (one output per selector, nothing unrequested, audience/format of the
selector, each structured output valid against its variant's schema, no mirror) and
"Servers handling older requests"; issue 2 "Projection" and "Validation".
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.wire import (
    CONTENT_ONLY_VERSIONS,
    LEGACY_STRUCTURED_VERSIONS,
    STATELESS_VERSIONS,
    TOOLS,
    TRANSPORTS,
    UI,
    check_output_shape,
    only_output,
    output_for,
    outputs_of,
    pairs,
    sel,
    selectors_of,
    unique,
    validate,
)

pytestmark = [pytest.mark.wire, pytest.mark.timeout(90)]

DECLARED = {
    "execute_code": [("assistant", "content"), ("assistant", "structured"), ("programmatic", "structured"),
                     ("user", "content"), (UI, "structured")],
    "list_files": [("assistant", "content"), ("assistant", "structured"), ("programmatic", "structured"),
                   ("user", "structured"), (UI, "structured")],
    "list_kernels": [("assistant", "content"), ("assistant", "structured"), ("programmatic", "structured"),
                     ("user", "structured"), (UI, "structured")],
}
SINGLE = [pytest.param(tool, a, f, id=f"{tool}-{a}/{f}") for tool, pairs_ in DECLARED.items() for a, f in pairs_]


def args_for(tool: str) -> dict[str, Any]:
    if tool == "execute_code":
        return {"code": f"print({unique('out-')!r}); 6 * 7"}
    return {}


def check_outputs_result(result: dict[str, Any]) -> None:
    """A 2026-12-01 CallToolResult: `outputs`, `resultType`, and no legacy fields."""
    assert "content" not in result, "legacy `content` at 2026-12-01"
    assert "structuredContent" not in result, "legacy `structuredContent` at 2026-12-01"
    assert result.get("resultType") == "complete"


@pytest.mark.parametrize("tool,audience,fmt", SINGLE)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_each_declared_selector_alone(outputs_client, variant_schemas, transport, tool, audience, fmt):
    """Requesting one declared selector returns exactly that output (audience and format of the
    selector, content blocks or structuredContent as the format says), valid against the schema
    of that variant as tools/list advertises it, and nothing else (SEP "Tool call result")."""
    client = outputs_client(transport, ui=audience == UI)
    reply = client.call(tool, args_for(tool), requested=[sel(audience, fmt)])
    check_outputs_result(reply.result)
    assert reply.result.get("isError") is not True, json.dumps(reply.result)[:1500]
    output = only_output(reply, audience, fmt)
    check_output_shape(output)
    assert set(output) == {"audience", "format", "content" if fmt == "content" else "structuredContent"}
    if fmt == "structured":
        schema = next(v["schema"] for v in client.tools()[tool]["outputVariants"]
                      if (v["audience"], v["format"]) == (audience, fmt))
        assert schema == variant_schemas[(tool, audience, fmt)]
        validate(schema, output["structuredContent"], f"{tool} {audience}/{fmt}")


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_assistant_content_plus_programmatic_structured(outputs_client, variant_schemas, transport, tool):
    """Multi-select assistant/content + programmatic/structured returns both and only those; the
    structured one is valid against the programmatic schema (SEP "Allow explicitly requested
    multiple outputs"; "MUST NOT return an output that the client did not request")."""
    reply = outputs_client(transport).call(
        tool, args_for(tool), requested=[sel("assistant", "content"), sel("programmatic", "structured")]
    )
    check_outputs_result(reply.result)
    outputs = outputs_of(reply)
    assert selectors_of(outputs) == [("assistant", "content"), ("programmatic", "structured")]
    for output in outputs:
        check_output_shape(output)
    programmatic = output_for(outputs, "programmatic", "structured")
    validate(variant_schemas[(tool, "programmatic", "structured")], programmatic["structuredContent"], f"{tool} programmatic")


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_declared_selector_at_once(outputs_client, variant_schemas, transport, tool):
    """All declared selectors (ui included, negotiated) in one call: one output each, each
    structured output valid against its own variant's schema, not another audience's (SEP
    "Keep schemas per variant"; "Clients should validate ... against the schema for the
    requested variant")."""
    requested = [sel(a, f) for a, f in reversed(DECLARED[tool])]  # order carries no meaning
    reply = outputs_client(transport, ui=True).call(tool, args_for(tool), requested=requested)
    check_outputs_result(reply.result)
    outputs = outputs_of(reply)
    assert selectors_of(outputs) == sorted(DECLARED[tool])
    for output in outputs:
        check_output_shape(output)
        if output["format"] == "structured":
            validate(variant_schemas[(tool, output["audience"], "structured")], output["structuredContent"],
                     f"{tool} {output['audience']}/structured")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_outputs_describe_the_same_run(outputs_client, transport):
    """Outputs of one call come from one execution: the text printed once shows up in every
    output that carries it, and the execution count agrees (SEP "Relationship between outputs")."""
    token = unique("same-run-")
    reply = outputs_client(transport, ui=True).call(
        "execute_code", {"code": f"print({token!r})"},
        requested=[sel("assistant", "content"), sel("programmatic", "structured"), sel(UI, "structured")],
    )
    outputs = outputs_of(reply)
    assert token in json.dumps(output_for(outputs, "assistant", "content")["content"])
    programmatic = output_for(outputs, "programmatic", "structured")["structuredContent"]
    ui = output_for(outputs, UI, "structured")["structuredContent"]
    assert programmatic["outputs"] == ui["outputs"]
    assert programmatic["executionCount"] == ui["executionCount"]
    assert token in json.dumps(programmatic["outputs"])


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport,version", pairs(versions=LEGACY_STRUCTURED_VERSIONS))
def test_legacy_pair_content_and_structured_content(connect, transport, version, tool):
    """2025-06-18, 2025-11-25, 2026-07-28: `content` (assistant/content) plus `structuredContent`
    valid against the `outputSchema` that tools/list gave the same client; no `outputs`
    (SEP "Servers handling older requests"; issue 2 "Projection")."""
    client = connect(transport, version)
    schema = client.tools()[tool]["outputSchema"]
    result = client.call(tool, args_for(tool)).result
    assert "outputs" not in result
    assert result.get("isError") is not True
    assert isinstance(result["content"], list) and result["content"], result
    assert all(isinstance(b.get("type"), str) for b in result["content"])
    assert isinstance(result.get("structuredContent"), dict), "an object root, as these versions require"
    validate(schema, result["structuredContent"], f"{tool} structuredContent at {version}")
    if version in STATELESS_VERSIONS:
        assert result.get("resultType") == "complete"


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("transport,version", pairs(versions=CONTENT_ONLY_VERSIONS))
def test_content_only_eras_return_content_only(connect, transport, version, tool):
    """2024-11-05 and 2025-03-26: `content` only; no `structuredContent`, no `outputs`
    (issue 2 "Projection")."""
    result = connect(transport, version).call(tool, args_for(tool)).result
    assert set(result) - {"_meta"} == {"content"}, sorted(result)
    assert isinstance(result["content"], list) and result["content"]
    assert all(isinstance(b.get("type"), str) for b in result["content"])


@pytest.mark.parametrize("transport,version", pairs(versions=LEGACY_STRUCTURED_VERSIONS + CONTENT_ONLY_VERSIONS))
def test_legacy_content_matches_assistant_content(connect, outputs_client, transport, version):
    """The legacy `content` is built from assistant/content: for the same listing it equals the
    2026-12-01 assistant/content output (SEP: "It SHOULD construct content from assistant/content")."""
    legacy = connect(transport, version).call("list_files", {"pattern": "*.nothing-matches"}).result["content"]
    modern = only_output(outputs_client(transport).call("list_files", {"pattern": "*.nothing-matches"}), "assistant", "content")
    assert legacy == modern["content"]
