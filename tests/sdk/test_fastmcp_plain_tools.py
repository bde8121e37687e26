"""FastMCP's own tools (plain `@mcp.tool`) on a server with Variants: at 2026-12-01 served as if migrated with
`legacy_tool()` (listed with `outputVariants`, their calls' `requestedOutputs` checked and answered), at older
versions byte for byte as FastMCP serves them. Real processes on stdio (fastmcp_partly_migrated_server.py), raw
JSON-RPC."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

SERVER = Path(__file__).with_name("fastmcp_partly_migrated_server.py")
CALLS = {"count": {"n": 1}, "double": {"n": 2}, "note": {"text": "hi"}, "nothing": {"n": 4}, "nothing_migrated": {"n": 4},
         "broken": {"n": 3}}
CONTENT = {"audience": "assistant", "format": "content"}
STRUCTURED = {"audience": "assistant", "format": "structured"}


@pytest.fixture(scope="module")
def mixed() -> Iterator[StdioTarget]:
    with StdioTarget([sys.executable, str(SERVER), "mixed"], timeout=90) as target:
        yield target


def call(target: StdioTarget, name: str, requested: list[dict[str, str]] | None = None) -> Any:
    params: dict[str, Any] = {"name": name, "arguments": CALLS[name]}
    if requested is not None:
        params["requestedOutputs"] = requested
    return target.exchange(OUTPUTS_VERSION, None, "tools/call", params)


def test_every_tool_is_listed_with_its_variants_at_2026_12_01(mixed: StdioTarget) -> None:
    tools = {t["name"]: t for t in mixed.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    legacy = {t["name"]: t for t in mixed.exchange("2025-11-25", None, "tools/list", {}).result["tools"]}
    assert set(tools) == {*CALLS, "ask"}
    for name, tool in tools.items():
        assert "outputSchema" not in tool, name
        assert [(v["audience"], v["format"]) for v in tool["outputVariants"]][0] == ("assistant", "content")
    double = {(v["audience"], v["format"]): v for v in tools["double"]["outputVariants"]}
    assert set(double) == {("assistant", "content"), ("assistant", "structured")}
    assert double[("assistant", "structured")]["schema"] == legacy["double"]["outputSchema"]
    assert [(v["audience"], v["format"]) for v in tools["note"]["outputVariants"]] == [("assistant", "content")]


def test_a_plain_tool_answers_the_requested_outputs(mixed: StdioTarget) -> None:
    result = call(mixed, "double", [STRUCTURED, CONTENT]).result
    assert [(o["audience"], o["format"]) for o in result["outputs"]] == [("assistant", "structured"), ("assistant", "content")]
    assert result["outputs"][0]["structuredContent"] == {"result": 4}
    assert result["outputs"][1]["content"] == [{"type": "text", "text": "4"}]
    assert "content" not in result and "structuredContent" not in result
    unasked = call(mixed, "note").result
    assert unasked["outputs"] == [{**CONTENT, "content": [{"type": "text", "text": "noted: hi"}]}]


def test_a_plain_tool_that_returned_none_gives_the_model_what_a_migrated_one_does(mixed: StdioTarget) -> None:
    """FastMCP's content for None is empty, its structuredContent `{"result": null}`: the model reads `null`, the JSON
    of what the tool returned, as from the same tool migrated (older versions: FastMCP's own answer, below)."""
    plain, migrated = (call(mixed, name, [CONTENT, STRUCTURED]).result["outputs"] for name in ("nothing", "nothing_migrated"))
    assert plain == migrated == [{**CONTENT, "content": [{"type": "text", "text": "null"}]},
                                 {**STRUCTURED, "structuredContent": {"result": None}}]


def test_a_plain_tool_refuses_what_it_does_not_offer_before_running(mixed: StdioTarget) -> None:
    assert call(mixed, "note", [STRUCTURED]).error["code"] == -32602
    assert call(mixed, "double", [{"audience": "programmatic", "format": "structured"}]).error["code"] == -32602


def test_a_plain_tools_failure_is_an_error_output_in_fastmcps_words(mixed: StdioTarget) -> None:
    result = call(mixed, "broken", [CONTENT, STRUCTURED]).result
    assert result["isError"] is True
    assert result["outputs"][0]["content"] == [{"type": "text", "text": "Error calling tool 'broken': no 3"}]
    assert result["outputs"][1]["structuredContent"]["error"]["type"] == "internal"


def test_a_plain_tools_round_of_the_multi_round_flow_stays_fastmcps(mixed: StdioTarget) -> None:
    result = mixed.exchange(OUTPUTS_VERSION, None, "tools/call", {"name": "ask", "arguments": {}}).result
    assert result["resultType"] == "input_required" and result["requestState"]
    assert "outputs" not in result and "isError" not in result


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_older_versions_get_what_fastmcp_alone_sends(version: str) -> None:
    def answers(mode: str) -> list[bytes]:
        with StdioTarget([sys.executable, str(SERVER), mode], timeout=90) as target:
            trips = [target.exchange(version, None, "tools/list", {})]
            trips += [target.exchange(version, None, "tools/call", {"name": name, "arguments": arguments})
                      for name, arguments in CALLS.items() if name != "nothing_migrated"]  # its None says null (SEP-3279)
        return [trip.raw for trip in trips]

    plain, mixed = answers("plain"), answers("mixed")
    assert mixed == plain
    assert "outputVariants" not in json.dumps(json.loads(plain[0]))


def test_an_unknown_tool_at_2026_12_01_is_refused_with_the_tools_there_are(mixed: StdioTarget) -> None:
    """A result without outputs is invalid at 2026-12-01: FastMCP's own "Unknown tool" result becomes -32602."""
    error = mixed.exchange(OUTPUTS_VERSION, None, "tools/call", {"name": "nope", "arguments": {}}).message["error"]
    assert error["code"] == -32602 and error["data"]["tool"] == "nope", error
    assert set(CALLS) <= set(error["data"]["available"])
