"""`mcp-variants check-client`: the SEP-3279 client scenarios against any client, black-box.

Modelled on the official suite's client mode. For each scenario the suite starts a fixture
server on loopback (fixture.py) and runs the client command with the server URL as its last
argument and, in its environment:

* `MCP_CONFORMANCE_SCENARIO`: the scenario id;
* `MCP_CONFORMANCE_PROTOCOL_VERSION`: the version to speak (initialize up to 2025-11-25,
  the stateless `_meta` envelope from 2026-07-28);
* `MCP_CONFORMANCE_CONTEXT`: JSON `{"name", "tool", "arguments", "mode", "extensions", "consumers"}`:
  call `tool` with `arguments` in execution `mode`, advertising `extensions`, as a host that
  has the consumers `consumers` (of model, user, program, view);
* `MCP_CONFORMANCE_DELIVERIES`: a file to append one JSON line to per thing the client hands
  to a consumer: `{"consumer": "model" | "user" | "program" | "view", "payload": ...}`.

The suite records every message the client sends, reads the deliveries, and evaluates the
scenario's checks. Before any check, the client must have done what the scenario hands it
(`prerequisite`): a client that does nothing, crashes, or exits non-zero where refusing is not the
right behaviour fails the scenario, whatever its "never does X" checks would say of nothing. A
client that does not finish in time fails the scenario.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from .checks import CheckError, evaluate
from .client_scenarios import CONSUMERS, client_mode_scenarios, scenario_rules
from .constants import VERSION_KEY
from .fixture import Fixture, FixtureHttpServer
from .runner import trim, wire_schema_summary
from .scorecards import write_outputs
from .verdict import EXIT_CODES, EXIT_OK, EXIT_UNREACHABLE, judge, must_ids, verdict_lines
from .wire_schema import SchemaReport

ENV_SCENARIO = "MCP_CONFORMANCE_SCENARIO"
ENV_VERSION = "MCP_CONFORMANCE_PROTOCOL_VERSION"
ENV_CONTEXT = "MCP_CONFORMANCE_CONTEXT"
ENV_DELIVERIES = "MCP_CONFORMANCE_DELIVERIES"
REFERENCE_COMMAND = [sys.executable, "-m", "mcp_variants.conformance.reference_client"]
_OUTPUT_KEEP = 4000


class ClientCommandError(RuntimeError):
    """The client command cannot be run at all."""


def read_deliveries(path: Path) -> tuple[dict[str, list[Any]], list[Any], list[str]]:
    """(payloads by consumer, every line, problems) of a deliveries file."""
    delivered: dict[str, list[Any]] = {name: [] for name in CONSUMERS}
    lines: list[Any] = []
    problems: list[str] = []
    text = path.read_text(errors="replace") if path.exists() else ""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            problems.append(f"line {number} is not JSON: {line[:120]!r}")
            continue
        lines.append(item)
        consumer = item.get("consumer") if isinstance(item, dict) else None
        if consumer not in delivered or "payload" not in item:
            problems.append(f"line {number}: expected {{\"consumer\": one of {list(CONSUMERS)}, \"payload\": ...}}, got {line[:120]!r}")
            continue
        delivered[consumer].append(item["payload"])
    return delivered, lines, problems


def run_scenario(command: Sequence[str], scenario: Mapping[str, Any], timeout: float, schema: SchemaReport) -> dict[str, Any]:
    """Run the client once against the scenario's fixture; the scorecard entry."""
    started = time.monotonic()
    fixture = Fixture(scenario["server"], scenario["id"])
    with tempfile.TemporaryDirectory(prefix="mcp-variants-check-client-") as tmp, FixtureHttpServer(fixture) as server:
        deliveries = Path(tmp) / "deliveries.jsonl"
        env = {**os.environ, ENV_SCENARIO: scenario["id"], ENV_VERSION: scenario["version"],
               ENV_CONTEXT: json.dumps({"name": scenario["id"], **scenario["context"]}), ENV_DELIVERIES: str(deliveries)}
        argv = [*command, server.url]
        timed_out = False
        try:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
            exit_code: int | None = done.returncode
            stdout, stderr = done.stdout, done.stderr
        except subprocess.TimeoutExpired as exc:
            timed_out, exit_code = True, None
            stdout, stderr = _text(exc.stdout), _text(exc.stderr)
        except OSError as exc:
            raise ClientCommandError(f"cannot run {shlex.join(argv)}: {exc}") from exc
        delivered, lines, problems = read_deliveries(deliveries)
    schema.validated += fixture.schema.validated
    schema.violations += fixture.schema.violations
    record = {"sent": fixture.received, "delivered": delivered, "deliveries": lines, "exitCode": exit_code, "timedOut": timed_out}
    verdicts = []
    try:
        verdicts = [(c, evaluate(c, record)) for c in scenario["checks"]]
    except CheckError as exc:
        problems.append(f"the scenario cannot be evaluated: {exc}")
    ids: dict[str, str] = {}
    for check, verdict in verdicts:
        ids.setdefault(check["check"], "pass")
        if not verdict.ok:
            ids[check["check"]] = "fail"
    failed = [f"{v.says}: {v.detail}" if v.detail else v.says for _, v in verdicts if not v.ok]
    if timed_out:
        failed.insert(0, f"the client did not finish within {timeout:g} s")
    failed += [f"deliveries file: {p}" for p in problems]
    rules = scenario_rules(dict(scenario))
    unmet = prerequisite(scenario, fixture.received, lines, exit_code, timed_out)
    if unmet:
        failed.insert(0, f"the client did not do what the scenario hands it, so none of its checks can pass: {unmet}")
        ids = {cid: "skip" for cid in ids}  # not judged: the failure is the scenario's, not any rule's
    must_failed = timed_out or bool(problems) or bool(unmet) or any(
        status == "fail" and next(r["level"] for r in rules if r["check"] == cid) != "SHOULD" for cid, status in ids.items())
    return {
        "id": scenario["id"], "title": scenario["title"], "kind": scenario["kind"],
        "level": "MUST" if must_failed or scenario["level"] == "MUST" else "SHOULD",
        "version": scenario["version"], "rules": rules,
        "status": "fail" if failed else "pass",
        "reason": "; ".join(failed),
        "failures": failed,
        **({"prerequisite": unmet} if unmet else {}),
        "mustFailed": must_failed,
        "checkIds": ids,
        "evidence": {"context": scenario["context"], "command": shlex.join(argv), "exitCode": exit_code,
                     "stdout": stdout[-_OUTPUT_KEEP:], "stderr": stderr[-_OUTPUT_KEEP:],
                     "sent": trim(fixture.received), "deliveries": trim(lines),
                     "checks": [{**v.to_json(), "check": c["check"]} for c, v in verdicts],
                     "schemaViolations": [v.to_json() for v in fixture.schema.violations]},
        "durationMs": round((time.monotonic() - started) * 1000, 1),
    }


def prerequisite(scenario: Mapping[str, Any], sent: Sequence[Any], deliveries: Sequence[Any], exit_code: int | None,
                 timed_out: bool) -> str | None:
    """What the client left undone of what the scenario hands it (client_scenarios: `requires`), or None.

    "call": a tools/call of the scenario's tool at the scenario's version, at least one delivery reported, exit 0.
    "list": a tools/list at the scenario's version (refusing what it lists is the right behaviour: any exit status)."""
    version = scenario["version"]
    messages = [m for m in sent if isinstance(m, dict)]
    handshake = any(m.get("method") == "initialize" and (m.get("params") or {}).get("protocolVersion") == version for m in messages)

    def at_version(method: str) -> bool:
        return any(m.get("method") == method and (
            ((m.get("params") or {}).get("_meta") or {}).get(VERSION_KEY) == version or handshake) for m in messages)

    if timed_out:
        return None  # already its own failure
    if scenario.get("requires", "call") == "list":
        return None if at_version("tools/list") else f"no tools/list at {version}"
    missing = []
    if not at_version("tools/call"):
        missing.append(f"no tools/call of {scenario['context']['tool']} at {version}")
    if not deliveries and scenario.get("delivers", True):
        missing.append(f"no delivery reported in {ENV_DELIVERIES}")
    if exit_code != 0:
        missing.append(f"the client exited with status {exit_code} (a client error is allowed only where refusing is right)")
    return "; ".join(missing) or None


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else (value or "")


def wanted(scenario: Mapping[str, Any], only: set[str] | None, versions: set[str] | None) -> bool:
    if versions and scenario["version"] not in versions:
        return False
    return not only or any(scenario["id"] == o or scenario["id"].startswith(o) for o in only)


def run(command: Sequence[str], *, only: set[str] | None = None, versions: set[str] | None = None, timeout: float = 30.0,
        progress: Callable[[dict[str, Any]], None] | None = None, allow_skips: bool = False) -> dict[str, Any]:
    """Every wanted client-mode scenario against `command`; the scorecard."""
    started = time.monotonic()
    schema = SchemaReport()
    results = []
    for scenario in client_mode_scenarios():
        if wanted(scenario, only, versions):
            results.append(run_scenario(command, scenario, timeout, schema))
            if progress:
                progress(results[-1])
    required = [r["id"] for r in results if r["status"] == "fail" and r["mustFailed"]]
    wire = wire_schema_summary(schema, implementation="received")
    judgeable = must_ids({"rules": scenario_rules(s)} for s in client_mode_scenarios())
    verdict = judge(results, judgeable, failed=bool(required) or not wire["ok"], allow_skips=allow_skips)
    return {
        "suite": "SEP-3279 conformance, client mode (mcp-variants)", "suiteVersion": __version__,
        "generatedAt": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "target": {"command": shlex.join(command)},
        "durationMs": round((time.monotonic() - started) * 1000, 1),
        "totals": {"scenarios": len(results), **{s: sum(1 for r in results if r["status"] == s) for s in ("pass", "fail", "skip")},
                   "requiredFailures": len(required)},
        "ok": verdict["exitCode"] == EXIT_OK, "verdict": verdict, "requiredFailures": required, "wireSchema": wire,
        "scenarios": results,
    }


# ---- the command ------------------------------------------------------------------------------------------


def format_line(result: Mapping[str, Any]) -> str:
    mark = result["status"].upper()
    line = f"{mark}  {result['level']:<6} {result['id']}  ({result['version']})"
    if result["status"] != "pass":
        line += f"\n        {result['reason'][:600]}"
    return line


def main(args: Any) -> int:
    """`mcp-variants check-client` (options: options.add_client_arguments)."""
    scenarios = client_mode_scenarios()
    if args.list:
        for s in scenarios:
            print(f"{s['id']}  [{s['level']}] {s['version']} {s['context']['mode']}: {s['title']}")
            for r in scenario_rules(s):
                print(f"    {r['check']}: {r['section']}: \"{r['quote']}\"")
        return 0
    command = shlex.split(args.client_command) if args.client_command else REFERENCE_COMMAND
    only = {part.strip() for item in args.scenario for part in item.split(",") if part.strip()} or None
    versions = {part.strip() for item in args.version for part in item.split(",") if part.strip()} or None
    print(f"client under test: {shlex.join(command)}", flush=True)

    def progress(result: dict[str, Any]) -> None:
        if not args.quiet or result["status"] == "fail":
            print(format_line(result), flush=True)

    try:
        card = run(command, only=only, versions=versions, timeout=args.timeout, progress=progress, allow_skips=args.allow_skips)
    except ClientCommandError as exc:
        print(f"mcp-variants check-client: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE
    t, wire = card["totals"], card["wireSchema"]
    problems = [f"{t['requiredFailures']} required scenario(s) failed"] if t["requiredFailures"] else []
    if not wire["ok"]:
        problems.append(f"{wire['violationCount']} client message(s) break the {wire['version']} wire schema")
        for violation in wire["violations"][:5]:
            print(f"  schema: {violation['context']}: {'; '.join(violation['errors'][:3])}")
    print(f"{t['scenarios']} scenarios: {t['pass']} pass, {t['fail']} fail, {t['skip']} skip in {card['durationMs'] / 1000:.1f} s; "
          f"{wire['messagesValidated']} {wire['version']} messages checked against the wire schema.")
    print("\n".join(verdict_lines(card["verdict"], problems, "check-client")))
    write_outputs(card, args)
    return int(card["verdict"]["exitCode"])


def entry(argv: list[str] | None = None) -> int:
    """`mcp-variants-check-client` (the light install's command): the same as `mcp-variants check-client`."""
    import argparse

    from .options import CLIENT_CHECK_DESCRIPTION, add_client_arguments

    parser = argparse.ArgumentParser(prog="mcp-variants-check-client", description=CLIENT_CHECK_DESCRIPTION, epilog=EXIT_CODES)
    add_client_arguments(parser)
    return main(parser.parse_args(argv))
