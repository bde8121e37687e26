"""Verdicts that mean what they say, shown on the wire with real servers and clients (issue 43).

- a call the suite needed that fails is a FAILURE with the server's own message, never a skip, and
  --allow-skips cannot turn it into exit 0 (servers/always_failing.py, servers/missing_variant.py);
- a scenario about what a server does not declare is not applicable and does not stand between it and OK
  (servers/two_tools.py: no Apps, no user variants);
- a ui variant or view whose Apps extension is not served fails (servers/apps_not_served.py, no SDK);
- the summary names every tool, called or not and why;
- a client that does nothing, crashes, or does not know the scenario passes no client scenario.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from support.servers import python_command, serve_command

from .conftest import BROKEN

CHECK = [sys.executable, "-m", "mcp_variants", "check"]
CHECK_CLIENT = [sys.executable, "-m", "mcp_variants", "check-client"]
SERVERS = Path(__file__).resolve().parent / "servers"
# fixture server -> the scenarios it fails, exactly (test_coverage.py counts them with test_broken.py's)
FAILS: dict[str, set[str]] = {"apps_not_served": {"must-apps-extension-advertised", "must-ui-view-readable"}}


def run(argv: list[str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, check=False, capture_output=True, text=True, timeout=timeout)


def server(name: str) -> str:
    return shlex.join([*python_command(), str(SERVERS / f"{name}.py")])


@pytest.mark.parametrize("allow_skips", [False, True], ids=["strict", "allow-skips"])
def test_a_server_whose_only_tool_always_fails_fails_with_its_message(tmp_path: Path, allow_skips: bool) -> None:
    card = tmp_path / "card.json"
    done = run([*CHECK, "--server-cmd", server("always_failing"), "--kind", "server", "-q", "--scorecard", str(card),
                *(["--allow-skips"] if allow_skips else [])])
    assert done.returncode == 1, done.stdout + done.stderr
    message = "the inventory database is unreachable (connection refused, 127.0.0.1:5432)"
    assert f"the call this scenario needs failed: isError: true: {message}" in done.stdout
    assert f"  stock: called: FAILED at 2026-12-01, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: isError: true: {message}" \
        in done.stdout
    scorecard = json.loads(card.read_text())
    failed = {r["id"]: r for r in scorecard["scenarios"] if r["status"] == "fail"}
    assert "must-fallback-assistant-content" in failed and "precondition not met" not in done.stdout
    first = failed["must-fallback-assistant-content"]["failures"][0]
    assert first["tool"] == "stock" and first["version"] == "2026-12-01" and first["callFailed"] and message in first["message"]
    assert scorecard["verdict"]["status"] == "fail" and "\nFAIL: " in done.stdout


@pytest.mark.parametrize("allow_skips", [False, True], ids=["strict", "allow-skips"])
def test_a_server_whose_every_call_fails_named_only_by_error_call_never_passes(allow_skips: bool) -> None:
    """Not read-only, so the suite calls it only as named: its --error-call alone checks nothing that succeeds, and
    --allow-skips accepts no unexercised scenario then."""
    done = run([*CHECK, "--server-cmd", f"env ALWAYS_FAILING_WRITES=1 {server('always_failing')}", "--kind", "server", "-q",
                "--error-call", "stock={}", *(["--allow-skips"] if allow_skips else [])])
    assert done.returncode == 3, done.stdout + done.stderr
    assert "no call was checked as it succeeds, so --allow-skips accepts nothing" in done.stdout


def test_a_server_whose_results_lack_a_declared_variant_fails() -> None:
    done = run([*CHECK, "--server-cmd", server("missing_variant"), "--kind", "server", "-q", "--allow-skips"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "isError: true: stock failed inside the server; the server log has the details." in done.stdout  # a bug of its


def test_a_plain_two_tool_server_given_its_calls_is_ok(tmp_path: Path) -> None:
    """No Apps, no user variants, one tool that writes and needs arguments: OK, exit 0, no --allow-skips."""
    card = tmp_path / "card.json"
    done = run([*CHECK, "--server-cmd", server("two_tools"), "--kind", "server", "-q", "--scorecard", str(card),
                "--call", 'add_note={"text": "hi"}'])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\nOK\n" in done.stdout, done.stdout[-2000:]
    scorecard = json.loads(card.read_text())
    verdict = scorecard["verdict"]
    assert verdict["status"] == "pass" and verdict["unexercised"] == [] and not verdict["skipsAccepted"]
    not_applicable = {n["id"] for n in verdict["notApplicable"]}
    assert {"plan-04-user-media", "plan-05-host-native-table", "plan-06-apps-call", "must-apps-extension-advertised",
            "must-ui-view-readable"} <= not_applicable
    assert "  plan-04-user-media: no tool the server lists is what the scenario is about: a tool that declares user/content" in done.stdout
    assert "  add_note: called: succeeded at 2026-12-01, 2026-07-28" in done.stdout
    assert scorecard["totals"]["fail"] == 0 and scorecard["totals"]["notApplicable"] == len(not_applicable)


def test_with_all_tools_the_summary_says_which_tool_was_not_called_and_why() -> None:
    """--all-tools without the write tool's call: every scenario runs on the read-only tool, and the summary says
    that add_note was never called, and why (it once said OK and named no tool)."""
    done = run([*CHECK, "--server-cmd", server("two_tools"), "--kind", "server", "-q", "--all-tools"])
    assert "  add_note: not called: not annotated readOnlyHint: true, so the suite does not call it unasked; " \
           "pass --call 'add_note=JSON' to include it" in done.stdout, done.stdout[-3000:]
    assert "  list_notes: called: succeeded at 2026-12-01, 2026-07-28" in done.stdout


CALL_BOTH = ["--call", 'count={"x": 1}', "--call", 'total={"x": 1}']


@pytest.mark.parametrize("all_tools", [False, True], ids=["named", "all-tools"])
def test_every_tool_named_with_call_is_checked_and_a_broken_one_fails(tmp_path: Path, all_tools: bool) -> None:
    """servers/hidden_bug.py: `total` breaks its schema, `count` (listed first) fits every scenario `total` fits. Named
    with --call, `total` runs every scenario it fits, and fails them with the server's message, at every version it
    was called. It once said OK: each scenario ran with `count` alone, and `total` was "not called"."""
    card = tmp_path / "card.json"
    done = run([*CHECK, "--server-cmd", server("hidden_bug"), "--kind", "server", "-q", "--scorecard", str(card), *CALL_BOTH,
                *(["--all-tools"] if all_tools else [])])
    assert done.returncode == 1, done.stdout + done.stderr
    message = "isError: true: total ran, but its result does not match the output schema it declares"
    assert f"step call (total at 2026-12-01): the call this scenario needs failed: {message}" in done.stdout, done.stdout[-3000:]
    assert "\nFAIL: " in done.stdout and "\nOK" not in done.stdout
    tools = {t["name"]: t for t in json.loads(card.read_text())["tools"]}
    assert tools["total"]["called"] and message in tools["total"]["failed"]["2026-12-01"], tools["total"]
    assert tools["total"]["succeeded"] == ["2026-12-01", "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
    assert tools["count"]["called"] and not tools["count"]["failed"], tools["count"]
    # total succeeded (asked for assistant/content) before it failed, but its first request still succeeds when sent
    # again: its failure is what it was asked for, not a repeat's, and nothing says otherwise
    assert "repeated" not in tools["total"] and "succeeded on its" not in done.stdout, done.stdout[-3000:]
    scenarios = {r["id"]: r for r in json.loads(card.read_text())["scenarios"]}
    assert scenarios["must-structured-outputs-valid"]["evidence"]["tools"] == {"count": "pass", "total": "fail"}


CLOSE_ONCE = ["--server-cmd", server("tickets"), "--kind", "server", "-q"]


def test_a_call_that_cannot_be_repeated_still_fails_and_says_it_succeeded_first(tmp_path: Path) -> None:
    """servers/tickets.py: `close_ticket={"id": 1}` closes the ticket on its first call, and every later call with the same
    arguments fails with isError ("already closed"). A needed call that fails still fails its scenario (exit 1); each
    such failure, the tool's line (once) and the FAIL line say that the first call succeeded, which call this is, and
    that the first request, sent again, fails now too. It once said "already closed" alone, a dozen times, which read as
    if the server broke SEP-3279 (issue 44)."""
    card = tmp_path / "card.json"
    done = run([*CHECK, *CLOSE_ONCE, "--scorecard", str(card), "--call", 'close_ticket={"id": 1}'])
    assert done.returncode == 1, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    failed = [r for r in scorecard["scenarios"] if r["status"] == "fail"]
    failures = [f for r in failed for f in r["failures"]]
    assert failed and all(f.get("callFailed") and f.get("failedWhenRepeated") for f in failures), failures
    numbers = [f["failedWhenRepeated"]["call"] for f in failures]
    assert numbers[0] == 2 and numbers == sorted(set(numbers)), numbers
    assert {f["failedWhenRepeated"]["firstSucceeded"] for f in failures} == {1}
    said = ("the call this scenario needs failed: close_ticket succeeded on its 1st call in this run, with the same arguments, "
            "and failed on this one, its 2nd; that first request, sent again, fails now too: the tool's first call changed "
            "what a repeat finds")
    assert f"step call (close_ticket at 2026-12-01): {said}" in done.stdout, done.stdout[:3000]
    assert done.stdout.count("the server answered isError: true: ticket #1 is already closed") == len(failures)
    sent = sum(1 for r in scorecard["scenarios"] for run_ in [r["evidence"], *r["evidence"].get("runs", [])]
               for step in run_.get("steps", []) if (step.get("request") or {}).get("method") == "tools/call")
    [tool] = [t for t in scorecard["tools"] if t["name"] == "close_ticket"]
    assert tool["repeated"] == {"arguments": {"id": 1}, "calls": sent + 1, "resent": 1, "firstSucceeded": 1, "failedAfter": numbers,
                                "firstAgain": "isError: true: ticket #1 is already closed"}, tool
    summary = (f"    close_ticket succeeded on its 1st call and failed on {len(numbers)} later call(s) a scenario needed to "
               f"succeed (the first, its 2nd), with the same arguments {{\"id\": 1}}; its first request, sent again, failed "
               f"too (isError: true: ticket #1 is already closed). The suite makes a --call in every scenario it fits, always "
               f"with the arguments given ({sent + 1} calls here, 1 of them the first request sent again)")
    assert summary in done.stdout and done.stdout.count("close_ticket succeeded on its 1st call and failed on") == 1, done.stdout
    required = len(scorecard["requiredFailures"])
    assert f"\nFAIL: {required} required scenario(s) failed ({required} of them on a --call that had succeeded earlier with " \
           "the same arguments: close_ticket; its line under tools says why)" in done.stdout, done.stdout[-1000:]


def test_the_same_server_checked_with_its_read_only_tool_is_ok() -> None:
    """The read-only list_tickets succeeds every time: OK, and no word about repeats."""
    done = run([*CHECK, *CLOSE_ONCE, "--call", "list_tickets={}"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "  list_tickets: called: succeeded at 2026-12-01, 2026-07-28" in done.stdout and "succeeded on its" not in done.stdout


ONLY_TO_FAIL = ["--call", "list_tickets={}", "--error-call", 'close_ticket={"id": 99}']


def test_a_tool_given_only_an_error_call_is_said_checked_only_as_it_fails(tmp_path: Path) -> None:
    """servers/tickets.py, the mutating close_ticket given only --error-call (no such ticket): it is called, but only to
    fail, so nothing judged what it returns when it succeeds. The run stays OK (exit 0, as for a tool not called), but
    its line and the closing line say so, and what to pass: once this said a bare OK and "every one called"."""
    card = tmp_path / "card.json"
    done = run([*CHECK, *CLOSE_ONCE, "--scorecard", str(card), *ONLY_TO_FAIL])
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "tools (2 listed; 1 called, 1 called only to fail, so nothing in this run checks their results when they succeed):" \
        in out, out[-3000:]
    assert "  close_ticket: called: 1 failing call(s) a scenario asked for (isError, as --error-call meant)" in out
    assert "\n    called only to fail (its --error-call): what it returns when it succeeds (its outputs, their schemas, the " \
           "requestedOutputs it honours) was NOT checked; give it a --call 'close_ticket=JSON' with arguments it succeeds with " \
           "every time" in out, out[-3000:]
    assert "\nOK for the 1 of 2 listed tools the suite checked; checked only as they fail: close_ticket (a " \
           "--call TOOL=JSON with arguments each succeeds with every time checks what it returns)\n" in out, out[-1000:]
    assert "\nOK\n" not in out and "every one called" not in out
    scorecard = json.loads(card.read_text())
    tools = {t["name"]: t for t in scorecard["tools"]}
    assert tools["close_ticket"]["called"] and not tools["close_ticket"]["successChecked"], tools["close_ticket"]
    assert tools["list_tickets"]["successChecked"] and scorecard["verdict"]["status"] == "pass" and scorecard["ok"]


def test_the_same_tool_with_a_call_that_succeeds_every_time_too_is_a_bare_ok(tmp_path: Path) -> None:
    """The same run with an idempotent --call for close_ticket (closing a closed ticket succeeds): it is checked as it
    succeeds at every version, and as it fails: a bare OK, and no word about being called only to fail."""
    card = tmp_path / "card.json"
    done = run([*CHECK, *CLOSE_ONCE, "--scorecard", str(card), *ONLY_TO_FAIL,
                "--call", 'close_ticket={"id": 1, "already_closed_ok": true}'])
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "tools (2 listed; every one called):" in out and "\nOK\n" in out, out[-3000:]
    assert "  close_ticket: called: succeeded at 2026-12-01, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05; " \
           "1 failing call(s) a scenario asked for" in out, out[-3000:]
    assert "called only to fail" not in out and "succeeded on its" not in out
    assert all(t["successChecked"] for t in json.loads(card.read_text())["tools"])


def test_a_server_whose_every_named_tool_is_good_is_ok_and_an_unnamed_one_is_said_unchecked(tmp_path: Path) -> None:
    """Only `count` named: OK (exit 0), but the closing line says it is OK for 1 of the 2 tools and names `total` as not
    checked; no bare OK that reads as "every tool checked"."""
    done = run([*CHECK, "--server-cmd", server("hidden_bug"), "--kind", "server", "-q", "--call", 'count={"x": 1}'])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tools (2 listed; 1 called, 1 NOT called, so nothing in this run checks their results):" in done.stdout
    assert "  total: not called: not annotated readOnlyHint: true, so the suite does not call it unasked; " \
           "pass --call 'total=JSON' to include it" in done.stdout, done.stdout[-3000:]
    assert "\nOK for the 1 of 2 listed tools the suite checked; not called, so not checked: total (--all-tools" in done.stdout
    assert "\nOK\n" not in done.stdout


def test_the_error_scenario_without_an_error_call_says_that_is_what_it_lacks(tmp_path: Path) -> None:
    """Every tool declares assistant/content: what the error scenario lacks is --error-call, and it says so, with an
    example made from the tool's required arguments (it once said it "needs a tool that declares assistant/content")."""
    card = tmp_path / "card.json"
    done = run([*CHECK, "--server-cmd", server("hidden_bug"), "--kind", "server", "--only", "should-error-outputs-per-selector",
                "--scorecard", str(card), *CALL_BOTH])
    [result] = json.loads(card.read_text())["scenarios"]
    assert result["status"] == "skip" and result.get("applicable", True), result
    assert result["reason"].startswith("no --error-call was given: the scenario needs a call that fails as a tool error "
                                       "(isError: true), --error-call TOOL=JSON"), result["reason"]
    assert "e.g. --error-call 'count={\"x\": …}'" in result["need"] and "count, total fit" in result["need"], result["need"]
    assert result["reason"] in done.stdout


def test_checks_json_reports_a_failure_under_the_rule_it_breaks(tmp_path: Path) -> None:
    """A structured output that breaks its schema (broken/schema_break.py) fails plan-02 under
    server-validates-each-structured-output alone, with its own message; the scenario's other ids pass."""
    command = shlex.join(serve_command(tmp_path, script=BROKEN / "schema_break.py"))
    done = run([*CHECK, "--server-cmd", command, "--kind", "server", "--only", "plan-02", "-q", "-o", str(tmp_path / "results")])
    assert done.returncode == 1, done.stdout + done.stderr
    [path] = (tmp_path / "results").glob("server-plan-02-code-mode-*/checks.json")
    checks = {c["id"]: c for c in json.loads(path.read_text())}
    failed = {i for i, c in checks.items() if c["status"] == "FAILURE"}
    assert failed == {"sep-3279-server-validates-each-structured-output"}, {i: c["status"] for i, c in checks.items()}
    message = checks["sep-3279-server-validates-each-structured-output"]["errorMessage"]
    assert message.startswith("step call (") and "at 2026-12-01): the programmatic/structured output is valid against" in message
    assert checks["sep-3279-server-one-output-per-selector"]["status"] == "SUCCESS"


def test_a_ui_view_whose_apps_extension_is_not_served_fails(tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    done = run([*CHECK, "--server-cmd", server("apps_not_served"), "--kind", "server", "-q", "--allow-skips", "--scorecard", str(card)])
    assert done.returncode == 1, done.stdout + done.stderr
    statuses = {r["id"]: r["status"] for r in json.loads(card.read_text())["scenarios"]}
    assert statuses["must-apps-extension-advertised"] == "fail" and statuses["must-ui-view-readable"] == "fail"
    assert {i for i, s in statuses.items() if s == "fail"} == FAILS["apps_not_served"]
    assert "server/discover advertises io.modelcontextprotocol/ui in capabilities.extensions" in done.stdout
    assert "the view ui://chart/view.html (named in _meta.ui.resourceUri by chart) can be read" in done.stdout


@pytest.mark.parametrize("command", ["true", "false", f"{sys.executable} -c 'import sys; sys.exit(\"Unknown scenario\")'",
                                     f"{sys.executable} -c 'raise RuntimeError(\"crash\")'"],
                         ids=["does-nothing", "exits-1", "unknown-scenario", "crashes"])
def test_a_client_that_does_not_do_the_scenario_passes_none(command: str, tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    done = run([*CHECK_CLIENT, "--command", command, "-q", "--scorecard", str(card), "--allow-skips"])
    assert done.returncode == 1, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    assert scorecard["totals"]["pass"] == 0 and scorecard["totals"]["fail"] == scorecard["totals"]["scenarios"], scorecard["totals"]
    assert all(r["prerequisite"] for r in scorecard["scenarios"])
    assert scorecard["verdict"]["mustRules"]["exercised"] == 0


def test_a_server_that_refuses_the_version_is_told_so_and_what_to_serve_it_with() -> None:
    """mcp.run() out of habit: tools/list at 2026-12-01 is refused with -32022; the suite says so, not that the tool
    it was told to call does not exist."""
    done = run([*CHECK, "--server-cmd", server("served_by_mcp_run"), "--kind", "server", "-q", "--no-default-calls",
                "--call", 'add_note={"text": "hi"}'])
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "the server did not list its tools at 2026-12-01" in said and "-32022" in said, said
    assert "cli(server) or run(server)" in said and "no such tool" not in said, said


COMMENTS = ["--server-cmd", server("comments"), "--kind", "server", "-q", "--only", "should-legacy-content-from-assistant-content"]


def test_a_comparison_of_two_calls_of_a_tool_whose_result_changes_still_fails_and_says_why(tmp_path: Path) -> None:
    """servers/comments.py: `post_comment` posts a new comment on every call and says its number, so its legacy content
    (the 2nd call's) differs from the assistant/content of the same call at 2026-12-01 (the 1st's). The scenario still
    fails, and says that the tool's result changed between two identical calls, what to pass and where the docs say
    more. It once said only "found [...#1001...]; other [...#1000...]" (issue 44)."""
    card = tmp_path / "card.json"
    done = run([*CHECK, *COMMENTS, "--scorecard", str(card), "--call", 'post_comment={"body": "LGTM"}'])
    [result] = json.loads(card.read_text())["scenarios"]
    assert result["status"] == "fail", result
    [failure] = result["failures"]
    said = ("step legacy (post_comment at 2026-07-28): the legacy `content` equals the assistant/content output of the same "
            "call at 2026-12-01: post_comment's result changed between two identical calls at the same version (step modern "
            'at 2026-12-01, sent again, answered [{"text":"Posted comment #1002.","type":"text"}]): it creates or counts '
            "something, or says the time, so comparing its calls across versions cannot judge this rule; give a --call whose "
            "result is the same each time (a read, or arguments that find the same thing): "
            "docs/conformance.md#a-tool-that-changes-something")
    assert said in done.stdout, done.stdout
    assert failure["resultChangedWhenRepeated"]["first"] == [[{"type": "text", "text": "Posted comment #1000."}]]
    assert 'found [[{"text":"Posted comment #1001.","type":"text"}]]' in failure["message"]


def test_the_same_server_checked_with_its_read_tool_passes_the_comparison() -> None:
    """list_comments answers the same each time: the comparison judges it, and it passes."""
    done = run([*CHECK, *COMMENTS, "--call", "list_comments={}"])
    assert done.returncode == 0 and "1 scenarios: 1 pass, 0 fail" in done.stdout, done.stdout
