"""Protocol-level failures of the core, as JSON-RPC error fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

INVALID_PARAMS: Final[int] = -32602
INTERNAL_ERROR: Final[int] = -32603


@dataclass
class ProtocolError(Exception):
    """A request the core refuses before or instead of a tool result."""

    code: int
    message: str
    data: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message


class DeclarationError(ValueError):
    """A tool declaration that breaks a SEP-3279 rule; the server refuses to start."""

    def __init__(self, tool: str, rule: str, detail: str) -> None:
        super().__init__(f"tool {tool!r} breaks the rule '{rule}': {detail}")
        self.tool = tool
        self.rule = rule
