"""A FastMCP tool's content values: what a `content` variant's value may be, as FastMCP has it.

A string is one text block, and content blocks (the SDK's `TextContent`, `ImageContent`, ... or their dicts) are kept
as they are, as `mcp_variants.sdk` keeps them. Anything else becomes content as FastMCP makes content of a tool's return
value (`ToolResult(content=...)`): its `Image`, `Audio` and `File`, and a model, a dict or a list as JSON text. So a
value a plain `@mcp.tool` could return is a value an `assistant/content` or `user/content` entry may hold.
"""

from __future__ import annotations

import typing
from typing import Any

from fastmcp.tools import ToolResult
from mcp_types import ContentBlock

_BLOCKS = typing.get_args(ContentBlock)


def content_value(value: Any) -> Any:
    """The value as content blocks `mcp_variants.sdk` takes: kept when it already is one, else FastMCP's conversion."""
    if isinstance(value, str) or _is_block(value):
        return value
    if isinstance(value, list | tuple) and value and all(_is_block(item) for item in value):
        return value
    return [block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in ToolResult(content=value).content]


def _is_block(item: Any) -> bool:
    return isinstance(item, _BLOCKS) or (isinstance(item, dict) and isinstance(item.get("type"), str))
