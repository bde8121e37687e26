"""Start our server with ONE behaviour broken, for the suite to catch.

Each broken variant is a script next to this module: it imports the real server, applies
one monkeypatch, and hands its command line to the real CLI, so it serves stdio or HTTP
exactly as `mcp-variants serve` does:

    python tests/conformance/broken/mirror.py serve --root /tmp/x [--http --port 8123]

Nothing in src/ knows about these patches.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def launch(patch: Callable[[], None]) -> None:
    patch()
    from mcp_variants.server.cli import main

    main(sys.argv[1:])
