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
    with pytest.raises(ValueError, match="lowercase words joined by hyphens"):
        ToolError("Ticket_Closed", "a plain string is checked when the ToolError is made")
