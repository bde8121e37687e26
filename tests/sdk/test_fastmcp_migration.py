"""A FastMCP tool migrated with `legacy_tool(structured="assistant")` answers old clients byte for byte as FastMCP
answered them, for every return type: those FastMCP wraps as `{"result": ...}` (its outputSchema marked
`x-fastmcp-wrap-result`, its result's `_meta` `fastmcp.wrap_result`) and those it does not; and a tool that raises,
in FastMCP's words with its `mask_error_details` off and on. Real processes on stdio
(tests/sdk/fastmcp_wrapped_server.py), raw JSON-RPC."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION, Era, era_for

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

SERVER = Path(__file__).with_name("fastmcp_wrapped_server.py")
CALLS = {"count": {"n": 1}, "words": {"text": "two words"}, "shout": {"text": "hi"}, "point": {"x": 1},
         "tally": {"key": "a"}, "ship": {"order": "nope"}}
WRAPPED = {"count", "words", "shout"}
RAISES = "ship"
FASTMCP_WORDS = {False: "Error calling tool 'ship': no shipment nope", True: "Error calling tool 'ship'"}


def answers(mode: str, version: str, masked: bool = False) -> list[bytes]:
    """The raw lines a client of `version` reads: tools/list, then one call of each tool."""
    env = {**os.environ, "MASK_ERROR_DETAILS": "1" if masked else "0"}
    with StdioTarget([sys.executable, str(SERVER), mode], env=env, timeout=90) as target:
        trips = [target.exchange(version, None, "tools/list", {})]
        trips += [target.exchange(version, None, "tools/call", {"name": name, "arguments": arguments})
                  for name, arguments in CALLS.items()]
    return [trip.raw for trip in trips]


def without_structure(raw: bytes) -> dict[str, Any]:
    """A message as the layer sends it at a version that defines no structured output (docs/reference/legacy.md):
    no outputSchema, no structuredContent, and so no `fastmcp.wrap_result` saying how it is wrapped."""
    message = json.loads(raw)
    result = message["result"]
    for tool in result.get("tools", []):
        tool.pop("outputSchema", None)
    if result.pop("structuredContent", None) is not None:
        meta = result.pop("_meta", {})
        meta.pop("fastmcp", None)
        if meta:
            result["_meta"] = meta
    return message


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_a_migrated_tool_answers_as_fastmcp_did_for_every_return_type(version: str) -> None:
    plain, migrated = answers("plain", version), answers("migrated", version)
    failed = json.loads(plain[-1])["result"]
    assert failed["isError"] is True and failed["content"][0]["text"] == FASTMCP_WORDS[False]
    if era_for(version) is Era.CONTENT_ONLY:
        assert [json.loads(raw) for raw in migrated] == [without_structure(raw) for raw in plain]
        return
    assert migrated == plain  # byte for byte: the listing's keys in FastMCP's order, the result's _meta included
    listed = {tool["name"]: tool for tool in json.loads(plain[0])["result"]["tools"]}
    results = dict(zip(CALLS, (json.loads(raw)["result"] for raw in plain[1:]), strict=True))
    for name in set(CALLS) - {RAISES}:  # what the comparison covers: FastMCP's wrapping where it wraps, and only there
        wrapped = name in WRAPPED
        assert listed[name]["outputSchema"].get("x-fastmcp-wrap-result", False) is wrapped
        assert (results[name].get("_meta", {}).get("fastmcp") == {"wrap_result": True}) is wrapped
        assert ("result" in results[name]["structuredContent"]) is wrapped, results[name]


@pytest.mark.parametrize("version", ["2025-06-18", "2026-07-28"])
def test_a_migrated_tool_that_raises_reads_as_fastmcp_masks_it(version: str) -> None:
    plain, migrated = answers("plain", version, masked=True), answers("migrated", version, masked=True)
    assert migrated[-1] == plain[-1]
    assert json.loads(plain[-1])["result"]["content"][0]["text"] == FASTMCP_WORDS[True]


def test_a_migrated_tools_crash_keeps_fastmcps_words_in_the_outputs() -> None:
    requested = [{"audience": "assistant", "format": "content"}, {"audience": "assistant", "format": "structured"}]
    with StdioTarget([sys.executable, str(SERVER), "migrated"], timeout=90) as target:
        result = target.exchange(OUTPUTS_VERSION, None, "tools/call",
                                 {"name": RAISES, "arguments": CALLS[RAISES], "requestedOutputs": requested}).result
    assert result["isError"] is True
    content, structured = result["outputs"]
    assert content["content"] == [{"type": "text", "text": FASTMCP_WORDS[False]}]
    assert structured["structuredContent"] == {"error": {"type": "internal", "message": FASTMCP_WORDS[False]}}
