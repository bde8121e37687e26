"""Run the vectors against a target and write the scorecard.

For each server vector: choose a tool (binding.py), fill in the placeholders, send each
step's request (wire.py), evaluate the step's `skipUnless` and `checks` (checks.py), and
record pass / fail / skip with the evidence: the bindings, every request and response
(long strings cut), and every check's verdict. Client vectors go to client_vectors.py.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from .. import __version__
from .binding import (
    ESTABLISHED_WHY,
    READ_ONLY_CHOICE,
    BindingFailure,
    BindingSkip,
    CallConfig,
    bind_all,
    bind_apps,
    bindings_to_run,
)
from .call_outcome import call_failure
from .changing_results import ChangingResults, changed_note
from .checks import CheckError, Verdict, evaluate, placeholders, render
from .client_vectors import client_vectors, run_client_vector
from .constants import HANDSHAKE_VERSIONS, OUTPUTS_VERSION, UI_EXTENSIONS, UNSUPPORTED_VERSION
from .repeated_calls import RepeatedCalls, Request, failure_note
from .scenarios import server_vectors
from .tool_report import qualified_ok, tool_lines, tool_report
from .verdict import EXIT_OK, REQUIRED_LEVELS, judge, must_ids, status_mark, status_totals, totals_line, verdict_lines
from .wire import RoundTrip, Target, TargetError, ext_key
from .wire_schema import SchemaReport

MAX_PAGES = 50


def all_vectors() -> list[dict[str, Any]]:
    """Every scenario, as the vectors the runner interprets (server ones first)."""
    return server_vectors() + client_vectors()


def packaged_vectors_dir() -> Path:
    return Path(str(resources.files("mcp_variants.conformance"))) / "vectors"


def load_vectors(directory: Path) -> list[dict[str, Any]]:
    """Vectors from JSON files (one scenario each), ordered as the suite orders them."""
    vectors = [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
    order = {v["id"]: i for i, v in enumerate(all_vectors())}
    return sorted(vectors, key=lambda v: (order.get(v.get("id"), len(order)), v.get("id", "")))


@dataclass
class RunConfig:
    calls: CallConfig = field(default_factory=CallConfig)
    only: set[str] | None = None  # scenario ids (or id prefixes) to run
    kinds: frozenset[str] = frozenset({"server", "client"})
    timeout: float = 60.0
    all_tools: bool = False  # run each server scenario with every fitting tool, not only the first
    # Each server scenario with the first fitting tool only, named or not: what the TypeScript suite does, for comparing
    # the two case by case (tests/outside/test_ts_scenarios.py); not a verdict to trust on its own.
    first_fit: bool = False
    allow_skips: bool = False  # a required scenario that cannot be exercised leaves the verdict incomplete, exit 0


def wanted(vector: Mapping[str, Any], config: RunConfig) -> bool:
    if vector.get("kind") not in config.kinds:
        return False
    if config.only:
        return any(vector["id"] == o or vector["id"].startswith(o) for o in config.only)
    return True


# ---- evidence ----------------------------------------------------------------------------------------------


def trim(value: Any, limit: int = 400, depth: int = 0) -> Any:
    """A copy of `value` small enough for a scorecard: long strings and lists cut, deep trees elided."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"…(+{len(value) - limit} chars)"
    if depth > 12:
        return "…"
    if isinstance(value, list):
        items = [trim(v, limit, depth + 1) for v in value[:30]]
        return items + ([f"…(+{len(value) - 30} items)"] if len(value) > 30 else [])
    if isinstance(value, dict):
        return {k: trim(v, limit, depth + 1) for k, v in value.items()}
    return value


def summarize_listing(response: Any) -> Any:
    """A tools/list response reduced to names, variant pairs and which fields are present."""
    result = response.get("result") if isinstance(response, dict) else None
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return trim(response)
    tools = []
    for tool in result["tools"]:
        if not isinstance(tool, dict):
            tools.append(trim(tool))
            continue
        entry: dict[str, Any] = {"name": tool.get("name"), "fields": sorted(tool)}
        if isinstance(tool.get("outputVariants"), list):
            entry["outputVariants"] = [
                f"{v.get('audience')}/{v.get('format')}{' +schema' if 'schema' in v else ''}" if isinstance(v, dict) else trim(v)
                for v in tool["outputVariants"]]
        tools.append(entry)
    summary = {k: trim(v) for k, v in result.items() if k != "tools"}
    summary["tools"] = tools
    return {**{k: v for k, v in response.items() if k != "result"}, "result": summary, "summarized": True}


# ---- server vectors ----------------------------------------------------------------------------------------


class Discovery:
    """tools/list at 2026-12-01, without extensions and with the ui extension, every page."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.listings: dict[str, list[dict[str, Any]] | str] = {}
        self.evidence: dict[str, Any] = {}
        self.transport_problems: list[str] = []
        self.server_name: str | None = None

    def run(self) -> None:
        for name, extensions in (("plain", {}), ("ui", UI_EXTENSIONS)):
            trip = list_all(self.target, OUTPUTS_VERSION, extensions, self.timeout)
            response = trip.response
            if trip.problem:
                self.listings[name] = trip.problem
                self.transport_problems.append(trip.problem)
            elif not isinstance(response, dict) or not isinstance((response.get("result") or {}).get("tools"), list):
                self.listings[name] = f"no tools array in {json.dumps(response)[:400]}"
            else:
                self.listings[name] = response["result"]["tools"]
            self.evidence[name] = (self.listings[name] if isinstance(self.listings[name], str)
                                   else [t.get("name") for t in self.listings[name] if isinstance(t, dict)])
        self.server_name = discovered_name(self.target.exchange(OUTPUTS_VERSION, {}, "server/discover", {}, self.timeout).response)
        self.evidence["serverName"] = self.server_name


def _refuses_the_version(said: str) -> bool:
    """Whether a listing was refused for its version itself (-32022): most often a server on the official SDK served by
    its own runner, which knows no 2026-12-01. Any other failed listing is judged by the scenarios."""
    return '"code": -32022' in said


OWN_SERVER: Final = "mcp-variants"  # the serverInfo name of this project's server: the built-in default calls suit it alone


def discovered_name(response: Any) -> str | None:
    """The server's name from server/discover: `serverInfo` in the result or in its `_meta`, or None."""
    result = response.get("result") if isinstance(response, dict) else None
    if not isinstance(result, dict):
        return None
    meta = result.get("_meta")
    info = result.get("serverInfo") or (meta.get("io.modelcontextprotocol/serverInfo") if isinstance(meta, dict) else None)
    name = info.get("name") if isinstance(info, dict) else None
    return name if isinstance(name, str) else None


def list_all(target: Target, version: str, extensions: Mapping[str, Any] | None, timeout: float,
             params: Mapping[str, Any] | None = None) -> RoundTrip:
    """tools/list, following nextCursor; the first round trip, with every page's tools merged."""
    first = target.exchange(version, extensions, "tools/list", dict(params or {}), timeout)
    trip = first
    pages = 1
    while True:
        result = (trip.response or {}).get("result") if isinstance(trip.response, dict) else None
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if not cursor or trip.problem or pages >= MAX_PAGES:
            break
        trip = target.exchange(version, extensions, "tools/list", {**dict(params or {}), "cursor": cursor}, timeout)
        first.schema_violations += trip.schema_violations
        pages += 1
        page = (trip.response or {}).get("result") if isinstance(trip.response, dict) else None
        if trip.problem or not isinstance(page, dict) or not isinstance(page.get("tools"), list):
            first.problem = f"page {pages} of tools/list failed: {trip.problem or json.dumps(trip.response)[:300]}"
            break
        first.response["result"]["tools"] = [*first.response["result"]["tools"], *page["tools"]]  # type: ignore[index]
    if pages > 1 and isinstance(first.response, dict):
        first.response["result"].pop("nextCursor", None)
        first.response["result"]["pagesMerged"] = pages
    return first


def handshake_keys(vectors: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    keys = []
    for vector in vectors:
        for step in vector.get("steps", []):
            if step.get("version") in HANDSHAKE_VERSIONS:
                key = (step["version"], ext_key(step.get("extensions")))
                if key not in keys:
                    keys.append(key)
    return keys


@dataclass(frozen=True)
class RunCalls:
    """What a run remembers of its tools/calls, to explain a failure: a --call that fails when repeated
    (repeated_calls.py), a tool whose result changes from call to call (changing_results.py)."""

    repeated: RepeatedCalls
    changing: ChangingResults


def run_server_vector(vector: Mapping[str, Any], target: Target, discovery: Discovery, config: RunConfig,
                      calls: RunCalls) -> dict[str, Any]:
    started = time.monotonic()
    try:
        choices: list[dict[str, Any] | None] = [None]
        if vector.get("bind", {}).get("apps"):
            choices = list(bind_apps(vector["bind"]["apps"], discovery.listings))
        elif vector.get("bind", {}).get("tool"):
            spec = vector["bind"]["tool"]
            choices = list(bindings_to_run(spec, bind_all(spec, discovery.listings, config.calls), all_tools=config.all_tools,
                                           first_fit=config.first_fit))
        entries = [_run_once(vector, chosen, target, config, calls) for chosen in choices]
        entry = _merge(entries)
    except BindingSkip as exc:
        entry = {"status": "skip", "reason": str(exc), "need": exc.need, "evidence": {}}
        if not exc.applicable:
            entry["applicable"] = False
    except BindingFailure as exc:
        entry = {"status": "fail", "reason": str(exc), "evidence": {}}
    entry["durationMs"] = round((time.monotonic() - started) * 1000, 1)
    return entry


def _run_once(vector: Mapping[str, Any], chosen: Mapping[str, Any] | None, target: Target, config: RunConfig,
              calls: RunCalls) -> dict[str, Any]:
    entry: dict[str, Any] = {"status": "pass", "reason": ""}
    evidence: dict[str, Any] = {"steps": []}
    entry["evidence"] = evidence
    bindings: dict[str, Any] = {"established": list(config.calls.established), **(chosen["bindings"] if chosen else {})}
    if chosen:
        evidence["binding"] = {"chosen": chosen["why"], **{k: v for k, v in bindings.items() if k in ("tool", "arguments", "uri")}}
    try:
        _run_steps(vector, render(vector["steps"], bindings), target, config, calls, entry, evidence)
    except CheckError as exc:
        entry.update(status="fail", reason=f"the vector cannot be evaluated: {exc}")
    return entry


def _merge(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """One run: itself. Several (--all-tools): fail if any fails, skip only if all skip."""
    if len(entries) == 1:
        return entries[0]
    def tool(entry: dict[str, Any]) -> Any:
        binding = entry["evidence"].get("binding", {})
        return binding.get("tool") or binding.get("uri")

    for status in ("fail", "pass", "skip"):
        hits = [e for e in entries if e["status"] == status]
        if hits and (status != "skip" or len(hits) == len(entries)):
            reason = "; ".join(f"[{tool(e)}] {e['reason']}" for e in entries if e["status"] in ("fail", "skip") and e["reason"])
            merged: dict[str, Any] = {"status": status, "reason": reason if status != "pass" else "",
                                      "evidence": {"runs": [e["evidence"] for e in entries],
                                                   "tools": {tool(e): e["status"] for e in entries}}}
            if status == "fail":
                merged["failures"] = [f for e in entries for f in e.get("failures", [])]
            if status == "skip":
                merged.update({k: entries[0][k] for k in ("need", "applicable") if k in entries[0]})
            return merged
    raise AssertionError("unreachable")  # pragma: no cover


def _run_steps(vector: Mapping[str, Any], steps: Sequence[Mapping[str, Any]], target: Target, config: RunConfig,
               calls: RunCalls, entry: dict[str, Any], evidence: dict[str, Any]) -> None:
    done: dict[str, Any] = {}
    sent: dict[str, tuple[Request, dict[str, Any]]] = {}  # each tools/call step's (version, extensions, params), and done's
    failures: list[dict[str, Any]] = []
    for step in steps:
        unbound = placeholders(step.get("params"))
        if unbound:
            raise CheckError(f"step {step['id']}: unbound {sorted(unbound)}")
        version = step["version"]
        if step.get("paginate") and step["method"] == "tools/list":
            trip = list_all(target, version, step.get("extensions"), config.timeout, step.get("params"))
        else:
            trip = target.exchange(version, step.get("extensions"), step["method"], step.get("params"), config.timeout)
        record: dict[str, Any] = {"id": step["id"], "version": version, "request": trim(trip.request),
                                  "response": summarize_listing(trip.response) if step["method"] == "tools/list" else trim(trip.response),
                                  "elapsedMs": round(trip.elapsed_ms, 1)}
        if trip.http:
            record["http"] = trip.http
        if step.get("mustSucceed"):
            record["mustSucceed"] = True
        if trip.schema_violations:
            record["schemaViolations"] = [v.to_json() for v in trip.schema_violations]
        evidence["steps"].append(record)
        error_code = ((trip.response or {}).get("error") or {}).get("code") if isinstance(trip.response, dict) else None
        unsupported = trip.unsupported or (
            f"the server answered {UNSUPPORTED_VERSION} (unsupported protocol version) at {version}"
            if error_code == UNSUPPORTED_VERSION and version != OUTPUTS_VERSION else None)
        if unsupported:
            _conclude(entry, failures, skipped=f"the server does not serve {version}: {unsupported}")
            entry["applicable"] = False  # the SEP's rules for a version bind the servers that serve it
            return
        if trip.problem:
            _conclude(entry, [*failures, failure(step, trip.problem)])
            return
        params: dict[str, Any] = step.get("params") or {}
        request: Request = (version, step.get("extensions"), params)
        repeat = (calls.repeated.record(params.get("name"), params.get("arguments"), trip.response, request,
                                        needed=bool(step.get("mustSucceed")))
                  if step["method"] == "tools/call" else None)
        if step.get("mustSucceed") and (failed := call_failure(trip.response)):
            record["callFailed"] = failed
            chosen = evidence.get("binding", {})
            hint = (f" (the suite chose this call itself: {chosen.get('tool')} is read-only and its inputSchema accepts "
                    f"{json.dumps(chosen.get('arguments'))}; if that is not a call it should answer, pass --call "
                    f"'{chosen.get('tool')}=JSON' with arguments it succeeds with)" if READ_ONLY_CHOICE in chosen.get("chosen", "") else "")
            # said before the server's words, which the summary's lines may cut
            said = f"{failure_note(params['name'], repeat)}; the server answered {failed}" if repeat else failed
            _conclude(entry, [*failures, failure(step, f"the call this scenario needs failed: {said}{hint}", call_failed=True,
                                                 repeat=repeat)])
            return
        document = {"request": trip.request, "response": trip.response, "steps": done}
        preconditions = [evaluate(c, document) for c in step.get("skipUnless", [])]
        record["preconditions"] = [v.to_json() for v in preconditions]
        unmet = [v for v in preconditions if not v.ok]
        if unmet:
            _conclude(entry, failures, skipped=f"step {step['id']}: precondition not met: {unmet[0].says} ({unmet[0].detail})")
            called = evidence.get("binding", {})
            entry["need"] = (f"{unmet[0].says} (the suite called {called.get('tool')} with {json.dumps(called.get('arguments'))})"
                             if called else unmet[0].says)
            return
        judged = [(c, evaluate(c, document)) for c in step.get("checks", [])]
        record["checks"] = [{**v.to_json(), **({"check": c["check"]} if "check" in c else {})} for c, v in judged]
        if exempted := [t for _, v in judged for t in v.exempted]:  # said in the result, never left out silently
            known = entry.get("exempted", {}).get("tools", [])
            entry["exempted"] = {"tools": list(dict.fromkeys([*known, *exempted])), "why": ESTABLISHED_WHY}
        for c, v in judged:
            if not v.ok:
                changed = calls.changing.explain(c, params, sent) if step["method"] == "tools/call" else None
                note = changed_note(params["name"], changed) if changed else None
                failures.append(failure(step, _describe(v, note), check_id=c.get("check"), changed=changed))
        done[step["id"]] = {"request": trip.request, "response": trip.response}
        if step["method"] == "tools/call":
            sent[step["id"]] = (request, done[step["id"]])
    _conclude(entry, failures)


def failure(step: Mapping[str, Any], message: str, *, call_failed: bool = False, check_id: str | None = None,
            repeat: Mapping[str, Any] | None = None, changed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One failure of a scenario: its own message, the step, the version it spoke, the tool it called, when the
    failed check names the rule it judges, that rule's check id, for a --call that succeeded earlier in the run,
    which call that was and which this one (repeated_calls.py) and, for a comparison of two calls of a tool whose
    result changed when the earlier call was sent again, that call's step, version and two answers (changing_results.py)."""
    params: dict[str, Any] = step.get("params") or {}
    tool = params.get("name") if step.get("method") == "tools/call" else None
    out: dict[str, Any] = {"step": step["id"], "version": step["version"], "method": step.get("method"), "message": message}
    if tool is not None:
        out.update(tool=tool, arguments=params.get("arguments"))
    if call_failed:
        out["callFailed"] = True
    if check_id:
        out["check"] = check_id
    if repeat:
        out["failedWhenRepeated"] = dict(repeat)
    if changed:
        out["resultChangedWhenRepeated"] = {**changed, "first": trim(changed["first"]), "again": trim(changed["again"])}
    return out


def failure_text(item: Mapping[str, Any]) -> str:
    where = f"{item['tool']} at {item['version']}" if item.get("tool") else f"{item.get('method')} at {item['version']}"
    return f"step {item['step']} ({where}): {item['message']}"


def _conclude(entry: dict[str, Any], failures: Sequence[Mapping[str, Any]], skipped: str | None = None) -> None:
    """fail when any check failed, else skip when a step could not be judged, else pass. A failure already
    seen is never downgraded by a later step that cannot run: `ok` ignores skips, so that would pass it.
    Every failure is kept (`failures`), each with its own message, step, version and tool."""
    if failures:
        then = f"; then {skipped}" if skipped else ""
        entry.update(status="fail", reason="; ".join(failure_text(f) for f in failures) + then, failures=list(failures))
    elif skipped:
        entry.update(status="skip", reason=skipped)


def rule_verdicts(result: Mapping[str, Any]) -> dict[str, str] | None:
    """A failed server scenario's verdict per check id it cites, when every failure names the rule it breaks
    (scenarios.judges): only those ids fail, the others passed. None (the scenario's verdict stands for all its ids)
    when a failure names no rule: a call that failed, a transport problem, a check that judges its rules together."""
    failures = result.get("failures") or []
    if result["status"] != "fail" or not failures or any(not f.get("check") for f in failures):
        return None
    broken = {f["check"] for f in failures}
    return {r["check"]: "fail" if r["check"] in broken else "pass" for r in result.get("rules", []) if r.get("check")}


def _describe(verdict: Verdict, note: str | None = None) -> str:
    """The check's words, then the note that explains the failure (before the detail, which the summary may cut)."""
    said = "; ".join(part for part in (note, verdict.detail) if part)
    return f"{verdict.says}: {said}" if said else verdict.says


# ---- the whole run -----------------------------------------------------------------------------------------


def run(target: Target | None, vectors: Sequence[Mapping[str, Any]] | None = None, config: RunConfig | None = None,
        progress: Callable[[Mapping[str, Any], dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run every wanted vector; the scorecard (a JSON-ready dict)."""
    config = config or RunConfig()
    vectors = [v for v in (vectors if vectors is not None else all_vectors()) if wanted(v, config)]
    started = time.monotonic()
    scorecard: dict[str, Any] = {
        "suite": "SEP-3279 conformance (mcp-variants)", "suiteVersion": __version__,
        "generatedAt": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "target": target.describe() if target else None,
    }
    server_side = [v for v in vectors if v.get("kind") == "server"]
    discovery = None
    if server_side:
        if target is None:
            raise ValueError("server scenarios need a target (--server-cmd or --server-url)")
        target.prepare(handshake_keys(server_side))
        discovery = Discovery(target, config.timeout)
        discovery.run()
        if len(discovery.transport_problems) == 2:
            raise TargetError(f"the server did not answer tools/list: {discovery.transport_problems[0]}")
        if _refuses_the_version(said := str(discovery.listings["plain"])):
            raise TargetError(f"the server did not list its tools at {OUTPUTS_VERSION}: {said}. It does not serve "
                              f"{OUTPUTS_VERSION} at all: a server written with mcp_variants.sdk or mcp_variants.fastmcp is "
                              "served by that package's cli(server) or run(server), not the SDK's or FastMCP's own server.run()")
        if unknown := config.calls.unknown_tools(discovery.listings):
            raise TargetError(f"{', '.join(unknown)}: the server has no such tool (tools/list)")
        if config.calls.use_defaults and discovery.server_name != OWN_SERVER:
            # another server's execute_code (or list_files) is not ours: nothing that is not read-only is called unasked
            config = dataclasses.replace(config, calls=dataclasses.replace(config.calls, use_defaults=False))
        scorecard["discovery"] = discovery.evidence
    results = []
    def send(version: str, extensions: Mapping[str, Any] | None, params: dict[str, Any]) -> Any:
        return target.exchange(version, extensions, "tools/call", params, config.timeout).response if target is not None else None

    repeats = RepeatedCalls(config.calls.calls, send)

    def send_counted(version: str, extensions: Mapping[str, Any] | None, params: dict[str, Any]) -> Any:
        """A call sent again to see whether its result changes: one more call of the tool, counted as the suite's others."""
        response = send(version, extensions, params)
        repeats.record(params.get("name"), params.get("arguments"), response, (version, extensions, params), needed=False)
        return response

    calls = RunCalls(repeats, ChangingResults(send_counted))
    for vector in vectors:
        if vector.get("kind") == "server":
            assert discovery is not None and target is not None
            entry = run_server_vector(vector, target, discovery, config, calls)
        else:
            entry = run_client_vector(vector)
        full = {"id": vector["id"], "title": vector.get("title"), "kind": vector.get("kind"), "level": vector.get("level"),
                **({"plan": vector["plan"]} if "plan" in vector else {}), "rules": vector.get("rules", []), **entry}
        if vector.get("kind") == "server" and (ids := rule_verdicts(full)):
            full["checkIds"] = ids
        if vector.get("kind") == "client":
            full["subject"] = "the mcp-variants reference client (mcp_variants.client), against a scripted server"
        results.append(full)
        if progress:
            progress(vector, full)
    totals = status_totals(results)
    # A call the suite needed that failed fails the run whatever the scenario's level: the server's tool is broken.
    required_failures = [r["id"] for r in results if r["status"] == "fail" and (
        r["level"] in REQUIRED_LEVELS or any(f.get("callFailed") for f in r.get("failures", [])))]
    wire = wire_schema_summary(target.schema, implementation="received") if target is not None and server_side else None
    judgeable = must_ids(v for v in all_vectors() if v.get("kind") in config.kinds)
    tools = tool_report(discovery, results, config.calls, repeats) if discovery is not None else None
    verdict = judge(results, judgeable, failed=bool(required_failures) or (wire is not None and not wire["ok"]),
                    allow_skips=config.allow_skips,
                    success_seen=tools is None or any(entry.get("successChecked") for entry in tools))
    scorecard.update({
        "durationMs": round((time.monotonic() - started) * 1000, 1),
        **({"tools": tools} if tools is not None else {}),
        "totals": {"scenarios": len(results), **totals, "requiredFailures": len(required_failures)},
        "ok": verdict["exitCode"] == EXIT_OK,
        "verdict": verdict,
        "requiredFailures": required_failures,
        **({"wireSchema": wire} if wire else {}),
        "scenarios": results,
    })
    return scorecard


def wire_schema_summary(report: SchemaReport, implementation: str, limit: int = 20) -> dict[str, Any]:
    """The scorecard's `wireSchema`: the messages of the implementation under test that break the
    2026-12-01 schema (they fail the run), and the suite's own (a bug of the suite, reported apart)."""
    theirs = report.of(implementation)
    ours = [v for v in report.violations if v.origin != implementation]
    return {"version": OUTPUTS_VERSION, "schema": f"mcp_variants/conformance/vectors/schema/{OUTPUTS_VERSION}.json",
            "messagesValidated": report.validated, "ok": not theirs,
            "violations": [v.to_json() for v in theirs[:limit]], "violationCount": len(theirs),
            "harnessViolations": [v.to_json() for v in ours[:limit]]}


def format_line(result: Mapping[str, Any]) -> str:
    mark = status_mark(result)
    line = f"{mark}  {result['level']:<6} {result['id']}"
    if result["status"] == "fail" and result.get("failures"):
        shown = result["failures"][:8]
        line += "".join(f"\n        {failure_text(f)[:600]}" for f in shown)
        if len(result["failures"]) > len(shown):
            line += f"\n        (+{len(result['failures']) - len(shown)} more in the scorecard)"
    elif result["status"] != "pass":
        line += f"\n        {result['reason'][:600]}"
    if exempted := result.get("exempted"):
        line += f"\n        not judged: {', '.join(map(str, exempted['tools']))}, {exempted['why']}"
    return line


def summary_line(scorecard: Mapping[str, Any]) -> str:
    """The totals, every tool (called or not, and why), then the verdict's lines (verdict.verdict_lines): what was
    exercised, what each scenario that could not be needs, and OK / FAIL / INCOMPLETE."""
    t = scorecard["totals"]
    wire = scorecard.get("wireSchema")
    problems = [f"{t['requiredFailures']} required scenario(s) failed{_repeated_part(scorecard)}"] if t["requiredFailures"] else []
    if wire and not wire["ok"]:
        problems.append(f"{wire['violationCount']} message(s) break the {wire['version']} wire schema")
    checked = f"; {wire['messagesValidated']} {wire['version']} messages checked against the wire schema" if wire else ""
    seconds = scorecard["durationMs"] / 1000
    head = totals_line(t) + f" in {seconds:.1f} s{checked}."
    closing = verdict_lines(scorecard["verdict"], problems, "check")
    if closing[-1] == "OK":
        closing[-1] = qualified_ok(scorecard.get("tools", []))
    return "\n".join([head, *tool_lines(scorecard.get("tools", [])), *_exempted_lines(scorecard), *closing])


def _exempted_lines(scorecard: Mapping[str, Any]) -> list[str]:
    """Each scenario that left a tool out (--established), in the summary too: -q prints no passing scenario's line."""
    return [f"{r['id']}: not judged: {', '.join(map(str, r['exempted']['tools']))} (--established)"
            for r in scorecard.get("scenarios", []) if r.get("exempted")]


def _repeated_part(scorecard: Mapping[str, Any]) -> str:
    """How many of the required failures are a --call's that succeeded earlier with the same arguments (repeated_calls.py),
    for the FAIL line: the tools' lines above say why."""
    tools = [e["name"] for e in scorecard.get("tools", []) if e.get("repeated")]
    failed = set(scorecard.get("requiredFailures", []))
    count = sum(1 for r in scorecard.get("scenarios", []) if r["id"] in failed
                and any(f.get("failedWhenRepeated") for f in r.get("failures", [])))
    return (f" ({count} of them on a --call that had succeeded earlier with the same arguments: {', '.join(tools)}; its "
            "line under tools says why)" if count else "")
