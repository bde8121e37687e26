"""`mcp-variants check-client`, black-box: the reference client passes every scenario, and each
deliberately broken client (tests/conformance/broken_clients/) fails exactly the check id of
the rule it breaks, and nothing else. Each run starts the client once per scenario, a real
process talking HTTP to the fixture server."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance import client_check
from mcp_variants.conformance.client_scenarios import client_mode_scenarios

HERE = Path(__file__).resolve().parent
BROKEN_CLIENTS = HERE / "broken_clients"
CHECK_CLIENT = [sys.executable, "-m", "mcp_variants", "check-client"]

# broken client -> (the one check id it fails, the scenarios in which it fails it)
EXPECTED: dict[str, tuple[str, set[str]]] = {
    "requested_outputs_legacy": ("sep-3279-client-no-requestedoutputs-before-2026-12-01",
                                 {"client-legacy-2026-07-28", "client-legacy-2025-11-25-apps", "client-legacy-2025-11-25"}),
    "duplicate_selector": ("sep-3279-client-no-duplicate-selector",
                           {"client-conversational", "client-code-mode", "client-structured-model", "client-user-display",
                            "client-apps-mode", "client-code-mode-variant-not-declared", "client-no-user-display",
                            "client-block-annotations"}),
    "unnegotiated_ui": ("sep-3279-client-no-unnegotiated-extension-request", {"client-apps-extension-not-negotiated"}),
    "programmatic_to_model": ("sep-3279-client-programmatic-output-not-in-model-or-user", {"client-code-mode"}),
    "legacy_fallback": ("sep-3279-client-rejects-tool-without-outputvariants", {"client-rejects-tool-without-outputvariants"}),
}


def failures(card: dict[str, Any]) -> set[tuple[str, str]]:
    return {(r["id"], cid) for r in card["scenarios"] for cid, status in r["checkIds"].items() if status == "fail"}


@pytest.fixture(scope="module")
def reference_card() -> dict[str, Any]:
    return client_check.run(client_check.REFERENCE_COMMAND)


@pytest.fixture(scope="module")
def broken_cards() -> dict[str, dict[str, Any]]:
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(client_check.run, [sys.executable, str(BROKEN_CLIENTS / f"{name}.py")]) for name in EXPECTED}
        return {name: future.result() for name, future in futures.items()}


def test_the_reference_client_passes_every_scenario(reference_card: dict[str, Any]) -> None:
    bad = {r["id"]: r["reason"] for r in reference_card["scenarios"] if r["status"] != "pass"}
    assert not bad, bad
    assert reference_card["ok"] and reference_card["totals"]["scenarios"] == len(client_mode_scenarios())
    must = reference_card["verdict"]["mustRules"]
    assert reference_card["verdict"]["status"] == "pass" and must["exercised"] == must["of"] == 12, must
    code_mode = next(r for r in reference_card["scenarios"] if r["id"] == "client-code-mode")
    calls = [m for m in code_mode["evidence"]["sent"] if m.get("method") == "tools/call"]
    assert [c["params"]["requestedOutputs"] for c in calls] == [[{"audience": "programmatic", "format": "structured"}]]
    assert [d["consumer"] for d in code_mode["evidence"]["deliveries"]] == ["program"]


def test_every_2026_12_01_message_is_schema_checked(reference_card: dict[str, Any]) -> None:
    wire = reference_card["wireSchema"]
    assert wire["ok"] and wire["messagesValidated"] > 30, wire
    # The fixture breaks the schema on purpose in one scenario only: a Tool without outputVariants.
    assert {v["context"].split(":")[0] for v in wire["harnessViolations"]} == {"client-rejects-tool-without-outputvariants"}


def test_every_broken_client_has_a_launcher() -> None:
    assert {p.stem for p in BROKEN_CLIENTS.glob("*.py") if not p.stem.startswith("_")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_broken_client_fails_exactly_its_rule(broken_cards: dict[str, dict[str, Any]], name: str) -> None:
    card = broken_cards[name]
    check_id, scenarios = EXPECTED[name]
    reasons = {r["id"]: r["reason"][:300] for r in card["scenarios"] if r["status"] == "fail"}
    assert failures(card) == {(s, check_id) for s in scenarios}, reasons
    assert {r["id"] for r in card["scenarios"] if r["status"] == "fail"} == scenarios
    assert not card["ok"] and card["wireSchema"]["ok"]


def check_client(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CHECK_CLIENT, *args], check=False, capture_output=True, text=True, timeout=timeout)


def test_the_command_line_exit_codes_and_results(tmp_path: Path) -> None:
    broken = f"{sys.executable} {BROKEN_CLIENTS / 'programmatic_to_model.py'}"
    done = check_client("--command", broken, "--scenario", "client-code-mode,client-legacy-2026", "-o", str(tmp_path / "results"),
                        "--scorecard", str(tmp_path / "card.json"))
    assert done.returncode == 1, done.stdout + done.stderr
    # The prefix client-code-mode names two scenarios.
    assert "FAIL  MUST   client-code-mode" in done.stdout and "3 scenarios: 2 pass, 1 fail" in done.stdout
    [checks_file] = (tmp_path / "results").glob("client-code-mode-[0-9]*/checks.json")
    statuses = {c["id"]: c["status"] for c in json.loads(checks_file.read_text())}
    assert statuses["sep-3279-client-programmatic-output-not-in-model-or-user"] == "FAILURE"
    assert statuses["sep-3279-client-selects-only-advertised"] == statuses["wire-schema-valid"] == "SUCCESS"
    assert json.loads((tmp_path / "card.json").read_text())["requiredFailures"] == ["client-code-mode"]


def test_a_client_that_hangs_or_reports_garbage_fails(tmp_path: Path) -> None:
    hang = f"{sys.executable} -c 'import time; time.sleep(30)'"
    done = check_client("--command", hang, "--scenario", "client-code-mode", "--timeout", "2")
    assert done.returncode == 1 and "did not finish within 2 s" in done.stdout, done.stdout
    garbage = f"""{sys.executable} -c 'import os; open(os.environ["MCP_CONFORMANCE_DELIVERIES"], "a").write("not json\\n")'"""
    done = check_client("--command", garbage, "--scenario", "client-code-mode")
    assert done.returncode == 1 and "deliveries file: line 1 is not JSON" in done.stdout, done.stdout


def test_a_client_that_calls_nothing_fails_and_says_what_it_left_undone(tmp_path: Path) -> None:
    """A client that exits without calling the tool would pass every "never does X" check of nothing. It once made
    those scenarios skips (INCOMPLETE, exit 0 with --allow-skips); each now requires first that the client did
    what it hands it, so the client fails them, naming what it did not do, and --allow-skips changes nothing."""
    idle = f"{sys.executable} -c pass"
    quiet = ["--scenario", "client-code-mode-variant-not-declared,client-no-user-display", "-q"]
    done = check_client("--command", idle, *quiet, "--scorecard", str(tmp_path / "card.json"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 scenarios: 0 pass, 2 fail" in done.stdout
    assert "the client did not do what the scenario hands it, so none of its checks can pass: no tools/call of search_customers " \
           "at 2026-12-01; no delivery reported in MCP_CONFORMANCE_DELIVERIES" in done.stdout
    verdict = json.loads((tmp_path / "card.json").read_text())["verdict"]
    assert verdict["mustRules"]["exercised"] == 0 and verdict["status"] == "fail"
    assert check_client("--command", idle, *quiet, "--allow-skips").returncode == 1


def test_a_command_that_cannot_start_exits_2() -> None:
    done = check_client("--command", "/nonexistent/client", "--scenario", "client-code-mode")
    assert done.returncode == 2 and "cannot run" in done.stderr, done.stdout + done.stderr


def test_list_names_every_scenario_and_rule() -> None:
    done = check_client("--list")
    assert done.returncode == 0
    for scenario in client_mode_scenarios():
        assert scenario["id"] in done.stdout
    assert "sep-3279-client-no-duplicate-selector: Request-time selection" in done.stdout
