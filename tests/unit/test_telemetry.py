"""Spans only where they go somewhere: without a tracer provider a tool call makes none, and its trace (what the
audit trail records) is kept all the same."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from mcp_variants import telemetry


@pytest.fixture
def no_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", lambda: trace.ProxyTracerProvider())


def test_without_a_provider_a_call_makes_no_span_and_keeps_its_trace(no_provider: None) -> None:
    assert not telemetry.tracing()
    output = {"output_type": "stream", "name": "stdout", "text": "2\n"}
    with telemetry.tool_call("execute_code", {"gen_ai.tool.name": "execute_code"}) as (span, call):
        assert span is trace.INVALID_SPAN and not span.is_recording()
        with telemetry.kernel_execution("k-1", "python3") as execution:
            assert execution is trace.INVALID_SPAN
            telemetry.executed(execution, "error", 3, [output])
    assert call.kernels == ["k-1"] and call.outputs == [output]


def test_a_provider_set_later_is_seen_at_the_next_call(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = TracerProvider()
    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", lambda: provider)
    assert telemetry.tracing()
    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", lambda: trace.NoOpTracerProvider())
    assert not telemetry.tracing()
