"""Protocol constants, written out here on purpose.

The suite judges servers, ours included, so it does not import the server's own idea of
versions, audiences or error codes from mcp_variants.protocol: a bug there must not be
able to hide itself.
"""

from __future__ import annotations

from typing import Any, Final

OUTPUTS_VERSION: Final = "2026-12-01"
LEGACY_VERSIONS: Final = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")
HANDSHAKE_VERSIONS: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
# Versions whose legacy Tool may carry outputSchema and whose result may carry structuredContent.
STRUCTURED_LEGACY_VERSIONS: Final = frozenset({"2025-06-18", "2025-11-25", "2026-07-28"})

VERSION_KEY: Final = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY: Final = "io.modelcontextprotocol/clientCapabilities"

UI: Final = "io.modelcontextprotocol/ui"
UI_CAPABILITY: Final[dict[str, Any]] = {"mimeTypes": ["text/html;profile=mcp-app"]}
UI_EXTENSIONS: Final[dict[str, Any]] = {UI: UI_CAPABILITY}

CORE_AUDIENCES: Final = ("assistant", "user", "programmatic")
# SEP-3279 "Result format": the closed core set, in a fixed order.
CORE_SELECTORS: Final[tuple[dict[str, str], ...]] = (
    {"audience": "assistant", "format": "content"},
    {"audience": "assistant", "format": "structured"},
    {"audience": "user", "format": "content"},
    {"audience": "user", "format": "structured"},
    {"audience": "programmatic", "format": "structured"},
)

INVALID_PARAMS: Final = -32602
INVALID_REQUEST: Final = -32600
UNSUPPORTED_VERSION: Final = -32022


def sel(audience: str, fmt: str) -> dict[str, str]:
    return {"audience": audience, "format": fmt}


ASSISTANT_CONTENT: Final = sel("assistant", "content")
ASSISTANT_STRUCTURED: Final = sel("assistant", "structured")
USER_CONTENT: Final = sel("user", "content")
USER_STRUCTURED: Final = sel("user", "structured")
PROGRAMMATIC_STRUCTURED: Final = sel("programmatic", "structured")
UI_STRUCTURED: Final = sel(UI, "structured")
