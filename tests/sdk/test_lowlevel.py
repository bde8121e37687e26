"""The low-level half of the server API on the wire: a `Server` given tools by `serve_tools` (lowlevel_server.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION, SUPPORTED_VERSIONS

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

SERVER = Path(__file__).with_name("lowlevel_server.py")


@pytest.fixture(scope="module")
def target() -> Iterator[StdioTarget]:
    with StdioTarget([sys.executable, str(SERVER)], timeout=30) as running:
        yield running


@pytest.mark.parametrize("version", ["2026-07-28", OUTPUTS_VERSION])
def test_discover_names_every_version_served(target: StdioTarget, version: str) -> None:
    """The SDK's own discover names only the versions it knows: a client reading it would see no 2026-12-01."""
    assert target.exchange(version, None, "server/discover", {}).result["supportedVersions"] == list(SUPPORTED_VERSIONS)


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28", OUTPUTS_VERSION])
def test_a_server_without_cache_hints_lists_its_tools_at_every_version(target: StdioTarget, version: str) -> None:
    """lowlevel_server.py gives its `Server` no cache hints: from 2026-07-28 the SDK needs a list result's cache fields."""
    listed = target.exchange(version, None, "tools/list", {}).message
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["add", "add_as_text"], listed
    if version != "2025-11-25":
        assert (listed["result"]["ttlMs"], listed["result"]["cacheScope"]) == (0, "private")


def test_a_call_gets_the_requested_outputs(target: StdioTarget) -> None:
    params = {"name": "add", "arguments": {"a": 2, "b": 3}, "requestedOutputs": [{"audience": "assistant", "format": "content"}]}
    result = target.exchange(OUTPUTS_VERSION, None, "tools/call", params).result
    assert result["outputs"] == [{"audience": "assistant", "format": "content", "content": [{"type": "text", "text": "sum: 5"}]}]


@pytest.mark.parametrize("version", ["2025-11-25", OUTPUTS_VERSION])
def test_a_content_output_that_is_no_list_of_blocks_is_not_delivered(target: StdioTarget, version: str) -> None:
    params = {"name": "add_as_text", "arguments": {"a": 2, "b": 3}}
    result = target.exchange(version, None, "tools/call", params).result
    assert result["isError"] is True, result
    blocks = result["outputs"][0]["content"] if version == OUTPUTS_VERSION else result["content"]
    assert "does not match the output schema" in blocks[0]["text"], result
