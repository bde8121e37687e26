"""Client MUSTs of SEP-3279 against crafted servers (fakes.FakeServer): the client is under test."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from mcp_variants.client import (
    ClientSession,
    InvalidServerResponse,
    RecordingTransport,
    SelectionError,
    ServerError,
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

from .fakes import CRAFTED_TOOL, GOOD_OUTPUTS, UI, UI_CAPS, FakeServer, echo_outputs, sel

OLDER = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
ANSWER_SCHEMA_LEGACY = {
    "type": "object",
    "required": ["answer"],
    "properties": {"answer": {"type": "integer"}},
}


def session(server: FakeServer, version: str = "2026-12-01", ui: bool = True) -> ClientSession:
    s = ClientSession(server, version, extensions=UI_CAPS if ui else None)
    s.open()
    return s


def tool_with(**changes: Any) -> dict[str, Any]:
    tool = copy.deepcopy(CRAFTED_TOOL)
    tool.update(changes)
    return tool


# ---- tools/list at 2026-12-01 --------------------------------------------------------------------


def test_tool_without_output_variants_is_an_invalid_response() -> None:
    """SEP: a Tool without outputVariants under 2026-12-01 MUST be treated as invalid, with no
    silent switch to legacy semantics (even when it carries a usable outputSchema)."""
    legacy_looking = {"name": "old", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    server = FakeServer(tools=[CRAFTED_TOOL, legacy_looking])
    s = session(server)
    with pytest.raises(InvalidServerResponse) as caught:
        s.list_tools()
    assert any("'old' has no outputVariants" in p for p in caught.value.problems)
    with pytest.raises(InvalidServerResponse):  # and no call is made on the strength of it
        s.call("crafted", {})
    assert server.calls == []


@pytest.mark.parametrize(
    "variants, needle",
    [
        ([sel("programmatic", "structured")], "does not declare assistant/content"),
        ([sel("assistant", "content"), sel("assistant", "content")], "twice"),
        ([sel("assistant", "content"), sel("programmatic", "content")], "not a core combination"),
        ([sel("assistant", "content"), sel("io.example/other", "structured")], "did not negotiate"),
        ([sel("assistant", "content"), {"audience": "assistant"}], "malformed"),
        (
            [sel("assistant", "content"), {**sel("user", "structured"), "schema": {"type": 12}}],
            "not valid JSON Schema",
        ),
    ],
)
def test_broken_declarations_make_the_listing_invalid(variants: list[Any], needle: str) -> None:
    s = session(FakeServer(tools=[tool_with(outputVariants=variants)]))
    with pytest.raises(InvalidServerResponse) as caught:
        s.list_tools()
    assert any(needle in p for p in caught.value.problems), caught.value.problems


def test_ui_variant_listed_without_negotiation_is_invalid() -> None:
    """The client did not offer the Apps extension: a server listing the ui audience broke a MUST."""
    s = session(FakeServer(), ui=False)
    assert s.negotiated == frozenset()
    with pytest.raises(InvalidServerResponse, match="did not negotiate"):
        s.list_tools()


def test_extension_counts_as_negotiated_only_when_both_sides_advertise_it() -> None:
    s = session(FakeServer(tools=[tool_with(outputVariants=[sel("assistant", "content")])], extensions={}))
    assert s.negotiated == frozenset()
    with pytest.raises(SelectionError, match="not negotiated"):
        s.call("crafted", {}, [UI_STRUCTURED])


@pytest.mark.parametrize(
    "outputs, message",
    [
        (["programatic/structured"], "programatic/structured: no audience programatic (did you mean programmatic/structured?)"),
        (["Assistant/content"], "Assistant/content: no audience Assistant (did you mean assistant/content?)"),
        (["io.example/other/structured"], "io.example/other/structured: the extension io.example/other was not negotiated"),
        (["io.modelcontextprotocol/uii/structured"],
         "io.modelcontextprotocol/uii/structured: the extension io.modelcontextprotocol/uii was not negotiated"),
        (["elsewhere/structured"], "elsewhere/structured: the extension elsewhere was not negotiated"),
    ],
)
def test_a_misspelt_core_audience_is_named_as_no_audience_and_an_extension_as_not_negotiated(
        outputs: list[str], message: str) -> None:
    s = session(FakeServer())
    s.list_tools()
    with pytest.raises(SelectionError) as caught:
        s.call("crafted", {}, outputs)  # type: ignore[arg-type]
    assert str(caught.value) == message


# ---- selection: what the client refuses to send ------------------------------------------------


@pytest.mark.parametrize(
    "outputs, needle",
    [
        ([ASSISTANT_CONTENT, ASSISTANT_CONTENT], "twice"),
        ([Selector("assistant", "structured"), Selector("assistant", "structured")], "twice"),
        ([], "empty"),
        ([Selector("io.example/other", "structured")], "not negotiated"),
    ],
)
def test_selection_errors_are_raised_before_sending(outputs: list[Selector], needle: str) -> None:
    server = FakeServer()
    s = session(server)
    s.list_tools()
    with pytest.raises(SelectionError, match=needle):
        s.call("crafted", {}, outputs)
    assert server.calls == []


def test_only_advertised_variants_are_selected() -> None:
    server = FakeServer(tools=[tool_with(outputVariants=[sel("assistant", "content")])])
    s = session(server)
    for selector in (PROGRAMMATIC_STRUCTURED, USER_CONTENT, USER_STRUCTURED, ASSISTANT_STRUCTURED):
        with pytest.raises(SelectionError, match="does not advertise"):
            s.call("crafted", {}, [selector])
    with pytest.raises(SelectionError, match="not listed"):
        s.call("unknown_tool", {})
    assert server.calls == []


def test_request_shape_at_2026_12_01() -> None:
    server = FakeServer()
    s = session(server)
    s.call("crafted", {"x": 1}, [PROGRAMMATIC_STRUCTURED, UI_STRUCTURED])
    s.call("crafted", {})
    first, second = server.calls
    assert first["requestedOutputs"] == [sel("programmatic", "structured"), sel(UI, "structured")]
    assert first["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-12-01"
    assert first["_meta"]["io.modelcontextprotocol/clientCapabilities"] == {"extensions": UI_CAPS}
    assert "requestedOutputs" not in second  # omitted: the fallback


def test_outputs_are_taken_as_text_wire_objects_or_selectors() -> None:
    """`"audience/format"`, the wire's own `{"audience", "format"}` and a Selector ask for the same bytes; the
    result's outputs are found by the same spellings."""
    server = FakeServer()
    s = session(server)
    results = [
        s.call("crafted", {}, ["programmatic/structured", f"{UI}/structured"]),
        s.call("crafted", {}, [sel("programmatic", "structured"), sel(UI, "structured")]),
        s.call("crafted", {}, [PROGRAMMATIC_STRUCTURED, UI_STRUCTURED]),
    ]
    assert [c["requestedOutputs"] for c in server.calls] == [[sel("programmatic", "structured"), sel(UI, "structured")]] * 3
    assert {r.output("programmatic/structured").value == r.output(PROGRAMMATIC_STRUCTURED).value for r in results} == {True}


@pytest.mark.parametrize(
    "outputs, needle",
    [
        (["programmatic/structure"], "not 'programmatic/structure'"),
        ([{"audience": "user"}], "audience/format"),
        ([42], "not 42"),
        ("programmatic/structured", "a list of selectors"),
        ({"audience": "user", "format": "content"}, "a list of selectors"),
    ],
)
def test_an_output_written_otherwise_is_refused_before_sending(outputs: Any, needle: str) -> None:
    server = FakeServer()
    s = session(server)
    with pytest.raises(SelectionError, match=needle):
        s.call("crafted", {}, outputs)
    assert server.calls == []


# ---- requestedOutputs never at older versions ---------------------------------------------------


@pytest.mark.parametrize("version", OLDER)
def test_requested_outputs_never_sent_at_older_versions(version: str) -> None:
    """SEP: a client MUST NOT send requestedOutputs on a request using an earlier version.
    The recording wrapper holds every byte the session wrote."""
    legacy_tool = {
        "name": "crafted",
        "inputSchema": {"type": "object"},
        "outputSchema": ANSWER_SCHEMA_LEGACY,
        "outputVariants": CRAFTED_TOOL["outputVariants"],
    }  # not a negotiation signal here
    server = FakeServer(
        tools=[legacy_tool],
        call=lambda p: {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"answer": 1}},
    )
    recorder = RecordingTransport(server)
    s = ClientSession(recorder, version, extensions=UI_CAPS)
    s.open()
    tools = s.list_tools()
    assert tools.get("crafted").variants == ()  # outputVariants ignored below 2026-12-01
    result = s.call("crafted", {}, [ASSISTANT_CONTENT])  # the fallback itself: allowed, sends nothing
    assert result.legacy and result.content == ({"type": "text", "text": "ok"},)
    s.call("crafted", {})
    for selectors in ([PROGRAMMATIC_STRUCTURED], [ASSISTANT_CONTENT, UI_STRUCTURED], []):
        with pytest.raises(SelectionError, match="has no requestedOutputs"):
            s.call("crafted", {}, selectors)
    assert len(server.calls) == 2
    assert recorder.sent and all(b"requestedOutputs" not in body for _, body in recorder.sent)
    stateless = version == "2026-07-28"
    assert all(("_meta" in m.get("params", {})) == stateless for m in recorder.messages() if "id" in m)


# ---- results at 2026-12-01 -------------------------------------------------------------------------


def test_unrequested_extra_output_is_rejected_and_reported() -> None:
    def with_extra(params: dict[str, Any]) -> dict[str, Any]:
        result = echo_outputs(params)
        result["outputs"] = [*result["outputs"], GOOD_OUTPUTS[("programmatic", "structured")]]
        return result

    s = session(FakeServer(call=with_extra))
    with pytest.raises(InvalidServerResponse) as caught:
        s.call("crafted", {}, [ASSISTANT_CONTENT])
    assert caught.value.problems == ("unrequested output programmatic/structured",)
    assert caught.value.response["outputs"][1]["audience"] == "programmatic"  # kept for the report


def test_fallback_answered_with_another_variant_is_rejected() -> None:
    """No requestedOutputs means assistant/content; anything else is unrequested."""
    s = session(FakeServer(call=lambda p: {"outputs": [GOOD_OUTPUTS[("assistant", "structured")]]}))
    with pytest.raises(InvalidServerResponse) as caught:
        s.call("crafted", {})
    assert set(caught.value.problems) == {
        "unrequested output assistant/structured",
        "no output for requested assistant/content",
    }


@pytest.mark.parametrize(
    "outputs, needle",
    [
        ([GOOD_OUTPUTS[("assistant", "content")]], "no output for requested programmatic/structured"),
        (
            [GOOD_OUTPUTS[("assistant", "content")]] * 2 + [GOOD_OUTPUTS[("programmatic", "structured")]],
            "more than one",
        ),
        ([sel("assistant", "content"), GOOD_OUTPUTS[("programmatic", "structured")]], "has no content array"),
        (
            [GOOD_OUTPUTS[("assistant", "content")], sel("programmatic", "structured")],
            "has no structuredContent",
        ),
        ([{"audience": "assistant"}], "malformed output"),
    ],
)
def test_exactly_one_output_per_requested_selector(outputs: list[Any], needle: str) -> None:
    s = session(FakeServer(call=lambda p: {"outputs": outputs}))
    with pytest.raises(InvalidServerResponse) as caught:
        s.call("crafted", {}, [ASSISTANT_CONTENT, PROGRAMMATIC_STRUCTURED])
    assert any(needle in p for p in caught.value.problems), caught.value.problems


@pytest.mark.parametrize(
    "result, needle",
    [
        ({"content": [{"type": "text", "text": "legacy"}]}, "no `outputs` array"),
        ({"outputs": [GOOD_OUTPUTS[("assistant", "content")]], "content": []}, "legacy field 'content'"),
        ({"outputs": [GOOD_OUTPUTS[("assistant", "content")]], "resultType": "incomplete"}, "resultType"),
    ],
)
def test_result_shape_follows_the_version(result: dict[str, Any], needle: str) -> None:
    s = session(FakeServer(call=lambda p: result))
    with pytest.raises(InvalidServerResponse, match=needle):
        s.call("crafted", {})


def test_structured_output_failing_its_variant_schema_is_rejected() -> None:
    bad = {**sel("assistant", "structured"), "structuredContent": {"answer": "forty-two"}}
    s = session(FakeServer(call=lambda p: {"outputs": [bad]}))
    with pytest.raises(InvalidServerResponse) as caught:
        s.call("crafted", {}, [ASSISTANT_STRUCTURED])
    assert any("assistant/structured breaks its variant schema at answer" in p for p in caught.value.problems)


def test_each_output_is_validated_against_its_own_variant_schema_only() -> None:
    """The ui value below is valid for the ui schema and invalid for the programmatic one
    (and vice versa): validation must use the requested variant's schema."""
    view_only = {**sel(UI, "structured"), "structuredContent": {"view": "table"}}
    program_only = {**sel(UI, "structured"), "structuredContent": {"rows": []}}
    s = session(FakeServer(call=lambda p: {"outputs": [view_only]}))
    assert s.call("crafted", {}, [UI_STRUCTURED]).output(UI_STRUCTURED).value == {"view": "table"}
    s = session(FakeServer(call=lambda p: {"outputs": [program_only]}))
    with pytest.raises(
        InvalidServerResponse, match="io.modelcontextprotocol/ui/structured breaks its variant schema"
    ):
        s.call("crafted", {}, [UI_STRUCTURED])


def test_error_outputs_are_not_held_to_the_success_schema() -> None:
    error = {**sel("assistant", "structured"), "structuredContent": {"error": {"type": "execution-error"}}}
    s = session(FakeServer(call=lambda p: {"outputs": [error], "isError": True}))
    result = s.call("crafted", {}, [ASSISTANT_STRUCTURED])
    assert result.is_error and result.output(ASSISTANT_STRUCTURED).value["error"]["type"] == "execution-error"


def test_schemaless_structured_variant_is_accepted_unvalidated() -> None:
    tool = tool_with(outputVariants=[sel("assistant", "content"), sel("programmatic", "structured")])
    s = session(
        FakeServer(
            tools=[tool],
            call=lambda p: {
                "outputs": [{**sel("programmatic", "structured"), "structuredContent": "anything"}]
            },
        )
    )
    assert (
        s.call("crafted", {}, [PROGRAMMATIC_STRUCTURED]).output(PROGRAMMATIC_STRUCTURED).value == "anything"
    )


def test_json_rpc_errors_surface_as_server_errors() -> None:
    server = FakeServer()
    s = session(server)
    s.list_tools()
    server.request = lambda body, exchange, timeout: {  # type: ignore[method-assign]
        "jsonrpc": "2.0",
        "id": json.loads(body)["id"],
        "error": {"code": -32602, "message": "Invalid params", "data": {"reason": "undeclared"}},
    }
    with pytest.raises(ServerError) as caught:
        s.call("crafted", {}, [ASSISTANT_CONTENT])
    assert caught.value.code == -32602 and caught.value.data == {"reason": "undeclared"}


# ---- legacy results ----------------------------------------------------------------------------------


def test_legacy_structured_content_is_validated_against_output_schema() -> None:
    tool = {"name": "crafted", "inputSchema": {"type": "object"}, "outputSchema": ANSWER_SCHEMA_LEGACY}
    good = FakeServer(tools=[tool], call=lambda p: {"content": [], "structuredContent": {"answer": 7}})
    result = session(good, "2025-11-25").call("crafted", {})
    assert result.legacy and result.has_structured_content and result.structured_content == {"answer": 7}
    bad = FakeServer(tools=[tool], call=lambda p: {"content": [], "structuredContent": {"answer": "7"}})
    with pytest.raises(InvalidServerResponse, match="structuredContent breaks outputSchema"):
        session(bad, "2025-11-25").call("crafted", {})
    no_content = FakeServer(tools=[tool], call=lambda p: {"structuredContent": {"answer": 7}})
    with pytest.raises(InvalidServerResponse, match="no `content` array"):
        session(no_content, "2026-07-28").call("crafted", {})


def test_handshake_versions_open_with_initialize_and_stateless_with_discover() -> None:
    for version, first in (
        ("2025-06-18", "initialize"),
        ("2026-07-28", "server/discover"),
        ("2026-12-01", "server/discover"),
    ):
        server = FakeServer()
        session(server, version)
        sent = server.written()
        assert sent[0]["method"] == first
        if first == "initialize":
            assert sent[1] == {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert sent[0]["params"]["capabilities"] == {"extensions": UI_CAPS}
