"""`Variants(mcp)` on an MCPServer made first (server_first.py), on the wire: every tool declared after the server
exists is registered at once, whatever runs the server. Through our `cli` every era is answered, 2026-12-01 with
outputVariants and outputs; through the SDK's own `mcp.run()` the older eras are, and the server says at start, before
any client, that 2026-12-01 clients will be refused and what to call instead."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import FastMCP
from mcp.server.apps import Apps
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from mcp_variants import fastmcp as fastmcp_layer
from mcp_variants.conformance.wire import StdioTarget
from mcp_variants.protocol.versions import OUTPUTS_VERSION
from mcp_variants.sdk import DeclarationError, Results, Variants, View, variant

pytestmark = [pytest.mark.wire, pytest.mark.timeout(180)]

IDENTIFIER = "io.github.mcp-variants/output-variants"
SERVER = Path(__file__).with_name("server_first.py")
WARNING = "this server runs outside mcp_variants.sdk's transports (MCPServer.run?)"
PS = {"audience": "programmatic", "format": "structured"}


def served(*args: str, versions: tuple[str, ...]) -> tuple[dict[str, dict[str, Any]], str]:
    """Per version, the initialize answer, tools/list and a call of each tool; then all the server wrote to stderr.
    Wide log lines, so a message is not folded across lines."""
    env = {**os.environ, "COLUMNS": "400"}
    answers: dict[str, dict[str, Any]] = {}
    with StdioTarget([sys.executable, str(SERVER), *args], timeout=60, env=env) as target:
        for version in versions:
            listed = target.exchange(version, None, "tools/list", {}).message
            echo = target.exchange(version, None, "tools/call", {"name": "echo", "arguments": {"text": "hi"},
                                                                  **({"requestedOutputs": [PS]} if version == OUTPUTS_VERSION else {})})
            shout = target.exchange(version, None, "tools/call", {"name": "shout", "arguments": {"text": "hi"}})
            discover = target.exchange(version, None, "server/discover", {}).message
            unknown = target.exchange(version, None, "tools/call", {"name": "nope", "arguments": {}}).message
            answers[version] = {"discover": discover, "listed": listed, "unknown": unknown,
                                "echo": echo.message, "shout": shout.message}
        stderr = target.process_for(versions[-1]).connection.stderr_tail.decode(errors="replace")
    return answers, stderr


def test_our_cli_serves_every_tool_declared_after_the_server_at_every_version() -> None:
    answers, stderr = served(versions=(OUTPUTS_VERSION, "2026-07-28", "2025-11-25"))
    newest = answers[OUTPUTS_VERSION]
    assert [t["name"] for t in newest["listed"]["result"]["tools"]] == ["echo", "shout"]
    assert all("outputVariants" in t for t in newest["listed"]["result"]["tools"])
    assert newest["echo"]["result"]["outputs"] == [{**PS, "structuredContent": {"text": "hi"}}]
    assert newest["discover"]["result"]["capabilities"]["extensions"][IDENTIFIER] == {"versions": [OUTPUTS_VERSION]}
    assert answers["2025-11-25"]["shout"]["result"]["structuredContent"] == {"text": "HI"}
    assert "transports" not in stderr, stderr
    # An unknown tool: -32602 with the tools there are at 2026-12-01 (a result without outputs is invalid there);
    # MCPServer's own isError result before.
    assert newest["unknown"]["error"]["code"] == -32602 and newest["unknown"]["error"]["data"]["available"] == ["echo", "shout"]
    assert answers["2025-11-25"]["unknown"]["result"]["isError"] is True


def test_the_sdks_own_run_serves_the_older_versions_and_says_at_start_what_to_call_instead() -> None:
    answers, stderr = served("sdk-run", versions=(OUTPUTS_VERSION, "2025-11-25"))
    assert answers[OUTPUTS_VERSION]["listed"]["error"]["code"] == -32022  # the SDK refuses it before any handler
    older = answers["2025-11-25"]
    assert [t["name"] for t in older["listed"]["result"]["tools"]] == ["echo", "shout"]
    assert older["echo"]["result"]["content"] == [{"type": "text", "text": "echo: hi"}]
    assert older["shout"]["result"]["structuredContent"] == {"text": "HI"}
    assert stderr.count(WARNING) == 1, stderr
    assert "mcp_variants.sdk.cli(mcp) or run(mcp)" in stderr


class Page(BaseModel):
    title: str


@pytest.mark.anyio
async def test_a_view_declared_after_the_server_is_served_with_its_tool() -> None:
    mcp = MCPServer("views")
    variants = Variants(mcp, apps=Apps())

    @variants.tool("assistant/content", variant("io.modelcontextprotocol/ui/structured", Page),
                   view=View("ui://views/page", "<!doctype html><p>page</p>"))
    def page() -> Results:
        return Results({"assistant/content": "a page", "io.modelcontextprotocol/ui/structured": Page(title="t")})

    assert [str(r.uri) for r in await mcp.list_resources()] == ["ui://views/page"]
    (tool,) = await mcp.list_tools()
    assert tool.meta == {"ui": {"resourceUri": "ui://views/page"}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_server_takes_one_variants_and_a_variants_one_server() -> None:
    mcp = MCPServer("one")
    variants = Variants(mcp)
    with pytest.raises(ValueError, match="already has a Variants"):
        Variants(mcp)
    with pytest.raises(ValueError, match="leave it out of MCPServer"):
        MCPServer("two", extensions=[variants])


@pytest.mark.anyio
async def test_the_apps_own_tools_declared_after_the_server_are_served_as_it_starts() -> None:
    from mcp import Client

    apps = Apps()
    mcp = MCPServer("apps-later")
    Variants(mcp, apps=apps)
    apps.add_html_resource("ui://later/page", "<!doctype html><p>later</p>")

    @apps.tool(resource_uri="ui://later/page")
    def later() -> str:
        return "shown"

    async with Client(mcp) as client:  # the SDK's in-process client: the server's lifespan runs as it starts
        assert [tool.name for tool in (await client.list_tools()).tools] == ["later"]
        assert [str(r.uri) for r in (await client.list_resources()).resources] == ["ui://later/page"]


@pytest.mark.anyio
async def test_an_apps_tool_stacked_on_a_variants_tool_is_refused_as_the_server_starts() -> None:
    from mcp import Client

    apps = Apps()
    mcp = MCPServer("stacked")
    variants = Variants(mcp, apps=apps)
    apps.add_html_resource("ui://stacked/page", "<!doctype html><p>page</p>")

    @apps.tool(resource_uri="ui://stacked/page")
    @variants.tool("assistant/content")
    def stacked() -> str:
        return "which one?"

    with pytest.raises(DeclarationError, match="registered with @apps.tool too"):
        async with Client(mcp):
            pass


@pytest.mark.parametrize("layer", ["mcpserver", "fastmcp"])
def test_a_variants_tool_on_top_of_an_mcp_tool_is_refused_as_it_is_declared(layer: str) -> None:
    """In the same words on both layers (FastMCP's refuses the other order at start: test_fastmcp_wiring.py)."""
    if layer == "mcpserver":
        sdk_server = MCPServer("stacked-plain")
        variants: Variants | fastmcp_layer.Variants = Variants(sdk_server)
        plain, written = sdk_server.tool(), "@mcp.tool()"
    else:
        fastmcp_server = FastMCP("stacked-plain")
        variants, plain, written = fastmcp_layer.Variants(fastmcp_server), fastmcp_server.tool, "@mcp.tool"
    with pytest.raises(DeclarationError, match=rf"tool 'twice' breaks the rule 'a tool is registered once'.*{re.escape(written)} "
                                               r"stacked with @variants.tool on this one, in either order \(decorate it with "
                                               r"@variants.tool alone"):
        @variants.legacy_tool()
        @plain
        def twice() -> str:
            return "which one?"


@pytest.mark.anyio
async def test_an_mcp_tool_on_top_of_a_variants_tool_leaves_the_variants_one_served() -> None:
    from mcp import Client

    mcp = MCPServer("plain-on-top")
    variants = Variants(mcp)

    @mcp.tool()  # MCPServer keeps the tool of that name it has (ours), and warns
    @variants.tool("assistant/content", variant("assistant/structured", Page))
    def ours() -> Results:
        return Results({"assistant/content": "ours", "assistant/structured": Page(title="ours")})

    async with Client(mcp) as client:
        result = await client.call_tool("ours", {})
    assert result.structured_content == {"title": "ours"}  # projected: MCPServer running the bare function has none


class Rec(BaseModel):
    name: str


def test_a_variant_schema_may_be_any_type_pydantic_describes() -> None:
    from mcp_variants.client import ClientSession, SelectionError
    from mcp_variants.sdk import InProcessTransport

    mcp = MCPServer("typed")
    variants = Variants(mcp)

    @variants.tool("assistant/content", variant("assistant/structured", Rec | None),
                   variant("programmatic/structured", list[Rec]))
    def find(n: int) -> Results:
        return Results({"assistant/content": f"{n} found", "assistant/structured": Rec(name="a") if n else None,
                        "programmatic/structured": [Rec(name="b")] * n})

    with ClientSession(InProcessTransport(mcp)) as session:  # the client checks each output against its schema
        none = session.call("find", {"n": 0}, ["assistant/structured", "programmatic/structured"])
        one = session.call("find", {"n": 1}, ["assistant/structured", "programmatic/structured"])
    assert [output.value for output in none.outputs] == [None, []]
    assert [output.value for output in one.outputs] == [{"name": "a"}, [{"name": "b"}]]
    with ClientSession(InProcessTransport(mcp)) as session, pytest.raises(SelectionError, match=r"did you mean programmatic/structured\?"):
        session.call("find", {"n": 1}, ["programatic/structured"])  # type: ignore[list-item]


SDK_STYLE_SERVER = """
from mcp.server.mcpserver import MCPServer
from mcp_variants.sdk import Variants

variants = Variants()
mcp = MCPServer("sdk-style", extensions=[variants], middleware=[variants.middleware])
"""
LATE_TOOLS = """
from server import variants

@variants.tool("assistant/content")
def late(text: str) -> str:
    return text
"""
RUN_BY_THE_SDK = """
from server import mcp
import tools

mcp.run()
"""


def test_a_tool_declared_in_another_module_after_the_sdk_style_server_is_refused_before_the_sdks_run_serves(
        tmp_path: Path) -> None:
    """`variants = Variants()`, `MCPServer(..., extensions=[variants])`, tools in another module, the SDK's own
    `mcp.run()`: MCPServer read the extension's tools as it was made and never hands itself to an extension, so the
    tool could never be listed; it is refused as it is declared, and no client gets `{"tools": []}`."""
    for name, text in (("server.py", SDK_STYLE_SERVER), ("tools.py", LATE_TOOLS), ("app.py", RUN_BY_THE_SDK)):
        (tmp_path / name).write_text(text)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    started = subprocess.run([sys.executable, "app.py"], cwd=tmp_path, input=json.dumps(initialize) + "\n",
                             capture_output=True, text=True, timeout=60)
    assert started.returncode != 0 and started.stdout == "", started.stdout  # refused before it answered anything
    assert "DeclarationError: tool 'late' breaks the rule 'a tool is declared before MCPServer(..., " \
           "extensions=[variants]) is made'" in started.stderr, started.stderr
    assert "variants = Variants(mcp)" in started.stderr


def test_an_empty_assistant_content_is_logged_once_naming_the_tool(caplog: pytest.LogCaptureFixture) -> None:
    from mcp_variants.client import ClientSession
    from mcp_variants.sdk import InProcessTransport

    mcp = MCPServer("empty")
    variants = Variants(mcp)

    @variants.tool("assistant/content")
    def search(text: str) -> list[str]:
        return []  # nothing found, and nothing said

    with caplog.at_level("WARNING", logger="mcp_variants.sdk._toolset"), ClientSession(InProcessTransport(mcp)) as session:
        for _ in range(2):
            assert session.call("search", {"text": "x"}).outputs[0].value == []
    assert caplog.text.count("tool search answered with an assistant/content that carries nothing") == 1
