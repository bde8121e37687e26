"""Our server, spoken to through the conformance suite's raw wire client, so every answer keeps its bytes.

`Recorder` is `mcp-variants serve` on stdio, a `StdioTarget` (one process for the stateless
requests, one more per handshake version asked for; `close()` stops them all, with their
kernels), in `serve_env`: nothing of this machine's Jupyter reaches it. `call_over_http` is one
stateless tools/call to `mcp-variants serve --http`. Each answer is a `conformance.wire.RoundTrip`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from mcp_variants.conformance.wire import HttpTarget, RoundTrip, StdioTarget
from mcp_variants.processes import LOOPBACK, ServerProcess, free_port

from .jsontext import compact
from .selection import V, key

TIMEOUT_S = 120.0  # per request: launch_sandbox takes seconds; a call that hangs fails the run


def serve_command(root: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "mcp_variants", "serve", "--root", str(root), *extra]


def serve_env(root: Path) -> dict[str, str]:
    """This environment without what would make the server say something else on another machine: Jupyter's
    folders are private ones beside `root` (`user/`), so no Jupyter server running here is discovered (their info
    files are in the user's JUPYTER_RUNTIME_DIR: jupyter/discovery.py) and no user configuration or kernelspec is
    read; no JUPYTER_* or MCP_VARIANTS_* variable (a token, --compat, a Jupyter URL) is passed on."""
    user = root.parent / "user"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "MCP_VARIANTS_"))}
    env.update(JUPYTER_CONFIG_DIR=str(user / "config"), JUPYTER_DATA_DIR=str(user / "data"),
               JUPYTER_RUNTIME_DIR=str(user / "runtime"))
    return env


def tool_call(tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """tools/call params; the version's envelope (`_meta`) is the wire client's to add."""
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if outputs is not None:
        params["requestedOutputs"] = outputs
    return params


def output_of(trip: RoundTrip, selector: str) -> dict[str, Any] | None:
    """The output for `selector` (`audience/format`) in a 2026-12-01 result, if it has one."""
    return next((o for o in trip.result.get("outputs", []) if key(o) == selector), None)


class Recorder(StdioTarget):
    """`mcp-variants serve --root ROOT` on stdio. Every answer must be the compact JSON line the
    measurements count; a request that got no answer raises TargetError (saying why)."""

    def __init__(self, root: Path) -> None:
        super().__init__(serve_command(root), env=serve_env(root), timeout=TIMEOUT_S)

    def request(self, method: str, params: dict[str, Any] | None = None, *, version: str = V,
                extensions: dict[str, Any] | None = None) -> RoundTrip:
        return self._checked(self.exchange(version, extensions, method, params))

    def call(self, tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]] | None = None, *,
             version: str = V, extensions: dict[str, Any] | None = None) -> RoundTrip:
        return self.request("tools/call", tool_call(tool, arguments, outputs), version=version, extensions=extensions)

    def initialize(self, version: str) -> RoundTrip:
        """The initialize round trip of the process for `version` (made once, notifications/initialized after it)."""
        return self._checked(self.handshake(version, None))

    @staticmethod
    def _checked(trip: RoundTrip) -> RoundTrip:
        if trip.raw != compact(trip.message) + b"\n":
            raise RuntimeError("the server's JSON is not the compact form the measurements count; "
                               "update compact() in scripts/docsgen/jsontext.py")
        return trip


def call_over_http(root: Path, tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]]) -> tuple[str, RoundTrip]:
    """One stateless tools/call to `mcp-variants serve --http` on a free loopback port, started and stopped
    here: the endpoint's URL and the round trip (status, headers, the request headers sent; `message`
    raises TargetError when no answer came)."""
    port = free_port()
    with ServerProcess(serve_command(root, "--http", "--port", str(port)), port, env=serve_env(root)).start(), \
            HttpTarget(f"http://{LOOPBACK}:{port}/mcp", timeout=TIMEOUT_S) as target:
        return target.url, target.exchange(V, None, "tools/call", tool_call(tool, arguments, outputs))
