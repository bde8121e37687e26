"""The host router on crafted results: each output reaches its own audience's sink only."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_variants.client import ClientSession, Delivery, Host, HostRouter, InvalidServerResponse, Mode
from mcp_variants.protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    Selector,
)

from .fakes import GOOD_OUTPUTS, META_SECRET, UI, UI_CAPS, FakeServer, echo_outputs, sel

ALL = (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    UI_STRUCTURED,
)


class Sinks:
    """Four list sinks, as a host's consumers."""

    def __init__(self) -> None:
        self.model: list[Delivery] = []
        self.user: list[Delivery] = []
        self.program: list[Delivery] = []
        self.view: list[Delivery] = []

    def router(self, **without: bool) -> HostRouter:
        return HostRouter(
            **{
                name: getattr(self, name).append
                for name in ("model", "user", "program", "view")
                if not without.get(name)
            }
        )

    def everything(self) -> str:
        return json.dumps([d.payload for d in self.model + self.user + self.program + self.view])


def crafted(outputs: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "resultType": "complete",
        "outputs": outputs,
        "_meta": {"io.example/secret": META_SECRET},
        **extra,
    }


def test_every_audience_reaches_its_own_sink_only() -> None:
    sinks = Sinks()
    report = sinks.router().route_outputs(
        "crafted", ALL, crafted([GOOD_OUTPUTS[(s.audience, s.format)] for s in ALL])
    )
    assert report.ok
    assert {d.selector for d in sinks.model} == {ASSISTANT_CONTENT, ASSISTANT_STRUCTURED}
    assert {d.selector for d in sinks.user} == {USER_CONTENT, USER_STRUCTURED}
    assert [d.selector for d in sinks.program] == [PROGRAMMATIC_STRUCTURED]
    assert [d.selector for d in sinks.view] == [UI_STRUCTURED]
    model_text = json.dumps([d.payload for d in sinks.model])
    assert (
        "for-the-user" not in model_text
        and "for-the-program" not in model_text
        and "for-the-view" not in model_text
    )
    assert json.dumps([d.payload for d in sinks.view]) == json.dumps(
        [{"view": "table", "marker": "for-the-view"}]
    )


def test_result_meta_never_reaches_a_sink() -> None:
    sinks = Sinks()
    sinks.router().route_outputs("crafted", ALL, crafted([GOOD_OUTPUTS[(s.audience, s.format)] for s in ALL]))
    assert META_SECRET not in sinks.everything()
    assert all(not hasattr(d, "meta") for d in sinks.model + sinks.view)


def test_unrequested_output_is_dropped_and_recorded() -> None:
    sinks = Sinks()
    router = sinks.router()
    report = router.route_outputs(
        "crafted",
        [ASSISTANT_CONTENT],
        crafted(
            [
                GOOD_OUTPUTS[("assistant", "content")],
                GOOD_OUTPUTS[(UI, "structured")],
                GOOD_OUTPUTS[("user", "content")],
                GOOD_OUTPUTS[("assistant", "content")],
            ]
        ),
    )
    assert [d.selector for d in sinks.model] == [ASSISTANT_CONTENT]
    assert sinks.view == [] and sinks.user == []
    assert report.dropped == [
        f"unrequested output {UI}/structured",
        "unrequested output user/content",
        "second output for assistant/content",
    ]
    assert router.violations == [f"crafted: {r}" for r in report.dropped]


def test_no_fallback_between_audiences() -> None:
    """A host without a user display does not show user output to the model instead, nor
    without a view does it give the ui data to anyone else; both are dropped and recorded."""
    sinks = Sinks()
    router = sinks.router(user=True, view=True)
    report = router.route_outputs(
        "crafted",
        [USER_CONTENT, UI_STRUCTURED],
        crafted([GOOD_OUTPUTS[("user", "content")], GOOD_OUTPUTS[(UI, "structured")]]),
    )
    assert sinks.model == [] and sinks.program == []
    assert len(report.dropped) == 2 and all("no consumer" in r for r in report.dropped)


def test_unknown_extension_audience_goes_nowhere() -> None:
    other = Selector("io.example/other", "structured")
    sinks = Sinks()
    report = sinks.router().route_outputs(
        "crafted",
        [other],
        crafted([{**sel("io.example/other", "structured"), "structuredContent": {"x": 1}}]),
    )
    assert report.dropped and sinks.everything() == "[]"


def test_block_annotations_do_not_change_the_audience() -> None:
    """SEP: the output-level audience controls routing, not Annotations.audience."""
    block = {"type": "text", "text": "hi", "annotations": {"audience": ["user"]}}
    sinks = Sinks()
    sinks.router().route_outputs(
        "crafted", [ASSISTANT_CONTENT], crafted([{**sel("assistant", "content"), "content": [block]}])
    )
    assert [d.payload for d in sinks.model] == [[block]] and sinks.user == []


def test_error_outputs_stay_with_their_audience() -> None:
    error = {**sel("programmatic", "structured"), "structuredContent": {"error": {"type": "timeout"}}}
    sinks = Sinks()
    sinks.router().route_outputs("crafted", [PROGRAMMATIC_STRUCTURED], crafted([error], isError=True))
    assert sinks.model == [] and [d.is_error for d in sinks.program] == [True]


@pytest.mark.parametrize("with_structured", [True, False])
def test_legacy_results_content_to_model_structured_to_program(with_structured: bool) -> None:
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": "legacy text"}],
        "_meta": {"k": META_SECRET},
        "outputs": [GOOD_OUTPUTS[(UI, "structured")]],
    }
    if with_structured:
        result["structuredContent"] = {"rows": ["legacy rows"]}
    sinks = Sinks()
    report = sinks.router().route_legacy("crafted", result)
    assert [d.legacy_field for d in sinks.model] == ["content"]
    assert [d.legacy_field for d in sinks.program] == (["structuredContent"] if with_structured else [])
    assert sinks.user == [] and sinks.view == []
    assert "legacy rows" not in json.dumps([d.payload for d in sinks.model])
    assert META_SECRET not in sinks.everything() and "for-the-view" not in sinks.everything()
    assert any("`outputs` in a legacy result" in r for r in report.dropped)


def test_host_routes_nothing_from_an_invalid_response() -> None:
    """With the session in front, an unrequested output makes the whole response invalid:
    the host raises and no sink receives anything."""

    def with_extra(params: dict[str, Any]) -> dict[str, Any]:
        result = echo_outputs(params)
        result["outputs"].append(GOOD_OUTPUTS[(UI, "structured")])
        return result

    session = ClientSession(FakeServer(call=with_extra), extensions=UI_CAPS)
    sinks = Sinks()
    with pytest.raises(InvalidServerResponse, match="unrequested output"):
        Host(session, sinks.router()).call("crafted", {}, Mode.CONVERSATIONAL)
    assert sinks.everything() == "[]"


def test_host_delivers_a_valid_apps_call_to_model_and_view() -> None:
    session = ClientSession(FakeServer(), extensions=UI_CAPS)
    sinks = Sinks()
    call = Host(session, sinks.router()).call("crafted", {}, Mode.APPS)
    assert call.selection.selectors == (ASSISTANT_CONTENT, UI_STRUCTURED) and call.selection.fallback is None
    assert [d.payload for d in sinks.model] == [[{"type": "text", "text": "for-the-model"}]]
    assert [d.payload for d in sinks.view] == [{"view": "table", "marker": "for-the-view"}]
    assert META_SECRET not in sinks.everything() and call.result.meta == {"io.example/secret": META_SECRET}
