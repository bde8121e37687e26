"""(s) A variant declared twice: list_kernels lists its last variant a second time at 2026-12-01."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        entry = original(declaration, era, negotiated)
        if era is Era.OUTPUTS and declaration.name == "list_kernels":
            entry["outputVariants"].append(dict(entry["outputVariants"][-1]))
        return entry

    app.tool_entry = tool_entry


launch(patch)
