"""The verdict of a run: what was judged, not only what did not fail.

A required scenario (MUST or testing-plan) that applies but could not be exercised is not a pass: the
run is *incomplete*, with its own exit status, unless the caller accepts skips explicitly
(`--allow-skips`, which never hides a failure). A scenario about what the server does not have (no
listed tool declares the variant it is about, no tool mentions the Apps extension, the server does not
serve its protocol version) is *not applicable* rather than unexercised: the SEP's rules for those bind
only servers that have them, and it never stands between a server and OK. Every verdict says how many
of the SEP's MUST rules (the check ids of rules.py, the ids sep-3279.yaml maps) the run exercised, out
of those its scenarios can judge.

Exit statuses of `mcp-variants check` and `mcp-variants check-client`: EXIT_CODES below.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from . import rules

EXIT_OK: Final = 0  # every selected required scenario exercised and passed (or skips accepted with --allow-skips)
EXIT_FAIL: Final = 1  # a MUST or testing-plan scenario failed, or a message broke the wire schema; skips never hide it
EXIT_UNREACHABLE: Final = 2  # the target cannot be started or reached, or the options are wrong
EXIT_INCOMPLETE: Final = 3  # nothing failed, but a required scenario that applies could not be exercised
EXIT_CODES: Final = f"""Exit status: 0: OK, every selected MUST and testing-plan scenario was exercised and passed
(or --allow-skips accepted those that could not be); {EXIT_FAIL}: a required scenario failed, or a message broke
the wire schema (whatever else was skipped); {EXIT_UNREACHABLE}: the target cannot be started or reached, or the
options are wrong; {EXIT_INCOMPLETE}: INCOMPLETE, nothing failed but a required scenario that applies could not be
exercised (each says what it needs). A scenario that does not apply (not applicable) never changes the exit status."""

REQUIRED_LEVELS: Final = frozenset({"MUST", "PLAN"})


def sep_must_rules() -> frozenset[str]:
    """Every check id of the SEP's MUST rules (rules.py)."""
    return frozenset(v["check"] for v in vars(rules).values()
                     if isinstance(v, dict) and v.get("check") and v.get("level") == "MUST")


def must_ids(scenarios: Iterable[Mapping[str, Any]]) -> set[str]:
    """The MUST check ids the scenarios cite."""
    must = sep_must_rules()
    return {r["check"] for s in scenarios for r in s.get("rules", []) if r.get("check") in must}


def exercised_ids(result: Mapping[str, Any]) -> set[str]:
    """The check ids a scorecard entry judged: none when skipped; else the ids its checks judged (client
    mode) or every id its rules cite (a server scenario judges its rules together)."""
    if result["status"] == "skip":
        return set()
    judged = result.get("checkIds")
    if isinstance(judged, dict):
        return {check_id for check_id, status in judged.items() if status != "skip"}
    return {r["check"] for r in result.get("rules", []) if r.get("check")}


def unexercised(results: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The required scenarios skipped though they apply: each makes the run incomplete."""
    return [r for r in results if r["status"] == "skip" and r.get("level") in REQUIRED_LEVELS and r.get("applicable", True)]


def judge(results: Sequence[Mapping[str, Any]], judgeable: Iterable[str], *, failed: bool, allow_skips: bool,
          success_seen: bool = True) -> dict[str, Any]:
    """The scorecard's `verdict`. `judgeable`: the MUST ids the command's scenarios can judge when all run;
    `failed`: a required scenario failed or the wire schema was broken; `success_seen`: some call the suite needed
    to succeed was made (without one, --allow-skips accepts nothing: a server every call of which fails, checked
    only through --error-call, would otherwise pass)."""
    judgeable = set(judgeable)
    done = set().union(*(exercised_ids(r) for r in results)) & judgeable if results else set()
    missing = unexercised(results)
    status = "fail" if failed else "incomplete" if missing else "pass"
    accepted = bool(missing) and allow_skips and success_seen
    code = EXIT_FAIL if failed else EXIT_INCOMPLETE if missing and not accepted else EXIT_OK
    return {
        "status": status, "exitCode": code, "skipsAccepted": accepted, "successSeen": success_seen,
        "mustRules": {"exercised": len(done), "of": len(judgeable), "inSep": len(sep_must_rules()),
                      "notExercised": sorted(judgeable - done)},
        "unexercised": [{"id": r["id"], "level": r["level"], "need": r.get("need") or r.get("reason", "")} for r in missing],
        "notApplicable": [{"id": r["id"], "reason": r.get("reason", "")} for r in results if not_applicable(r)],
    }


def not_applicable(result: Mapping[str, Any]) -> bool:
    return result["status"] == "skip" and result.get("applicable", True) is False


def status_totals(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """pass, fail, skip (applies but was not exercised) and notApplicable, each scenario counted once."""
    return {"scenarios": len(results), "pass": sum(1 for r in results if r["status"] == "pass"),
            "fail": sum(1 for r in results if r["status"] == "fail"),
            "skip": sum(1 for r in results if r["status"] == "skip" and not not_applicable(r)),
            "notApplicable": sum(1 for r in results if not_applicable(r))}


def totals_line(totals: Mapping[str, int]) -> str:
    return (f"{totals['scenarios']} scenarios: {totals['pass']} pass, {totals['fail']} fail, {totals['skip']} not exercised, "
            f"{totals['notApplicable']} not applicable")


def status_mark(result: Mapping[str, Any]) -> str:
    return "N/A " if not_applicable(result) else {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[result["status"]]


def verdict_lines(verdict: Mapping[str, Any], problems: Sequence[str], command: str) -> list[str]:
    """The closing lines: the MUST rules exercised, what each unexercised scenario needs (never hidden by -q),
    then the verdict word."""
    must = verdict["mustRules"]
    lines = [f"MUST rules exercised: {must['exercised']} of {must['of']} that {command}'s scenarios judge "
             f"(SEP-3279 has {must['inSep']})"]
    if verdict["unexercised"]:
        lines.append(f"not exercised ({len(verdict['unexercised'])} required scenario(s)); to exercise them:")
        lines += [f"  {u['id']}: {u['need']}" for u in verdict["unexercised"]]
    if verdict["notApplicable"]:
        lines.append(f"not applicable ({len(verdict['notApplicable'])}; they do not stand between the target and OK):")
        lines += [f"  {n['id']}: {n['reason']}" for n in verdict["notApplicable"]]
    if verdict["status"] == "fail":
        lines.append(f"FAIL: {'; '.join(problems)}")
    elif verdict["status"] == "incomplete":
        accepted = (" (accepted by --allow-skips)" if verdict["skipsAccepted"] else " (--allow-skips accepts that)"
                    if verdict.get("successSeen", True) else " (no call was checked as it succeeds, so --allow-skips "
                    "accepts nothing: give a --call TOOL=JSON that succeeds)")
        lines.append(f"INCOMPLETE: {len(verdict['unexercised'])} required scenario(s) could not be exercised{accepted}")
    else:
        lines.append("OK")
    return lines
