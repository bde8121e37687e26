"""(j) A declaration without assistant/content: list_kernels lists only its structured
variants at 2026-12-01 (the server's start-up check is bypassed at listing time)."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        entry = original(declaration, era, negotiated)
        if era is Era.OUTPUTS and declaration.name == "list_kernels":
            entry["outputVariants"] = [v for v in entry["outputVariants"] if (v["audience"], v["format"]) != ("assistant", "content")]
        return entry

    app.tool_entry = tool_entry


launch(patch)
