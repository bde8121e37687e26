"""(g) No fixed fallback: without requestedOutputs, a 2026-12-01 call returns every core
variant the tool declares instead of assistant/content alone."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _toolset as app

    original = app.select

    def select(params, declaration, era, negotiated):  # type: ignore[no-untyped-def]
        if era is Era.OUTPUTS and "requestedOutputs" not in params:
            return tuple(v.selector for v in declaration.variants if v.selector.is_core)
        return original(params, declaration, era, negotiated)

    app.select = select


launch(patch)
