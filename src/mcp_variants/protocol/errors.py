"""Failures: a request the core refuses (a JSON-RPC error), a tool that ran and failed (a result
with isError), a declaration that breaks a rule (no start)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, overload

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


def unknown_tool(name: str, available: Iterable[str]) -> ProtocolError:
    """A call of a tool the server does not have: -32602 with the names it has (docs/reference/errors.md)."""
    return ProtocolError(INVALID_PARAMS, f"Unknown tool: {name}", {"tool": name, "available": sorted(available)})


KIND: Final = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
RESERVED_DETAILS: Final = frozenset({"type", "message"})


class ToolErrorKind(StrEnum):
    """The base of a server's own kinds of failure, checked when the class is made (at import, not when one is raised):

        class TicketError(ToolErrorKind):
            CLOSED = "ticket-closed"     # "Ticket_Closed" would fail the import: lowercase words joined by hyphens

    `ErrorKind` (every server's kinds) and the Jupyter tools' `JupyterErrorKind` are such classes. A `ToolError`
    also takes a plain string, checked when it is made.
    """

    def __init__(self, value: str) -> None:
        if not KIND.fullmatch(value):
            raise ValueError(f"{type(self).__name__}.{self.name}: a kind of failure is lowercase words joined by hyphens "
                             f"(not-found, ticket-closed), not {value!r}")


class ErrorKind(ToolErrorKind):
    """Why a tool failed, in the kinds any server has: `error.type` of its structured error outputs
    (variants/shapes/error.json).

    A `ToolError`'s kind is any string: these, or a server's own (a `ToolErrorKind` of its own, as the Jupyter
    tools' `JupyterErrorKind`, or a plain string), written as lowercase words joined by hyphens. The values are on
    the wire; a client may branch on them, so they are never renamed.
    """

    INVALID_ARGUMENTS = "invalid-arguments"  # the arguments break the tool's inputSchema, or the tool refuses them
    NOT_FOUND = "not-found"  # what the call names does not exist
    TIMEOUT = "timeout"  # the work did not finish in the time allowed
    UNREACHABLE = "unreachable"  # a service the tool needs does not answer
    UNAUTHORIZED = "unauthorized"  # a service the tool needs refuses its credentials
    CONFLICT = "conflict"  # what the call would change changed since it was read: nothing written
    TOOL_ERROR = "tool-error"  # a failure a tool reports in its own words, with no kind (the SDK's or FastMCP's ToolError)
    INVALID_OUTPUT = "invalid-output"  # the tool ran, but a requested output broke its declared schema: not delivered
    INTERNAL = "internal"  # failed inside the server: an exception no tool meant (a bug), or a tool that says so


@dataclass(eq=False, init=False)
class ToolError(Exception):
    """A tool that ran and failed: raised by a tool or a runtime, or returned in an Outcome; answered
    with isError and this kind and message, never as a protocol error and never as a traceback of ours.

    `ToolError("No ticket 42.")`: one argument is always the message, of the kind `tool-error`, as the SDK's and
    FastMCP's `ToolError` are raised (so `ToolError("not-found")` is the message "not-found", not a kind).
    `ToolError(ErrorKind.NOT_FOUND, "No ticket 42.")`: two are the kind, then the message; a `ToolErrorKind` given
    second (`ToolError("No ticket 42.", ErrorKind.NOT_FOUND)`, the order of other libraries' errors), or a kind's
    string second where the first is no kind (`ToolError("No ticket 42.", "not-found")`), is the kind still.

    `kind`: an `ErrorKind`, or a server's own kind (a `ToolErrorKind` of its own, or any string of lowercase words
    joined by hyphens); it is `error.type` on the wire. A kind that breaks that rule (`ToolError("Not Found!",
    "No ticket 42.")`) does not lose the message: the failure is a `tool-error`, the given kind is kept in
    `malformed_kind`, and the server that answers the call logs it as an error naming the rule. Every `ErrorKind`
    may be raised, `internal` too (the tool says it failed inside the server). `message`: what the model and the
    person read, the text of every content error output and `error.message`. `details`: more keys of the structured error
    object, beside `type` and `message` (which they cannot replace), each a JSON value: `ename`, `evalue` and
    `traceback` (strings, a list of strings) are the error shape's own; any other key is the tool's, and every
    audience that asked for a structured output receives it, so it holds nothing one of them must not see.
    `partial`: what the tool produced before failing, for its own error projectors.
    """

    kind: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)
    partial: Any = None

    @overload
    def __init__(self, message: str, /, *, details: Mapping[str, Any] | None = None, partial: Any = None) -> None: ...

    @overload
    def __init__(self, kind: str, message: str, /, *, details: Mapping[str, Any] | None = None,
                 partial: Any = None) -> None: ...

    @overload
    def __init__(self, *, kind: str = ErrorKind.TOOL_ERROR, message: str, details: Mapping[str, Any] | None = None,
                 partial: Any = None) -> None: ...

    def __init__(self, *given: str, kind: str | None = None, message: str | None = None,
                 details: Mapping[str, Any] | None = None, partial: Any = None) -> None:
        if len(given) > 2 or (given and (kind is not None or message is not None)):
            raise TypeError("a ToolError is ToolError(message), ToolError(kind, message), or ToolError(kind=..., message=...)")
        if len(given) == 1:
            message = given[0]
        elif len(given) == 2:
            kind, message = given
            if isinstance(message, ToolErrorKind) and not isinstance(kind, ToolErrorKind) or (
                    isinstance(kind, str) and isinstance(message, str) and not KIND.fullmatch(kind) and KIND.fullmatch(message)):
                # ToolError("No ticket 42.", "not-found"), other libraries' order: only one of the two is a kind
                kind, message = message, kind
        if message is None:
            raise TypeError("a ToolError needs its message: the text the model and the person read")
        self.kind = ErrorKind.TOOL_ERROR if kind is None else kind
        self.message = message
        self.details = dict(details or {})
        self.partial = partial
        if not isinstance(self.message, str):
            raise TypeError(f"a ToolError's message is the text the model and the person read, a str, not {self.message!r}")
        # A kind the rule refuses (ToolError("Not Found!", "No ticket 42.")) is no reason to lose the message, on the
        # path where the tool is already failing: the failure is a tool-error, and the server log names the kind given.
        self.malformed_kind: object | None = None
        if not isinstance(self.kind, str) or not KIND.fullmatch(self.kind):
            self.malformed_kind, self.kind = self.kind, ErrorKind.TOOL_ERROR
        if RESERVED_DETAILS & self.details.keys():
            raise ValueError(f"a ToolError's details cannot replace {sorted(RESERVED_DETAILS & self.details.keys())}: "
                             "give the kind and the message as such")
        super().__init__(self.message)  # `args`, as the SDK's ToolError has them: what a pickled copy is made from

    def __str__(self) -> str:
        return self.message

    def reworded(self, message: str) -> ToolError:
        """The same failure in other words (a migrated tool's, as its framework worded it): its kind, details and
        partial, and a malformed kind it was given, kept."""
        copy = dataclasses.replace(self, message=message)
        copy.malformed_kind = self.malformed_kind
        return copy


class DeclarationError(ValueError):
    """A tool declaration that breaks a SEP-3279 rule; the server refuses to start."""

    def __init__(self, tool: str | None, rule: str, detail: str) -> None:
        """`tool`: None for a variant written before its tool is known (`variant(...)`)."""
        super().__init__(f"{'a variant' if tool is None else f'tool {tool!r}'} breaks the rule '{rule}': {detail}")
        self.tool = tool
        self.rule = rule
