"""(f) A wrong error code: every refused selector is -32600 (invalid request) instead of
-32602 (invalid params)."""

from _launch import launch


def patch() -> None:
    from mcp_variants.protocol.errors import ProtocolError
    from mcp_variants.sdk import _toolset as app

    original = app.select

    def select(params, declaration, era, negotiated):  # type: ignore[no-untyped-def]
        try:
            return original(params, declaration, era, negotiated)
        except ProtocolError as exc:
            raise ProtocolError(-32600, exc.message, exc.data) from None

    app.select = select


launch(patch)
