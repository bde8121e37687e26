"""requestedOutputs at 2026-07-28 and earlier: the client sends its selection whatever the version."""

import json

from _launch import launch


def patch() -> None:
    from mcp_variants.client.session import ClientSession

    original = ClientSession.selection

    def selection(self, tool, outputs):  # type: ignore[no-untyped-def]
        if self.era.is_legacy and outputs:
            self.list_tools()
            return tuple(outputs)
        return original(self, tool, outputs)

    ClientSession.selection = selection
    ClientSession._encode = lambda self, message: json.dumps(message, separators=(",", ":")).encode()


launch(patch)
