"""A `Variants` FastMCP server run by FastMCP's own `run()` out of habit: the SDK underneath refuses a 2026-12-01
client (-32022) before any handler runs, so the server says at start, once, what to call instead; served by
`mcp_variants.fastmcp`'s own runners it says nothing. Real processes on stdio (tests/sdk/fastmcp_wrapped_server.py)
and HTTP (tests/sdk/fastmcp_sample_server.py), raw JSON-RPC."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.servers import HttpServer

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

HERE = Path(__file__).parent
WARNING = "this server runs outside mcp_variants.fastmcp's transports (FastMCP.run?)"
INSTEAD = "Serve it with mcp_variants.fastmcp.cli(mcp) or run(mcp) (http_app(mcp) to mount it) to answer them"


def listed_then_stderr(mode: str) -> tuple[list[dict[str, Any]], str]:
    """A 2026-12-01 client's tools/list, then a 2026-07-28 one's (one stdio process), and all the server wrote to
    stderr once it ended."""
    with StdioTarget([sys.executable, str(HERE / "fastmcp_wrapped_server.py"), mode], timeout=90) as target:
        answers = [target.exchange(version, None, "tools/list", {}).message for version in (OUTPUTS_VERSION, "2026-07-28")]
        process = target.process_for("2026-07-28")
    return answers, process.connection.stderr_tail.decode(errors="replace")


def test_fastmcps_own_run_says_once_at_start_what_to_call_instead() -> None:
    (newest, older), stderr = listed_then_stderr("unbridged")
    assert newest["error"]["code"] == -32022  # refused by the SDK before any handler
    assert [t["name"] for t in older["result"]["tools"]][:1] == ["count"]
    assert stderr.count(WARNING) == 1, stderr
    assert INSTEAD in stderr


def test_our_stdio_says_nothing_and_answers_2026_12_01() -> None:
    (newest, _), stderr = listed_then_stderr("migrated")
    assert "outputVariants" in newest["result"]["tools"][0]
    assert "transports" not in stderr, stderr


def test_our_http_app_says_nothing(tmp_path: Path) -> None:
    server = HttpServer(tmp_path, log=tmp_path / "server.log", command=[sys.executable, str(HERE / "fastmcp_sample_server.py")])
    try:
        listed = server.target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result
        assert "outputVariants" in listed["tools"][0]
    finally:
        server.close()
    assert "transports" not in (tmp_path / "server.log").read_text()
