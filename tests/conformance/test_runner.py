"""The runner never passes what fails (issue 22), on a server scripted in-process: a failure is not
downgraded to a skip by a later step that cannot run, and an error answer to tools/list satisfies
no `every`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.changing_results import compared_steps
from mcp_variants.conformance.constants import ASSISTANT_CONTENT, OUTPUTS_VERSION, UNSUPPORTED_VERSION
from mcp_variants.conformance.repeated_calls import ordinal
from mcp_variants.conformance.runner import RunConfig, all_vectors, format_line, run
from mcp_variants.conformance.wire import RoundTrip, StdioTarget, Target

Answer = Callable[[str, str, Mapping[str, Any]], dict[str, Any]]  # (version, method, params) -> `result` or `error`
# Read-only and needing no arguments, so the suite calls it unasked (its built-in defaults are for this project's server only).
READ_ONLY = {"readOnlyHint": True}
TOOL = {"name": "list_files", "inputSchema": {"type": "object"}, "annotations": READ_ONLY, "outputVariants": [ASSISTANT_CONTENT]}
LEGACY_TOOL = {"name": "list_files", "inputSchema": {"type": "object"}, "annotations": READ_ONLY}
TEXT = [{"type": "text", "text": "3 files"}]


class ScriptedTarget(Target):
    """A server as a function of each request; every version served, no handshake needed."""

    kind = "scripted"

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer = answer

    def _send_stateless(self, message: dict[str, Any], version: str, timeout: float, headers: Any) -> RoundTrip:
        return self._trip(message, version)

    def _handshake_exchange(self, version: str, extensions: Mapping[str, Any] | None, method: str, params: dict[str, Any],
                            timeout: float, headers: Any) -> RoundTrip:
        return self._trip({"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": params}, version)

    def _trip(self, message: dict[str, Any], version: str) -> RoundTrip:
        body = self.answer(version, message["method"], message["params"])
        return RoundTrip(request=message, response={"jsonrpc": "2.0", "id": message["id"], **body})


def conforming(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    if method == "tools/list":
        return {"result": {"tools": [TOOL if version == OUTPUTS_VERSION else LEGACY_TOOL]}}
    if version == OUTPUTS_VERSION:
        return {"result": {"outputs": [{**ASSISTANT_CONTENT, "content": TEXT}]}}
    return {"result": {"content": TEXT}}


def scorecard(answer: Answer, *ids: str) -> dict[str, Any]:
    vectors = [v for v in all_vectors() if v["id"] in ids]
    assert len(vectors) == len(ids)
    return run(ScriptedTarget(answer), vectors, RunConfig(kinds=frozenset({"server"})))


def statuses(card: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in card["scenarios"]}


def test_the_scripted_server_passes() -> None:
    ids = ("must-legacy-shapes-2024-11-05", "should-legacy-content-from-assistant-content", "must-core-combinations-only",
           "must-no-duplicate-variant-pairs", "must-outputvariants-on-every-tool", "plan-07-every-tool-declares-assistant-content")
    card = scorecard(conforming, *ids)
    assert set(statuses(card).values()) == {"pass"}, card["scenarios"]


def leaky_then_error(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """2024-11-05: tools/list leaks outputVariants, then the call the scenario needs comes back isError (a failure too)."""
    if version == "2024-11-05":
        return {"result": {"tools": [TOOL]}} if method == "tools/list" else {"result": {"content": TEXT, "isError": True}}
    return conforming(version, method, params)


def no_outputs_then_unsupported(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The 2026-12-01 call carries no `outputs`, then 2026-07-28 is not served (-32022)."""
    if version == "2026-07-28":
        return {"error": {"code": UNSUPPORTED_VERSION, "message": "unsupported protocol version"}}
    if method == "tools/call":
        return {"result": {"content": TEXT}}
    return conforming(version, method, params)


@pytest.mark.parametrize(("answer", "scenario", "first", "then"), [
    (leaky_then_error, "must-legacy-shapes-2024-11-05", ("list", "every tool has the legacy shape"),
     "step call (list_files at 2024-11-05): the call this scenario needs failed: isError: true"),
    (no_outputs_then_unsupported, "should-legacy-content-from-assistant-content", ("modern", "the result has an `outputs` array"),
     "the server does not serve 2026-07-28"),
])
def test_a_later_skip_or_failure_never_hides_a_failure(answer: Answer, scenario: str, first: tuple[str, str], then: str) -> None:
    card = scorecard(answer, scenario)
    [result] = card["scenarios"]
    assert result["status"] == "fail", result
    assert result["failures"][0]["step"] == first[0] and result["failures"][0]["message"].startswith(first[1]), result["failures"]
    assert then in result["reason"], result["reason"]
    assert (scenario in card["requiredFailures"]) is (result["level"] != "SHOULD")  # a SHOULD is reported, never required


def error_to_tools_list(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    if method == "tools/list":
        return {"error": {"code": -32603, "message": "internal error"}}
    return conforming(version, method, params)


def empty_result_to_tools_list(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    return {"result": {}} if method == "tools/list" else conforming(version, method, params)


@pytest.mark.parametrize("answer", [error_to_tools_list, empty_result_to_tools_list])
def test_an_error_or_empty_answer_to_tools_list_satisfies_no_every(answer: Answer) -> None:
    ids = ("must-core-combinations-only", "must-no-duplicate-variant-pairs", "must-outputvariants-on-every-tool",
           "plan-07-every-tool-declares-assistant-content", "should-structured-variants-declare-schema")
    card = scorecard(answer, *ids)
    assert set(statuses(card).values()) == {"fail"}, statuses(card)
    assert not card["ok"]
    combinations = next(r for r in card["scenarios"] if r["id"] == "must-core-combinations-only")
    assert "nothing at $.response.result.tools[*]: nothing was judged" in combinations["reason"]


def named(server: str, calls: list[str]) -> Answer:
    """A server named `server` (server/discover's serverInfo) with one tool, execute_code, not annotated read-only;
    every tools/call it gets is recorded in `calls`."""
    tool = {"name": "execute_code", "inputSchema": {"type": "object"}, "outputVariants": [ASSISTANT_CONTENT]}

    def answer(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method == "server/discover":
            return {"result": {"supportedVersions": [OUTPUTS_VERSION], "capabilities": {}, "serverInfo": {"name": server}}}
        if method == "tools/list":
            return {"result": {"tools": [tool]}}
        calls.append(str(params.get("arguments")))
        return {"result": {"outputs": [{**ASSISTANT_CONTENT, "content": TEXT}]}}

    return answer


@pytest.mark.parametrize(("server", "called"), [("someone-elses-server", False), ("mcp-variants", True)])
def test_the_built_in_calls_run_on_this_projects_server_only(server: str, called: bool) -> None:
    """The built-in default `execute_code {"code": "print(1)"}` suits this project's server; another server's
    execute_code (not read-only) is never run unasked: the scenario applies, but is not exercised."""
    calls: list[str] = []
    card = scorecard(named(server, calls), "plan-01-conversational")
    assert bool(calls) is called, calls
    [result] = card["scenarios"]
    assert result["status"] == ("pass" if called else "skip") and result.get("applicable", True), result
    [tool] = card["tools"]
    assert tool["called"] is called


@pytest.mark.parametrize(("n", "said"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
                                         (21, "21st"), (22, "22nd"), (101, "101st"), (111, "111th")])
def test_a_call_is_counted_in_words(n: int, said: str) -> None:
    assert ordinal(n) == said


# ---- a comparison of two calls, failing because the tool's result changes from call to call (changing_results.py) ----

LEGACY_CONTENT = "should-legacy-content-from-assistant-content"
# The scenario's `fix`, after the detail (the tool may be a migrated one, keeping the content it always sent).
ESTABLISHED_FIX = ("SEP-3279 asks this of a new tool; if list_files already served older clients before it declared variants "
                   "(a migrated tool keeping the content it always sent them), pass --established list_files")


def comparisons_of_two_calls(vector: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(step, earlier step) for each check of a tools/call step that compares its answer with an earlier tools/call's."""
    calls = [step["id"] for step in vector["steps"] if step["method"] == "tools/call"]
    return [(step["id"], earlier) for step in vector["steps"] if step["method"] == "tools/call"
            for check in step.get("checks", []) for earlier, _ in compared_steps(check) if earlier in calls]


def test_the_scenario_comparing_two_calls_is_the_one_whose_failure_is_explained() -> None:
    """Every scenario that compares the answers of two calls of its tool: the legacy content, compared with the
    assistant/content of the same call at 2026-12-01. A rewrite of it that hid the comparison from compared_steps would
    leave its failure unexplained again; a new scenario comparing two calls shows here, to be looked at."""
    found = {v["id"]: comparisons_of_two_calls(v) for v in all_vectors() if v.get("kind") == "server"}
    assert {sid: pairs for sid, pairs in found.items() if pairs} == {LEGACY_CONTENT: [("legacy", "modern")]}


def counting(counted: list[str]) -> Answer:
    """A conforming server whose text says how many calls it has answered (each appended to `counted`): a write that
    creates something and says its number."""
    def answer(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method != "tools/call":
            return conforming(version, method, params)
        counted.append(version)
        text = [{"type": "text", "text": f"Posted comment #{999 + len(counted)}."}]
        return {"result": {"outputs": [{**ASSISTANT_CONTENT, "content": text}]} if version == OUTPUTS_VERSION else {"content": text}}
    return answer


def projecting_badly(counted: list[str]) -> Answer:
    """A conforming server whose tool answers the same every time, but whose legacy content is not assistant/content."""
    def answer(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method == "tools/call":
            counted.append(version)
            if version != OUTPUTS_VERSION:
                return {"result": {"content": [{"type": "text", "text": "{\"files\": 3}"}]}}
        return conforming(version, method, params)
    return answer


def test_a_tool_whose_result_changes_fails_the_comparison_and_says_why() -> None:
    """The legacy content (#1001) differs from the assistant/content (#1000), and the earlier call, sent again at its own
    version, answers #1002: the scenario still fails (the rule was not seen kept), and says the tool's result changed
    between two identical calls, what to pass, and where the docs say more, before the difference itself."""
    counted: list[str] = []
    [result] = scorecard(counting(counted), LEGACY_CONTENT)["scenarios"]
    assert result["status"] == "fail", result
    assert counted == [OUTPUTS_VERSION, "2026-07-28", OUTPUTS_VERSION]  # the earlier call sent again once, at its version
    [failure] = result["failures"]
    assert failure["message"] == (
        "the legacy `content` equals the assistant/content output of the same call at 2026-12-01: list_files's result "
        "changed between two identical calls at the same version (step modern at 2026-12-01, sent again, answered "
        '[{"text":"Posted comment #1002.","type":"text"}]): it creates or counts something, or says the time, so comparing '
        "its calls across versions cannot judge this rule; give a --call whose result is the same each time (a read, or "
        "arguments that find the same thing): docs/conformance.md#a-tool-that-changes-something; "
        'found [[{"text":"Posted comment #1001.","type":"text"}]]; other [[{"text":"Posted comment #1000.","type":"text"}]]. '
        f"{ESTABLISHED_FIX}")
    assert failure["resultChangedWhenRepeated"] == {
        "step": "modern", "version": OUTPUTS_VERSION, "first": [[{"type": "text", "text": "Posted comment #1000."}]],
        "again": [[{"type": "text", "text": "Posted comment #1002."}]]}
    assert "a-tool-that-changes-something" in format_line(result)  # within what the summary's line shows


def test_a_tool_that_answers_the_same_each_time_keeps_the_plain_difference() -> None:
    """The earlier call, sent again, answers as it did: the legacy content really differs across versions, and the
    failure says that alone, as it always did."""
    counted: list[str] = []
    [result] = scorecard(projecting_badly(counted), LEGACY_CONTENT)["scenarios"]
    assert result["status"] == "fail" and counted == [OUTPUTS_VERSION, "2026-07-28", OUTPUTS_VERSION], result
    [failure] = result["failures"]
    assert failure["message"] == ("the legacy `content` equals the assistant/content output of the same call at 2026-12-01: "
                                  'found [[{"text":"{\\"files\\": 3}","type":"text"}]]; other [[{"text":"3 files","type":"text"}]]. '
                                  f"{ESTABLISHED_FIX}")
    assert "resultChangedWhenRepeated" not in failure


def test_a_comparison_that_passes_sends_nothing_again() -> None:
    counted: list[str] = []

    def answer(version: str, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        if method == "tools/call":
            counted.append(version)
        return conforming(version, method, params)

    [result] = scorecard(answer, LEGACY_CONTENT)["scenarios"]
    assert result["status"] == "pass" and counted == [OUTPUTS_VERSION, "2026-07-28"], result


EMPTY_RESULT_SERVER = '''
from mcp.server.mcpserver import MCPServer

from mcp_variants.sdk import Results, Variants, cli, variant

mcp = MCPServer("tickets")
variants = Variants(mcp)


@variants.tool("assistant/content", variant("assistant/structured", {"type": "object"}), annotations={"readOnlyHint": True})
def list_empty() -> Results:
    """Open tickets: none."""
    return Results({"assistant/content": [], "assistant/structured": {"tickets": []}})


cli(mcp)
'''


def test_an_empty_assistant_content_fails_with_the_rule_and_the_fix_named(tmp_path: Path) -> None:
    """A new tool returning [] as its assistant/content (an empty result, served as `content: []`): the check's
    line says which rule it breaks and what to return instead, as the server's log does."""
    (tmp_path / "server.py").write_text(EMPTY_RESULT_SERVER)
    vectors = [v for v in all_vectors() if v["id"] in ("plan-01-conversational", "must-assistant-content-usable")]
    with StdioTarget([sys.executable, "server.py"], cwd=str(tmp_path), timeout=60) as target:
        card = run(target, vectors, RunConfig(kinds=frozenset({"server"})))
    lines = {r["id"]: format_line(r) for r in card["scenarios"]}
    assert statuses(card) == {"plan-01-conversational": "fail", "must-assistant-content-usable": "fail"}
    for line in lines.values():
        assert ("step call (list_empty at 2026-12-01): " in line and "at least one content block: expected length >= 1, "
                "found []. SEP-3279: assistant/content MUST provide a usable model representation, and this one gives the "
                "model nothing to read; return a text block that says what the empty result means (e.g. \"No results.\")"
                in line), line
