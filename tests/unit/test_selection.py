"""Selection: requestedOutputs to selectors, before the tool runs; every refusal is -32602."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcp_variants.protocol.errors import INVALID_PARAMS, ProtocolError
from mcp_variants.protocol.selection import select
from mcp_variants.protocol.types import ASSISTANT_CONTENT, Selector
from mcp_variants.protocol.versions import Era
from support.oracles import (
    DECLARATIONS,
    PROPERTY,
    REASONS,
    UI,
    expected_selection,
    negotiated,
    offending_reasons,
    requested_outputs,
    sel,
)

LEGACY_ERAS = [Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_ANY]
NONE: frozenset[str] = frozenset()
WITH_UI = frozenset({UI})


def refusal(params: dict[str, Any], tool: str = "execute_code", era: Era = Era.OUTPUTS, ext: frozenset[str] = NONE) -> ProtocolError:
    with pytest.raises(ProtocolError) as caught:
        select(params, DECLARATIONS[tool], era, ext)
    assert caught.value.code == INVALID_PARAMS == -32602
    assert caught.value.data["tool"] == tool
    return caught.value


def offered_wire(tool: str, ext: frozenset[str]) -> list[dict[str, str]]:
    return [v.selector.to_wire() for v in DECLARATIONS[tool].offered(ext)]


# ---- the fallback and legacy eras ----------------------------------------------------------------


@pytest.mark.parametrize("era", list(Era))
@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
def test_absent_means_assistant_content(era: Era, tool: str) -> None:
    assert select({}, DECLARATIONS[tool], era, NONE) == (ASSISTANT_CONTENT,)
    assert select({"name": tool, "arguments": {}}, DECLARATIONS[tool], era, WITH_UI) == (ASSISTANT_CONTENT,)


@pytest.mark.parametrize("era", LEGACY_ERAS)
@pytest.mark.parametrize(
    "requested",
    [[sel("assistant", "content")], [], None, [sel("programmatic", "structured")], "assistant/content", [sel(UI, "structured")]],
    ids=["assistant-content", "empty-list", "null", "programmatic", "string", "ui"],
)
def test_legacy_eras_refuse_any_requested_outputs(era: Era, requested: Any) -> None:
    error = refusal({"requestedOutputs": requested}, era=era, ext=WITH_UI)
    assert error.data["reason"] == "requestedOutputs-not-in-this-version"
    assert "2026-12-01" in error.message
    assert error.data["offered"] == offered_wire("execute_code", WITH_UI)


# ---- each refusal reason -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "reason", "offender"),
    [
        ("assistant/content", "malformed", "assistant/content"),
        ({"audience": "assistant", "format": "content"}, "malformed", {"audience": "assistant", "format": "content"}),
        (42, "malformed", 42),
        ([sel("assistant", "content"), "user/content"], "malformed", "user/content"),
        ([{"audience": "assistant"}], "malformed", {"audience": "assistant"}),
        ([{"format": "content"}], "malformed", {"format": "content"}),
        ([{"audience": "", "format": "content"}], "malformed", {"audience": "", "format": "content"}),
        ([{"audience": 1, "format": "content"}], "malformed", {"audience": 1, "format": "content"}),
        ([sel("assistant", "text")], "malformed", sel("assistant", "text")),
        ([sel("assistant", "Content")], "malformed", sel("assistant", "Content")),
        ([["assistant", "content"]], "malformed", ["assistant", "content"]),
        ([], "empty", None),
        ([sel("programmatic", "content")], "not-a-core-combination", sel("programmatic", "content")),
        ([sel(UI, "structured")], "extension-not-negotiated", sel(UI, "structured")),
        ([sel("com.example/other", "structured")], "extension-not-negotiated", sel("com.example/other", "structured")),
        ([sel("Assistant", "content")], "extension-not-negotiated", sel("Assistant", "content")),
        ([sel("assistant", "content"), sel("assistant", "content")], "duplicate", sel("assistant", "content")),
        ([sel("user", "content"), sel("assistant", "content"), sel("user", "content")], "duplicate", sel("user", "content")),
        ([sel("user", "structured")], "undeclared", sel("user", "structured")),
        ([sel("assistant", "content"), sel("user", "structured")], "undeclared", sel("user", "structured")),
    ],
)
def test_each_reason_names_the_selector_and_lists_offered(requested: Any, reason: str, offender: Any) -> None:
    error = refusal({"requestedOutputs": requested})
    assert error.data["reason"] == reason
    if offender is None:
        assert "selector" not in error.data
    else:
        assert error.data["selector"] == offender
    assert error.data["offered"] == offered_wire("execute_code", NONE)


def test_ui_with_content_format_is_refused_even_when_negotiated() -> None:
    # The extension *was* negotiated; the format is what it does not permit.
    error = refusal({"requestedOutputs": [sel(UI, "content")]}, ext=WITH_UI)
    assert error.data["reason"] == "format-not-permitted-by-extension"
    assert error.data["selector"] == sel(UI, "content")


def test_an_unknown_extension_that_was_negotiated_is_still_refused() -> None:
    error = refusal({"requestedOutputs": [sel("com.example/other", "structured")]}, ext=frozenset({"com.example/other"}))
    assert error.data["reason"] in {"extension-not-negotiated", "undeclared"}


def test_undeclared_user_content_on_a_listing_tool() -> None:
    error = refusal({"requestedOutputs": [sel("user", "content")]}, tool="list_files")
    assert error.data["reason"] == "undeclared"
    assert error.data["offered"] == offered_wire("list_files", NONE)


@pytest.mark.parametrize("tool", sorted(DECLARATIONS))
def test_offered_excludes_ui_unless_negotiated(tool: str) -> None:
    without = refusal({"requestedOutputs": []}, tool=tool).data["offered"]
    with_ui = refusal({"requestedOutputs": []}, tool=tool, ext=WITH_UI).data["offered"]
    assert sel(UI, "structured") not in without
    declares_ui = DECLARATIONS[tool].variant(Selector(UI, "structured")) is not None
    assert (sel(UI, "structured") in with_ui) is declares_ui
    assert [o for o in with_ui if o["audience"] != UI] == without
    for entry in without + with_ui:
        assert set(entry) == {"audience", "format"}  # selectors, not schemas


@pytest.mark.parametrize(
    "requested_value",
    [None, [None]],
    ids=["requestedOutputs-null", "null-selector"],
)
def test_null_offender_is_still_named(requested_value: Any) -> None:
    error = refusal({"requestedOutputs": requested_value})
    assert error.data["reason"] == "malformed"
    assert "selector" in error.data and error.data["selector"] is None


@pytest.mark.parametrize(
    "item",
    [
        {"audience": "assistant", "format": ["content"]},
        {"audience": "user", "format": {"name": "content"}},
    ],
    ids=["format-list", "format-dict"],
)
def test_unhashable_format_is_malformed(item: dict[str, Any]) -> None:
    error = refusal({"requestedOutputs": [item]})
    assert error.data["reason"] == "malformed"
    assert error.data["selector"] == item


# ---- accepted requests --------------------------------------------------------------------------------


def test_order_is_preserved() -> None:
    requested = [sel("programmatic", "structured"), sel("assistant", "content"), sel("user", "content"), sel("assistant", "structured")]
    assert select({"requestedOutputs": requested}, DECLARATIONS["execute_code"], Era.OUTPUTS, NONE) == (
        Selector("programmatic", "structured"), ASSISTANT_CONTENT, Selector("user", "content"), Selector("assistant", "structured"),
    )


def test_ui_accepted_when_negotiated() -> None:
    requested = [sel(UI, "structured"), sel("assistant", "content")]
    assert select({"requestedOutputs": requested}, DECLARATIONS["list_files"], Era.OUTPUTS, WITH_UI) == (
        Selector(UI, "structured"), ASSISTANT_CONTENT,
    )


def test_no_substitution_for_a_single_non_default_selector() -> None:
    assert select({"requestedOutputs": [sel("user", "structured")]}, DECLARATIONS["list_kernels"], Era.OUTPUTS, NONE) == (
        Selector("user", "structured"),
    )


def test_extra_selector_keys_are_ignored() -> None:
    requested = [{"audience": "assistant", "format": "content", "note": "x"}]
    assert select({"requestedOutputs": requested}, DECLARATIONS["execute_code"], Era.OUTPUTS, NONE) == (ASSISTANT_CONTENT,)


# ---- property ------------------------------------------------------------------------------------------


@PROPERTY
@given(
    tool=st.sampled_from(sorted(DECLARATIONS)),
    era=st.sampled_from(list(Era)),
    requested=requested_outputs,
    present=st.booleans(),
    extensions=negotiated,
)
def test_select_refuses_with_32602_or_returns_declared_unique_allowed(
    tool: str, era: Era, requested: Any, present: bool, extensions: frozenset[str]
) -> None:
    declaration = DECLARATIONS[tool]
    params: dict[str, Any] = {"name": tool, "arguments": {}}
    if present:
        params["requestedOutputs"] = requested
    offered = [v.selector.to_wire() for v in declaration.offered(extensions)]
    expected: tuple[Selector, ...] | None
    if not present:
        expected = (ASSISTANT_CONTENT,)
    elif era.is_legacy:
        expected = None
    else:
        expected = expected_selection(requested, declaration, extensions)
    try:
        selectors = select(params, declaration, era, extensions)
    except ProtocolError as error:
        assert expected is None, f"refused a valid request: {error.data}"
        assert error.code == -32602
        assert error.data["reason"] in REASONS
        assert error.data["tool"] == tool
        assert error.data["offered"] == offered
        reason = error.data["reason"]
        if era.is_legacy:
            assert reason == "requestedOutputs-not-in-this-version"
        elif reason == "empty":
            assert requested == []
        elif not isinstance(requested, list):
            assert reason == "malformed" and error.data.get("selector") == requested
        else:
            # The named selector is one of the request's items, offending for the stated reason.
            named = error.data.get("selector")
            assert any(
                item == named and reason in offending_reasons(item, requested[:i], declaration, extensions)
                for i, item in enumerate(requested)
            ), (reason, named)
        return
    assert expected is not None, f"accepted an invalid request: {requested!r} -> {selectors}"
    assert selectors == expected
    assert len(set(selectors)) == len(selectors)
    allowed = {v.selector for v in declaration.offered(extensions)}
    for selector in selectors:
        assert isinstance(selector, Selector)
        assert declaration.variant(selector) is not None
        assert selector in allowed


@pytest.mark.parametrize(("audience", "message"), [
    ("programatic", "programatic/structured: no audience programatic (did you mean programmatic/structured?)"),
    ("Assistant", "Assistant/structured: no audience Assistant (did you mean assistant/structured?)"),
    ("com.example/other", "com.example/other/structured needs an extension this request did not negotiate"),
    ("io.modelcontextprotocol/uii", "io.modelcontextprotocol/uii/structured needs an extension this request did not negotiate"),
    ("programatic.ext", "programatic.ext/structured needs an extension this request did not negotiate"),
    ("elsewhere", "elsewhere/structured needs an extension this request did not negotiate"),
])
def test_a_misspelt_core_audience_is_refused_as_no_audience_and_an_extension_as_not_negotiated(audience: str, message: str) -> None:
    error = refusal({"requestedOutputs": [sel(audience, "structured")]})
    assert error.message == message and error.data["reason"] == "extension-not-negotiated"



@pytest.mark.parametrize("era", LEGACY_ERAS)
def test_an_established_tool_ignores_requested_outputs_at_older_versions_as_its_server_did(era: Era) -> None:
    import dataclasses

    established = dataclasses.replace(DECLARATIONS["execute_code"], established=True)
    assert select({"requestedOutputs": [sel("assistant", "content")]}, established, era, NONE) == (ASSISTANT_CONTENT,)
