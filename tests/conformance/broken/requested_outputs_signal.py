"""(l) requestedOutputs taken as the sign of a 2026-12-01 client: a 2026-07-28 call that carries it
is answered as a 2026-12-01 call, with `outputs`."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.versions import Era
    from mcp_variants.sdk import _lowlevel as lowlevel

    original = lowlevel.request_era

    def request_era(ctx):  # type: ignore[no-untyped-def]
        if "requestedOutputs" in (ctx.params or {}):
            return Era.OUTPUTS
        return original(ctx)

    lowlevel.request_era = request_era


launch(patch)
