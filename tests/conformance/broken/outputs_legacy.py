"""(c) `outputs` under 2026-07-28: the legacy result also carries the 2026-12-01 field."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _lowlevel as lowlevel

    original = lowlevel.finish

    def finish(ctx, method, era, result):  # type: ignore[no-untyped-def]
        if method == "tools/call" and era is Era.LEGACY_ANY and "content" in result:
            result = {**result, "outputs": [{"audience": "assistant", "format": "content", "content": result["content"]}]}
            return original(ctx, method, Era.OUTPUTS, result)  # tunnelled past the SDK, which would drop it
        return original(ctx, method, era, result)

    lowlevel.finish = finish


launch(patch)
