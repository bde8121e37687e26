"""(o) A structured variant without its schema: user/structured is listed at 2026-12-01 without
the JSON Schema of its payload."""

from _launch import launch


def patch() -> None:
    from mcp_variants.sdk import _toolset as app

    original = app.tool_entry

    def tool_entry(declaration, era, negotiated):  # type: ignore[no-untyped-def]
        entry = original(declaration, era, negotiated)
        for variant in entry.get("outputVariants", []):
            if (variant["audience"], variant["format"]) == ("user", "structured"):
                del variant["schema"]
        return entry

    app.tool_entry = tool_entry


launch(patch)
