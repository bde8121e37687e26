"""What the generator asks the server for: the newest protocol version, the Apps extension, the selectors."""

from __future__ import annotations

from typing import Any

V = "2026-12-01"
UI_EXT = "io.modelcontextprotocol/ui"
UI = {UI_EXT: {"mimeTypes": ["text/html;profile=mcp-app"]}}
AC = {"audience": "assistant", "format": "content"}
AS = {"audience": "assistant", "format": "structured"}
PS = {"audience": "programmatic", "format": "structured"}
UC = {"audience": "user", "format": "content"}
US = {"audience": "user", "format": "structured"}
UIS = {"audience": UI_EXT, "format": "structured"}
SELECTOR_ORDER = ["assistant/content", "assistant/structured", "programmatic/structured",
                  "user/content", "user/structured", f"{UI_EXT}/structured"]


def key(selector: dict[str, Any]) -> str:
    """`audience/format` of a selector, a variant or an output."""
    return f"{selector['audience']}/{selector['format']}"


def all_selectors(tool: dict[str, Any]) -> list[dict[str, str]]:
    """A selector for every variant a tools/list entry declares."""
    return [{"audience": v["audience"], "format": v["format"]} for v in tool["outputVariants"]]
