"""`Variants` on the SDK's MCPServer, in process (the SDK's own in-memory client): a tool's own inputSchema,
a tool driving the 2026-07-28 multi-round flow (SEP-2322), and `lowlevel_server` for the methods MCPServer
does not serve. examples/everything.py uses all three; the official suite runs against it (tests/outside)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp.client.client import Client
from mcp.server.apps import Apps
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    InputRequiredResult,
    SetLevelRequestParams,
)

from mcp_variants.sdk import DeclarationError, ErrorKind, Results, ToolError, Variants, View, variant
from mcp_variants.sdk.lowlevel import lowlevel_server

STRICT = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"id": {"$anchor": "idDef", "type": "string", "pattern": "^[a-z]+$"}},
    "properties": {"id": {"$ref": "#/$defs/id"}, "note": {"type": "string"}},
    "required": ["id"],
    "if": {"required": ["note"]}, "then": {"properties": {"note": {"minLength": 3}}},
    "additionalProperties": False,
}
ECHO = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


def server() -> tuple[MCPServer[Any], list[str]]:
    ran: list[str] = []
    variants = Variants()

    @variants.tool("assistant/content", variant("programmatic/structured", ECHO), input_schema=STRICT)
    def lookup(id: str, note: str | None = None) -> Results:
        """Look an id up."""
        ran.append(id)
        return Results({"assistant/content": f"found {id}", "programmatic/structured": {"id": id}})

    @variants.tool("assistant/content")
    def greet(ctx: Context) -> str | InputRequiredResult:
        """Greet the user by the name it asks for."""
        answer = (ctx.input_responses or {}).get("user_name")
        if isinstance(answer, ElicitResult) and answer.action == "accept" and answer.content:
            return f"Hello, {answer.content['name']}! ({ctx.request_state})"
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        ask = ElicitRequest(params=ElicitRequestFormParams(message="Your name?", requested_schema=schema))
        return InputRequiredResult(input_requests={"user_name": ask}, request_state="asked")

    mcp = MCPServer("unit", extensions=[variants], middleware=[variants.middleware])
    return mcp, ran


def in_client(mode: str, body: Callable[[Client], Awaitable[Any]], **options: Any) -> Any:
    mcp, _ = server()

    async def main() -> Any:
        async with Client(mcp, mode=mode, **options) as client:
            return await body(client)

    return anyio.run(main)


def test_a_declared_input_schema_is_listed_as_given() -> None:
    async def listed(client: Client) -> dict[str, Any]:
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}

    for mode in ("legacy", "2026-07-28"):
        schemas = in_client(mode, listed)
        assert schemas["lookup"] == STRICT, mode  # $defs/$anchor, if/then and additionalProperties kept
        assert "$defs" not in schemas["greet"], mode  # the others: MCPServer's, from the signature


def test_arguments_are_checked_against_the_declared_schema_before_the_tool_runs() -> None:
    mcp, ran = server()

    async def main() -> list[Any]:
        async with Client(mcp, mode="2026-07-28") as client:
            return [await client.call_tool("lookup", arguments) for arguments in
                    ({"id": "abc"}, {"id": "ABC"}, {"id": "abc", "extra": 1}, {"id": "abc", "note": "x"})]

    good, *bad = anyio.run(main)
    assert good.is_error is False and good.content[0].text == "found abc"
    for result in bad:  # pattern via $ref, additionalProperties: false, if/then: each refused, as the tool's error
        assert result.is_error is True and "Invalid arguments for lookup" in result.content[0].text, result
    assert ran == ["abc"]


def test_a_tool_asks_through_input_required_and_finishes_with_its_outputs() -> None:
    asked: list[str] = []

    async def elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": "Ada"})

    async def round_one(client: Client) -> Any:
        return await client.session.call_tool("greet", {}, allow_input_required=True)

    async def whole_flow(client: Client) -> Any:
        return await client.call_tool("greet", {})  # the SDK's client answers and retries

    first = in_client("2026-07-28", round_one, elicitation_callback=elicit)
    assert isinstance(first, InputRequiredResult) and set(first.input_requests or {}) == {"user_name"}
    assert first.request_state not in (None, "asked")  # sealed by MCPServer on the way out
    final = in_client("2026-07-28", whole_flow, elicitation_callback=elicit)
    assert asked == ["Your name?"]
    assert final.is_error is False and final.content[0].text == "Hello, Ada! (asked)"  # the state came back unsealed


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")  # logging/setLevel is, at 2026-07-28
def test_lowlevel_server_takes_the_methods_mcpserver_does_not_serve() -> None:
    mcp, _ = server()
    levels: list[str] = []

    async def set_level(ctx: Any, params: SetLevelRequestParams) -> dict[str, Any]:
        levels.append(params.level)
        return {}

    lowlevel_server(mcp).add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)

    async def main() -> Any:
        async with Client(mcp, mode="legacy") as client:
            await client.set_logging_level("warning")
            return client.server_capabilities

    capabilities = anyio.run(main)
    assert levels == ["warning"] and capabilities.logging is not None


def test_a_tool_with_a_view_declared_after_the_sdk_style_server_is_made_is_refused() -> None:
    """MCPServer has read the extension's tools and the Apps' resources as it was made: neither the tool nor its
    view's page would ever be served (tests/sdk/test_variants_on_a_server.py has a plain tool, on the wire)."""
    variants = Variants(apps=Apps())
    MCPServer("late", extensions=[variants], middleware=[variants.middleware])
    with pytest.raises(DeclarationError, match="would never list this one"):
        @variants.tool("assistant/content", UI_DATA, view=PAGE)
        def late() -> Results:
            return Results({"assistant/content": "never listed", "io.modelcontextprotocol/ui/structured": {}})


UI_DATA = variant("io.modelcontextprotocol/ui/structured", {"type": "object"})
PAGE = View("ui://unit/page.html", "<!doctype html><html></html>")


@pytest.mark.parametrize(("variants", "specs", "view", "says"), [
    (Variants(), ["assistant/content", UI_DATA], None, r"Variants\(mcp, apps=Apps\(\)\) and variants.tool\(..., view=View"),
    (Variants(), ["assistant/content"], PAGE, r"view= needs Variants\(mcp, apps=Apps\(\)\)"),
    (Variants(apps=Apps()), ["assistant/content"], PAGE, "add variant"),
])
def test_a_view_or_ui_variant_the_server_cannot_serve_is_refused_when_declared(variants: Variants, specs: list[Any], view: View | None,
                                                                              says: str) -> None:
    with pytest.raises(DeclarationError, match=says):
        @variants.tool(*specs, view=view)
        def shown() -> str:
            return "never served"


def test_apps_tool_stacked_on_a_variants_tool_is_refused_when_the_server_is_made() -> None:
    apps = Apps()
    variants = Variants(apps=apps)
    apps.add_html_resource("ui://unit/page.html", "<!doctype html><html></html>")

    @apps.tool(resource_uri="ui://unit/page.html")
    @variants.tool("assistant/content")
    def twice() -> str:
        return "registered twice"

    with pytest.raises(DeclarationError, match=r"registered with @apps.tool too: give its view with variants.tool\(..., view=View"):
        MCPServer("twice", extensions=[apps, variants], middleware=[variants.middleware])


def test_a_misspelt_audience_is_refused_naming_the_one_meant() -> None:
    with pytest.raises(DeclarationError, match=r"'programatic/structured' names no audience: did you mean programmatic/structured\?"):
        variant("programatic/structured", {"type": "object"})  # type: ignore[arg-type]
    with pytest.raises(DeclarationError, match=r"a selector is written audience/format"):
        variant("programmatic", {"type": "object"})  # type: ignore[arg-type]


def test_a_misspelt_format_is_refused_naming_the_one_meant() -> None:
    with pytest.raises(DeclarationError, match=r"'user/structered' names no format: did you mean user/structured\?"):
        variant("user/structered", {"type": "object"})  # type: ignore[arg-type]


def test_a_toolerror_message_is_text() -> None:
    with pytest.raises(TypeError, match="a ToolError's message is the text the model and the person read"):
        ToolError(ErrorKind.CONFLICT, 42)  # type: ignore[arg-type]


@pytest.mark.parametrize("listed_too", [False, True])
def test_variants_applies_the_apps_it_was_given(listed_too: bool) -> None:
    """`Variants(apps=apps)` registers the views' pages and the Apps' own tools; listing the Apps as well is harmless."""
    apps = Apps()
    variants = Variants(apps=apps)
    apps.add_html_resource("ui://unit/other.html", "<!doctype html><html></html>")

    @apps.tool(resource_uri="ui://unit/other.html")
    def apps_own() -> str:
        return "an Apps tool"

    @variants.tool("assistant/content", variant("io.modelcontextprotocol/ui/structured", {"type": "object"}),
                   view=View("ui://unit/page.html", "<!doctype html><html></html>"))
    def shown() -> Results:
        return Results({"assistant/content": "shown", "io.modelcontextprotocol/ui/structured": {}})

    mcp = MCPServer("apps", extensions=[apps, variants] if listed_too else [variants], middleware=[variants.middleware])

    async def main() -> tuple[set[str], set[str]]:
        async with Client(mcp, mode="2026-07-28") as client:
            uris = {str(r.uri) for r in (await client.list_resources()).resources}
            return uris, {t.name for t in (await client.list_tools()).tools}

    uris, names = anyio.run(main)
    assert uris == {"ui://unit/other.html", "ui://unit/page.html"} and names == {"apps_own", "shown"}


def test_a_legacy_tool_without_an_output_schema_cannot_name_a_structured_audience() -> None:
    """A `-> dict` tool: MCPServer lists no outputSchema for it, so there is nothing to declare as structured."""
    variants = Variants()

    def plain() -> dict:  # type: ignore[type-arg]
        return {"a": 1}

    with pytest.raises(DeclarationError, match=r"tool 'plain' .* it has none to declare as assistant/structured .*drop structured="):
        variants.legacy_tool(structured="assistant")(plain)
    variants.legacy_tool()(plain)  # its content only: as MCPServer served it


def test_a_variant_written_schema_first_is_refused_naming_the_order() -> None:
    with pytest.raises(TypeError, match=r"variant\(selector, schema\), the selector first"):
        variant({"type": "object"}, "user/structured")  # type: ignore[arg-type]


def test_cli_given_a_flag_of_the_servers_own_says_how_to_combine_them(capsys: pytest.CaptureFixture[str]) -> None:
    from mcp_variants.sdk._arguments import serving_options

    with pytest.raises(SystemExit):
        serving_options("a server", ["--site", "lab"], None, token=True)
    assert "unrecognized arguments: --site lab (a server with flags of its own adds" in capsys.readouterr().err
