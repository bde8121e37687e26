"""Failures: a request the core refuses (a JSON-RPC error), a tool that ran and failed (a result
with isError), a declaration that breaks a rule (no start)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
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


class ErrorKind(StrEnum):
    """Why a tool failed: `error.type` of its structured error outputs (variants/shapes/error.json).

    The values are on the wire; a client may branch on them, so they are never renamed.
    """

    INVALID_ARGUMENTS = "invalid-arguments"
    NOT_FOUND = "not-found"
    NO_NOTEBOOK = "no-notebook"  # a notebook tool was called without a notebook, and the client has no default
    PATH_OUTSIDE_ROOT = "path-outside-root"
    INVALID_NOTEBOOK = "invalid-notebook"
    EXECUTION_ERROR = "execution-error"
    TIMEOUT = "timeout"
    KERNEL_DIED = "kernel-died"
    UNREACHABLE = "unreachable"  # a Jupyter server that does not answer
    UNAUTHORIZED = "unauthorized"  # a Jupyter server that refuses the token
    CONFLICT = "conflict"  # a notebook changed on the Jupyter server after an edit read it: nothing written
    TOOL_ERROR = "tool-error"  # a failure a tool reports in its own words (the SDK's ToolError, on the public server API)
    INVALID_OUTPUT = "invalid-output"  # the tool ran, but a requested output broke its declared schema: not delivered
    INTERNAL = "internal"  # a bug of ours


@dataclass(eq=False)
class ToolError(Exception):
    """A tool that ran and failed: raised by a tool or a runtime, or returned in an Outcome; answered
    with isError and this kind and message, never as a protocol error and never as a traceback of ours."""

    kind: ErrorKind
    message: str
    details: dict[str, Any] = field(default_factory=dict)  # more keys of the error object: ename, evalue, traceback
    partial: Any = None  # what the tool produced before failing, for its own error projectors

    def __str__(self) -> str:
        return self.message


class DeclarationError(ValueError):
    """A tool declaration that breaks a SEP-3279 rule; the server refuses to start."""

    def __init__(self, tool: str, rule: str, detail: str) -> None:
        super().__init__(f"tool {tool!r} breaks the rule '{rule}': {detail}")
        self.tool = tool
        self.rule = rule
