"""Every tool call, observed: a span (telemetry.py) and a line in the audit trail (audit.py), around the tool's run.

`CallObserver.wrap` is put around each tool's run function when the tool set is built, so every call that
reaches a tool (its arguments valid) is seen once, whatever transport brought it and whatever the tool does.
The line says when, who, which tool, a digest of the arguments (never the arguments, unless the trail is
asked for content), the outcome, the duration and the kernels the call ran code in.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

import orjson

from .. import telemetry
from ..jupyter.outputs import output_text
from ..protocol.errors import ToolError
from ..protocol.projection import Outcome
from ..sdk.lowlevel import Runner
from ..tools.shared.tool_context import ToolContext
from .audit import AuditLog, timestamp_now

CONTENT_TEXT_CHARS = 16_000  # with content on: at most this much of the outputs' text per line


def digest(arguments: dict[str, Any]) -> str:
    """The same arguments give the same digest (keys sorted), whatever order the client sent them in."""
    return "sha256:" + hashlib.sha256(orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS, default=str)).hexdigest()


class CallObserver:
    """`audit`: where the lines go (None: no trail, spans only). `content`: the lines also carry the arguments in
    full (the code) and the text of what the kernels printed."""

    def __init__(self, audit: AuditLog | None = None, *, content: bool = False) -> None:
        self.audit = audit
        self.content = content

    def wrap(self, name: str, run: Runner) -> Runner:
        async def observed(ctx: ToolContext, arguments: dict[str, Any]) -> Outcome:
            call = ctx.call
            attributes: dict[str, Any] = {
                "gen_ai.tool.name": name, "enduser.id": call.caller.name, "mcp_variants.caller.via": call.caller.via,
                "mcp.protocol.version": call.protocol_version or "", "mcp_variants.requested_outputs": list(call.requested),
            }
            if call.session:
                attributes["mcp.session.id"] = call.session
            when, began = timestamp_now() if self.audit is not None else "", time.perf_counter()  # the clock read for the trail only
            error: str | None = "internal"  # what an exception no tool meant amounts to (ToolSet answers INTERNAL)
            with telemetry.tool_call(name, attributes) as (span, trace):
                try:
                    outcome = await run(ctx, arguments)
                    error = str(outcome.failure.kind) if outcome.failure is not None else None
                    return outcome
                except ToolError as exc:
                    error = str(exc.kind)
                    raise
                finally:
                    if error is not None:
                        telemetry.failed(span, error)
                    if self.audit is not None:
                        self.audit.record(self._line(name, ctx, arguments, when, began, error, trace))
        return observed

    def _line(self, name: str, ctx: ToolContext, arguments: dict[str, Any], when: str, began: float, error: str | None,
              trace: telemetry.CallTrace) -> dict[str, Any]:
        call = ctx.call
        line: dict[str, Any] = {
            "ts": when, "caller": call.caller.name, "via": call.caller.via, "session": call.session, "tool": name,
            "arguments": digest(arguments), "outcome": "ok" if error is None else "error", "error": error,
            "duration_ms": round((time.perf_counter() - began) * 1000, 2), "kernels": list(trace.kernels),
            "protocol": call.protocol_version, "requested": list(call.requested),
        }
        if self.content:
            text = "".join(output_text(o.get("output_type", ""), o) for o in trace.outputs)  # nbformat outputs read as messages
            line["argument_values"] = arguments
            line["output_text"] = text[:CONTENT_TEXT_CHARS]
        return line

    def close(self) -> None:
        if self.audit is not None:
            self.audit.close()
