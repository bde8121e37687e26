"""(e) A ui variant listed without negotiation: tools/list at 2026-12-01 offers
io.modelcontextprotocol/ui/structured to clients that never advertised the extension."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.types import UI_EXTENSION
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        return original(declaration, era, negotiated | {UI_EXTENSION})

    app.tool_entry = tool_entry


launch(patch)
