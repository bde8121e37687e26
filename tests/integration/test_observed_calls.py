"""Who ran what, read back: the spans of a tool call and its kernel execution (the OpenTelemetry SDK's in-memory
exporter), the audit trail's line, and the trail's promise never to block a call.

The calls run in this process on the embedded runtime (a real kernel), through the tool set the server
serves (`compose`), with the call's caller and protocol as the transports hand them over.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp_variants.call_info import Caller, CallInfo
from mcp_variants.protocol.versions import Era
from mcp_variants.server.app import ServerState
from mcp_variants.server.audit import AuditLog
from mcp_variants.server.compose import ServerConfig, compose, local_runtimes
from mcp_variants.server.observe import digest
from mcp_variants.tools.shared.tool_context import ToolContext
from support.waiting import until

pytestmark = pytest.mark.timeout(120)
PS = {"audience": "programmatic", "format": "structured"}
AC = {"audience": "assistant", "format": "content"}

EXPORTER = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def tracer_provider() -> None:
    """One provider for the process (OpenTelemetry allows one), its spans kept in memory."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
    trace.set_tracer_provider(provider)


@pytest.fixture
def observed(tmp_path: Path) -> Iterator[tuple[ServerState, Path]]:
    audit = tmp_path / "audit.jsonl"
    state = compose(ServerConfig(audit_log=str(audit)), lambda limits: local_runtimes(tmp_path, limits))
    try:
        yield state, audit
    finally:
        anyio.run(state.aclose)


def call(state: ServerState, tool: str, arguments: dict[str, Any], requested: list[dict[str, str]], caller: Caller) -> dict[str, Any]:
    info = CallInfo(caller, "2026-12-01", tuple(f"{s['audience']}/{s['format']}" for s in requested), "http:abc")

    def context() -> ToolContext:
        return ToolContext(limits=state.limits, registry=state.registry, client=state.registry.client(None), call=info)

    params = {"name": tool, "arguments": arguments, "requestedOutputs": requested}
    return anyio.run(lambda: state.tools.call(params, Era.OUTPUTS, frozenset(), context))


def spans(name: str) -> list[ReadableSpan]:
    return [s for s in EXPORTER.get_finished_spans() if s.name == name]


def test_a_tool_call_and_its_kernel_execution_are_spans_that_say_who_and_what(observed: tuple[ServerState, Path]) -> None:
    state, _ = observed
    EXPORTER.clear()
    result = call(state, "execute_code", {"code": "1+1"}, [PS, AC], Caller("alice", "jupyterhub", ("access:servers!user=alice",)))
    assert not result.get("isError"), result
    [tool] = spans("tool execute_code")
    [kernel] = spans("kernel execute")
    assert tool.attributes is not None and kernel.attributes is not None
    assert tool.attributes["enduser.id"] == "alice" and tool.attributes["mcp_variants.caller.via"] == "jupyterhub"
    assert tool.attributes["mcp.protocol.version"] == "2026-12-01", "the client's version, not the one the SDK was shown"
    assert list(tool.attributes["mcp_variants.requested_outputs"]) == ["programmatic/structured", "assistant/content"]
    assert kernel.parent is not None and kernel.parent.span_id == tool.context.span_id, "the execution is the call's child"
    assert kernel.attributes["jupyter.kernel.id"] == result["outputs"][0]["structuredContent"]["kernelId"]
    assert kernel.attributes["jupyter.execution.status"] == "ok"
    assert tool.status.status_code is not trace.StatusCode.ERROR

    failed = call(state, "execute_code", {"code": "1/0"}, [PS], Caller("alice", "jupyterhub"))
    assert failed["isError"]
    tool_spans = spans("tool execute_code")
    assert tool_spans[-1].status.status_code is trace.StatusCode.ERROR and tool_spans[-1].attributes["error.type"] == "execution-error"


def test_the_audit_line_says_when_who_what_and_in_which_kernel(observed: tuple[ServerState, Path]) -> None:
    state, audit = observed
    arguments = {"code": "print('hidden' + 'text')"}
    result = call(state, "execute_code", arguments, [PS], Caller("bob", "jupyter"))
    kernel_id = result["outputs"][0]["structuredContent"]["kernelId"]
    call(state, "list_kernels", {}, [PS], Caller("bob", "jupyter"))
    state.observer.close()  # written out
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [line["tool"] for line in lines] == ["execute_code", "list_kernels"]
    line = lines[0]
    assert line["caller"] == "bob" and line["via"] == "jupyter" and line["session"] == "http:abc"
    assert line["arguments"] == digest(arguments) and line["kernels"] == [kernel_id] and line["outcome"] == "ok"
    assert line["ts"].endswith("+00:00") and line["duration_ms"] > 0 and lines[1]["kernels"] == []
    assert "hiddentext" not in audit.read_text() and "print(" not in audit.read_text()


def test_with_content_the_line_carries_the_code_and_what_it_printed(tmp_path: Path) -> None:
    audit = tmp_path / "audit.jsonl"
    state = compose(ServerConfig(audit_log=str(audit), audit_content=True), lambda limits: local_runtimes(tmp_path, limits))
    try:
        call(state, "execute_code", {"code": "print('hidden' + 'text')"}, [PS], Caller("bob", "jupyter"))
    finally:
        anyio.run(state.aclose)
    [line] = [json.loads(text) for text in audit.read_text().splitlines()]
    assert line["argument_values"] == {"code": "print('hidden' + 'text')"} and line["output_text"] == "hiddentext\n"


def test_a_stuck_trail_never_blocks_a_call_and_says_what_it_dropped() -> None:
    release = threading.Event()
    written: list[dict[str, Any]] = []

    def slow(line: str) -> None:
        release.wait(10)  # a disk that hangs, a log handler that blocks
        written.append(json.loads(line))

    trail = AuditLog(slow, capacity=3)
    began = time.perf_counter()
    for n in range(50):
        trail.record({"n": n})
    assert time.perf_counter() - began < 5, "recording waits for nothing (a record that waited would wait for the release)"
    assert trail.dropped >= 46
    release.set()
    kept = 50 - trail.dropped
    until(lambda: len([line for line in written if "n" in line]) >= kept, "the kept records written", timeout=10, every=0.01)
    trail.record({"n": "after"})
    trail.close()
    dropped = [line for line in written if line.get("event") == "dropped"]
    assert sum(line["count"] for line in dropped) == trail.dropped
    assert written[-1] == {"n": "after"} and len([line for line in written if "n" in line]) == kept + 1
