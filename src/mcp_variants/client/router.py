"""The host router: each output goes to the sink of its own audience, and nowhere else.

* assistant -> model context; user -> user display; programmatic -> program;
  io.modelcontextprotocol/ui -> the App view.
* Result `_meta` is never forwarded: it is not an output and has no audience.
* An output nobody asked for, a duplicate, a malformed one, or one whose audience has no
  sink in this host is dropped and recorded as a violation. It is never re-routed to
  another audience because the format matches (SEP-3279 "Routing requirements").
* Block-level `annotations.audience` is ignored: the output's audience decides.
* Legacy results (before 2026-12-01), by local policy: `content` to the model,
  `structuredContent` to the program only.

The router reads the wire result itself, so it holds even for a result no session checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..protocol.types import UI_EXTENSION, Selector
from .results import CallResult, wire_payload, wire_selector


@dataclass(frozen=True, slots=True)
class Delivery:
    """What a sink receives: one output's payload, never the result's `_meta`."""

    tool: str
    selector: Selector | None  # None for a legacy field
    payload: Any  # content blocks or a structured value
    is_error: bool = False
    legacy_field: str | None = None  # "content" or "structuredContent" for legacy results


Sink = Callable[[Delivery], None]


@dataclass
class RouteReport:
    """What one result delivered, and what it dropped with the reason."""

    delivered: list[tuple[str, Delivery]] = field(default_factory=list)  # (sink name, delivery)
    dropped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.dropped


SINK_OF_AUDIENCE: dict[str, str] = {
    "assistant": "model",
    "user": "user",
    "programmatic": "program",
    UI_EXTENSION: "view",
}


class HostRouter:
    """Four sinks (any may be None: that consumer does not exist in this host)."""

    def __init__(
        self,
        *,
        model: Sink | None = None,
        user: Sink | None = None,
        program: Sink | None = None,
        view: Sink | None = None,
    ) -> None:
        self.sinks: dict[str, Sink | None] = {"model": model, "user": user, "program": program, "view": view}
        self.violations: list[str] = []

    def route(self, result: CallResult) -> RouteReport:
        if result.legacy:
            return self.route_legacy(result.tool, result.raw)
        return self.route_outputs(result.tool, result.requested, result.raw)

    def route_outputs(
        self, tool: str, requested: Sequence[Selector], result: Mapping[str, Any]
    ) -> RouteReport:
        """A 2026-12-01 result: deliver each requested output to its audience's sink."""
        report = RouteReport()
        is_error = result.get("isError") is True
        wanted, seen = set(requested), set[Selector]()
        items = result.get("outputs")
        for item in items if isinstance(items, list) else []:
            selector = wire_selector(item)
            if selector is None:
                self._drop(report, tool, f"malformed output {str(item)[:120]}")
                continue
            if selector not in wanted:
                self._drop(report, tool, f"unrequested output {selector}")
                continue
            if selector in seen:
                self._drop(report, tool, f"second output for {selector}")
                continue
            present, payload = wire_payload(item, selector)
            if not present:
                self._drop(report, tool, f"output {selector} without its payload")
                continue
            seen.add(selector)
            self._deliver(
                report, SINK_OF_AUDIENCE.get(selector.audience), Delivery(tool, selector, payload, is_error)
            )
        return report

    def route_legacy(self, tool: str, result: Mapping[str, Any]) -> RouteReport:
        """A legacy result: `content` to the model, `structuredContent` to the program only."""
        report = RouteReport()
        is_error = result.get("isError") is True
        if isinstance(result.get("content"), list):
            self._deliver(report, "model", Delivery(tool, None, result["content"], is_error, "content"))
        if "structuredContent" in result:
            self._deliver(
                report,
                "program",
                Delivery(tool, None, result["structuredContent"], is_error, "structuredContent"),
            )
        if "outputs" in result:
            self._drop(report, tool, "`outputs` in a legacy result (no negotiation signal)")
        return report

    def _deliver(self, report: RouteReport, sink_name: str | None, delivery: Delivery) -> None:
        sink = self.sinks.get(sink_name) if sink_name else None
        what = str(delivery.selector) if delivery.selector else f"legacy {delivery.legacy_field}"
        if sink is None or sink_name is None:
            self._drop(report, delivery.tool, f"{what}: this host has no consumer for it")
            return
        sink(delivery)
        report.delivered.append((sink_name, delivery))

    def _drop(self, report: RouteReport, tool: str, reason: str) -> None:
        report.dropped.append(reason)
        self.violations.append(f"{tool}: {reason}")
