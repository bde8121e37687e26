"""(b) A substituted variant: an undeclared, unnegotiated or non-core selector gets the
assistant/content fallback instead of -32602."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.errors import ProtocolError
    from mcp_variants.protocol.types import ASSISTANT_CONTENT
    from mcp_variants.sdk import _toolset as app

    original = app.select

    def select(params, declaration, era, negotiated):  # type: ignore[no-untyped-def]
        try:
            return original(params, declaration, era, negotiated)
        except ProtocolError as exc:
            if exc.data.get("reason") in ("undeclared", "extension-not-negotiated", "not-a-core-combination"):
                return (ASSISTANT_CONTENT,)
            raise

    app.select = select


launch(patch)
