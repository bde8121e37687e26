"""The SEP-3279 scenarios in the official suite's API (conformance-ts/), run by our small runner, and our
Python suite, side by side on the same servers: they must agree verdict by verdict.

Targets: `mcp-variants serve --http`, the examples on mcp_variants.sdk (everything.py, world_clock.py,
migration/after.py), the TypeScript SDK server (ts_server.mjs) and every deliberately broken variant of our
server (tests/conformance/broken/), each of which the TypeScript scenarios must fail in exactly the cases
the Python suite fails it in (tests/conformance/test_broken.py's EXPECTED).

The two agree case by case: a case fails when any check id it emits fails, and is skipped when one is
SKIPPED (not applicable, a protocol version the server does not serve) or untestable (a failure naming
what to pass), which both read as the Python suite's skip. Which check ids a failure is reported under is
each suite's own (the TypeScript cases report it under the rule it breaks; conformance-ts's vitest tests
hold that), so the ids are compared only where a test names them.

Neither suite calls a tool that is not read-only unasked: this project's server and its broken variants
get their calls named (PROJECT_CALLS), as a person would with --call / --error-call.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from conformance import test_broken as python_broken
from conformance import test_check_client as python_broken_clients

from mcp_variants.conformance import client_check
from mcp_variants.conformance.binding import CallConfig
from mcp_variants.conformance.runner import RunConfig, run
from mcp_variants.conformance.scorecards import scenario_checks
from mcp_variants.conformance.wire import HttpTarget
from support.outside import HERE, NODE_MODULES, node_env, unavailable
from support.servers import HttpServer, python_command

TS = HERE.parents[1] / "conformance-ts"
TSX = TS / "node_modules" / "tsx" / "dist" / "cli.mjs"
FIXTURE_PREFIX = "test_variants_"
ERROR_FIXTURE = "test_variants_error"

Verdicts = dict[tuple[str, str], str]  # (case id, check id) -> pass / fail / skip
CaseVerdicts = dict[str, str]  # case id -> pass / fail / skip

# The calls that make this project's tools succeed, and fail, for the cases that need them.
PROJECT_CALLS = CallConfig(calls={"list_files": {}, "list_kernels": {}, "execute_code": {"code": "print(1)"}},
                           error_calls={"execute_code": {"code": "1/0"}})
NO_CALLS = CallConfig()


def run_ts(node_bin: Path, *args: str) -> dict[str, list[dict[str, Any]]]:
    """conformance-ts/runner/run.ts ARGS (`server --url URL` or `client --command CMD`): {scenario: checks}."""
    if not TSX.exists():
        unavailable(f"{TSX.relative_to(HERE.parents[1])} is not installed (conformance-ts/install.sh)")
    done = subprocess.run([str(node_bin), str(TSX), "runner/run.ts", *args], cwd=TS, check=False,
                          capture_output=True, text=True, timeout=600, env=node_env())
    assert done.returncode in (0, 1), f"runner exited {done.returncode}: {done.stderr[-3000:]}"
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def ts_verdicts(results: dict[str, list[dict[str, Any]]]) -> Verdicts:
    out: Verdicts = {}
    for checks in results.values():
        for check in checks:
            details = check.get("details") or {}
            status = check["status"]
            verdict = ("skip" if details.get("untestable") or status == "SKIPPED"
                       else "pass" if status == "SUCCESS" else "fail")
            out[(details["case"], check["id"])] = verdict
    return out


def call_args(calls: CallConfig) -> list[str]:
    """The calls as conformance-ts/runner/run.ts options (--call TOOL=JSON, --error-call TOOL=JSON, --established TOOL)."""
    return [*(a for name, args in calls.calls.items() for a in ("--call", f"{name}={json.dumps(args)}")),
            *(a for name, args in calls.error_calls.items() for a in ("--error-call", f"{name}={json.dumps(args)}")),
            *(a for name in calls.established for a in ("--established", name))]


def fixture_calls(url: str) -> CallConfig:
    """The fixtures the TypeScript cases call first (test_variants_* with `{}`), given to the Python suite as
    --call / --error-call in listing order, so that both choose the same tool for each case."""
    target = HttpTarget(url)
    try:
        trip = target.exchange("2026-12-01", None, "tools/list", {})
    finally:
        target.close()
    names = [t.get("name") for t in ((trip.response or {}).get("result") or {}).get("tools", [])]
    fixtures = [n for n in names if isinstance(n, str) and n.startswith(FIXTURE_PREFIX)]
    return CallConfig(calls={n: {} for n in fixtures if n != ERROR_FIXTURE},
                      error_calls={n: {} for n in fixtures if n == ERROR_FIXTURE})


def python_verdicts(url: str, named: CallConfig) -> Verdicts:
    fixtures = fixture_calls(url)
    calls = CallConfig(calls={**named.calls, **fixtures.calls}, error_calls={**named.error_calls, **fixtures.error_calls},
                       established=named.established)
    target = HttpTarget(url)
    try:
        # The TypeScript suite runs each case with the first fitting tool; the Python suite, with each named one.
        card = run(target, config=RunConfig(kinds=frozenset({"server"}), calls=calls, first_fit=True))
    finally:
        target.close()
    return card_verdicts(card)


# Python scenarios whose rules a TypeScript case judges inside a broader case: the Apps extension advertised
# and every ui:// view readable are judged by the TypeScript case on unnegotiated extension audiences (its
# uiServed step). Not applicable there (no tool mentions the extension) says nothing about that case.
TS_CASE_OF = {"must-apps-extension-advertised": "must-no-unnegotiated-extension-audience",
              "must-ui-view-readable": "must-no-unnegotiated-extension-audience"}


def card_verdicts(card: dict[str, Any]) -> Verdicts:
    """A Python scorecard's (scenario, check id) verdicts, as its checks.json says them (results.py), each
    under the TypeScript case that judges it (TS_CASE_OF)."""
    out: Verdicts = {}
    for result in card["scenarios"]:
        case = TS_CASE_OF.get(result["id"], result["id"])
        for check in scenario_checks(result, "-"):
            if check["id"] == "wire-schema-valid":
                continue
            verdict = {"SUCCESS": "pass", "SKIPPED": "skip"}.get(check["status"], "fail")
            if case != result["id"] and verdict == "skip":
                continue
            key = (case, check["id"])
            out[key] = max(out.get(key, "pass"), verdict, key=RANK.__getitem__)  # a check id two scenarios share
    return out


def compare(node_bin: Path, url: str, named: CallConfig = NO_CALLS) -> Verdicts:
    """Both suites on `url` with the same named calls; asserts they agree case by case and returns the
    TypeScript suite's (case, check id) verdicts."""
    ts = ts_verdicts(run_ts(node_bin, "server", "--url", url, *call_args(named)))
    agree(ts, python_verdicts(url, named))
    return ts


RANK = {"pass": 0, "skip": 1, "fail": 2}


def by_case(verdicts: Verdicts) -> CaseVerdicts:
    """A case's verdict: fail when any of its checks fails, else skip when any is skipped, else pass."""
    out: CaseVerdicts = {}
    for (case, _), verdict in verdicts.items():
        out[case] = max(out.get(case, "pass"), verdict, key=RANK.__getitem__)
    return out


def agree(ts: Verdicts, py: Verdicts) -> CaseVerdicts:
    ts_cases, py_cases = by_case(ts), by_case(py)
    assert ts_cases.keys() == py_cases.keys(), \
        f"only TypeScript: {sorted(ts_cases.keys() - py_cases.keys())}; only Python: {sorted(py_cases.keys() - ts_cases.keys())}"
    differ = {case: {"ts": ts_cases[case], "python": py_cases[case]} for case in ts_cases if ts_cases[case] != py_cases[case]}
    assert not differ, f"the two suites disagree: {differ}"
    return ts_cases


def cases(verdicts: Verdicts, verdict: str) -> set[str]:
    return {case for case, v in by_case(verdicts).items() if v == verdict}


# ---- well-behaved servers --------------------------------------------------------------------------


def test_this_server_passes_every_case_and_both_suites_agree(node_bin: Path, server: HttpServer) -> None:
    verdicts = compare(node_bin, server.url, PROJECT_CALLS)
    assert set(verdicts.values()) == {"pass"}, {k: v for k, v in verdicts.items() if v != "pass"}


def test_the_everything_example_passes_what_it_can_and_both_suites_agree(node_bin: Path, everything_server: HttpServer) -> None:
    verdicts = compare(node_bin, everything_server.url)
    assert not cases(verdicts, "fail")
    # everything.py serves no ui variant: only the cases that need one are not exercised.
    assert cases(verdicts, "skip") == {"plan-06-apps-call", "plan-08-app-only-explicit-ui", "plan-09-app-only-fallback",
                                       "plan-10b-unnegotiated-extension", "plan-11-independent-schemas"}


@pytest.mark.parametrize("example", ["world_clock_server", "migrated_server"])
def test_the_other_examples_fail_nothing_and_both_suites_agree(node_bin: Path, example: str, request: pytest.FixtureRequest) -> None:
    verdicts = compare(node_bin, request.getfixturevalue(example).url)
    assert not cases(verdicts, "fail")
    assert cases(verdicts, "pass") >= {"plan-07-every-tool-declares-assistant-content", "must-no-duplicate-variant-pairs"}


@pytest.fixture(scope="module")
def ts_server(node_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """tests/outside/ts_server.mjs (@modelcontextprotocol/sdk) on a free port."""
    if not (NODE_MODULES / "@modelcontextprotocol" / "sdk").exists():
        unavailable("@modelcontextprotocol/sdk is not installed")
    folder = tmp_path_factory.mktemp("ts-server")
    server = HttpServer(folder, log=folder / "ts_server.log", command=[str(node_bin), str(HERE / "ts_server.mjs")])
    try:
        yield server
    finally:
        server.close()


def test_the_typescript_sdk_server_passes_every_case_and_both_suites_agree(node_bin: Path, ts_server: HttpServer) -> None:
    verdicts = compare(node_bin, ts_server.url)
    assert set(verdicts.values()) == {"pass"}, {k: v for k, v in verdicts.items() if v != "pass"}


# ---- a named call that fails when repeated: still a failure, said to be a repeat's -----------------


CONFORMANCE_SERVERS = HERE.parent / "conformance" / "servers"


def fixture_server(folder: Path, name: str) -> HttpServer:
    """tests/conformance/servers/NAME.py over streamable HTTP on a free port, its state its own."""
    folder.mkdir(exist_ok=True)
    return HttpServer(folder, "--host", "127.0.0.1", log=folder / f"{name}.log",
                      command=[*python_command(), str(CONFORMANCE_SERVERS / f"{name}.py")])


def needed_call_failures(results: dict[str, list[dict[str, Any]]], tool: str) -> dict[str, str]:
    """Each case whose needed call of `tool` failed: its message (every check id of the case carries the same)."""
    said = f"the call the case needs to succeed failed (isError: true): {tool} "
    return {c["details"]["case"]: c["errorMessage"] for checks in results.values() for c in checks
            if c.get("errorMessage", "").startswith(said)}


def test_a_named_call_that_cannot_be_repeated_still_fails_and_says_its_first_request_fails_now_too(
        node_bin: Path, tmp_path: Path) -> None:
    """servers/tickets.py, `close_ticket={"id": 1}` named: its first call closes the ticket and every later one fails
    ("already closed"). The TypeScript cases still fail each case that needed it, in every scenario (the verdict is
    unchanged: the two suites, each on a fresh server, agree case by case), and each such failure says that the call
    succeeded first and that its first request, sent again, fails now too, in the Python suite's words."""
    named = CallConfig(calls={"close_ticket": {"id": 1}})
    server = fixture_server(tmp_path / "ts", "tickets")
    try:
        results = run_ts(node_bin, "server", "--url", server.url, *call_args(named))
    finally:
        server.close()
    server = fixture_server(tmp_path / "python", "tickets")
    try:
        python = python_verdicts(server.url, named)
    finally:
        server.close()
    agree(ts_verdicts(results), python)
    failures = needed_call_failures(results, "close_ticket")
    assert failures, json.dumps(results)[:3000]
    said = ("close_ticket succeeded on its 1st call in this run, with the same arguments, and failed on this one, its 2nd; "
            'that first request, sent again, fails now too (isError: true: "ticket #1 is already closed"): the tool\'s '
            "first call changed what a repeat finds")
    assert any(said in message for message in failures.values()), failures
    for case, message in failures.items():
        assert re.search(r"; close_ticket succeeded on its 1st call in this run, with the same arguments, and failed on "
                         r"this one, its \d+(st|nd|rd|th); that first request, sent again, fails now too .*; the server "
                         r"said: .*ticket #1 is already closed", message), (case, message)
    assert cases(ts_verdicts(results), "fail") >= set(failures)
    assert {"must-legacy-shapes-2025-11-25", "plan-02-code-mode"} <= set(failures), sorted(failures)
    # every case after the first that called it: a verdict no repeat forgives
    repeated = [c["details"]["failedWhenRepeated"] for checks in results.values() for c in checks
                if "failedWhenRepeated" in c["details"]]
    assert repeated and {r["firstSucceeded"] for r in repeated} == {1}, repeated


@pytest.mark.parametrize(("server_name", "calls"), [("tickets", ["--call", "list_tickets={}"]),
                                                     ("hidden_bug", ["--call", 'total={"x": 1}'])],
                         ids=["read-only-tool", "fails-for-what-it-asks"])
def test_a_named_call_that_does_not_fail_when_repeated_says_nothing_of_repeats(
        node_bin: Path, tmp_path: Path, server_name: str, calls: list[str]) -> None:
    """The read-only list_tickets succeeds every time: every case passes. hidden_bug.py's total succeeds when asked for
    assistant/content and fails when asked for its programmatic/structured output (it breaks its schema): its first
    request, sent again, still succeeds, so that failure is the server's own and says nothing of repeats."""
    server = fixture_server(tmp_path, server_name)
    try:
        results = run_ts(node_bin, "server", "--url", server.url, *calls)
    finally:
        server.close()
    messages = [c.get("errorMessage", "") for checks in results.values() for c in checks]
    assert not any("succeeded on its" in m for m in messages), messages
    resent = [call for checks in results.values() for c in checks for call in c["details"]["calls"] if call.get("resent")]
    if server_name == "tickets":
        assert not cases(ts_verdicts(results), "fail") and not resent, messages
    else:
        assert needed_call_failures(results, "total"), messages
        assert resent and all(call["outcome"] == "result" for call in resent), resent


# ---- a comparison of two calls of a tool whose result changes: still a failure, said to be the tool's -------------

LEGACY_CONTENT = "should-legacy-content-from-assistant-content"


def legacy_content_check(node_bin: Path, server: HttpServer, *calls: str) -> dict[str, Any]:
    """The TypeScript case comparing the legacy content with assistant/content, on `server` with `calls` named: its
    check. The server is closed after."""
    try:
        results = run_ts(node_bin, "server", "--url", server.url, "--scenario", "sep-3279-backward-compatibility", *calls)
    finally:
        server.close()
    [check] = [c for checks in results.values() for c in checks if c["details"]["case"] == LEGACY_CONTENT]
    return check


def called(check: dict[str, Any]) -> list[str]:
    return [call["tool"] for call in check["details"]["calls"] if call["method"] == "tools/call"]


def test_a_comparison_of_two_calls_of_a_tool_whose_result_changes_still_fails_and_says_why(node_bin: Path, tmp_path: Path) -> None:
    """servers/comments.py, `post_comment` named: each call posts a comment and says its number, so the legacy content
    (#1001) differs from the assistant/content (#1000). The case still fails (a SHOULD: WARNING), and, the 2026-12-01
    call sent again answering #1002, says that the tool's result changed between two identical calls, in the Python
    suite's words."""
    check = legacy_content_check(node_bin, fixture_server(tmp_path, "comments"), "--call", 'post_comment={"body": "LGTM"}')
    assert check["status"] == "WARNING", check
    said = ("the legacy `content` equals the assistant/content output of the same call at 2026-12-01: post_comment's result "
            "changed between two identical calls at the same version (the 2026-12-01 call, sent again, answered "
            '[{"type":"text","text":"Posted comment #N."}]): it creates or counts something, or says the time, so '
            "comparing its calls across versions cannot judge this rule; name a call whose result is the same each time (a "
            "read, or arguments that find the same thing). SEP-3279 asks this of a new tool; if post_comment already served "
            "older clients before it declared variants (a migrated tool keeping the content it always sent them), name it "
            'established ("established": ["post_comment"] in MCP_CONFORMANCE_TOOL_CALLS): '
            'found [{"text":"Posted comment #N.","type":"text"}]')
    message = check["errorMessage"]
    assert re.sub(r"#\d+", "#N", message) == said, message
    again, legacy = map(int, re.findall(r"#(\d+)", message))
    assert again == legacy + 1, message  # the scenario's other cases post comments too


def test_the_same_comparison_on_a_read_passes(node_bin: Path, tmp_path: Path) -> None:
    check = legacy_content_check(node_bin, fixture_server(tmp_path, "comments"), "--call", "list_comments={}")
    assert check["status"] == "SUCCESS" and called(check) == ["list_comments"] * 2, check


def test_a_legacy_content_that_really_differs_keeps_its_plain_failure(node_bin: Path, tmp_path: Path) -> None:
    """The broken variant whose legacy content is structuredContent's JSON text, the same on every call: the 2026-12-01
    call is sent again, answers as it did, and the failure says the difference alone."""
    server = HttpServer(tmp_path, log=tmp_path.parent / "legacy-content-ts.log",
                        script=python_broken.BROKEN / "legacy_content_from_structured.py")
    check = legacy_content_check(node_bin, server, *call_args(PROJECT_CALLS))
    assert check["status"] == "WARNING", check
    assert check["errorMessage"].startswith("the legacy `content` equals the assistant/content output of the same call at "
                                            "2026-12-01. SEP-3279 asks this of a new tool;"), check["errorMessage"]
    assert "changed between two identical calls" not in check["errorMessage"]
    [tool] = set(called(check))
    assert called(check) == [tool] * 3, check["details"]["calls"]  # 2026-12-01, 2026-07-28, and 2026-12-01 sent again


# ---- broken variants: each fails exactly its cases, in both suites ---------------------------------


@pytest.fixture(scope="module")
def broken_verdicts(node_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Verdicts]:
    root = tmp_path_factory.mktemp("broken-ts-root")

    def one(name: str) -> Verdicts:
        server = HttpServer(root, log=root.parent / f"broken-ts-{name}.log", script=python_broken.BROKEN / f"{name}.py")
        try:
            return compare(node_bin, server.url, PROJECT_CALLS)
        finally:
            server.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(one, name) for name in python_broken.EXPECTED}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("variant", sorted(python_broken.EXPECTED))
def test_each_broken_variant_fails_exactly_its_cases(broken_verdicts: dict[str, Verdicts], variant: str) -> None:
    verdicts = broken_verdicts[variant]
    assert not cases(verdicts, "skip"), f"{variant}: cases not exercised: {sorted(cases(verdicts, 'skip'))}"
    assert cases(verdicts, "fail") == python_broken.EXPECTED[variant]


def test_the_broken_variants_together_fail_every_must_check_id(broken_verdicts: dict[str, Verdicts]) -> None:
    """The suite's rule for a new scenario: every MUST check a deliberately broken server fails."""
    failed = {check for verdicts in broken_verdicts.values() for (_, check), v in verdicts.items() if v == "fail"}
    emitted = {check for verdicts in broken_verdicts.values() for (_, check) in verdicts}
    assert emitted - failed == set(), f"check ids no broken variant fails: {sorted(emitted - failed)}"


def test_the_tools_named_established_are_left_out_alike_and_both_suites_agree(node_bin: Path, tmp_path: Path) -> None:
    """legacy_programmatic_schema (its tools' legacy outputSchema is their programmatic schema) with every such tool named
    established, as a migrated tool keeping its outputSchema would be: both suites pass the two rules SEP-3279 asks of a
    new tool, name the tools they left out, and still fail the legacy-shape cases that tool breaks otherwise."""
    server = HttpServer(tmp_path, log=tmp_path / "established.log", script=python_broken.BROKEN / "legacy_programmatic_schema.py")
    try:
        tools = server.target.exchange("2026-12-01", None, "tools/list", {}).response["result"]["tools"]  # type: ignore[index]
        established = [t["name"] for t in tools if any(v["audience"] == "programmatic" and "schema" in v for v in t["outputVariants"])]
        named = CallConfig(calls=PROJECT_CALLS.calls, error_calls=PROJECT_CALLS.error_calls, established=established)
        results = run_ts(node_bin, "server", "--url", server.url, *call_args(named))
        verdicts = ts_verdicts(results)
        agree(verdicts, python_verdicts(server.url, named))
    finally:
        server.close()
    exempt = {"must-legacy-outputschema-not-from-other-audiences", "should-legacy-outputschema-from-assistant-structured"}
    assert cases(verdicts, "fail") == python_broken.EXPECTED["legacy_programmatic_schema"] - exempt
    for check in (c for checks in results.values() for c in checks if c["details"]["case"] in exempt):
        assert check["details"]["exempted"]["tools"] == established, check["details"]


# ---- client scenarios: the reference client and the broken clients ---------------------------------


def compare_client(node_bin: Path, command: list[str]) -> Verdicts:
    """The TypeScript client scenarios and `mcp-variants check-client` on one client command; they must agree
    scenario by scenario. Returns the TypeScript suite's (scenario, check id) verdicts."""
    with ThreadPoolExecutor(max_workers=2) as pool:  # each suite waits on its client processes: run both at once
        ts = pool.submit(run_ts, node_bin, "client", "--command", shlex.join(command))
        py = pool.submit(client_check.run, command)
        verdicts = ts_verdicts(ts.result())
        agree(verdicts, card_verdicts(py.result()))
        return verdicts


def test_the_reference_client_passes_every_client_scenario_and_both_suites_agree(node_bin: Path) -> None:
    verdicts = compare_client(node_bin, client_check.REFERENCE_COMMAND)
    assert set(verdicts.values()) == {"pass"}, {k: v for k, v in verdicts.items() if v != "pass"}
    assert len({case for case, _ in verdicts}) == 13


@pytest.mark.parametrize("command", [["true"], [sys.executable, "-c", "raise SystemExit('Unknown scenario')"]],
                         ids=["does-nothing", "crashes"])
def test_a_client_that_does_nothing_or_crashes_passes_no_client_scenario(node_bin: Path, command: list[str]) -> None:
    results = run_ts(node_bin, "client", "--command", shlex.join(command))
    assert len(results) == 13
    passed = {name for name, checks in results.items() if all(c["status"] == "SUCCESS" for c in checks)}
    assert passed == set()
    assert not any(c["status"] == "SUCCESS" for checks in results.values() for c in checks)


@pytest.fixture(scope="module")
def broken_client_verdicts(node_bin: Path) -> dict[str, Verdicts]:
    folder = python_broken_clients.BROKEN_CLIENTS
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(compare_client, node_bin, [sys.executable, str(folder / f"{name}.py")])
                   for name in python_broken_clients.EXPECTED}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("client", sorted(python_broken_clients.EXPECTED))
def test_each_broken_client_fails_exactly_its_check(broken_client_verdicts: dict[str, Verdicts], client: str) -> None:
    check_id, scenarios = python_broken_clients.EXPECTED[client]
    failed = {key for key, v in broken_client_verdicts[client].items() if v == "fail"}
    assert failed == {(scenario, check_id) for scenario in scenarios}


def test_ts_folder_is_self_contained() -> None:
    """What a pull request drops in imports only the suite's own modules (types, connection, untestable), its own
    folder, and ajv, which the suite already depends on."""
    allowed = {"../../../types", "../../../connection", "../../untestable", "ajv/dist/2020.js"}
    allowed |= {"../../../mock-server", "node:fs", "node:os", "node:path", "node:http", "node:crypto", "node:net"}
    # The vitest files run inside the suite: its test helpers and examples, Node's modules, vitest.
    for_tests = {"child_process", "fs", "net", "path", "vitest"}
    for path in (TS / "src" / "scenarios").glob("*/sep-3279/*.ts"):
        sources = set(re.findall(r"^import[^;]*? from '([^']+)';", path.read_text(), flags=re.M | re.S))
        if path.name.endswith(".test.ts"):
            assert all(s.startswith(".") or s in for_tests for s in sources), f"{path.name}: {sorted(sources)}"
        else:
            assert all(s.startswith("./") or s in allowed for s in sources), f"{path.name}: {sorted(sources)}"
