"""`mcp-variants check` from the command line: exit codes, scorecard, options."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.conformance.verdict import EXIT_INCOMPLETE
from mcp_variants.processes import free_port
from support.servers import HttpServer, python_command, serve_command

from .conftest import BROKEN

CHECK = [sys.executable, "-m", "mcp_variants", "check"]
EVERYTHING = Path(__file__).resolve().parents[2] / "examples" / "everything.py"
WORLD_CLOCK = EVERYTHING.with_name("world_clock.py")


def check(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CHECK, *args], check=False, capture_output=True, text=True, timeout=timeout)


def test_list_names_every_scenario_and_rule() -> None:
    done = check("--list")
    assert done.returncode == 0, done.stderr
    assert "plan-10a-undeclared-selector  [MUST]" in done.stdout
    assert 'Request-time selection: "If requestedOutputs is absent, the server MUST return assistant/content."' in done.stdout


def test_a_must_failure_exits_1_and_the_scorecard_names_it(tmp_path: Path) -> None:
    command = shlex.join(serve_command(tmp_path, script=BROKEN / "wrong_code.py"))
    card = tmp_path / "card.json"
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-01,plan-10a", "--scorecard", str(card))
    assert done.returncode == 1, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    assert {r["id"]: r["status"] for r in scorecard["scenarios"]} == {
        "plan-01-conversational": "pass", "plan-10a-undeclared-selector": "fail"}
    assert scorecard["requiredFailures"] == ["plan-10a-undeclared-selector"]
    assert scorecard["totals"] == {"scenarios": 2, "pass": 1, "fail": 1, "skip": 0, "notApplicable": 0, "requiredFailures": 1}
    failed = scorecard["scenarios"][1]
    assert failed["evidence"]["steps"][0]["response"]["error"]["code"] == -32600
    assert "FAIL  MUST   plan-10a-undeclared-selector" in done.stdout


def test_our_server_passes_with_configured_calls(tmp_path: Path) -> None:
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-02,must-no-mirror",
                 "--no-default-calls", "--call", "list_kernels={}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 scenarios: 2 pass" in done.stdout


@pytest.mark.parametrize("defaults", [True, False], ids=["defaults", "no-default-calls"])
def test_every_read_only_tool_our_server_lets_the_suite_call_unasked_succeeds(tmp_path: Path, defaults: bool) -> None:
    """--all-tools calls every read-only tool whose inputSchema admits {} with {}: on our server each such call
    succeeds (docs/choices.md, "A read-only tool that admits {} answers it"). read_cell and read_notebook once
    admitted {} and failed it, with no cell or notebook named."""
    card = tmp_path / "card.json"
    done = check("--server-cmd", shlex.join(serve_command(tmp_path)), "--kind", "server", "--all-tools", "-q",
                 "--scorecard", str(card), *([] if defaults else ["--no-default-calls"]))
    scorecard = json.loads(card.read_text())
    assert scorecard["totals"]["fail"] == 0, done.stdout[-3000:]
    called = {t["name"]: t for t in scorecard["tools"] if t["called"]}
    assert {"list_files", "list_notebooks", "list_variables"} <= called.keys(), called.keys()
    assert all(not t["failed"] for t in called.values()), called
    needs = {t["name"]: t["why"] for t in scorecard["tools"] if t["name"] in ("read_cell", "read_notebook")}
    assert all(why.startswith("needs arguments") for why in needs.values()), needs
    if defaults:
        assert done.returncode == 0, done.stdout[-3000:]
    else:  # without execute_code's default nothing the suite may call shows user media
        assert done.returncode == EXIT_INCOMPLETE, done.stdout[-3000:]
        assert [u["id"] for u in scorecard["verdict"]["unexercised"]] == ["plan-04-user-media"]


def test_the_everything_example_is_ok_and_lists_what_does_not_apply(tmp_path: Path) -> None:
    """examples/everything.py (the official suite's fixture server on mcp_variants.sdk) with no configured calls:
    its read-only tools are called unasked. It has no MCP Apps view, so the scenarios about the ui variant and the
    Apps extension do not apply: listed as not applicable, they leave it OK (exit 0) without --allow-skips (it was
    once INCOMPLETE for them)."""
    card = tmp_path / "card.json"
    done = check("--server-cmd", shlex.join([*python_command(), str(EVERYTHING)]), "--kind", "server", "--scorecard", str(card), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    verdict = scorecard["verdict"]
    assert scorecard["totals"]["fail"] == 0 and verdict["status"] == "pass" and verdict["unexercised"] == [], scorecard["totals"]
    assert {n["id"] for n in verdict["notApplicable"]} == {
        "plan-06-apps-call", "plan-08-app-only-explicit-ui", "plan-09-app-only-fallback", "plan-10b-unnegotiated-extension",
        "plan-11-independent-schemas", "must-apps-extension-advertised", "must-ui-view-readable"}
    assert "  must-apps-extension-advertised: no tool the server lists declares an io.modelcontextprotocol/ui variant" in done.stdout
    # most of its tools are neither read-only nor configured: the OK says which tools it rests on, not a bare OK
    said = re.search(r"\nOK for the \d+ of 34 listed tools the suite checked; not called, so not checked: ", done.stdout)
    assert said, done.stdout[-1500:]


def test_a_new_server_whose_tools_it_cannot_call_is_incomplete_and_says_what_to_pass(tmp_path: Path) -> None:
    """examples/world_clock.py, a new server with one tool that needs no arguments but is not annotated read-only:
    with no --call nothing of it is called. Once, this printed `... 0 fail, 29 skip ... OK` and exited 0."""
    card = tmp_path / "card.json"
    done = check("--server-cmd", shlex.join([*python_command(), str(WORLD_CLOCK)]), "--kind", "server", "--scorecard", str(card), "-q")
    assert done.returncode == EXIT_INCOMPLETE, done.stdout + done.stderr
    out = done.stdout
    assert re.search(r"^MUST rules exercised: \d+ of 27 that check's scenarios judge \(SEP-3279 has 40\)$", out, re.M), out[-3000:]
    assert "  must-no-mirror: pass --call 'world_clock={}' (with arguments it succeeds with): world_clock fits" in out, out[-3000:]
    assert "  plan-08-app-only-explicit-ui: no tool the server lists is what the scenario is about: a tool that declares " \
           "io.modelcontextprotocol/ui/structured" in out
    assert "  world_clock: not called: not annotated readOnlyHint: true, so the suite does not call it unasked" in out
    assert "\nINCOMPLETE: 20 required scenario(s) could not be exercised" in out and "\nOK\n" not in out
    verdict = json.loads(card.read_text())["verdict"]
    assert verdict["status"] == "incomplete" and verdict["exitCode"] == EXIT_INCOMPLETE and verdict["mustRules"]["exercised"] < 27
    accepted = check("--server-cmd", shlex.join([*python_command(), str(WORLD_CLOCK)]), "--kind", "server", "--only", "must-no-mirror",
                     "--allow-skips", "-q")
    # Nothing of the server was seen working: --allow-skips has nothing to stand on, and accepts nothing.
    assert accepted.returncode == EXIT_INCOMPLETE, accepted.stdout + accepted.stderr
    assert "INCOMPLETE: 1 required scenario(s) could not be exercised (no call was checked as it succeeds" in accepted.stdout
    assert "  must-no-mirror: pass --call 'world_clock={}'" in accepted.stdout


def test_with_every_scenario_exercised_it_exits_0(tmp_path: Path) -> None:
    card = tmp_path / "card.json"
    done = check("--server-cmd", shlex.join(serve_command(tmp_path)), "--scorecard", str(card), "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    assert scorecard["totals"]["skip"] == 0 and scorecard["verdict"]["status"] == "pass"
    assert "MUST rules exercised: 40 of 40 that check's scenarios judge (SEP-3279 has 40)\nOK" in done.stdout, done.stdout[-1500:]


@pytest.mark.parametrize("allow_skips", [False, True], ids=["strict", "allow-skips"])
def test_a_call_that_fails_is_a_failure_with_the_servers_message(tmp_path: Path, allow_skips: bool) -> None:
    """A call the scenario needed that comes back isError (execute_code 1/0 given as the call that succeeds) fails the
    scenario with the server's own text; it was once "precondition not met", a skip. Beside a broken rule (wrong_code)
    both are failures, and --allow-skips changes nothing."""
    command = shlex.join(serve_command(tmp_path, script=BROKEN / "wrong_code.py"))
    card = tmp_path / "card.json"
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-01,plan-10a", "--no-default-calls",
                 "--call", 'execute_code={"code": "1/0"}', "--scorecard", str(card), "-q", *(["--allow-skips"] if allow_skips else []))
    assert done.returncode == 1, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    assert scorecard["totals"]["fail"] == 2 and scorecard["totals"]["skip"] == 0, scorecard["totals"]
    assert scorecard["verdict"]["status"] == "fail" and scorecard["verdict"]["unexercised"] == []
    assert "step call (execute_code at 2026-12-01): the call this scenario needs failed: isError: true: " in done.stdout
    assert "ZeroDivisionError: division by zero" in done.stdout and "precondition not met" not in done.stdout
    assert "\nFAIL: 2 required scenario(s) failed\n" in done.stdout


def test_client_scenarios_need_no_server(tmp_path: Path) -> None:
    done = check("--kind", "client", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "15 scenarios: 15 pass" in done.stdout


def test_an_unreachable_server_exits_2() -> None:
    done = check("--server-url", f"http://127.0.0.1:{free_port()}/mcp", "--kind", "server", "--timeout", "5")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not answer tools/list" in done.stderr


def test_a_server_that_wants_a_token_says_which_option_sends_it(tmp_path: Path) -> None:
    sample = Path(__file__).parents[1] / "sdk" / "sample_server.py"
    server = HttpServer(tmp_path, "--token", "s3cret", log=tmp_path / "server.log", command=[sys.executable, str(sample)])
    try:
        refused = check("--server-url", server.url, "--kind", "server", "--timeout", "10")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "HTTP 401" in refused.stderr and "--header 'Authorization: Bearer TOKEN'" in refused.stderr
        passed = check("--server-url", server.url, "--kind", "server", "-q", "--header", "Authorization: Bearer s3cret")
        assert "HTTP 401" not in passed.stdout + passed.stderr
    finally:
        server.close()


@pytest.mark.parametrize("bad", [["--call", "list_files"], ["--call", "x=[1]"], ["--header", "nocolon"]])
def test_bad_options_exit_2(bad: list[str]) -> None:
    assert check(*bad, "--list").returncode == 2


def test_a_call_to_a_tool_the_server_does_not_have_is_refused(tmp_path: Path) -> None:
    """`--call 'serach={...}'` (a typo) exits 2 naming it (issue 22: it was never chosen, and the run reported OK)."""
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-02", "--call", 'serach={"q": 1}')
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--call serach: the server has no such tool" in done.stderr


def test_established_naming_a_tool_the_server_does_not_have_is_refused(tmp_path: Path) -> None:
    """`--established` exempts a tool from the rules SEP-3279 asks of a new tool: a misspelt name would exempt nothing and
    leave the person believing it did, so it exits 2 naming it, as a misspelt --call does."""
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "must-legacy-outputschema", "--established", "lsit_files")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--established lsit_files: the server has no such tool" in done.stderr


def test_established_names_the_tool_it_exempts_in_the_output(tmp_path: Path) -> None:
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "must-legacy-outputschema", "--established", "list_files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "not judged: list_files, named with --established" in done.stdout
    quiet = check("--server-cmd", command, "--kind", "server", "--only", "must-legacy-outputschema", "--established", "list_files",
                  "-q")
    assert "must-legacy-outputschema-not-from-other-audiences: not judged: list_files (--established)" in quiet.stdout, quiet.stdout
