"""(t) A combination outside the core set: list_kernels also declares programmatic/content at
2026-12-01 (no extension defines it)."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        entry = original(declaration, era, negotiated)
        if era is Era.OUTPUTS and declaration.name == "list_kernels":
            entry["outputVariants"].append({"audience": "programmatic", "format": "content"})
        return entry

    app.tool_entry = tool_entry


launch(patch)
