"""Types (selectors, variants, outputs) and the precompiled validators."""

from __future__ import annotations

import pytest

from mcp_variants.catalog import load_shape
from mcp_variants.protocol.errors import ProtocolError
from mcp_variants.protocol.types import (
    ASSISTANT_CONTENT,
    CORE_COMBINATIONS,
    PROGRAMMATIC_STRUCTURED,
    UI_STRUCTURED,
    Output,
    Selector,
    Variant,
)
from mcp_variants.protocol.validation import OutputValidators
from mcp_variants.sdk._toolset import default_error_schema
from support.oracles import CORE, ERROR_SCHEMA, UI, VARIANTS


def test_core_combinations_are_the_seps_five() -> None:
    assert set(CORE_COMBINATIONS) == CORE
    assert ("programmatic", "content") not in CORE_COMBINATIONS


def test_selector_basics() -> None:
    assert str(ASSISTANT_CONTENT) == "assistant/content"
    assert ASSISTANT_CONTENT.to_wire() == {"audience": "assistant", "format": "content"}
    assert Selector("assistant", "content") == ASSISTANT_CONTENT
    assert hash(ASSISTANT_CONTENT) == hash(Selector("assistant", "content"))
    assert ASSISTANT_CONTENT.is_core and PROGRAMMATIC_STRUCTURED.is_core
    assert not UI_STRUCTURED.is_core and UI_STRUCTURED.audience == UI
    assert not Selector("Assistant", "content").is_core


def test_variant_and_output_wire() -> None:
    assert Variant(ASSISTANT_CONTENT).to_wire() == {"audience": "assistant", "format": "content"}
    assert Variant(PROGRAMMATIC_STRUCTURED, {"type": "object"}).to_wire() == {
        "audience": "programmatic", "format": "structured", "schema": {"type": "object"},
    }
    assert Output(ASSISTANT_CONTENT, [{"type": "text", "text": "x"}]).to_wire() == {
        "audience": "assistant", "format": "content", "content": [{"type": "text", "text": "x"}],
    }
    assert Output(UI_STRUCTURED, None).to_wire() == {"audience": UI, "format": "structured", "structuredContent": None}


def test_protocol_error_str_is_its_message() -> None:
    error = ProtocolError(-32602, "bad", {"reason": "empty"})
    assert str(error) == "bad" and error.data == {"reason": "empty"}
    assert ProtocolError(-32603, "x").data == {}


def test_loaded_error_shape_is_the_file(error_schema) -> None:
    assert load_shape(VARIANTS, "error.json") == error_schema
    assert default_error_schema() == error_schema  # the SDK's, without the catalog


def test_validators_use_each_variants_schema_and_the_error_shape(declarations, validators: OutputValidators) -> None:
    ok = {"kernels": []}
    assert validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, ok, is_error=False) == []
    problems = validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, {"kernels": [], "extra": 1}, is_error=False)
    assert problems and all(isinstance(p, str) for p in problems)
    # the error flag switches to the one error shape
    assert validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, {"error": {"type": "t", "message": "m"}}, is_error=True) == []
    assert validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, ok, is_error=True) != []
    assert validators.problems("list_files", UI_STRUCTURED, {"error": {"type": "t"}}, is_error=True) != []


@pytest.mark.parametrize("value", [None, 1, "x", [], {"error": {"type": 1, "message": "m"}}, {"error": "boom"}])
def test_error_shape_refuses_malformed_errors(value, validators: OutputValidators) -> None:
    assert validators.problems("execute_code", PROGRAMMATIC_STRUCTURED, value, is_error=True)


def test_problem_messages_name_the_path(validators: OutputValidators) -> None:
    problems = validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, {"kernels": [{"id": 1}]}, is_error=False)
    assert any(p.startswith("kernels/0") for p in problems), problems
    assert any(p.startswith("<root>") for p in validators.problems("list_kernels", PROGRAMMATIC_STRUCTURED, 3, is_error=False))


def test_validators_cover_every_structured_variant(declarations) -> None:
    validators = OutputValidators(declarations.values(), ERROR_SCHEMA)
    for declaration in declarations.values():
        for variant in declaration.variants:
            if variant.selector.format == "structured":
                # a bare string is valid nowhere in these schemas: each variant has its validator
                assert validators.problems(declaration.name, variant.selector, "not an object", is_error=False), (
                    declaration.name, str(variant.selector),
                )
