"""An unnegotiated ui request: the client counts its own advertisement of the Apps extension
as negotiation, whatever the server advertised."""

from _launch import launch


def patch() -> None:
    from mcp_variants.client.session import ClientSession

    original = ClientSession.open

    def open_session(self):  # type: ignore[no-untyped-def]
        capabilities = original(self)
        self.negotiated = frozenset(self.extensions)
        return capabilities

    ClientSession.open = open_session


launch(patch)
