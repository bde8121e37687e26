"""`mcp-variants check` from the command line: exit codes, scorecard, options."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_variants.processes import free_port
from support.servers import python_command, serve_command

from .conftest import BROKEN

CHECK = [sys.executable, "-m", "mcp_variants", "check"]
EVERYTHING = Path(__file__).resolve().parents[2] / "examples" / "everything.py"


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
    assert scorecard["totals"] == {"scenarios": 2, "pass": 1, "fail": 1, "skip": 0, "requiredFailures": 1}
    failed = scorecard["scenarios"][1]
    assert failed["evidence"]["steps"][0]["response"]["error"]["code"] == -32600
    assert "FAIL  MUST   plan-10a-undeclared-selector" in done.stdout


def test_our_server_passes_with_configured_calls(tmp_path: Path) -> None:
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-02,must-no-mirror",
                 "--no-default-calls", "--call", "list_kernels={}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 scenarios: 2 pass" in done.stdout


def test_the_everything_example_fails_nothing(tmp_path: Path) -> None:
    """examples/everything.py (the official suite's fixture server on mcp_variants.sdk) with no configured calls:
    its read-only tools are called unasked; what stays skipped needs a variant it does not declare (user/structured,
    the ui extension's) or an --error-call."""
    card = tmp_path / "card.json"
    done = check("--server-cmd", shlex.join([*python_command(), str(EVERYTHING)]), "--kind", "server", "--scorecard", str(card))
    assert done.returncode == 0, done.stdout + done.stderr
    scorecard = json.loads(card.read_text())
    skipped = {r["id"] for r in scorecard["scenarios"] if r["status"] == "skip"}
    assert scorecard["totals"]["fail"] == 0 and scorecard["totals"]["pass"] >= 31, scorecard["totals"]
    assert skipped <= {"plan-05-host-native-table", "plan-06-apps-call", "plan-08-app-only-explicit-ui", "plan-09-app-only-fallback",
                       "plan-10b-unnegotiated-extension", "plan-11-independent-schemas", "should-error-outputs-per-selector"}, skipped


def test_no_suitable_tool_is_a_skip_with_a_reason(tmp_path: Path) -> None:
    command = shlex.join(serve_command(tmp_path))
    card = tmp_path / "card.json"
    done = check("--server-cmd", command, "--kind", "server", "--only", "should-error-outputs-per-selector",
                 "--no-default-calls", "--scorecard", str(card))
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(card.read_text())["scenarios"][0]
    assert result["status"] == "skip" and "--error-call TOOL=JSON" in result["reason"]


def test_client_scenarios_need_no_server(tmp_path: Path) -> None:
    done = check("--kind", "client", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "15 scenarios: 15 pass" in done.stdout


def test_an_unreachable_server_exits_2() -> None:
    done = check("--server-url", f"http://127.0.0.1:{free_port()}/mcp", "--kind", "server", "--timeout", "5")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "did not answer tools/list" in done.stderr


@pytest.mark.parametrize("bad", [["--call", "list_files"], ["--call", "x=[1]"], ["--header", "nocolon"]])
def test_bad_options_exit_2(bad: list[str]) -> None:
    assert check(*bad, "--list").returncode == 2


def test_a_call_to_a_tool_the_server_does_not_have_is_refused(tmp_path: Path) -> None:
    """`--call 'serach={...}'` (a typo) exits 2 naming it (issue 22: it was never chosen, and the run reported OK)."""
    command = shlex.join(serve_command(tmp_path))
    done = check("--server-cmd", command, "--kind", "server", "--only", "plan-02", "--call", 'serach={"q": 1}')
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--call serach: the server has no such tool" in done.stderr
