"""The core's face (protocol/__init__.py, in h11's style): the names another SDK's author needs, one tool call
through them as its docstring shows, and every name of `__all__` the module's own (the same object)."""

from __future__ import annotations

import mcp_variants.protocol as protocol
from mcp_variants.protocol import (
    OUTPUTS_VERSION,
    ErrorKind,
    Outcome,
    OutputValidators,
    Selector,
    ToolError,
    ToolProjectors,
    build_result,
    era_for,
    parse_declaration,
    select,
    tool_entry,
)
from mcp_variants.protocol.projection import build_result as build_result_in_its_module
from mcp_variants.sdk._toolset import default_error_schema

RAW = {"name": "add", "inputSchema": {"type": "object"},
       "outputVariants": [{"audience": "assistant", "format": "content"},
                          {"audience": "programmatic", "format": "structured",
                           "schema": {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}}]}
ASSISTANT, PROGRAMMATIC = Selector("assistant", "content"), Selector("programmatic", "structured")
PROJECTORS = ToolProjectors(success={ASSISTANT: lambda v: f"sum {v}", PROGRAMMATIC: lambda v: {"sum": v}})


def test_the_face_has_all_and_every_name_is_there() -> None:
    assert 15 <= len(protocol.__all__) <= 20
    assert all(hasattr(protocol, name) for name in protocol.__all__)
    assert build_result is build_result_in_its_module, "the modules' own imports keep working"


def test_one_call_through_the_face() -> None:
    declaration = parse_declaration(RAW)
    era = era_for(OUTPUTS_VERSION)
    entry = tool_entry(declaration, era, frozenset())
    assert [v["audience"] for v in entry["outputVariants"]] == ["assistant", "programmatic"]
    params = {"name": "add", "requestedOutputs": [{"audience": "programmatic", "format": "structured"}]}
    selectors = select(params, declaration, era, frozenset())
    assert selectors == (PROGRAMMATIC,)
    validators = OutputValidators([declaration], default_error_schema())
    built = build_result(declaration, selectors, era, Outcome(3), PROJECTORS, validators)
    assert built.result["outputs"] == [{"audience": "programmatic", "format": "structured", "structuredContent": {"sum": 3}}]
    failed = build_result(declaration, (ASSISTANT,), era, Outcome(failure=ToolError(ErrorKind.INVALID_ARGUMENTS, "no")),
                          PROJECTORS, validators)
    assert failed.result["isError"] is True


def test_a_servers_own_kinds_are_checked_when_the_class_is_made() -> None:
    import pytest

    from mcp_variants.sdk import ToolErrorKind

    class TicketError(ToolErrorKind):
        CLOSED = "ticket-closed"

    assert ToolError(TicketError.CLOSED, "closed").kind == "ticket-closed"
    with pytest.raises(ValueError, match="BAD: a kind of failure is lowercase words joined by hyphens"):
        class Misspelt(ToolErrorKind):
            BAD = "Ticket_Closed"
    malformed = ToolError("Ticket_Closed", "the message is kept")  # a plain string is checked when the ToolError is made
    assert (malformed.kind, malformed.message, malformed.malformed_kind) == ("tool-error", "the message is kept", "Ticket_Closed")
    assert malformed.reworded("in other words").malformed_kind == "Ticket_Closed"  # for the server's log


def test_one_argument_is_the_message_of_a_tool_error_as_the_sdks_and_fastmcps_toolerror_are_raised() -> None:
    import dataclasses
    import pickle

    import pytest

    alone = ToolError("not-found")  # one argument is always the message, even one that reads like a kind
    assert (alone.kind, alone.message, str(alone)) == (ErrorKind.TOOL_ERROR, "not-found", "not-found")
    typed = ToolError(ErrorKind.NOT_FOUND, "No ticket 42.", details={"ticket": 42}, partial=[1])
    assert (typed.kind, typed.message, typed.details, typed.partial) == ("not-found", "No ticket 42.", {"ticket": 42}, [1])
    assert ToolError(kind="conflict", message="changed", details={"at": 1}).kind == "conflict"
    assert ToolError(message="in words").kind == "tool-error"
    reworded = dataclasses.replace(typed, message="Error executing tool t: No ticket 42.")  # as a migrated tool words it
    assert (reworded.kind, reworded.message, reworded.details, reworded.partial) == ("not-found", str(reworded), {"ticket": 42}, [1])
    copied = pickle.loads(pickle.dumps(typed))
    assert (copied.kind, copied.message, copied.details) == (typed.kind, typed.message, typed.details)
    assert ToolError(ErrorKind.INTERNAL, "the index is corrupt").kind == "internal"  # a tool may say it failed inside
    with pytest.raises(TypeError, match="needs its message"):
        ToolError()  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="ToolError.message., ToolError.kind, message."):
        ToolError("a", "b", "c")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="ToolError.message., ToolError.kind, message."):
        ToolError("message", kind="not-found")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="details cannot replace"):
        ToolError("m", details={"type": "x"})


def test_a_toolerror_given_its_kind_second_reads_it_as_the_kind() -> None:
    swapped = ToolError("No ticket 42.", ErrorKind.NOT_FOUND)
    assert (swapped.kind, swapped.message) == (ErrorKind.NOT_FOUND, "No ticket 42.")
    plain = ToolError("gone", "No ticket 42.")  # two strings: the kind, then the message
    assert (plain.kind, plain.message) == ("gone", "No ticket 42.")
    strings = ToolError("No ticket 42.", "not-found")  # only the second is a kind: it is the kind
    assert (strings.kind, strings.message) == ("not-found", "No ticket 42.")
    both = ToolError("gone", "not-found")  # both could be kinds: the kind, then the message
    assert (both.kind, both.message) == ("gone", "not-found")
