"""The views as ui:// resources on the wire, the tools that link them, and the start-up
checks of `_meta.ui` (raw JSON-RPC against a real server, every protocol version)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcp_variants.apps.resources import VIEWS, check_view_links
from mcp_variants.catalog import load_declarations
from mcp_variants.protocol.errors import DeclarationError
from mcp_variants.protocol.types import UI_MIME_TYPE, UI_STRUCTURED, ToolDeclaration
from mcp_variants.protocol.versions import HANDSHAKE_VERSIONS, SUPPORTED_VERSIONS
from support.apps import UI
from support.apps import VIEWS as VIEWS_DIR

from .conftest import NOTEBOOK, Pool

UI_TOOLS = {
    "execute_code": "execution",
    "execute_cell": "execution",
    "insert_execute_code_cell": "execution",
    "read_cell": "notebook",
    "read_notebook": "notebook",
    "read_notebook_page": "notebook",
    "list_files": "table",
    "list_notebooks": "table",
    "list_kernels": "table",
    "list_variables": "table",
    "inspect_variable": "table",
    "execute_notebook": "notebook",
}


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_every_version_lists_and_reads_the_views(pool: Pool, version: str) -> None:
    listed = pool.live(version).raw("resources/list")["result"]
    # The views first, then the root's notebooks (notebook:///, tests/integration/test_notebook_resources.py).
    assert [r["uri"] for r in listed["resources"]] == [v.uri for v in VIEWS] + [f"notebook:///{NOTEBOOK}"]
    for entry in listed["resources"][:len(VIEWS)]:
        assert entry["uri"].startswith("ui://") and entry["mimeType"] == UI_MIME_TYPE
        assert entry["_meta"]["ui"]["csp"] == {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []}
    for view in VIEWS:
        result = pool.live(version).raw("resources/read", {"uri": view.uri})["result"]
        (content,) = result["contents"]
        assert content["uri"] == view.uri and content["mimeType"] == UI_MIME_TYPE
        assert content["text"] == (VIEWS_DIR / view.file).read_text(encoding="utf-8")
        assert content["_meta"]["ui"]["csp"]["connectDomains"] == []
        if version not in HANDSHAKE_VERSIONS:  # the stateless eras' required cache hints
            assert result["resultType"] == "complete" and result["cacheScope"] == "public" and result["ttlMs"] > 0
    assert [t["uriTemplate"] for t in pool.live(version).raw("resources/templates/list")["result"]["resourceTemplates"]] == [
        "notebook:///{+path}", "mcp-variants://runs/{run}/outputs/{index}", "cell-output:///{+path}/cells/{cell}/outputs/{index}"]


@pytest.mark.parametrize("version", ["2025-11-25", "2026-12-01"])
def test_an_unknown_resource_is_invalid_params(pool: Pool, version: str) -> None:
    error = pool.live(version).raw("resources/read", {"uri": "ui://mcp-variants/nope.html"})["error"]
    assert error["code"] == -32602 and error["data"]["uri"] == "ui://mcp-variants/nope.html"
    assert set(error["data"]["available"]) == {v.uri for v in VIEWS}


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_tools_link_their_views_at_every_version(pool: Pool, version: str) -> None:
    tools = {t["name"]: t for t in pool.live(version).raw("tools/list")["result"]["tools"]}
    uris = {v.uri for v in VIEWS}
    linked = {name: t["_meta"]["ui"]["resourceUri"] for name, t in tools.items() if "ui" in t.get("_meta", {})}
    assert linked == {name: f"ui://mcp-variants/{view}.html" for name, view in UI_TOOLS.items()}
    assert set(linked.values()) <= uris
    assert tools["read_notebook_page"]["_meta"]["ui"]["visibility"] == ["app"]
    assert all("visibility" not in t["_meta"]["ui"] for n, t in tools.items() if n in linked and n != "read_notebook_page")


# ---- the declarations ---------------------------------------------------------------------------


def test_each_ui_variant_has_its_own_schema() -> None:
    """ui variants on every tool with a view, each schema different from the tool's assistant
    and programmatic ones, each a valid 2020-12 schema that requires the `view` discriminator."""
    declarations = load_declarations()
    with_ui = {name for name, d in declarations.items() if d.variant(UI_STRUCTURED)}
    assert with_ui == set(UI_TOOLS)
    for name in with_ui:
        declaration = declarations[name]
        ui_schema = declaration.variant(UI_STRUCTURED).schema  # type: ignore[union-attr]
        Draft202012Validator.check_schema(ui_schema)
        assert "view" in ui_schema["required"] and "const" in ui_schema["properties"]["view"]
        for variant in declaration.variants:
            if variant.selector != UI_STRUCTURED and variant.schema is not None:
                assert variant.schema != ui_schema, f"{name}: {variant.selector} shares the ui schema"


def _with_meta(declaration: ToolDeclaration, meta: Any) -> dict[str, ToolDeclaration]:
    from dataclasses import replace

    return {declaration.name: replace(declaration, meta=meta)}


@pytest.mark.parametrize(
    ("tool", "meta", "rule"),
    [
        ("list_files", {"ui": {"resourceUri": "ui://mcp-variants/nope.html"}}, "names a view this server serves"),
        ("delete_cell", {"ui": {"resourceUri": "ui://mcp-variants/table.html"}}, "declares io.modelcontextprotocol/ui/structured"),
        ("list_files", None, "links a view"),
        ("list_files", {"ui": {"resourceUri": "ui://mcp-variants/table.html", "visibility": []}}, "visibility"),
        ("list_files", {"ui": {"resourceUri": "ui://mcp-variants/table.html", "visibility": ["user"]}}, "visibility"),
        ("list_files", {"ui": {"resourceUri": "ui://mcp-variants/table.html", "visibility": "app"}}, "visibility"),
    ],
)
def test_a_broken_ui_link_stops_the_server(tool: str, meta: Any, rule: str) -> None:
    declarations = load_declarations()
    with pytest.raises(DeclarationError) as caught:
        check_view_links(_with_meta(declarations[tool], meta))
    assert caught.value.tool == tool and rule in caught.value.rule


def test_an_app_only_tool_may_leave_the_view_to_its_caller() -> None:
    declarations = load_declarations()
    check_view_links(_with_meta(declarations["read_notebook_page"], {"ui": {"visibility": ["app"]}}))
    check_view_links(declarations)  # and the real ones pass


def test_the_server_advertises_the_extension(pool: Pool) -> None:
    discovered = pool.live("2026-12-01").raw("server/discover")["result"]
    assert discovered["capabilities"]["extensions"][UI] == {"mimeTypes": [UI_MIME_TYPE]}
    assert json.dumps(discovered).count(UI) == 1
