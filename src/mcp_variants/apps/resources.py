"""The MCP Apps views as `ui://` resources: listed by resources/list, read by resources/read
(server/view_resources.py makes them one of the sources server/resources.py serves).

Each view is one self-contained HTML file (inline JS and CSS, built from apps/ by
apps/build.sh and committed under views/). A tool links its view with
`_meta.ui.resourceUri` in variants/<tool>.json; `check_view_links` refuses to start a
server whose declarations link a view it does not serve, or break the other Apps rules
below. The views need nothing from the network, so their CSP declares no domain at all:
hosts apply their strictest policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from mcp.shared.exceptions import MCPError

from ..protocol.errors import INVALID_PARAMS, DeclarationError
from ..protocol.types import UI_MIME_TYPE, UI_STRUCTURED, ToolDeclaration

VISIBILITIES: Final[frozenset[str]] = frozenset({"model", "app"})

# What each view's content item declares (MCP Apps `McpUiResourceMeta`): no connection,
# no outside resource, no nested frame. The views are single files with inline JS/CSS.
RESOURCE_UI_META: Final[dict[str, Any]] = {
    "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
    "prefersBorder": True,
}
READ_CACHE_HINT: Final[dict[str, Any]] = {"ttlMs": 3_600_000, "cacheScope": "public"}


@dataclass(frozen=True, slots=True)
class BundledView:
    """One of the views this server ships (apps/views/*.html), as its `ui://` resource lists it."""

    uri: str
    file: str
    name: str
    title: str
    description: str


VIEWS: Final[tuple[BundledView, ...]] = (
    BundledView(
        "ui://mcp-variants/table.html",
        "table.html",
        "table",
        "Table",
        "Listings (files, notebooks, kernels): columns, rows and facet filters.",
    ),
    BundledView(
        "ui://mcp-variants/execution.html",
        "execution.html",
        "execution",
        "Execution outputs",
        "What a run printed, displayed and raised: streams, rich outputs (HTML tables, images), tracebacks.",
    ),
    BundledView(
        "ui://mcp-variants/notebook.html",
        "notebook.html",
        "notebook",
        "Notebook",
        "A notebook's cells with their outputs, paged through read_notebook_page; or one cell.",
    ),
)
VIEWS_BY_URI: Final[dict[str, BundledView]] = {v.uri: v for v in VIEWS}


def views_dir() -> Path:
    return Path(str(resources.files("mcp_variants.apps"))) / "views"


@cache
def view_html(uri: str) -> str:
    """The built HTML of a view (read once; the files are part of the package)."""
    return (views_dir() / VIEWS_BY_URI[uri].file).read_text(encoding="utf-8")


def ui_meta(declaration: ToolDeclaration) -> dict[str, Any] | None:
    meta = declaration.meta or {}
    ui = meta.get("ui")
    return ui if isinstance(ui, dict) else None


def check_view_links(declarations: Mapping[str, ToolDeclaration]) -> None:
    """The Apps rules of the declarations; DeclarationError stops the server from starting.

    * `_meta.ui.resourceUri` names a view this server serves, and its built file exists;
    * a tool with a view declares the ui variant (the view gets that output and nothing else),
      and a tool declaring the ui variant has a view to show it, unless it is App-only (then
      the view that calls it consumes the output);
    * `_meta.ui.visibility`, when present, is a non-empty list of "model" and "app".
    """
    for name, declaration in declarations.items():
        ui = ui_meta(declaration)
        declares_ui = declaration.variant(UI_STRUCTURED) is not None
        uri = ui.get("resourceUri") if ui else None
        visibility = ui.get("visibility") if ui else None
        if visibility is not None and (
            not isinstance(visibility, list)
            or not visibility
            or not all(isinstance(v, str) for v in visibility)
            or not set(visibility) <= VISIBILITIES
            or len(set(visibility)) != len(visibility)
        ):
            raise DeclarationError(name, "_meta.ui.visibility lists \"model\" and/or \"app\"", repr(visibility))
        if uri is None:
            if declares_ui and visibility != ["app"]:
                raise DeclarationError(
                    name, "a tool declaring the ui variant links a view (_meta.ui.resourceUri) or is App-only", "no resourceUri"
                )
            continue
        if uri not in VIEWS_BY_URI:
            raise DeclarationError(name, "_meta.ui.resourceUri names a view this server serves", f"{uri!r}; served: {sorted(VIEWS_BY_URI)}")
        if not (views_dir() / VIEWS_BY_URI[uri].file).is_file():
            raise DeclarationError(name, "the linked view is built (apps/build.sh)", f"{VIEWS_BY_URI[uri].file} is missing")
        if not declares_ui:
            raise DeclarationError(name, f"a tool with a view declares {UI_STRUCTURED}", f"links {uri} but declares no ui variant")


def resource_entry(view: BundledView) -> dict[str, Any]:
    """A resources/list entry."""
    return {
        "uri": view.uri,
        "name": view.name,
        "title": view.title,
        "description": view.description,
        "mimeType": UI_MIME_TYPE,
        "_meta": {"ui": RESOURCE_UI_META},
    }


def read_result(uri: str) -> dict[str, Any] | None:
    """The resources/read result for `uri`, or None when it is not a view of ours."""
    if uri not in VIEWS_BY_URI:
        return None
    return {"contents": [{"uri": uri, "mimeType": UI_MIME_TYPE, "text": view_html(uri), "_meta": {"ui": RESOURCE_UI_META}}]}


def not_found(uri: str) -> MCPError:
    """resources/read of a URI no source has."""
    return MCPError(INVALID_PARAMS, "Resource not found", {"uri": uri, "available": sorted(VIEWS_BY_URI)})


__all__ = [
    "RESOURCE_UI_META",
    "VIEWS",
    "BundledView",
    "check_view_links",
    "not_found",
    "read_result",
    "resource_entry",
    "view_html",
]
