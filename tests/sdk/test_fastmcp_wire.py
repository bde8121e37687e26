"""mcp_variants.fastmcp on the wire: a real FastMCP 4 server process (tests/sdk/fastmcp_sample_server.py) on stdio and on
streamable HTTP, spoken to in raw JSON-RPC at 2026-12-01 and in the legacy eras; FastMCP's Context, middleware and
content values keep working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_variants.conformance.wire import RoundTrip, StdioTarget, Target
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from support.servers import HttpServer
from support.stalled import check_server_handles_stalled
from support.waiting import until

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

SERVER = Path(__file__).with_name("fastmcp_sample_server.py")
OWN_FLAGS = Path(__file__).with_name("fastmcp_own_flags_server.py")
UI = {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


@pytest.fixture(scope="module", params=["stdio", "http"])
def target(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    if request.param == "stdio":
        with StdioTarget([sys.executable, str(SERVER)], timeout=60) as running:
            yield running
        return
    folder = tmp_path_factory.mktemp("fastmcp-http")
    server = HttpServer(folder, log=folder / "server.log", command=[sys.executable, str(SERVER)])
    try:
        yield server.target
    finally:
        server.close()


def call(target: Target, name: str, arguments: dict[str, Any], requested: list[str] | None = None,
         version: str = OUTPUTS_VERSION, extensions: dict[str, Any] | None = None, **params: Any) -> RoundTrip:
    body: dict[str, Any] = {"name": name, "arguments": arguments, **params}
    if requested is not None:
        body["requestedOutputs"] = [dict(zip(("audience", "format"), s.rsplit("/", 1), strict=True)) for s in requested]
    return target.exchange(version, extensions, "tools/call", body)


def outputs(trip: RoundTrip) -> dict[str, Any]:
    return {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in trip.result["outputs"]}


def test_tools_list_has_the_variants_at_2026_12_01_beside_fastmcps_own_entry(target: Target) -> None:
    tools = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    add = tools["add"]
    assert [(v["audience"], v["format"]) for v in add["outputVariants"]] == [
        ("assistant", "content"), ("programmatic", "structured"), ("user", "structured")]
    assert add["outputVariants"][1]["schema"]["properties"]["total"]["type"] == "integer"  # Sum, from pydantic
    assert "outputSchema" not in add
    assert add["inputSchema"]["required"] == ["a", "b"] and "ctx" not in add["inputSchema"]["properties"]  # FastMCP's
    plain = tools["plain"]  # FastMCP's own tool, as if migrated with legacy_tool() (test_fastmcp_plain_tools.py)
    assert "outputSchema" not in plain
    assert [(v["audience"], v["format"]) for v in plain["outputVariants"]] == [("assistant", "content"), ("assistant", "structured")]
    ticket = tools["close_ticket"]  # Ticket nests Sum | None: inlined, as FastMCP (dereference_schemas) inlines its own
    assert "$ref" not in json.dumps(ticket["outputVariants"]) and "$defs" not in json.dumps(ticket["outputVariants"])
    assert "$ref" not in json.dumps(tools["reopened"]["outputVariants"])  # a plain tool's: FastMCP's inlined outputSchema
    assert ticket["outputVariants"][1]["schema"]["properties"]["closedBy"]["anyOf"][0]["properties"]["total"]["type"] == "integer"


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28"])
def test_older_versions_get_the_legacy_shapes(target: Target, version: str) -> None:
    tools = {t["name"]: t for t in target.exchange(version, None, "tools/list", {}).result["tools"]}
    assert all("outputVariants" not in t for t in tools.values())
    assert "outputSchema" not in tools["add"]  # no assistant/structured: programmatic and user schemas never become it
    assert "$ref" not in json.dumps(tools["close_ticket"])  # its assistant/structured outputSchema inlined, as FastMCP's
    result = call(target, "add", {"a": 2, "b": 3}, version=version).result
    assert result["content"] == [{"type": "text", "text": "2 + 3 = 5"}]
    assert "structuredContent" not in result and "outputs" not in result


def test_exactly_the_requested_outputs_in_request_order(target: Target) -> None:
    assert outputs(call(target, "add", {"a": 2, "b": 3})) == {"assistant/content": [{"type": "text", "text": "2 + 3 = 5"}]}
    both = call(target, "add", {"a": 2, "b": 3}, ["user/structured", "programmatic/structured"])
    assert [o["audience"] for o in both.result["outputs"]] == ["user", "programmatic"]
    assert outputs(both) == {"user/structured": {"sum": 5}, "programmatic/structured": {"total": 5}}
    assert "content" not in both.result and "structuredContent" not in both.result


def test_a_bad_selector_is_refused_before_the_tool_runs_with_the_offered_list(target: Target) -> None:
    before = call(target, "computed", {}, ["programmatic/structured"])
    error = call(target, "add", {"a": 1, "b": 2}, ["assistant/structured"]).error
    assert error["code"] == -32602 and error["data"]["reason"] == "undeclared"
    assert {"audience": "user", "format": "structured"} in error["data"]["offered"]
    assert call(target, "add", {"a": 1, "b": 2}, ["programmatic/content"]).error["data"]["reason"] == "not-a-core-combination"
    after = call(target, "computed", {}, ["programmatic/structured"])
    assert outputs(after)["programmatic/structured"]["computed"] == outputs(before)["programmatic/structured"]["computed"]
    legacy = call(target, "add", {"a": 1, "b": 2}, ["assistant/content"], version="2026-07-28")
    assert legacy.error["code"] == -32602  # requestedOutputs is a 2026-12-01 parameter


def test_an_output_is_computed_only_when_requested(target: Target) -> None:
    def computed() -> list[str]:
        return list(outputs(call(target, "computed", {}, ["programmatic/structured"]))["programmatic/structured"]["computed"])

    start = len(computed())
    call(target, "add", {"a": 1, "b": 1}, ["assistant/content", "user/structured"])
    assert len(computed()) == start
    call(target, "add", {"a": 1, "b": 1}, ["programmatic/structured"])
    assert len(computed()) == start + 1


@pytest.mark.parametrize(("how", "kind", "text"), [("ours", "not-found", "no such thing"),
                                                    ("fastmcp", "tool-error", "FastMCP says no"),
                                                    ("ours-message", "tool-error", "no such ticket"),
                                                    ("malformed-kind", "tool-error", "no ticket 7"),
                                                    ("mismatched", "internal", "fail failed inside the server"),
                                                    ("crash", "internal", "failed inside the server")])
def test_failures_are_error_outputs_of_the_requested_selectors(target: Target, how: str, kind: str, text: str) -> None:
    result = call(target, "fail", {"how": how}, ["programmatic/structured", "assistant/content"]).result
    assert result["isError"] is True
    got = {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in result["outputs"]}
    assert got["programmatic/structured"]["error"]["type"] == kind and text in got["programmatic/structured"]["error"]["message"]
    assert text in got["assistant/content"][0]["text"] and "secret" not in str(result)


@pytest.mark.parametrize("version", [OUTPUTS_VERSION, "2025-11-25"])
def test_the_authors_mistakes_in_a_failure_are_in_the_log_not_in_the_result(version: str) -> None:
    """A malformed kind (the message kept, as a tool-error) and a Results unlike the declaration (the generic
    internal text, at every version): what went wrong is in the server's log, for the author."""
    with StdioTarget([sys.executable, str(SERVER)], timeout=60, env={**os.environ, "COLUMNS": "1000"}) as target:
        malformed = call(target, "fail", {"how": "malformed-kind"}, version=version).result
        mismatched = call(target, "fail", {"how": "mismatched"}, version=version).result
        connection = target.process_for(version).connection

        def log() -> str:
            return connection.stderr_tail.decode(errors="replace")

        until(lambda: "did you mean" in log() and "'Not Found!'" in log(), "both mistakes in the server's log")
    texts = [json.dumps(result) for result in (malformed, mismatched)]
    assert "no ticket 7" in texts[0] and "fail failed inside the server" in texts[1] and "Results" not in texts[1], texts
    assert "tool fail raised ToolError with the kind 'Not Found!'" in log() and "lowercase words joined by hyphens" in log()
    # cli's log, FastMCP having set up none but its own logger's: each line once, with its level and logger name.
    line = "tool fail returned Results with programatic/structured not declared (did you mean programmatic/structured?)"
    assert log().count(line) == 1 and f"ERROR mcp_variants.sdk._toolset: {line}" in log(), log()


def test_a_server_with_flags_of_its_own_serves_http_by_one_parser(tmp_path: Path) -> None:
    """fastmcp.md, *Run it*: one parser reads `--db` (the server's) and cli's options (`add_serving_arguments`),
    `cli(mcp, args=args)` serves by them, and `--help` lists both, saying HTTP's authentication is FastMCP's."""
    helped = subprocess.run([sys.executable, str(OWN_FLAGS), "--help"], capture_output=True, text=True, timeout=90,
                            stdin=subprocess.DEVNULL)
    assert helped.returncode == 0 and "the database of shipments" in helped.stdout, helped.stdout + helped.stderr
    assert helped.stdout.index("\n  --db DB") < helped.stdout.index("\nserving MCP:") < helped.stdout.index("\n  --port PORT")
    assert "[default 8000]" in helped.stdout and "\n  --token TOKEN" in helped.stdout
    said = " ".join(helped.stdout.split())  # as argparse wraps it
    assert ("authentication: FastMCP's auth= provider, or for a server without one --token, checked by FastMCP's "
            "DebugTokenVerifier") in said, said
    assert "--log-level LEVEL the log's level on stderr" in said and "[default WARNING" in said, said
    server = HttpServer(tmp_path, "--db", "z.sqlite", log=tmp_path / "server.log", command=[sys.executable, str(OWN_FLAGS)])
    try:
        assert outputs(call(server.target, "database", {})) == {"assistant/content": [{"type": "text", "text": "z.sqlite"}]}
    finally:
        server.close()


def test_a_token_as_the_sdk_layers_cli_takes_it_is_checked_by_fastmcp_where_the_server_has_no_auth(tmp_path: Path) -> None:
    """fastmcp.md, *Run it*: `MCP_VARIANTS_TOKEN` (or `--token`), as a deployment script gives it to an MCPServer
    server's cli, is every request's bearer token, beyond loopback too; beside `FastMCP(auth=...)` it is refused."""
    from mcp_variants.conformance.wire import HttpTarget

    env = {**os.environ, "MCP_VARIANTS_TOKEN": "from-the-environment"}
    server = HttpServer(tmp_path, "--db", "t.sqlite", log=tmp_path / "server.log", env=env,
                        command=[sys.executable, str(OWN_FLAGS)])
    try:
        refused = server.post({"jsonrpc": "2.0", "id": server.next_id(), "method": "server/discover", "params": {}})
        assert refused.status == 401, refused
        allowed = HttpTarget(server.url, headers={"Authorization": "Bearer from-the-environment"}, timeout=30)
        try:
            assert outputs(call(allowed, "database", {})) == {"assistant/content": [{"type": "text", "text": "t.sqlite"}]}
        finally:
            allowed.close()
    finally:
        server.close()
    beyond = subprocess.run([sys.executable, str(OWN_FLAGS), "--http", "--host", "0.0.0.0", "--port", "1"],
                            capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL, env={**env, "OWN_AUTH": "1"})
    assert beyond.returncode == 2 and "the server has FastMCP(auth=...)" in beyond.stderr, beyond.stderr


def test_a_model_with_a_required_nullable_field_is_sent_as_its_schema_says(target: Target) -> None:
    expected = {"id": 7, "assignee": None, "closedBy": None}
    assert outputs(call(target, "close_ticket", {"id": 7}, ["programmatic/structured", "assistant/structured"])) == {
        "programmatic/structured": expected, "assistant/structured": expected}
    legacy = call(target, "close_ticket", {"id": 7}, version="2025-11-25").result
    assert legacy["structuredContent"] == expected and legacy.get("isError") is not True


def test_a_schema_breach_is_an_invalid_output_error_and_the_output_is_never_sent(target: Target) -> None:
    result = call(target, "breaks_schema", {}, ["programmatic/structured", "assistant/content"]).result
    assert result["isError"] is True and "not a number" not in str(result)
    got = {f"{o['audience']}/{o['format']}": o.get("content", o.get("structuredContent")) for o in result["outputs"]}
    assert got["programmatic/structured"]["error"]["type"] == "invalid-output"
    assert "breaks_schema ran" in got["assistant/content"][0]["text"] and "programmatic" not in got["assistant/content"][0]["text"]


def test_arguments_fastmcp_refuses_are_invalid_arguments_in_the_requested_outputs(target: Target) -> None:
    result = call(target, "add", {"a": "x"}, ["programmatic/structured"]).result
    assert result["isError"] is True
    assert outputs(call(target, "add", {"a": "x"}, ["programmatic/structured"]))["programmatic/structured"]["error"]["type"] \
        == "invalid-arguments"


def test_content_values_are_what_a_fastmcp_tool_may_return(target: Target) -> None:
    got = outputs(call(target, "picture", {}, ["assistant/content", "user/content"]))
    assert got["assistant/content"] == [{"type": "text", "text": '{"total":3}'}]  # a model: JSON text, as FastMCP makes it
    assert got["user/content"][0]["type"] == "image" and got["user/content"][0]["mimeType"] == "image/png"
    assert outputs(call(target, "picture", {"kind": "dict"}))["assistant/content"] == [{"type": "text", "text": '{"a":1}'}]


def test_fastmcps_context_reports_progress_and_logs(target: Target) -> None:
    modern = call(target, "add", {"a": 2, "b": 3}, ["programmatic/structured"], _meta={"progressToken": "p1"})
    assert [n["params"]["message"] for n in modern.progress("p1")] == ["adding"]
    legacy = call(target, "add", {"a": 2, "b": 3}, version="2025-11-25", _meta={"progressToken": "p2"})
    assert [n["params"]["progress"] for n in legacy.progress("p2")] == [1.0]
    logged = [n["params"]["data"] for n in legacy.notifications if n["method"] == "notifications/message"]
    assert any("adding 2 and 3" in str(data) for data in logged), legacy.notifications


def test_fastmcps_middleware_sees_every_call(target: Target) -> None:
    call(target, "add", {"a": 1, "b": 2}, ["assistant/content"])
    seen = outputs(call(target, "computed", {}, ["programmatic/structured"]))["programmatic/structured"]["seen"]
    assert seen[-2:] == ["add", "computed"]


def test_the_ui_variant_only_when_the_request_negotiated_mcp_apps(target: Target) -> None:
    plain = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, None, "tools/list", {}).result["tools"]}
    with_ui = {t["name"]: t for t in target.exchange(OUTPUTS_VERSION, UI, "tools/list", {}).result["tools"]}
    assert ("io.modelcontextprotocol/ui", "structured") not in {(v["audience"], v["format"]) for v in plain["view"]["outputVariants"]}
    assert ("io.modelcontextprotocol/ui", "structured") in {(v["audience"], v["format"]) for v in with_ui["view"]["outputVariants"]}
    assert with_ui["view"]["_meta"]["ui"]["resourceUri"] == "ui://sample/view.html"  # FastMCP's app= link, kept
    refused = call(target, "view", {}, ["io.modelcontextprotocol/ui/structured"]).error
    assert refused["code"] == -32602
    shown = call(target, "view", {}, ["io.modelcontextprotocol/ui/structured"], extensions=UI)
    assert outputs(shown) == {"io.modelcontextprotocol/ui/structured": {"bars": [1, 2]}}


def test_discover_names_2026_12_01_and_the_extension(target: Target) -> None:
    result = target.exchange("2026-07-28", None, "server/discover", {}).result
    assert OUTPUTS_VERSION in result["supportedVersions"]
    assert result["capabilities"]["extensions"]["io.github.mcp-variants/output-variants"] == {"versions": [OUTPUTS_VERSION]}


GUARDED = """\
import sys

import anyio

sys.path.insert(0, {folder!r})
from fastmcp_sample_server import mcp

from mcp_variants.fastmcp import serve_http
from mcp_variants.sdk import HttpLimits

port = int(sys.argv[sys.argv.index("--port") + 1])
anyio.run(lambda: serve_http(mcp, port=port, limits=HttpLimits(read_timeout=2, max_connections=20)))
"""


def test_stalled_connections_neither_starve_a_client_nor_stay_on_fastmcps_http(tmp_path: Path) -> None:
    """FastMCP's HTTP app served by `mcp_variants.fastmcp.serve_http` keeps the same read deadline and connection cap
    as the SDK's: 100 half-sent requests against a cap of 20 leave a client served, and close by the deadline."""
    script = tmp_path / "guarded.py"
    script.write_text(GUARDED.format(folder=str(SERVER.parent)))
    server = HttpServer(tmp_path, log=tmp_path / "server.log", command=[sys.executable, str(script)])
    check_server_handles_stalled(server, 100, cap=20, deadline=10)
