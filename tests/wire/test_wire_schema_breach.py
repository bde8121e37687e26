"""A success output that breaks its schema (a bug of ours) is answered as an invalid-output error, and
the server (its public server API, sdk/_toolset.py), not the sans-I/O core, logs it: a real server process with one projector broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.wire, pytest.mark.timeout(60)]

# list_kernels' assistant/structured projector returns what its schema forbids; the rest is the real server.
BROKEN_SERVER = """
import sys
from mcp_variants.protocol.types import ASSISTANT_STRUCTURED
from mcp_variants.tools import TOOLS
TOOLS["list_kernels"].projectors.success[ASSISTANT_STRUCTURED] = lambda table: {"kind": 7}
from mcp_variants.server.cli import main
main(sys.argv[1:])
"""
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def test_a_schema_breach_is_an_invalid_output_error_logged_by_the_server(tmp_path: Path) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_kernels", "arguments": {}, "_meta": ENVELOPE}}
    done = subprocess.run([sys.executable, "-c", BROKEN_SERVER, "serve", "--root", str(tmp_path)], input=json.dumps(request) + "\n",
                          capture_output=True, text=True, timeout=50)
    [line] = [line for line in done.stdout.splitlines() if line.strip()]
    result = json.loads(line)["result"]
    assert result["isError"] is True and "structuredContent" not in result
    assert "list_kernels ran, but its result does not match the output schema" in result["content"][0]["text"]
    [logged] = [line for line in done.stderr.splitlines() if "breaks the schema" in line]
    assert " ERROR mcp_variants.sdk._toolset: " in logged and "list_kernels" in logged and "assistant/structured" in logged
