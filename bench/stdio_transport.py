"""Our stdio transport against the SDK's own: bench/tricks.py's `stdio` rows (issue 45).

The same MCPServer with one trivial tool (bench/floor_stdio.py) in a fresh process per contestant and round, spoken
to over pipes in raw JSON-RPC lines (bench.roundtrip's StdioServer: one write, buffered reads, in this thread):

  ours      `mcp_variants.sdk.run(mcp, "stdio")`: sdk/_stdio.py, event-loop pipes, with the bridge the installed SDK
            needs (as a person's server runs it)
  sdk       the SDK's `mcp.run("stdio")`: its stdio_server, every line read and written through anyio.wrap_file's
            worker threads

both at 2025-11-25 (a handshake, then calls), a version both serve. The 2026-12-01 path has no SDK contestant (the
SDK refuses that version): `ours 2026-12-01` is measured alone, for scale. Per process: WARMUP calls untimed,
then `calls` sequential tools/call round trips, each timed from its write to its parsed answer, and the server
process's CPU (user + system, /proc) over them, divided by the calls.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp_variants.client.stdio import envelope

from .record import REPO
from .roundtrip import StdioServer, process_cpu_seconds

VERSION = "2025-11-25"
UNBRIDGED = "2026-12-01"
WARMUP = 20
CONTESTANTS = {"ours": (["--ours"], VERSION), "sdk": ([], VERSION), f"ours {UNBRIDGED}": (["--ours"], UNBRIDGED)}


def served_calls(contestant: str, calls: int) -> dict[str, Any]:
    """One fresh server: each timed call's wall milliseconds, and the server's CPU milliseconds per call."""
    flags, version = CONTESTANTS[contestant]
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))  # bench.floor_stdio from any folder
    server = StdioServer(REPO, {"PYTHONPATH": path}, [sys.executable, "-m", "bench.floor_stdio", *flags])
    try:
        params: dict[str, Any] = {"name": "echo", "arguments": {}}
        if version == VERSION:
            server.handshake(version)
        else:
            params["_meta"] = envelope(version)  # the stateless envelope: no handshake
        for _ in range(WARMUP):
            server.request("tools/call", params)
        cpu = process_cpu_seconds(server.pid)
        wall = [server.request("tools/call", params)[0] * 1000 for _ in range(calls)]
        cpu_ms = (process_cpu_seconds(server.pid) - cpu) * 1000 / calls
    finally:
        server.stop()
    return {"wall_ms": wall, "cpu_ms_per_call": cpu_ms}
