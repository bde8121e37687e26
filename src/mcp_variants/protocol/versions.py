"""Protocol versions and the result era each one selects.

The requested protocol version, not the presence of a field, decides the shape of
a Tool and of a CallToolResult (SEP-3279 "Backward compatibility").
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Final

OUTPUTS_VERSION: Final[str] = "2026-12-01"
VERSION_KEY: Final[str] = "io.modelcontextprotocol/protocolVersion"  # the stateless versions' `_meta` envelope key
UNSUPPORTED_PROTOCOL_VERSION: Final[int] = -32022
COMPLETE: Final[str] = "complete"  # the stateless versions' `resultType` of a result that is the whole answer
HEADER_MISMATCH: Final[int] = -32020  # an MCP-Protocol-Version or Mcp-Name header that disagrees with the body

# Oldest to newest: the order of -32022's `supported` list and of server/discover.
SUPPORTED_VERSIONS: Final[tuple[str, ...]] = (
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    OUTPUTS_VERSION,
)
HANDSHAKE_VERSIONS: Final[frozenset[str]] = frozenset(SUPPORTED_VERSIONS[:4])
STATELESS_VERSIONS: Final[frozenset[str]] = frozenset(SUPPORTED_VERSIONS[4:])


class Era(Enum):
    """How tools are listed and results shaped for a protocol version."""

    CONTENT_ONLY = "content-only"  # 2024-11-05, 2025-03-26: no outputSchema, no structuredContent
    LEGACY_OBJECT = "legacy-object"  # 2025-06-18, 2025-11-25: outputSchema with an object root
    LEGACY_ANY = "legacy-any"  # 2026-07-28: outputSchema may be any JSON Schema 2020-12
    OUTPUTS = "outputs"  # 2026-12-01: outputVariants, requestedOutputs, outputs

    @property
    def is_legacy(self) -> bool:
        return self is not Era.OUTPUTS


_ERAS: Final[dict[str, Era]] = {
    "2024-11-05": Era.CONTENT_ONLY,
    "2025-03-26": Era.CONTENT_ONLY,
    "2025-06-18": Era.LEGACY_OBJECT,
    "2025-11-25": Era.LEGACY_OBJECT,
    "2026-07-28": Era.LEGACY_ANY,
    OUTPUTS_VERSION: Era.OUTPUTS,
}


def era_for(version: str) -> Era:
    """The era of a supported version; KeyError for one we do not serve."""
    return _ERAS[version]


def name_every_version(error: dict[str, Any]) -> None:
    """A -32022 error names every version this server serves (handshake and stateless ones), in place: a client
    that asked for one we do not serve learns what to ask for instead."""
    if error.get("code") == UNSUPPORTED_PROTOCOL_VERSION:
        data = error.get("data")
        error["data"] = {**(data if isinstance(data, dict) else {}), "supported": list(SUPPORTED_VERSIONS)}


def complete(result: dict[str, Any], version: str) -> dict[str, Any]:
    """`result` as the protocol version frames it, in place: at the stateless versions it says `resultType: "complete"`
    (unless it says otherwise: a CreateTaskResult says "task"); at a handshake version it has no such key."""
    if version in STATELESS_VERSIONS:
        result.setdefault("resultType", COMPLETE)
    return result
