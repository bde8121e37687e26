"""Fixtures for the unit tests of the protocol core: the real declarations, validators and projectors."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_variants.catalog import load_declarations, load_shape
from mcp_variants.protocol.types import ToolDeclaration
from mcp_variants.protocol.validation import OutputValidators
from support.oracles import DECLARATIONS, ERROR_SCHEMA, REAL_PROJECTORS, VARIANTS


@pytest.fixture(scope="session")
def declarations() -> dict[str, ToolDeclaration]:
    """The real variants/ declarations, as the server loads them."""
    return load_declarations(VARIANTS)


@pytest.fixture(scope="session")
def error_schema() -> dict[str, Any]:
    """variants/shapes/error.json, read independently of the loader."""
    return ERROR_SCHEMA


@pytest.fixture(scope="session")
def validators(declarations: dict[str, ToolDeclaration]) -> OutputValidators:
    """The server's precompiled validators, built the way server/app.py builds them."""
    return OutputValidators(declarations.values(), load_shape(VARIANTS, "error.json"))


@pytest.fixture(scope="session")
def real_validators() -> OutputValidators:
    """Validators over the module-level DECLARATIONS that the property strategies draw from."""
    return OutputValidators(DECLARATIONS.values(), load_shape(VARIANTS, "error.json"))


@pytest.fixture(scope="session")
def real_projectors() -> dict[str, Any]:
    return REAL_PROJECTORS
