"""The golden vectors are the scenarios: the packaged JSON files are exactly what the suite
runs, they are well formed, they cover the whole testing plan, and replaying the files
gives the same verdicts as running the scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_variants.conformance.checks import OPS, placeholders, validate_check
from mcp_variants.conformance.cli import vector_text
from mcp_variants.conformance.client_vectors import run_client_vector
from mcp_variants.conformance.runner import RunConfig, all_vectors, load_vectors, packaged_vectors_dir, run

from .conftest import Suite, target_labels

BINDINGS = {"tool", "arguments", "declared", "declaredCore", "undeclared", "other", "structured", "tools", "uri", "established"}
LEVELS = {"MUST", "PLAN", "SHOULD"}


def test_packaged_vectors_are_exactly_the_scenarios() -> None:
    """Regenerate with: python -m mcp_variants check --write-vectors src/mcp_variants/conformance/vectors"""
    directory = packaged_vectors_dir()
    expected = {f"{v['id']}.json": vector_text(v) for v in all_vectors()}
    found = {p.name: p.read_text() for p in directory.glob("*.json")}
    assert sorted(found) == sorted(expected), "vector files differ from the scenario ids"
    stale = [name for name in expected if found[name] != expected[name]]
    assert not stale, f"stale vectors (regenerate them): {stale}"


def _check_checks(checks: list[Any], where: str, variables: set[str]) -> list[str]:
    problems = []
    for i, check in enumerate(checks):
        problems += validate_check(check, f"{where}[{i}]")
        inner = variables | ({check["var"]} if check.get("op") == "forEach" else set())
        unknown = placeholders({k: v for k, v in check.items() if k != "checks"}) - inner
        if unknown:
            problems.append(f"{where}[{i}]: unknown placeholders {sorted(unknown)}")
        problems += _check_checks(check.get("checks", []), f"{where}[{i}].checks", inner)
    return problems


def test_vectors_are_well_formed() -> None:
    vectors = all_vectors()
    ids = [v["id"] for v in vectors]
    assert len(ids) == len(set(ids)), "duplicate scenario ids"
    problems: list[str] = []
    for v in vectors:
        where = v["id"]
        if v["level"] not in LEVELS or not v["rules"] or not v.get("title"):
            problems.append(f"{where}: level, rules and title are required")
        for rule in v["rules"]:
            if not {"section", "quote", "level"} <= set(rule) <= {"check", "section", "quote", "level"} or rule["level"] not in LEVELS \
                    or not str(rule.get("check", "sep-3279-")).startswith("sep-3279-"):
                problems.append(f"{where}: malformed rule {rule}")
        if v["kind"] == "server":
            step_ids = [s["id"] for s in v["steps"]]
            assert len(step_ids) == len(set(step_ids)), where
            for step in v["steps"]:
                unknown = placeholders(step["params"]) - BINDINGS
                if unknown:
                    problems.append(f"{where}/{step['id']}: unknown placeholders {sorted(unknown)}")
                if placeholders(step["params"]) and not (v["bind"].get("tool") or v["bind"].get("apps")):
                    problems.append(f"{where}/{step['id']}: placeholders but no binding")
                problems += _check_checks(step.get("checks", []) + step.get("skipUnless", []), f"{where}/{step['id']}", BINDINGS)
        else:
            assert v["kind"] == "client", where
            assert {"client", "server", "act", "checks"} <= set(v), where
            problems += _check_checks(v["checks"], where, set())
        json.dumps(v)  # plain JSON, nothing Python-specific
    assert not problems, "\n".join(problems)


def test_every_op_is_used_by_some_vector() -> None:
    """The check language has no dead words: each op is exercised by the vectors themselves."""
    used: set[str] = set()

    def walk(checks: list[Any]) -> None:
        for c in checks:
            used.add(c["op"])
            walk(c.get("checks", []))

    for v in all_vectors():
        walk(v.get("checks", []))
        for step in v.get("steps", []):
            walk(step.get("checks", []) + step.get("skipUnless", []))
    assert used == OPS, f"ops no vector uses: {sorted(OPS - used)}; ops unknown: {sorted(used - OPS)}"


def test_the_whole_testing_plan_is_covered() -> None:
    """Each of the 15 items of the SEP's testing plan has at least one scenario."""
    plan = {v["plan"] for v in all_vectors() if "plan" in v}
    assert plan == set(range(1, 16)), sorted(plan)
    host_items = {v["plan"] for v in all_vectors() if v["kind"] == "client" and "plan" in v}
    assert {7, 12, 14, 15} <= host_items


def test_replaying_the_files_gives_the_scenarios_verdicts(suite: Suite) -> None:
    label = target_labels(suite.config)[0]
    from_files = run(suite.target(label), load_vectors(packaged_vectors_dir()),
                     RunConfig(calls=suite.run_config.calls, kinds=frozenset({"server", "client"})))
    statuses = {r["id"]: r["status"] for r in from_files["scenarios"]}
    expected = {r["id"]: r["status"] for r in suite.scorecard(label)["scenarios"]}
    expected.update({v["id"]: run_client_vector(v)["status"] for v in all_vectors() if v["kind"] == "client"})
    assert statuses == expected


def test_the_sdk_authors_page_lists_every_scenario() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "conformance.md").read_text()
    missing = [v["id"] for v in all_vectors() if f"`{v['id']}`" not in page]
    assert not missing, f"docs/conformance.md does not list {missing}"
