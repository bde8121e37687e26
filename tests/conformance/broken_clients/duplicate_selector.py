"""A duplicate selector: the last selector of every selection is sent twice."""

from _launch import launch


def patch() -> None:
    from mcp_variants.client.session import ClientSession

    original = ClientSession.selection

    def selection(self, tool, outputs):  # type: ignore[no-untyped-def]
        chosen = original(self, tool, outputs)
        return chosen + chosen[-1:] if chosen else chosen

    ClientSession.selection = selection


launch(patch)
