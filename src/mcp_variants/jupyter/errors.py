"""The one exception a tool or a backend raises to say the call failed for a reason the caller can fix."""

from __future__ import annotations


class ToolError(Exception):
    """Becomes `isError: true` with error type `kind` and this message; never a traceback of ours."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
