"""A FastMCP tool migrated with `legacy_tool(structured="assistant")` (or `"programmatic"`) answers old clients byte for byte as FastMCP
answered them, for every return type: those FastMCP wraps as `{"result": ...}` (its outputSchema marked
`x-fastmcp-wrap-result`, its result's `_meta` `fastmcp.wrap_result`) and those it does not; a model nesting others,
its schemas' `$ref`s inlined as FastMCP inlines them (`dereference_schemas`, its default) or kept where it keeps
them; and a tool that raises, in FastMCP's words with its `mask_error_details` off and on. Real processes on stdio
(tests/sdk/fastmcp_wrapped_server.py), raw JSON-RPC."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

SERVER = Path(__file__).with_name("fastmcp_wrapped_server.py")
LENT = {"title": "Emma", "loan": {"member": "m7", "due": "2026-12-20"}}
CALLS = {"count": {"n": 1}, "words": {"text": "two words"}, "shout": {"text": "hi"}, "point": {"x": 1},
         "tally": {"key": "a"}, "shelve": {"label": "a", "book": LENT}, "ship": {"order": "nope"}}
WRAPPED = {"count", "words", "shout"}
NESTED = "shelve"  # -> Shelf: a list of Book, each with a Loan | None, and a Loan | None: $defs and $refs
RAISES = "ship"
FASTMCP_WORDS = {False: "Error calling tool 'ship': no shipment nope", True: "Error calling tool 'ship'"}


def answers(mode: str, version: str, masked: bool = False, dereference: bool = True) -> list[bytes]:
    """The raw lines a client of `version` reads: tools/list, then one call of each tool."""
    env = {**os.environ, "MASK_ERROR_DETAILS": "1" if masked else "0", "DEREFERENCE_SCHEMAS": "1" if dereference else "0"}
    with StdioTarget([sys.executable, str(SERVER), mode], env=env, timeout=90) as target:
        trips = [target.exchange(version, None, "tools/list", {})]
        trips += [target.exchange(version, None, "tools/call", {"name": name, "arguments": arguments})
                  for name, arguments in CALLS.items()]
    return [trip.raw for trip in trips]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_a_migrated_tool_answers_as_fastmcp_did_for_every_return_type(version: str) -> None:
    plain, migrated = answers("plain", version), answers("migrated", version)
    failed = json.loads(plain[-1])["result"]
    assert failed["isError"] is True and failed["content"][0]["text"] == FASTMCP_WORDS[False]
    # Byte for byte, the listing's keys in FastMCP's order, the result's _meta included; before 2025-06-18 too, where
    # FastMCP sends its outputSchema and structuredContent: a migrated tool keeps its established shape.
    assert migrated == plain
    listed = {tool["name"]: tool for tool in json.loads(plain[0])["result"]["tools"]}
    results = dict(zip(CALLS, (json.loads(raw)["result"] for raw in plain[1:]), strict=True))
    for name in set(CALLS) - {RAISES}:  # what the comparison covers: FastMCP's wrapping where it wraps, and only there
        wrapped = name in WRAPPED
        assert listed[name]["outputSchema"].get("x-fastmcp-wrap-result", False) is wrapped
        assert (results[name].get("_meta", {}).get("fastmcp") == {"wrap_result": True}) is wrapped
        assert ("result" in results[name]["structuredContent"]) is wrapped, results[name]
    nested = listed[NESTED]  # FastMCP inlined its $refs (its default), and so does the migrated tool's listing
    assert "$ref" not in json.dumps(nested) and "$defs" not in json.dumps(nested)
    assert nested["outputSchema"]["properties"]["books"]["items"]["properties"]["loan"]["anyOf"][0]["required"] == ["member", "due"]
    assert results[NESTED]["structuredContent"]["lent"] == LENT["loan"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25", "2026-07-28"])
def test_a_migrated_tool_keeps_its_refs_where_fastmcp_keeps_them(version: str) -> None:
    """`FastMCP(dereference_schemas=False)`: FastMCP lists `$defs` and `$ref`s, and so does the migrated server."""
    plain, migrated = answers("plain", version, dereference=False), answers("migrated", version, dereference=False)
    assert migrated == plain
    nested = next(tool for tool in json.loads(plain[0])["result"]["tools"] if tool["name"] == NESTED)
    assert "$defs" in nested["outputSchema"] and "$defs" in nested["inputSchema"]


@pytest.mark.parametrize("dereference", [True, False])
def test_at_2026_12_01_the_variants_schemas_are_as_self_contained_as_fastmcps(dereference: bool) -> None:
    """A FastMCP server's clients expect schemas without `$ref` (unless the server keeps them): each
    `outputVariants[].schema` is inlined as FastMCP inlines its own, and outputs are still checked against them."""
    env = {**os.environ, "DEREFERENCE_SCHEMAS": "1" if dereference else "0"}
    requested = [{"audience": "assistant", "format": "structured"}]
    with StdioTarget([sys.executable, str(SERVER), "migrated"], env=env, timeout=90) as target:
        tools = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
        result = target.exchange(OUTPUTS_VERSION, None, "tools/call",
                                 {"name": NESTED, "arguments": CALLS[NESTED], "requestedOutputs": requested}).result
    (schema,) = [v["schema"] for v in tools[NESTED]["outputVariants"] if v["format"] == "structured"]
    assert ("$ref" in json.dumps(tools[NESTED])) is not dereference and ("$defs" in schema) is not dereference
    assert result.get("isError") is not True
    assert result["outputs"][0]["structuredContent"] == {"label": "a", "books": [LENT], "lent": LENT["loan"]}


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


def test_a_migrated_tool_that_returns_results_is_told_in_the_log_to_return_its_plain_value(
        caplog: pytest.LogCaptureFixture) -> None:
    """legacy_tool's function returns what FastMCP's @mcp.tool did; a `Results` (variants.tool's) is the author's
    mistake, answered as any other bug and explained in the log. In process: the server's log is this process's."""
    from fastmcp import FastMCP

    from mcp_variants.client import ClientSession
    from mcp_variants.fastmcp import InProcessTransport, Results, Variants

    mcp = FastMCP("mistaken")
    variants = Variants(mcp)

    @variants.legacy_tool(structured="assistant")
    def count(n: int) -> int:
        return Results({"assistant/content": str(n)})  # type: ignore[return-value]

    with caplog.at_level("ERROR"), ClientSession(InProcessTransport(mcp)) as session:
        result = session.call("count", {"n": 1}, ["assistant/structured"])
    assert result.is_error and result.raw["outputs"][0]["structuredContent"]["error"]["type"] == "internal", result.raw
    assert ("tool count returned Results with no entry for assistant/structured: it declares assistant/content, "
            "assistant/structured, and legacy_tool's function returns its plain value (as @mcp.tool's did); declare the "
            "tool with @variants.tool to return Results") in caplog.text, caplog.text
