"""The host-side scenarios can fail too: with one client rule broken at a time (monkeypatched
into the reference client for the test), the scenarios of that rule fail and no others."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from mcp_variants.client import router as router_module
from mcp_variants.client import session as session_module
from mcp_variants.client.errors import InvalidServerResponse
from mcp_variants.client.results import CallResult, wire_selector
from mcp_variants.client.router import Delivery, RouteReport
from mcp_variants.client.tools import ToolIndex, ToolInfo
from mcp_variants.conformance.client_vectors import client_vectors, run_client_vector
from mcp_variants.protocol.types import Selector, Variant


def naive_router(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that puts every output, and the result's _meta, into the model context."""

    def route_outputs(self: Any, tool: str, requested: Any, result: Any) -> RouteReport:
        report = RouteReport()
        for item in result.get("outputs", []):
            payload = item.get("content", item.get("structuredContent"))
            self._deliver(report, "model", Delivery(tool, None, payload))
        if "_meta" in result:
            self._deliver(report, "model", Delivery(tool, None, result["_meta"]))
        return report

    monkeypatch.setattr(router_module.HostRouter, "route_outputs", route_outputs)


def legacy_requested_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that sends requestedOutputs whatever the version."""
    monkeypatch.setattr(session_module.ClientSession, "selection", lambda self, tool, outputs: tuple(outputs) if outputs else None)
    monkeypatch.setattr(session_module.ClientSession, "_encode", lambda self, message: json.dumps(message).encode())


def lenient_listing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that accepts any tools/list, with or without outputVariants and assistant/content."""

    def parse_listing(tools: Any, era: Any, negotiated: Any) -> ToolIndex:
        infos = []
        for tool in tools:
            try:
                infos += list(original([tool], era, negotiated))
            except InvalidServerResponse:  # keep whatever it declared, and use it anyway
                variants = tuple(Variant(Selector(v["audience"], v["format"]), v.get("schema")) for v in tool.get("outputVariants", []))
                infos.append(ToolInfo(tool["name"], variants, raw=tool))
        return ToolIndex(infos)

    original = session_module.parse_listing

    monkeypatch.setattr(session_module, "parse_listing", parse_listing)


def takes_what_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that takes the outputs a result carries for the ones it asked for."""

    def check_outputs(tool: str, version: str, requested: Any, result: Any, index: ToolIndex) -> CallResult:
        returned = [s for s in map(wire_selector, result.get("outputs") or []) if s is not None]
        return original(tool, version, tuple(returned) or requested, result, index)

    original = session_module.check_outputs
    monkeypatch.setattr(session_module, "check_outputs", check_outputs)


def own_advertisement_negotiates(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that counts its own advertisement of an extension as negotiation."""

    def open_session(self: session_module.ClientSession) -> dict[str, Any]:
        capabilities = original(self)
        self.negotiated = frozenset(self.extensions)
        return capabilities

    original = session_module.ClientSession.open
    monkeypatch.setattr(session_module.ClientSession, "open", open_session)


def any_schema_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that accepts a structured output valid against any of the tool's schemas, not only its variant's."""

    def problems(self: ToolIndex, tool: str, selector: Selector | None, value: Any) -> list[str]:
        others = [v.selector for v in self.get(tool).variants if v.selector != selector and self.has_schema(tool, v.selector)]
        return [] if any(not original(self, tool, other, value) for other in others) else original(self, tool, selector, value)

    original = ToolIndex.problems
    monkeypatch.setattr(ToolIndex, "problems", problems)


BREAKS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], set[str]]] = {
    "naive-router": (naive_router, {
        "host-plan-15-apps-routing-and-metadata", "host-must-user-and-programmatic-stay-out-of-model",
        "host-must-ignore-block-annotations", "host-must-no-audience-fallback", "host-must-not-forward-result-meta"}),
    "requestedOutputs-at-old-versions": (legacy_requested_outputs, {
        "host-plan-12-no-requestedoutputs-at-2026-07-28", "host-plan-12-no-requestedoutputs-at-2025-11-25",
        "host-must-select-only-advertised", "host-must-not-send-duplicate-selectors"}),
    "lenient-listing": (lenient_listing, {
        "host-plan-07-rejects-tool-without-assistant-content", "host-plan-14-rejects-tool-without-outputvariants"}),
    "takes-what-comes-back": (takes_what_comes_back, {
        "host-plan-15-unrequested-output-not-routed", "host-must-not-substitute-error-outputs"}),
    "own-advertisement-negotiates": (own_advertisement_negotiates, {"host-must-not-request-unnegotiated-extension"}),
    "any-schema-fits": (any_schema_fits, {"host-should-validate-against-requested-schema"}),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_broken_client_fails_the_right_host_scenarios(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    breaks, expected = BREAKS[name]
    breaks(monkeypatch)
    results = {v["id"]: run_client_vector(v) for v in client_vectors()}
    failed = {sid for sid, r in results.items() if r["status"] == "fail"}
    assert failed == expected, {sid: results[sid]["reason"][:200] for sid in failed ^ expected}
