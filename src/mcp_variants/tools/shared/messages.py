"""Projectors for tools that answer with a message (and the object and list shapes beside it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...protocol.projection import ToolProjectors
from ...protocol.types import ASSISTANT_CONTENT, ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED


@dataclass(frozen=True)
class Message:
    """A short answer for the model, the Results-contract structure, and a typed record for code.

    `assistant` replaces the default `{kind, result}` where the contract gives the tool
    another shape: `{kind, sandbox: {...}}` for an object answer, `{kind, result: [...]}` for a list.
    """

    kind: str
    text: str
    record: dict[str, Any]
    assistant: dict[str, Any] | None = None


MESSAGE_PROJECTORS = ToolProjectors(
    success={
        ASSISTANT_CONTENT: lambda m: [{"type": "text", "text": m.text}],
        ASSISTANT_STRUCTURED: lambda m: m.assistant if m.assistant is not None else {"kind": m.kind, "result": m.text},
        PROGRAMMATIC_STRUCTURED: lambda m: m.record,
    }
)
