"""(i) A Tool without outputVariants at 2026-12-01: list_kernels is listed in the legacy
shape (outputSchema), as an SDK that does not know the version would list it."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        if era is Era.OUTPUTS and declaration.name == "list_kernels":
            return original(declaration, Era.LEGACY_ANY, negotiated)
        return original(declaration, era, negotiated)

    app.tool_entry = tool_entry


launch(patch)
