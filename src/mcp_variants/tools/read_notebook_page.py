"""read_notebook_page: the App-only pager of the notebook view (`_meta.ui.visibility: ["app"]`).

A page is read exactly as read_notebook reads it (same paging, same caps); the view asks
for `io.modelcontextprotocol/ui/structured` (whole cells with their outputs). Called
without requestedOutputs it answers assistant/content like every tool: the page as text.
assistant/structured (read_notebook's rows) is what clients before 2026-12-01 get as
`structuredContent`, as for every other tool.
"""

from __future__ import annotations

from typing import Any

from ..catalog import declared
from ..protocol.projection import Outcome, ToolProjectors
from ..protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, UI_STRUCTURED
from ..sdk.lowlevel import VariantTool
from . import read_notebook
from .shared import tables
from .shared.tool_context import ToolContext

DEFAULT_LIMIT = 20


async def run(ctx: ToolContext, args: dict[str, Any]) -> Outcome:
    return await read_notebook.run(ctx, {"limit": DEFAULT_LIMIT, **args, "detail": "brief"})


PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: read_notebook.assistant_content,
        ASSISTANT_STRUCTURED: lambda page: tables.assistant_structured(page.table),
        UI_STRUCTURED: read_notebook.ui_structured,
    }
)

TOOL = VariantTool(declared("read_notebook_page"), PROJECTORS, run)
