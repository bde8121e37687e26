"""Run the reference client's check-client adapter with ONE client rule broken.

Each broken client is a script next to this module: it applies one monkeypatch to
mcp_variants.client and hands over to mcp_variants.conformance.reference_client, so

    mcp-variants check-client --command "python tests/conformance/broken_clients/duplicate_selector.py"

judges it exactly as it judges any client. Nothing in src/ knows about these patches.
"""

from __future__ import annotations

import sys
from collections.abc import Callable


def launch(patch: Callable[[], None]) -> None:
    patch()
    from mcp_variants.conformance.reference_client import main

    sys.exit(main())
