"""Scorecards as the official suite's results: one folder per scenario with a `checks.json`.

@modelcontextprotocol/conformance writes `<dir>/server-<scenario>-<timestamp>/checks.json`
(server mode) and `<dir>/<scenario>-<timestamp>/checks.json` (client mode), each an array of

    {"id", "name", "description", "status": "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED",
     "timestamp", "specReferences": [{"id", "url"}], "errorMessage"?, "details"?}

and its `traceability` command reads every `**/checks.json` under a folder. A scenario here
emits one check per rule it cites (the rule's `sep-3279-...` id; WARNING for a failed SHOULD), each
with its own verdict and messages when the scenario's failures name the rules they break
(`checkIds`: a server check that `judges` one rule, every client check), else the scenario's
verdict, plus the official `wire-schema-valid` for its 2026-12-01 messages.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from .rules import SEP_URL
from .runner import failure_text

_SEVERITY: Final = {"SKIPPED": 0, "SUCCESS": 1, "WARNING": 2, "FAILURE": 3}
_SCHEMA_REFERENCE: Final = {"id": "MCP-Schema", "url": "mcp_variants/conformance/vectors/schema/2026-12-01.json"}


def _status(verdict: str, level: str) -> str:
    return {"pass": "SUCCESS", "skip": "SKIPPED"}.get(verdict, "WARNING" if level == "SHOULD" else "FAILURE")


def _violations(node: Any) -> list[Any]:
    """Every `schemaViolations` entry anywhere in a scenario's evidence."""
    if isinstance(node, dict):
        return [*node.get("schemaViolations", []), *(v for value in node.values() for v in _violations(value))]
    if isinstance(node, list):
        return [v for item in node for v in _violations(item)]
    return []


def _messages(result: Mapping[str, Any], check_id: str) -> str:
    """The failures reported under `check_id`: those naming it when the scenario's failures name their rules
    (runner.failure), else every failure of the scenario (client mode's checks are judged per id already)."""
    failures = [f for f in result.get("failures") or [] if isinstance(f, dict)]
    own = [f for f in failures if f.get("check") == check_id] if "checkIds" in result and failures else []
    return "; ".join(failure_text(f) for f in own) or str(result["reason"])


def scenario_checks(result: Mapping[str, Any], timestamp: str) -> list[dict[str, Any]]:
    """The official-format checks of one scorecard entry."""
    by_id: dict[str, dict[str, Any]] = {}
    for rule in result.get("rules", []):
        check_id = rule.get("check")
        if not check_id:
            continue
        verdict = result.get("checkIds", {}).get(check_id, result["status"])
        entry = {"id": check_id, "name": result["id"], "description": f"{rule['section']}: {rule['quote']}",
                 "status": _status(verdict, rule["level"]), "timestamp": timestamp,
                 "specReferences": [{"id": "SEP-3279", "url": SEP_URL}],
                 "details": {"scenario": result["id"], "level": rule["level"],
                             **({"exempted": result["exempted"]} if result.get("exempted") else {})}}
        if entry["status"] in ("FAILURE", "WARNING") and result.get("reason"):
            entry["errorMessage"] = _messages(result, check_id)
        known = by_id.get(check_id)
        if known is None or _SEVERITY[entry["status"]] > _SEVERITY[known["status"]]:
            by_id[check_id] = entry
    checks = list(by_id.values())
    violations = [v for v in _violations(result.get("evidence")) if v.get("origin") == "received"]
    if result["status"] != "skip":
        checks.append({"id": "wire-schema-valid", "name": "WireSchemaValid",
                       "description": "Every 2026-12-01 JSON-RPC message the implementation sent is valid per the 2026-12-01 wire schema",
                       "status": "FAILURE" if violations else "SUCCESS", "timestamp": timestamp,
                       "specReferences": [_SCHEMA_REFERENCE], "details": {"violations": violations},
                       **({"errorMessage": "; ".join(f"{v['context']}: {v['errors'][0]}" for v in violations[:5])} if violations else {})})
    return checks


def write_results(scorecards: Iterable[Mapping[str, Any]], directory: Path) -> list[Path]:
    """One `<scenario>-<timestamp>/checks.json` per scenario (`server-` first for server scenarios)."""
    now = _dt.datetime.now(_dt.UTC)
    stamp = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    folder_stamp = stamp.replace(":", "-").replace(".", "-")
    written = []
    for card in scorecards:
        for result in card["scenarios"]:
            prefix = "server-" if result.get("kind") == "server" else ""
            folder = directory / f"{prefix}{result['id']}-{folder_stamp}"
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / "checks.json"
            path.write_text(json.dumps(scenario_checks(result, stamp), indent=2) + "\n")
            written.append(path)
    return written


def write_outputs(card: Mapping[str, Any], args: Any) -> None:
    """--scorecard FILE and --output-dir DIR (the official suite's results layout), for both commands."""
    if args.scorecard:
        args.scorecard.parent.mkdir(parents=True, exist_ok=True)
        args.scorecard.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
        print(f"scorecard: {args.scorecard}")
    if args.output_dir:
        written = write_results([card], args.output_dir)
        print(f"results: {len(written)} checks.json under {args.output_dir}")
