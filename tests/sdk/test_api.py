"""The public server API (mcp_variants.sdk) on the official SDK's MCPServer, on the wire: a real server process
(tests/sdk/sample_server.py) spoken to in raw JSON-RPC, at 2026-12-01 and in the legacy eras."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import RoundTrip, StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.waiting import until

pytestmark = [pytest.mark.wire, pytest.mark.timeout(120)]

SERVER = Path(__file__).with_name("sample_server.py")
OWN_FLAGS = Path(__file__).with_name("own_flags_server.py")
WITHOUT_RICH = Path(__file__).with_name("without_rich.py")


@pytest.fixture(scope="module")
def target() -> Iterator[StdioTarget]:
    with StdioTarget([sys.executable, str(SERVER)], timeout=30) as running:
        yield running


def call(target: StdioTarget, name: str, arguments: dict[str, Any], requested: list[str] | None = None,
         version: str = OUTPUTS_VERSION) -> RoundTrip:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if requested is not None:
        params["requestedOutputs"] = [dict(zip(("audience", "format"), s.rsplit("/", 1), strict=True)) for s in requested]
    return target.exchange(version, None, "tools/call", params)


def outputs(trip: RoundTrip) -> dict[str, Any]:
    return {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in trip.result["outputs"]}


def test_tools_list_has_each_tools_variants_at_2026_12_01_and_no_output_schema(target: StdioTarget) -> None:
    tools = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    lazy = tools["lazy"]
    assert [(v["audience"], v["format"]) for v in lazy["outputVariants"]] == [
        ("assistant", "content"), ("programmatic", "structured"), ("user", "structured")]
    assert lazy["outputVariants"][1]["schema"]["properties"]["total"]["type"] == "integer"  # Sum, from pydantic
    assert "outputSchema" not in lazy and lazy["inputSchema"]["required"] == ["a", "b"]  # the SDK's, from the signature


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28"])
def test_older_versions_get_the_legacy_shapes(target: StdioTarget, version: str) -> None:
    tools = {t["name"]: t for t in target.exchange(version, None, "tools/list", {}).result["tools"]}
    assert all("outputVariants" not in t for t in tools.values())
    # No assistant/structured: no legacy outputSchema; programmatic and user schemas are never projected into it.
    assert all("outputSchema" not in t for name, t in tools.items() if name not in ("close_ticket", "legacy_fails")), tools
    if version != "2024-11-05":  # no outputSchema before 2025-06-18
        assert tools["close_ticket"]["outputSchema"]["required"] == ["id", "assignee", "closedBy"]  # assistant/structured's
    # A migrated tool keeps the outputSchema MCPServer listed for it, at every older version (its established shape).
    assert tools["legacy_fails"]["outputSchema"]["properties"]["result"]["type"] == "integer"
    result = call(target, "lazy", {"a": 2, "b": 3}, version=version).result
    assert result["content"] == [{"type": "text", "text": "2 + 3 = 5"}] and "structuredContent" not in result
    assert "outputs" not in result


def test_only_the_requested_outputs_are_computed_and_sent(target: StdioTarget) -> None:
    assert outputs(call(target, "lazy", {"a": 2, "b": 3})) == {"assistant/content": [{"type": "text", "text": "2 + 3 = 5"}]}
    both = call(target, "lazy", {"a": 2, "b": 3}, ["programmatic/structured", "assistant/content"])
    assert [o["audience"] for o in both.result["outputs"]] == ["programmatic", "assistant"]  # in request order
    assert outputs(both)["programmatic/structured"] == {"total": 5}
    # The user entry raises when computed: asking for it shows it was not computed before.
    failed = call(target, "lazy", {"a": 1, "b": 1}, ["user/structured"]).result
    assert failed["isError"] is True and outputs_of(failed)["user/structured"]["error"]["type"] == "internal"


def outputs_of(result: dict[str, Any]) -> dict[str, Any]:
    return {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in result["outputs"]}


def test_a_projection_per_variant_and_the_sdks_context(target: StdioTarget) -> None:
    trip = call(target, "projected", {"a": 4, "b": 5}, ["assistant/content", "programmatic/structured"])
    assert outputs(trip) == {"assistant/content": [{"type": "text", "text": "total 9"}], "programmatic/structured": {"total": 9}}


def test_a_bad_selector_is_refused_before_the_tool_runs_with_the_offered_list(target: StdioTarget) -> None:
    error = call(target, "lazy", {"a": 1, "b": 2}, ["assistant/structured"]).error
    assert error["code"] == -32602 and error["data"]["reason"] == "undeclared"
    assert {"audience": "user", "format": "structured"} in error["data"]["offered"]
    not_core = call(target, "lazy", {"a": 1, "b": 2}, ["programmatic/content"]).error
    assert not_core["code"] == -32602 and not_core["data"]["reason"] == "not-a-core-combination"
    legacy = target.exchange("2026-07-28", None, "tools/call", {"name": "lazy", "arguments": {"a": 1, "b": 2},
                                                                "requestedOutputs": [{"audience": "assistant", "format": "content"}]})
    assert legacy.error["code"] == -32602


def test_a_schema_breach_is_an_invalid_output_error_and_the_output_is_never_sent(target: StdioTarget) -> None:
    result = call(target, "breaks_schema", {}, ["programmatic/structured", "assistant/content"]).result
    assert result["isError"] is True and "not a number" not in str(result)
    error = outputs_of(result)["programmatic/structured"]["error"]
    assert error["type"] == "invalid-output" and "breaks_schema ran" in error["message"]
    # The assistant is told the tool ran, and is not told of another audience's variant.
    text = outputs_of(result)["assistant/content"][0]["text"]
    assert "breaks_schema ran" in text and "programmatic" not in text


@pytest.mark.parametrize("by", [None, "ada"])
def test_a_model_with_a_required_nullable_field_is_sent_as_its_schema_says(target: StdioTarget, by: str | None) -> None:
    listed = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    schema = listed["close_ticket"]["outputVariants"][1]["schema"]
    assert "assignee" in schema["required"] and "closedBy" in schema["required"]  # pydantic's own schema
    arguments = {"id": 7, **({"by": by} if by else {})}
    result = call(target, "close_ticket", arguments, ["programmatic/structured", "assistant/structured"]).result
    closed_by = {"name": by, "team": None} if by else None
    expected = {"id": 7, "assignee": None, "closedBy": closed_by, "note": None}
    assert "isError" not in result and outputs_of(result) == {"programmatic/structured": expected, "assistant/structured": expected}
    legacy = call(target, "close_ticket", arguments, version="2025-11-25").result
    assert legacy["structuredContent"] == expected and legacy["content"] == [{"type": "text", "text": "ticket 7 closed"}]


@pytest.mark.parametrize(("how", "kind", "text"), [("ours", "not-found", "no such thing"), ("sdk", "tool-error", "the SDK's words"),
                                                    ("ours-message", "tool-error", "no such ticket"),
                                                    ("malformed-kind", "tool-error", "no ticket 7"),
                                                    ("crash", "internal", "failed inside the server")])
def test_failures_are_error_outputs_of_the_requested_selectors(target: StdioTarget, how: str, kind: str, text: str) -> None:
    result = call(target, "fails", {"how": how}, ["programmatic/structured", "assistant/content"]).result
    assert result["isError"] is True
    got = outputs_of(result)
    assert got["programmatic/structured"]["error"]["type"] == kind and text in got["programmatic/structured"]["error"]["message"]
    assert text in got["assistant/content"][0]["text"] and "secret" not in str(result)


@pytest.mark.parametrize(("how", "kind", "text"), [("ours", "not-found", "no such thing"), ("sdk", "tool-error", "the SDK's words"),
                                                    ("ours-message", "tool-error", "no such ticket"),
                                                    ("malformed-kind", "tool-error", "no ticket 7")])
def test_a_migrated_tool_keeps_mcpservers_words_where_they_were_read_and_a_typed_kind(target: StdioTarget, how: str, kind: str,
                                                                                       text: str) -> None:
    legacy = call(target, "legacy_fails", {"how": how}, version="2025-11-25").result
    assert legacy["isError"] is True and legacy["content"][0]["text"] == f"Error executing tool legacy_fails: {text}"
    error = outputs_of(call(target, "legacy_fails", {"how": how}, ["programmatic/structured"]).result)["programmatic/structured"]
    assert error["error"] == {"type": kind, "message": text}  # at 2026-12-01, where no client read MCPServer's words
    assert call(target, "legacy_fails", {"how": "no"}, version="2025-11-25").result["isError"] is False  # as MCPServer said it


def test_arguments_the_sdk_refuses_are_invalid_arguments_in_the_requested_outputs(target: StdioTarget) -> None:
    result = call(target, "lazy", {"a": "x"}, ["programmatic/structured"]).result
    assert result["isError"] is True
    error = outputs_of(result)["programmatic/structured"]["error"]
    assert error["type"] == "invalid-arguments" and error["message"].startswith("2 validation errors for lazy"), error


def test_a_migrated_tools_refused_arguments_keep_mcpservers_words_only_where_old_clients_read_them(target: StdioTarget) -> None:
    """python-servers.md, after the legacy table: at 2026-12-01 the refusal alone; older versions MCPServer's text."""
    error = outputs_of(call(target, "legacy_fails", {}, ["programmatic/structured"]).result)["programmatic/structured"]["error"]
    assert error["type"] == "invalid-arguments" and error["message"].startswith("1 validation error"), error
    legacy = call(target, "legacy_fails", {}, version="2025-11-25").result
    assert legacy["isError"] is True and legacy["content"] == [
        {"type": "text", "text": f"Error executing tool legacy_fails: {error['message']}"}], legacy


def test_discover_names_2026_12_01(target: StdioTarget) -> None:
    result = target.exchange("2026-07-28", None, "server/discover", {}).result
    assert OUTPUTS_VERSION in result["supportedVersions"]


def test_a_server_without_the_middleware_gets_it_from_cli() -> None:
    with StdioTarget([sys.executable, str(SERVER), "--no-middleware"], timeout=30) as mended:
        listed = {t["name"]: t for t in mended.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
        assert "outputVariants" in listed["lazy"], listed["lazy"]
        assert "1 + 2 = 3" in json.dumps(call(mended, "lazy", {"a": 1, "b": 2}).result)


def test_a_server_passes_its_own_flags_and_cli_says_its_defaults_url_and_reads_the_token_variable() -> None:
    """python-servers.md, *Run it*: one parser reads `--db` (the server's) and cli's options (`add_serving_arguments`),
    and `cli(mcp, args=args)` serves by them; `--help` lists both and names the default port; the HTTP server says
    its URL on stderr once it takes requests, and that URL answers only with $MCP_VARIANTS_TOKEN."""
    import os

    import httpx

    from mcp_variants.processes import free_port

    helped = subprocess.run([sys.executable, str(OWN_FLAGS), "--db", "x.sqlite", "--help"], capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert helped.returncode == 0 and "[default 8000]" in helped.stdout, helped.stdout + helped.stderr
    assert "--db DB  " in helped.stdout and "the database of shipments" in helped.stdout and "--token TOKEN" in helped.stdout
    assert helped.stdout.index("\n  --db DB") < helped.stdout.index("\nserving MCP:") < helped.stdout.index("\n  --http")
    refused = subprocess.run([sys.executable, str(OWN_FLAGS), "--db", "x.sqlite", "--prot", "1"], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)  # a typo is the one parser's error
    assert refused.returncode == 2 and "unrecognized arguments: --prot 1" in refused.stderr, refused.stderr
    with StdioTarget([sys.executable, str(OWN_FLAGS), "--db", "x.sqlite"], timeout=30) as own:
        assert outputs(call(own, "database", {})) == {"assistant/content": [{"type": "text", "text": "x.sqlite"}]}
    port = free_port()
    server = subprocess.Popen([sys.executable, str(OWN_FLAGS), "--db", "y.sqlite", "--http", "--port", str(port)],
                              stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "MCP_VARIANTS_TOKEN": "from-the-environment"})
    try:
        assert server.stderr is not None
        # After the SDK's own log lines; the module's timeout bounds the wait.
        said = next(line for line in server.stderr if "serving MCP" in line)
        assert said == f"own-flags: serving MCP at http://127.0.0.1:{port}/mcp\n", said
        discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}
        headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
                   "Mcp-Method": "server/discover"}
        url = said.rsplit(" ", 1)[1].strip()
        assert httpx.post(url, json=discover, timeout=30, headers=headers).status_code == 401
        answered = httpx.post(url, json=discover, timeout=30,
                              headers={**headers, "Authorization": "Bearer from-the-environment"})
        assert answered.status_code == 200 and OUTPUTS_VERSION in answered.text, answered.text
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_cli_refuses_a_namespace_read_without_its_options_before_serving() -> None:
    """`cli(mcp, args=...)` from a parser that was not given `add_serving_arguments` would serve stdio whatever the
    command line said: refused, naming what is missing and how to add it; and argv beside args is one too many."""
    import argparse

    from mcp.server.mcpserver import MCPServer

    from mcp_variants.sdk import add_serving_arguments, cli

    mcp = MCPServer("unserved")
    with pytest.raises(TypeError, match="no --allowed-host, --host, --http, --log-level, --port, --token: give the parser that read "
                                        r"it add_serving_arguments\(parser\) first"):
        cli(mcp, args=argparse.Namespace(db="x"))
    parsed = add_serving_arguments(argparse.ArgumentParser()).parse_args(["--http"])
    with pytest.raises(TypeError, match="argv .* or args .*, not both"):
        cli(mcp, ["--http"], args=parsed)


def test_a_server_without_the_middleware_run_by_the_sdk_says_so_on_its_first_call() -> None:
    with StdioTarget([sys.executable, str(SERVER), "--no-middleware", "--sdk-run"], timeout=30) as broken:
        error = call(broken, "lazy", {"a": 1, "b": 2}, version="2025-11-25").error
    assert error["code"] == -32603 and "middleware" in error["message"]


def test_variants_left_out_of_the_servers_extensions_is_refused_at_start() -> None:
    started = subprocess.run([sys.executable, str(SERVER), "--no-extension"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    assert started.returncode != 0
    assert "extensions=[variants]" in started.stderr and "lazy" in started.stderr, started.stderr


@pytest.fixture(scope="module")
def logging_target() -> Iterator[StdioTarget]:
    """The sample server for tests that read its log: no other test's traceback in it, and lines as wide as a log
    line (its console handler wraps at the terminal's width)."""
    with StdioTarget([sys.executable, str(SERVER)], timeout=30, env={**os.environ, "COLUMNS": "1000"}) as running:
        yield running


def logged(target: StdioTarget, text: str, version: str = OUTPUTS_VERSION) -> str:
    """The server's stderr once it holds `text` (it is read as the server writes it)."""
    connection = target.process_for(version).connection

    def log() -> str:
        return connection.stderr_tail.decode(errors="replace")

    until(lambda: text in log(), f"{text!r} in the server's log")
    return log()


def test_a_migrated_tool_that_returns_results_is_told_in_the_log_to_return_its_plain_value(logging_target: StdioTarget) -> None:
    """legacy_tool's function returns what @mcp.tool's did; the client reads what any other bug gives it."""
    error = outputs_of(call(logging_target, "legacy_fails", {"how": "results"}, ["programmatic/structured"]).result)
    assert error["programmatic/structured"]["error"]["type"] == "internal"
    log = logged(logging_target, "tool legacy_fails returned Results with no entry for assistant/structured")
    assert ("legacy_tool's function returns its plain value (as @mcp.tool's did); declare the tool with @variants.tool "
            "to return Results") in log, log


@pytest.mark.parametrize("rich", [True, False])
def test_cli_logs_each_line_once_with_its_level_and_logger_name_on_stderr(rich: bool) -> None:
    """MCPServer sets up its log as it is made: with `rich` its handler shows the level (left as it is), without it
    the message alone, which `cli` gives the level and logger name; one handler either way, on stderr."""
    command = [sys.executable, str(SERVER)] if rich else [sys.executable, str(WITHOUT_RICH), str(SERVER)]
    with StdioTarget(command, timeout=30, env={**os.environ, "COLUMNS": "1000"}) as target:
        call(target, "mismatched", {"how": "missing"})
        log = logged(target, "no entry for programmatic/structured")
    line = "tool mismatched returned Results with no entry for programmatic/structured"
    assert log.count(line) == 1, log
    assert "ERROR" in log.split(line)[0].splitlines()[-1], log  # the level, on the line's own row
    if not rich:
        assert f"ERROR mcp_variants.sdk._toolset: {line}" in log, log


def test_cli_leaves_the_authors_log_as_it_is_and_sets_the_level_asked() -> None:
    """A server that set up its log (here before MCPServer is made, whose own setup then does nothing) keeps its
    format; `--log-level warning` is the root's level whoever set up the handlers: the INFO line `cli` logs as it
    adds the middleware left out (before any request, so before the ERROR waited for) is not written."""
    env = {**os.environ, "AUTHOR_LOG_FORMAT": "AUTHOR|%(levelname)s|%(message)s"}
    command = [sys.executable, str(SERVER), "--no-middleware", "--log-level", "warning"]
    with StdioTarget(command, timeout=30, env=env) as target:
        call(target, "mismatched", {"how": "missing"})
        log = logged(target, "no entry for programmatic/structured")
    assert "AUTHOR|ERROR|tool mismatched returned Results with" in log, log
    assert "Variants.middleware added" not in log and "mcp_variants.sdk._toolset" not in log, log
    with StdioTarget(command[:-2], timeout=30, env=env) as target:  # without it, the author's INFO
        call(target, "mismatched", {"how": "missing"})
        assert "AUTHOR|INFO|Variants.middleware added" in logged(target, "no entry for programmatic/structured")


def test_a_malformed_kind_keeps_the_message_and_the_server_log_names_it(logging_target: StdioTarget) -> None:
    """`ToolError("Not Found!", "no ticket 7")`: the client reads the message (as a tool-error), the author the log."""
    error = outputs_of(call(logging_target, "fails", {"how": "malformed-kind"}, ["programmatic/structured"]).result)
    assert error["programmatic/structured"]["error"] == {"type": "tool-error", "message": "no ticket 7"}
    log = logged(logging_target, "ToolError with the kind 'Not Found!'")
    assert "tool fails raised ToolError with the kind 'Not Found!'" in log and "lowercase words joined by hyphens" in log, log


@pytest.mark.parametrize("how", ["misspelt", "missing"])
@pytest.mark.parametrize("requested", [None, ["programmatic/structured"]])
@pytest.mark.parametrize("version", [OUTPUTS_VERSION, "2025-11-25"])
def test_a_results_unlike_the_declaration_fails_whatever_was_requested(logging_target: StdioTarget, how: str,
                                                                       requested: list[str] | None, version: str) -> None:
    """The tool's bug: the model reads what any other bug gives it, at every version; the sentence is the author's,
    in the log."""
    result = call(logging_target, "mismatched", {"how": how}, requested if version == OUTPUTS_VERSION else None, version=version).result
    assert result["isError"] is True
    text = json.dumps(outputs_of(result) if version == OUTPUTS_VERSION else result)
    assert "mismatched failed inside the server; the server log has the details." in text and "Results" not in text, text
    sentence = ("programatic/structured not declared (did you mean programmatic/structured?)" if how == "misspelt"
                else "no entry for programmatic/structured")
    log = logged(logging_target, sentence, version)
    assert "tool mismatched returned Results with" in log and "assistant/content, programmatic/structured" in log, log


@pytest.mark.parametrize(("kind", "blocks"), [
    ("image", [{"type": "image", "data": base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(16)).decode(), "mimeType": "image/png"}]),
    ("model", [{"type": "text", "text": '{\n  "total": 3\n}'}]),
    ("dict", [{"type": "text", "text": '{\n  "total": 3\n}'}]),
    ("block", [{"type": "text", "text": "a block"}]),
    ("list", [{"type": "text", "text": "one"}, {"type": "text", "text": '{\n  "total": 2\n}'}, {"type": "text", "text": "two"}]),
    ("number", [{"type": "text", "text": "42"}]),
])
def test_content_values_become_content_as_mcpserver_makes_them(target: StdioTarget, kind: str, blocks: list[dict[str, Any]]) -> None:
    assert outputs(call(target, "contents", {"kind": kind})) == {"assistant/content": blocks}
    assert call(target, "contents", {"kind": kind}, version="2025-11-25").result["content"] == blocks


UI_CAPABILITIES = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}  # the extensions negotiated


def test_a_view_is_linked_served_and_fed_its_own_variant(target: StdioTarget) -> None:
    listed = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, UI_CAPABILITIES, "tools/list", {}).result["tools"]}
    assert listed["board"]["_meta"]["ui"] == {"resourceUri": "ui://sample/board.html", "visibility": ["model", "app"]}
    assert ("io.modelcontextprotocol/ui", "structured") in [(v["audience"], v["format"]) for v in listed["board"]["outputVariants"]]
    page = target.exchange(OUTPUTS_VERSION, UI_CAPABILITIES, "resources/read", {"uri": "ui://sample/board.html"}).result
    assert page["contents"][0]["mimeType"] == "text/html;profile=mcp-app" and "board" in page["contents"][0]["text"]
    params = {"name": "board", "arguments": {}, "requestedOutputs": [{"audience": "assistant", "format": "content"},
                                                                     {"audience": "io.modelcontextprotocol/ui", "format": "structured"}]}
    result = target.exchange(OUTPUTS_VERSION, UI_CAPABILITIES, "tools/call", params).result
    assert [o["audience"] for o in result["outputs"]] == ["assistant", "io.modelcontextprotocol/ui"]
    assert result["outputs"][1]["structuredContent"] == {"cells": [1, 2, 3]}


@pytest.mark.parametrize("version", [OUTPUTS_VERSION, "2026-07-28", "2025-11-25"])
def test_the_apps_given_to_variants_is_applied_by_it_and_advertised(target: StdioTarget, version: str) -> None:
    """sample_server.py lists only `variants` in MCPServer(extensions=...): Variants(apps=apps) applies the Apps."""
    if version == "2025-11-25":
        capabilities = target.handshake(version, UI_CAPABILITIES).result["capabilities"]
    else:
        capabilities = target.exchange(version, UI_CAPABILITIES, "server/discover", {}).result["capabilities"]
    # Wherever MCPServer advertises its extensions, the Apps is among them, as if it were listed.
    assert ("io.modelcontextprotocol/ui" in capabilities.get("extensions", {})) == (
        "io.github.mcp-variants/output-variants" in capabilities.get("extensions", {}))
    if version != "2025-11-25":
        assert "io.modelcontextprotocol/ui" in capabilities["extensions"]
    page = target.exchange(version, UI_CAPABILITIES, "resources/read", {"uri": "ui://sample/board.html"}).result
    assert page["contents"][0]["mimeType"] == "text/html;profile=mcp-app"


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_an_apps_host_before_2026_12_01_gets_the_content_and_no_view_data(target: StdioTarget, version: str) -> None:
    """What docs/guides/python-servers.md says a view receives on an older Apps host: the tool's legacy result, whose
    structuredContent is assistant/structured's alone (the SEP never makes an extension's output the legacy one)."""
    listed = {t["name"]: t for t in target.exchange(version, UI_CAPABILITIES, "tools/list", {}).result["tools"]}
    assert listed["board"]["_meta"]["ui"]["resourceUri"] == "ui://sample/board.html" and "outputSchema" not in listed["board"]
    result = target.exchange(version, UI_CAPABILITIES, "tools/call", {"name": "board", "arguments": {}}).result
    assert result["content"] == [{"type": "text", "text": "a board of 3 cells"}] and "structuredContent" not in result


def test_a_tool_registered_twice_says_so_on_its_first_call() -> None:
    with StdioTarget([sys.executable, str(SERVER), "--stacked"], timeout=30) as stacked:
        error = call(stacked, "stacked", {}).error
    assert error["code"] == -32603 and "registered twice" in error["message"] and "view=View(" in error["message"]


def test_the_sdks_own_run_logs_why_2026_12_01_is_refused() -> None:
    with StdioTarget([sys.executable, str(SERVER), "--sdk-run"], timeout=30) as plain:
        assert plain.exchange("2026-07-28", None, "tools/list", {}).result["tools"]
        refused = call(plain, "lazy", {"a": 1, "b": 2}).error
        logged = plain.process_for("2026-07-28").tail()
    assert refused["code"] == -32022
    assert "mcp_variants.sdk.cli(mcp)" in logged, logged
