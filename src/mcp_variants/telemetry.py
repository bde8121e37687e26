"""What a tool call ran, as it runs: OpenTelemetry spans, and the kernels and outputs the audit trail records.

Spans go through opentelemetry-api (a dependency of the MCP SDK), and only while a tracer provider is set
(`tracing`). `configure_from_environment` sets a tracer provider up from the standard OTEL_* variables when
opentelemetry-sdk is installed (the `otel` extra) and nothing else set one (`opentelemetry-instrument` does).

One tool call is a `tool_call` span; each kernel execution inside it a `kernel_execution` span, its child.
The call's `CallTrace` (a context variable) collects the kernels and outputs of its executions, for the
audit trail; the kernel layer reports to it without knowing who listens.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace

logger = logging.getLogger(__name__)

TRACER_NAME = "mcp_variants"
_tracer = trace.get_tracer(TRACER_NAME)


@dataclass
class CallTrace:
    """The kernels one tool call ran code in, and what the runs printed (their text outputs)."""

    kernels: list[str] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)  # nbformat outputs of every run, in order


_current: ContextVar[CallTrace | None] = ContextVar("mcp_variants_call_trace", default=None)


def tracing() -> bool:
    """Whether spans go anywhere: a tracer provider was set (configure_from_environment, opentelemetry-instrument, or
    the application that embeds the server). Without one a span is a no-op, but making it (the context attached and
    detached, the attributes copied) is a share of every execute_code: skipped then, asked again on every call."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider)


@contextmanager
def tool_call(name: str, attributes: Mapping[str, Any]) -> Iterator[tuple[trace.Span, CallTrace]]:
    """A span for one tool call, and the trace its kernel executions report to."""
    call = CallTrace()
    token = _current.set(call)
    try:
        if not tracing():
            yield trace.INVALID_SPAN, call
            return
        with _tracer.start_as_current_span(f"tool {name}", kind=trace.SpanKind.INTERNAL, attributes=dict(attributes),
                                           record_exception=False, set_status_on_exception=False) as span:
            yield span, call
    finally:
        _current.reset(token)


@contextmanager
def kernel_execution(kernel_id: str, kernel_name: str) -> Iterator[trace.Span]:
    """A span for one execution in a kernel, inside the current tool call's (if any)."""
    call = _current.get()
    if call is not None and kernel_id not in call.kernels:
        call.kernels.append(kernel_id)
    if not tracing():
        yield trace.INVALID_SPAN
        return
    attributes = {"jupyter.kernel.id": kernel_id, "jupyter.kernel.name": kernel_name}
    with _tracer.start_as_current_span("kernel execute", kind=trace.SpanKind.CLIENT, attributes=attributes) as span:
        yield span


def executed(span: trace.Span, status: str, execution_count: int | None, outputs: list[dict[str, Any]]) -> None:
    """An execution ended: its status on its span, its outputs in the current call's trace."""
    span.set_attribute("jupyter.execution.status", status)
    if execution_count is not None:
        span.set_attribute("jupyter.execution.count", execution_count)
    if status != "ok":
        failed(span, status)
    call = _current.get()
    if call is not None:
        call.outputs.extend(outputs)


def failed(span: trace.Span, error: str) -> None:
    """A call that ended in an error of this kind (protocol/errors.ErrorKind's value)."""
    span.set_attribute("error.type", error)
    span.set_status(trace.StatusCode.ERROR, error)


def configure_from_environment() -> bool:
    """A tracer provider from the OTEL_* variables (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME,
    …), when opentelemetry-sdk is installed, some exporter is asked for and no provider was set; True when one was."""
    if os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    asked = os.environ.get("OTEL_TRACES_EXPORTER") or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") \
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if not asked or not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return False
    try:
        from importlib.metadata import entry_points

        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        logger.warning("OTEL_* variables ask for traces, but opentelemetry-sdk is not installed (pip install 'mcp-variants[otel]')")
        return False
    names = [n.strip() for n in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip() and n.strip() != "none"]
    # The exporters by the names the SDK's own configuration uses (its entry points: console, otlp, otlp_proto_http, …).
    found = {e.name: e for e in entry_points(group="opentelemetry_traces_exporter")}
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "mcp-variants")}))
    for name in names:
        if name not in found:
            logger.warning("no OpenTelemetry trace exporter %r is installed (found: %s)", name, ", ".join(sorted(found)) or "none")
            continue
        exporter_class = found[name].load()
        # The console exporter writes to stdout by default: on stdio that is the MCP channel itself.
        exporter = exporter_class(out=sys.stderr) if name == "console" else exporter_class()
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return True
