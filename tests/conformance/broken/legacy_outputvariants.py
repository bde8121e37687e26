"""(k) outputVariants in a legacy listing: tools/list before 2026-12-01 also carries the 2026-12-01
field, as a server that lists one shape for every version would."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _lowlevel as lowlevel
    from mcp_variants.sdk import _toolset as app

    original_entry, original_finish = app.tool_entry, lowlevel.finish

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        entry = original_entry(declaration, era, negotiated)
        if era is not Era.OUTPUTS:
            entry["outputVariants"] = original_entry(declaration, Era.OUTPUTS, negotiated)["outputVariants"]
        return entry

    def finish(ctx, method, era, result):  # type: ignore[no-untyped-def]
        if method == "tools/list":
            return original_finish(ctx, method, Era.OUTPUTS, result)  # tunnelled past the SDK, which would drop the field
        return original_finish(ctx, method, era, result)

    app.tool_entry = tool_entry
    lowlevel.finish = finish


launch(patch)
