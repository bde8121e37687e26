"""What a view receives, at every protocol version, through the reference client and the
real server; the negotiation of the ui audience; the App-only tool; the host's visibility rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.catalog import load_declarations
from mcp_variants.client.apps_host import AppsHost, ViewCallRefused, visibility
from mcp_variants.protocol.types import ASSISTANT_CONTENT, UI_EXTENSION, UI_STRUCTURED
from mcp_variants.protocol.versions import OUTPUTS_VERSION, SUPPORTED_VERSIONS
from support.apps import VIEWS

from .conftest import NOTEBOOK, Pool

OLDER_VERSIONS = [v for v in SUPPORTED_VERSIONS if v != OUTPUTS_VERSION]
UI = {"audience": UI_EXTENSION, "format": "structured"}
AC = {"audience": "assistant", "format": "content"}
UI_SCHEMAS = {name: d.variant(UI_STRUCTURED).schema for name, d in load_declarations().items() if d.variant(UI_STRUCTURED)}  # type: ignore[union-attr]


def call_raw(pool: Pool, tool: str, arguments: dict[str, Any], outputs: list[dict[str, str]] | None, *, ui: bool = True) -> dict[str, Any]:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if outputs is not None:
        params["requestedOutputs"] = outputs
    return pool.live(OUTPUTS_VERSION, ui).raw("tools/call", params)


# ---- 2026-12-01 -----------------------------------------------------------------------------------


def test_the_view_receives_the_ui_output_alone(pool: Pool) -> None:
    host = pool.host(OUTPUTS_VERSION)
    live = pool.live(OUTPUTS_VERSION)
    mark = len(live.written)
    call = host.call("list_files", {})
    (request,) = live.requests("tools/call", mark)
    assert request["params"]["requestedOutputs"] == [AC, UI]
    wire = call.call.result.raw
    (ui_output,) = [o for o in wire["outputs"] if o["audience"] == UI_EXTENSION]
    assert call.tool_result == ui_output  # exactly the output the server sent, nothing added
    assert set(call.tool_result) == {"audience", "format", "structuredContent"}
    assert "io.modelcontextprotocol/cache" in wire["_meta"] and "_meta" not in json.dumps(call.tool_result)
    Draft202012Validator(UI_SCHEMAS["list_files"]).validate(call.tool_result["structuredContent"])
    assert [d.selector for d in call.model] == [ASSISTANT_CONTENT]
    assert call.view_uri == "ui://mcp-variants/table.html"


def test_an_error_reaches_the_view_as_its_own_error_output(pool: Pool) -> None:
    call = pool.host(OUTPUTS_VERSION).call("execute_code", {"code": "raise ValueError('for the view')"})
    assert call.tool_result is not None and call.tool_result["isError"] is True
    assert set(call.tool_result) == {"audience", "format", "structuredContent", "isError"}
    error = call.tool_result["structuredContent"]["error"]
    assert error["type"] == "execution-error" and error["ename"] == "ValueError"


def test_without_the_extension_there_is_no_view(pool: Pool) -> None:
    host = pool.host(OUTPUTS_VERSION, ui=False)
    call = host.call("list_files", {})
    assert call.tool_result is None and call.view_uri is None
    assert call.call.selection.fallback and "not negotiated" in call.call.selection.fallback
    assert [d.selector for d in call.model] == [ASSISTANT_CONTENT]


def test_ui_variants_are_listed_and_selectable_only_when_negotiated(pool: Pool) -> None:
    plain = pool.live(OUTPUTS_VERSION, ui=False).raw("tools/list")["result"]["tools"]
    negotiated = pool.live(OUTPUTS_VERSION).raw("tools/list")["result"]["tools"]
    assert not [t["name"] for t in plain if any(v["audience"] == UI_EXTENSION for v in t["outputVariants"])]
    with_ui = {t["name"] for t in negotiated if any(v["audience"] == UI_EXTENSION for v in t["outputVariants"])}
    assert with_ui == set(UI_SCHEMAS)
    refused = call_raw(pool, "list_files", {}, [UI], ui=False)["error"]
    assert refused["code"] == -32602 and refused["data"]["reason"] == "extension-not-negotiated"
    content = call_raw(pool, "list_files", {}, [{"audience": UI_EXTENSION, "format": "content"}])["error"]
    assert content["code"] == -32602 and content["data"]["reason"] == "format-not-permitted-by-extension"


# ---- before 2026-12-01 ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", OLDER_VERSIONS)
def test_before_2026_12_01_the_view_receives_the_legacy_result(pool: Pool, version: str) -> None:
    host = pool.host(version)
    live = pool.live(version)
    mark = len(live.written)
    call = host.call("list_files", {})
    (request,) = live.requests("tools/call", mark)
    assert "requestedOutputs" not in request["params"]
    assert call.view_uri == "ui://mcp-variants/table.html"
    # MCP Apps' own flow (2026-01-26), unchanged: the whole legacy CallToolResult.
    assert call.tool_result == dict(call.call.result.raw)
    assert isinstance(call.tool_result["content"], list) and "outputs" not in call.tool_result
    if "structuredContent" in call.tool_result:  # 2025-06-18 and later: assistant/structured, never the ui value
        assert call.tool_result["structuredContent"]["kind"] == "files.list"
        assert "view" not in call.tool_result["structuredContent"]
    # The view itself is the same file at every version.
    assert host.load_view(call.view_uri).html == (VIEWS / "table.html").read_text(encoding="utf-8")


# ---- the App-only tool -------------------------------------------------------------------------------


def test_the_app_only_tool_with_the_ui_variant_returns_the_ui_output(pool: Pool) -> None:
    result = call_raw(pool, "read_notebook_page", {"notebook": NOTEBOOK, "start": 20, "limit": 5}, [UI])["result"]
    (output,) = result["outputs"]
    assert output["audience"] == UI_EXTENSION and output["format"] == "structured"
    page = output["structuredContent"]
    Draft202012Validator(UI_SCHEMAS["read_notebook_page"]).validate(page)
    assert page["view"] == "notebook" and [c["index"] for c in page["cells"]] == [20, 21, 22, 23, 24]
    assert page["nextCursor"] == "25" and all(c["outputs"] for c in page["cells"])


@pytest.mark.parametrize("ui", [True, False])
def test_the_app_only_tool_without_requested_outputs_returns_assistant_content(pool: Pool, ui: bool) -> None:
    result = call_raw(pool, "read_notebook_page", {"notebook": NOTEBOOK, "limit": 3}, None, ui=ui)["result"]
    (output,) = result["outputs"]
    assert (output["audience"], output["format"]) == ("assistant", "content")
    assert output["content"][0]["type"] == "text" and "long.ipynb: cells 0–2 of 30" in output["content"][0]["text"]


def test_the_app_only_tool_declares_assistant_variants_and_ui(pool: Pool) -> None:
    tools = {t["name"]: t for t in pool.live(OUTPUTS_VERSION).raw("tools/list")["result"]["tools"]}
    page = tools["read_notebook_page"]
    assert [(v["audience"], v["format"]) for v in page["outputVariants"]] == [
        ("assistant", "content"),
        ("assistant", "structured"),  # the legacy outputSchema/structuredContent, as every tool has
        (UI_EXTENSION, "structured"),
    ]
    assert page["_meta"]["ui"] == {"resourceUri": "ui://mcp-variants/notebook.html", "visibility": ["app"]}
    missing = call_raw(pool, "read_notebook_page", {}, [UI])["result"]  # no notebook named: a tool error, in the view's audience
    assert missing["isError"] is True and missing["outputs"][0]["structuredContent"]["error"]["type"] == "invalid-arguments"


# ---- the host's visibility rules --------------------------------------------------------------------


def test_app_only_tools_are_kept_from_the_model(pool: Pool) -> None:
    host = pool.host(OUTPUTS_VERSION)
    model_tools = host.model_tools()
    assert "read_notebook_page" not in model_tools and "read_notebook" in model_tools
    assert len(model_tools) == len(host.session.list_tools()) - 1


def test_a_view_call_asks_for_the_ui_output_only(pool: Pool) -> None:
    host = pool.host(OUTPUTS_VERSION)
    live = pool.live(OUTPUTS_VERSION)
    mark = len(live.written)
    result = host.call_from_view("read_notebook_page", {"notebook": NOTEBOOK, "limit": 2})
    (request,) = live.requests("tools/call", mark)
    assert request["params"]["requestedOutputs"] == [UI]
    assert set(result) == {"audience", "format", "structuredContent"}
    assert [c["index"] for c in result["structuredContent"]["cells"]] == [0, 1]


def test_a_view_call_at_an_older_version_gets_the_legacy_result(pool: Pool) -> None:
    host = pool.host("2026-07-28")
    live = pool.live("2026-07-28")
    mark = len(live.written)
    result = host.call_from_view("read_notebook_page", {"notebook": NOTEBOOK, "limit": 2})
    (request,) = live.requests("tools/call", mark)
    assert "requestedOutputs" not in request["params"]
    assert result["content"][0]["type"] == "text" and "outputs" not in result


def test_the_host_refuses_view_calls_it_must_not_pass_on(pool: Pool, monkeypatch: pytest.MonkeyPatch) -> None:
    host = pool.host(OUTPUTS_VERSION)
    with pytest.raises(ViewCallRefused, match="not a tool"):
        host.call_from_view("no_such_tool", {})
    with pytest.raises(ViewCallRefused, match="declares no"):
        host.call_from_view("delete_cell", {"notebook": NOTEBOOK, "cell_index": 0})  # no ui variant: nothing for a view
    model_only = {"name": "read_notebook", "_meta": {"ui": {"resourceUri": "ui://mcp-variants/notebook.html", "visibility": ["model"]}}}
    monkeypatch.setattr(AppsHost, "tool", lambda self, name: model_only)
    with pytest.raises(ViewCallRefused, match="not visible to apps"):
        host.call_from_view("read_notebook", {"notebook": NOTEBOOK})
    unnegotiated = pool.host(OUTPUTS_VERSION, ui=False)
    monkeypatch.undo()
    with pytest.raises(ViewCallRefused, match="not negotiated"):
        unnegotiated.call_from_view("read_notebook_page", {"notebook": NOTEBOOK})


def test_visibility_defaults_to_model_and_app() -> None:
    assert visibility({"name": "t"}) == ("model", "app")
    assert visibility({"_meta": {"ui": {"visibility": ["app"]}}}) == ("app",)
    assert visibility({"_meta": {"ui": {"visibility": []}}}) == ("model", "app")
