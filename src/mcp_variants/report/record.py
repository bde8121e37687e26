"""What the demo records and the report shows: each scenario's exchange, its checks, and what
the host router delivered to each consumer.

The audience rows of the report come from `Routed`, the router's own deliveries (the four sinks
of `client.router.HostRouter`), never from re-reading the response: the report shows routing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..client.apps_host import view_params
from ..client.router import SINK_OF_AUDIENCE, Delivery, HostRouter
from ..protocol.types import UI_STRUCTURED, Selector

SINKS: tuple[str, ...] = tuple(SINK_OF_AUDIENCE.values())  # model, user, program, view: the row order


@dataclass(frozen=True)
class Routed:
    """One tools/call result as the host router delivered it: each sink's deliveries, and what it dropped."""

    legacy: bool
    received: Mapping[str, Sequence[Delivery]]  # sink -> what it received, for every sink
    dropped: Sequence[str] = ()

    def view_result(self) -> dict[str, Any] | None:
        """The ui/notifications/tool-result params a view is given: the view sink's one ui output."""
        views = [d for d in self.received["view"] if d.selector == UI_STRUCTURED]
        return view_params(views[0]) if len(views) == 1 else None


def route(tool: str, requested: Sequence[Selector], result: Mapping[str, Any], *, legacy: bool) -> Routed:
    """Hand a wire result to a HostRouter with all four sinks and keep what each one received."""
    received: dict[str, list[Delivery]] = {sink: [] for sink in SINKS}
    router = HostRouter(model=received["model"].append, user=received["user"].append,
                        program=received["program"].append, view=received["view"].append)
    report = router.route_legacy(tool, result) if legacy else router.route_outputs(tool, requested, result)
    return Routed(legacy, received, tuple(report.dropped))


@dataclass
class Step:
    """One scenario: the exchange as sent and answered, its checks, and the routed result (tools/call only)."""

    title: str
    rule: str
    request: dict[str, Any] | None
    response: dict[str, Any] | None
    checks: list[tuple[str, bool]] = field(default_factory=list)
    routed: Routed | None = None
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    nothing: str = ""  # why no consumer received anything, when nothing was routed

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.checks)


@dataclass
class RecordedExecution:
    """One execution with every declared variant requested, and the same call as a legacy client makes it:
    the bytes each audience received, next to the legacy pair (and the legacy pair with a JSON mirror)."""

    title: str
    step: Step
    legacy_result: dict[str, Any]


@dataclass
class DemoRun:
    """Everything `mcp-variants demo` measured, for the report."""

    steps: list[Step]
    executions: list[RecordedExecution]
    versions: list[str]  # server/discover supportedVersions
    tools: dict[str, dict[str, Any]]  # the 2026-12-01 listing (with the ui extension), by name
    views: dict[str, str]  # ui:// uri -> the view's HTML, as resources/read returned it
    scorecard: dict[str, Any]  # the conformance suite's results

    @property
    def all_steps(self) -> list[Step]:
        return [*(e.step for e in self.executions), *self.steps]
