"""The suite can fail: each deliberately broken variant of our server (tests/conformance/broken/)
fails exactly the scenarios that check the behaviour it breaks, and passes the others.

Each variant runs as one HTTP process (one process serves every protocol version, so this
costs one start-up per variant); the variants run three at a time. Together they fail every
server scenario (test_coverage.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.binding import CallConfig
from mcp_variants.conformance.constants import OUTPUTS_VERSION
from mcp_variants.conformance.runner import RunConfig, format_line, run
from support.servers import HttpServer

from .conftest import BROKEN, Suite

# variant -> the scenarios it must fail; anything else failing (or skipping) is a bug of
# the suite (a check that is too broad) or of the variant (it breaks more than one thing).
EXPECTED: dict[str, set[str]] = {
    # (a) a structured output requested alone also comes back mirrored into assistant/content
    "mirror": {"plan-02-code-mode", "plan-03-structured-model-input", "plan-05-host-native-table",
               "plan-08-app-only-explicit-ui", "plan-11-independent-schemas", "must-no-unrequested-output", "must-no-mirror"},
    # (b) assistant/content substituted for a refused selector
    "substitute": {"plan-10a-undeclared-selector", "plan-10b-unnegotiated-extension", "plan-10c-arbitrary-audience",
                   "plan-10d-non-core-combination"},
    # (c) `outputs` in a 2026-07-28 result
    "outputs_legacy": {"plan-13-legacy-projection-2026-07-28"},
    # (d) programmatic/structured breaks its schema and is sent as a success
    "schema_break": {"plan-02-code-mode", "plan-11-independent-schemas", "must-structured-outputs-valid"},
    # (e) the ui variant listed to a client that did not negotiate the extension
    "ui_unnegotiated": {"must-no-unnegotiated-extension-audience"},
    # (f) -32600 instead of -32602 for a refused selector
    "wrong_code": {"plan-10a-undeclared-selector", "plan-10b-unnegotiated-extension", "plan-10c-arbitrary-audience",
                   "plan-10d-non-core-combination"},
    # (g) no fixed fallback: every core variant when requestedOutputs is absent
    "no_fallback": {"plan-09-app-only-fallback", "must-fallback-assistant-content"},
    # (h) the legacy outputSchema is the programmatic schema
    "legacy_programmatic_schema": {"must-legacy-outputschema-not-from-other-audiences",
                                   "should-legacy-outputschema-from-assistant-structured", "plan-13-legacy-projection-2026-07-28",
                                   "must-legacy-shapes-2025-11-25", "must-legacy-shapes-2025-06-18"},
    # (i) a Tool without outputVariants at 2026-12-01 (its missing variants show no core combination either)
    "missing_outputvariants": {"must-outputvariants-on-every-tool", "plan-07-every-tool-declares-assistant-content",
                               "should-no-outputschema-at-2026-12-01", "must-core-combinations-only"},
    # (j) a Tool whose outputVariants lack assistant/content
    "no_assistant_content": {"plan-07-every-tool-declares-assistant-content"},
    # (k) outputVariants in every legacy listing
    "legacy_outputvariants": {"plan-13-legacy-projection-2026-07-28", "must-legacy-shapes-2025-11-25", "must-legacy-shapes-2025-06-18",
                              "must-legacy-shapes-2025-03-26", "must-legacy-shapes-2024-11-05"},
    # (l) requestedOutputs at 2026-07-28 answered with `outputs`
    "requested_outputs_signal": {"must-requestedoutputs-at-2026-07-28-never-yields-outputs"},
    # (m) the legacy content is structuredContent as JSON text
    "legacy_content_from_structured": {"should-legacy-content-from-assistant-content"},
    # (n) a failing call answers only the first requested selector
    "error_one_output": {"should-error-outputs-per-selector"},
    # (o) user/structured listed without its schema
    "schema_missing": {"should-structured-variants-declare-schema"},
    # (p) assistant/content without a content block
    "empty_assistant_content": {"plan-01-conversational", "must-assistant-content-usable"},
    # (q) a 2026-12-01 success also carries the legacy `content`
    "legacy_fields": {"plan-01-conversational", "plan-02-code-mode", "plan-03-structured-model-input", "plan-04-user-media",
                      "plan-05-host-native-table", "plan-06-apps-call", "plan-08-app-only-explicit-ui", "plan-09-app-only-fallback",
                      "must-fallback-assistant-content", "must-result-shape-2026-12-01", "must-no-mirror"},
    # (r) every output labelled audience assistant, whatever it answers
    "mislabelled": {"plan-02-code-mode", "plan-04-user-media", "plan-05-host-native-table", "plan-06-apps-call",
                    "plan-08-app-only-explicit-ui", "plan-11-independent-schemas", "must-one-output-per-requested-selector",
                    "must-no-unrequested-output", "must-selector-match", "must-structured-outputs-valid",
                    "should-error-outputs-per-selector"},
    # (s) a variant listed twice
    "duplicate_pair": {"must-no-duplicate-variant-pairs"},
    # (t) programmatic/content declared
    "programmatic_content": {"must-core-combinations-only"},
}


# The only variant whose messages break the 2026-12-01 wire schema (a Tool without outputVariants).
SCHEMA_BREAKERS = {"missing_outputvariants"}


def _run_variant(name: str, root: Path) -> dict[str, Any]:
    server = HttpServer(root, log=root.parent / f"broken-{name}.log", script=BROKEN / f"{name}.py")
    try:
        return run(server.target, config=RunConfig(kinds=frozenset({"server"})))
    finally:
        server.close()


@pytest.fixture(scope="session")
def broken_scorecards(suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    if not suite.ours:
        pytest.skip("the broken variants are of this project's server; not run against an external one")
    root = tmp_path_factory.mktemp("broken-root")
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(_run_variant, name, root) for name in EXPECTED}
        return {name: future.result() for name, future in futures.items()}


def test_every_variant_has_a_launcher() -> None:
    launchers = {p.stem for p in BROKEN.glob("*.py") if not p.stem.startswith("_")}
    assert launchers == set(EXPECTED)


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_broken_variant_fails_the_right_scenarios(broken_scorecards: dict[str, dict[str, Any]], variant: str) -> None:
    card = broken_scorecards[variant]
    failed = {r["id"] for r in card["scenarios"] if r["status"] == "fail"}
    skipped = {r["id"]: r["reason"] for r in card["scenarios"] if r["status"] == "skip"}
    reasons = {r["id"]: r["reason"][:300] for r in card["scenarios"] if r["status"] == "fail"}
    assert not skipped, f"{variant}: scenarios skipped: {skipped}"
    assert EXPECTED[variant] <= failed, f"{variant}: the suite missed {sorted(EXPECTED[variant] - failed)}; failed: {reasons}"
    assert failed <= EXPECTED[variant], f"{variant}: unrelated scenarios failed: {({k: reasons[k] for k in failed - EXPECTED[variant]})}"
    if any(r["level"] != "SHOULD" for r in card["scenarios"] if r["id"] in failed):
        assert not card["ok"], f"{variant}: a MUST scenario failed but the scorecard says ok"


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_only_the_schema_breaking_variant_breaks_the_wire_schema(broken_scorecards: dict[str, dict[str, Any]], variant: str) -> None:
    wire = broken_scorecards[variant]["wireSchema"]
    assert wire["harnessViolations"] == []
    if variant in SCHEMA_BREAKERS:
        assert not wire["ok"] and not broken_scorecards[variant]["ok"]
        assert all("'outputVariants' is a required property" in " ".join(v["errors"]) for v in wire["violations"]), wire["violations"]
    else:
        assert wire["ok"], wire["violations"]


# ---- --established: a migrated tool's outputSchema kept for older clients, named by the person ---------------------

LEGACY_SCHEMA_SCENARIOS = {"must-legacy-outputschema-not-from-other-audiences", "should-legacy-outputschema-from-assistant-structured"}


@pytest.fixture(scope="module")
def legacy_programmatic_server(suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    if not suite.ours:
        pytest.skip("a broken variant of this project's server; not run against an external one")
    root = tmp_path_factory.mktemp("established-root")
    server = HttpServer(root, log=root.parent / "established.log", script=BROKEN / "legacy_programmatic_schema.py")
    try:
        yield server
    finally:
        server.close()


def programmatic_schema_tools(server: HttpServer) -> list[str]:
    """The tools whose legacy outputSchema the variant makes their programmatic/structured schema, in listing order."""
    tools = server.target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).response["result"]["tools"]  # type: ignore[index]
    return [t["name"] for t in tools if any(v["audience"] == "programmatic" and "schema" in v for v in t["outputVariants"])]


def legacy_schema_results(server: HttpServer, established: list[str]) -> dict[str, dict[str, Any]]:
    card = run(server.target, config=RunConfig(kinds=frozenset({"server"}), only=LEGACY_SCHEMA_SCENARIOS,
                                               calls=CallConfig(established=established)))
    return {r["id"]: r for r in card["scenarios"]}


def test_the_tools_named_established_are_exempt_from_the_new_tool_rules_and_said_to_be(
        legacy_programmatic_server: HttpServer) -> None:
    """SEP-3279 asks its legacy outputSchema rules of a new tool, and asks a server to keep a migrated tool's established
    outputSchema: named with --established, the variant's tools pass both scenarios, and each result names them and why."""
    names = programmatic_schema_tools(legacy_programmatic_server)
    assert len(names) > 1, names
    results = legacy_schema_results(legacy_programmatic_server, names)
    for sid in LEGACY_SCHEMA_SCENARIOS:
        assert results[sid]["status"] == "pass", results[sid]["reason"]
        assert results[sid]["exempted"]["tools"] == names
        line = format_line(results[sid])
        assert f"not judged: {', '.join(names)}, named with --established: it already served older clients" in line, line
        assert "SEP-3279 says a server SHOULD preserve" in line


def test_a_tool_named_established_does_not_exempt_another(legacy_programmatic_server: HttpServer) -> None:
    """Without the option both scenarios fail, the MUST's message naming the option for the tool it fails; naming every
    tool but one leaves that one judged, and failing, alone."""
    names = programmatic_schema_tools(legacy_programmatic_server)
    strict = legacy_schema_results(legacy_programmatic_server, [])
    assert {sid: r["status"] for sid, r in strict.items()} == dict.fromkeys(LEGACY_SCHEMA_SCENARIOS, "fail")
    assert "exempted" not in strict["must-legacy-outputschema-not-from-other-audiences"]
    first = names[0]
    assert (f"SEP-3279 forbids this for a new tool; if {first} already had this outputSchema before it declared variants, "
            f"a migrated tool keeping its established shape, pass --established {first}"
            in strict["must-legacy-outputschema-not-from-other-audiences"]["reason"])
    *others, last = names
    results = legacy_schema_results(legacy_programmatic_server, others)
    for sid in LEGACY_SCHEMA_SCENARIOS:
        result = results[sid]
        assert result["status"] == "fail", sid
        assert result["exempted"]["tools"] == others
        judged = set(re.findall(r'\[t="([^"]+)"\]', result["reason"]))
        assert judged == {last}, (sid, judged)


# ---- a legacy content that really differs: the failure says the difference alone ----------------------------------


def test_a_legacy_content_that_really_differs_keeps_its_plain_failure(suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> None:
    """(m) serves the JSON text of structuredContent as the legacy content, the same on every call: the earlier call,
    sent again, answers as it did, so the failure is a real difference across versions and says that alone, never that
    the tool's result changes between calls (changing_results.py)."""
    if not suite.ours:
        pytest.skip("a broken variant of this project's server; not run against an external one")
    root = tmp_path_factory.mktemp("legacy-content-root")
    server = HttpServer(root, log=root.parent / "legacy-content.log", script=BROKEN / "legacy_content_from_structured.py")
    try:
        card = run(server.target, config=RunConfig(kinds=frozenset({"server"}), only={"should-legacy-content-from-assistant-content"}))
    finally:
        server.close()
    [result] = card["scenarios"]
    assert result["status"] == "fail", result
    [failure] = result["failures"]
    assert failure["message"].startswith("the legacy `content` equals the assistant/content output of the same call at "
                                         "2026-12-01: found [[{"), failure["message"]
    assert "resultChangedWhenRepeated" not in failure and "changed between two identical calls" not in failure["message"]
