"""Every tool the server lists, in the summary: called (at which versions, succeeded or failed) or not, and why.

A verdict that does not say which tools it rests on cannot be trusted: `--all-tools` once said OK without
having called a tool that is not read-only, and nothing said so. Nor is a tool checked because it was called: one
named only with `--error-call` was called only to fail, so nothing judged what it returns when it succeeds (its
outputs, their schemas, the requestedOutputs it honours), and the suite once said a bare OK about it all the same.
A tool's success is checked only by a call a scenario needed to succeed (a step with `mustSucceed`). The report is
made from the scorecard's own evidence (every tools/call a scenario sent, and its answer) and from the binding's rules
(binding.py: which tools the suite may call unasked).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .binding import CallConfig, args_fit, callable_tools, read_only
from .call_outcome import call_failure
from .repeated_calls import RepeatedCalls, summary_note


def _steps(evidence: Any) -> Iterator[Mapping[str, Any]]:
    if not isinstance(evidence, dict):
        return
    yield from (s for s in evidence.get("steps", []) if isinstance(s, dict))
    for run in evidence.get("runs", []):
        yield from _steps(run)


def _listed(discovery: Any) -> dict[str, dict[str, Any]]:
    tools: dict[str, dict[str, Any]] = {}
    for listing in discovery.listings.values():
        for tool in listing if isinstance(listing, list) else []:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                tools.setdefault(tool["name"], tool)
    return tools


def tool_report(discovery: Any, results: Sequence[Mapping[str, Any]], calls: CallConfig,
                repeats: RepeatedCalls) -> list[dict[str, Any]]:
    """One entry per listed tool: `called` with the versions it succeeded and failed at (each failure's message),
    `successChecked` (a scenario needed one of its calls to succeed, so its successful results were judged) and, for a
    --call that failed after succeeding with the same arguments, `repeated`; or `called: false` with why."""
    listed = _listed(discovery)
    seen: dict[str, dict[str, Any]] = {}
    for result in results:
        for step in _steps(result.get("evidence")):
            request: dict[str, Any] = step.get("request") or {}
            if request.get("method") != "tools/call":
                continue
            params: dict[str, Any] = request.get("params") or {}
            name = params.get("name")
            if not isinstance(name, str):
                continue
            entry = seen.setdefault(name, {"succeeded": [], "failed": {}, "failedAsAsked": 0, "refused": 0,
                                           "successChecked": False})
            entry["successChecked"] |= bool(step.get("mustSucceed"))
            response = step.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            if isinstance(error, dict) and not step.get("mustSucceed"):
                entry["refused"] += 1  # a JSON-RPC error: what the refusal scenarios ask for, or a failure they report
            elif failed := call_failure(response):
                if step.get("mustSucceed"):
                    entry["failed"].setdefault(step["version"], failed)
                else:
                    entry["failedAsAsked"] += 1  # a scenario that asks for a failing call (--error-call)
            elif step["version"] not in entry["succeeded"]:
                entry["succeeded"].append(step["version"])
    chosen = {t["name"]: why for t, _, why in callable_tools(list(listed.values()), calls)}
    report = []
    for name in seen:
        if repeated := repeats.report(name):
            seen[name]["repeated"] = repeated
    for name, tool in listed.items():
        if name in seen:
            report.append({"name": name, "called": True, **seen[name]})
            continue
        report.append({"name": name, "called": False, "why": _why_not(name, tool, chosen, calls)})
    for name in seen.keys() - listed.keys():
        report.append({"name": name, "called": True, "listed": False, **seen[name]})
    return report


def _why_not(name: str, tool: Mapping[str, Any], chosen: Mapping[str, str], calls: CallConfig) -> str:
    if name in calls.calls or name in calls.error_calls:  # every scenario it fits runs with it (binding.bindings_to_run)
        return "named with --call / --error-call, but no scenario this run ran fits it (--only leaves out those that would)"
    if name in chosen:
        return (f"callable ({chosen[name]}), but each scenario ran with another tool that fits; --all-tools runs every "
                "scenario with every fitting tool")
    if not read_only(tool):
        return f"not annotated readOnlyHint: true, so the suite does not call it unasked; pass --call '{name}=JSON' to include it"
    if not args_fit(tool, {}):
        return f"needs arguments; pass --call '{name}=JSON' with arguments it succeeds with"
    return "no scenario needed it"  # pragma: no cover - a read-only tool needing no arguments is always callable


def tool_lines(report: Sequence[Mapping[str, Any]]) -> list[str]:
    """The summary's lines about the tools."""
    if not report:
        return []
    missed, failing, listed = uncalled(report), called_only_to_fail(report), _listed_count(report)
    if not missed and not failing:
        lines = [f"tools ({listed} listed; every one called):"]
    else:
        counts = [f"{listed - len(missed) - len(failing)} called"]
        if failing:
            counts.append(f"{len(failing)} called only to fail, so nothing in this run checks their results when they succeed")
        if missed:
            counts.append(f"{len(missed)} NOT called, so nothing in this run checks their results")
        lines = [f"tools ({listed} listed; {', '.join(counts)}):"]
    for entry in report:
        if not entry["called"]:
            lines.append(f"  {entry['name']}: not called: {entry['why']}")
            continue
        parts = []
        if entry["succeeded"]:
            parts.append(f"succeeded at {', '.join(entry['succeeded'])}")
        by_message: dict[str, list[str]] = {}
        for version, message in entry["failed"].items():
            by_message.setdefault(message, []).append(version)
        parts += [f"FAILED at {', '.join(versions)}: {message}" for message, versions in by_message.items()]
        if entry["failedAsAsked"]:
            parts.append(f"{entry['failedAsAsked']} failing call(s) a scenario asked for (isError, as --error-call meant)")
        if entry["refused"]:
            parts.append(f"{entry['refused']} JSON-RPC error answer(s) (the refusals scenarios ask for)")
        lines.append(f"  {entry['name']}: called: {'; '.join(parts)}")
        if entry.get("repeated"):
            lines.append(f"    {summary_note(entry['name'], entry['repeated'])}")
        if not entry["successChecked"]:
            lines.append(f"    {_success_unchecked(entry)}")
    return lines


def _success_unchecked(entry: Mapping[str, Any]) -> str:
    """What the line of a tool no scenario needed to succeed adds: what was not checked, and what checks it."""
    how = [what for what, count in (("its --error-call", entry["failedAsAsked"]),
                                    ("requests the refusals scenarios expect refused", entry["refused"])) if count]
    called = (f"called only to fail ({' and '.join(how)})" if how and not entry["succeeded"] else
              "called only where no scenario needed it to succeed")
    return (f"{called}: what it returns when it succeeds (its outputs, their schemas, the requestedOutputs it honours) "
            f"was NOT checked; give it a --call '{entry['name']}=JSON' with arguments it succeeds with every time (the "
            "suite repeats a --call in every scenario it fits)")


def uncalled(report: Sequence[Mapping[str, Any]]) -> list[str]:
    """The listed tools no scenario called."""
    return [e["name"] for e in report if not e["called"] and e.get("listed", True)]


def called_only_to_fail(report: Sequence[Mapping[str, Any]]) -> list[str]:
    """The listed tools called, but never by a scenario that needed the call to succeed (an --error-call's tool)."""
    return [e["name"] for e in report if e["called"] and not e["successChecked"] and e.get("listed", True)]


def qualified_ok(report: Sequence[Mapping[str, Any]]) -> str:
    """The summary's closing word when the verdict is OK: bare only when every listed tool was called by a scenario that
    needed it to succeed, so that an OK cannot be read as "every tool checked" when some were not, or were checked only
    as they fail. The exit status stays 0 either way: the lines say what the OK rests on."""
    missed, failing = uncalled(report), called_only_to_fail(report)
    if not missed and not failing:
        return "OK"
    listed = _listed_count(report)
    parts = []
    if missed:
        parts.append(f"not called, so not checked: {_names(missed)} (--all-tools, and --call TOOL=JSON for each tool that "
                     "is not read-only, check them)")
    if failing:
        parts.append(f"checked only as they fail: {_names(failing)} (a --call TOOL=JSON with arguments "
                     "each succeeds with every time checks what it returns)")
    return f"OK for the {listed - len(missed) - len(failing)} of {listed} listed tools the suite checked; {'; '.join(parts)}"


def _names(names: Sequence[str]) -> str:
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _listed_count(report: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for e in report if e.get("listed", True))
