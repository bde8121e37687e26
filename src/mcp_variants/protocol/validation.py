"""Precompiled validators: every structured output against its own variant's schema."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema_rs

from .types import Selector, ToolDeclaration


class OutputValidators:
    """One compiled validator per (tool, structured selector), plus the error shape's.

    jsonschema-rs checks a 2 KB result in a few microseconds; the pure-Python
    validator takes hundreds, which would dominate the core's per-call cost.
    """

    def __init__(self, declarations: Iterable[ToolDeclaration], error_schema: dict[str, Any]) -> None:
        self._validators: dict[tuple[str, Selector], Any] = {}
        for declaration in declarations:
            self.add(declaration)
        self._error = _compile(error_schema)

    def add(self, declaration: ToolDeclaration) -> None:
        """Compile one more tool's structured variants."""
        for variant in declaration.variants:
            if variant.schema is not None:
                self._validators[(declaration.name, variant.selector)] = _compile(variant.schema)

    def problems(self, tool: str, selector: Selector, value: Any, *, is_error: bool) -> list[str]:
        """Messages for each way `value` breaks its schema; empty when it conforms."""
        validator = self._error if is_error else self._validators.get((tool, selector))
        if validator is None:
            return []
        return [f"{'/'.join(map(str, e.instance_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(value)]


def _compile(schema: dict[str, Any]) -> Any:
    return jsonschema_rs.Draft202012Validator(schema)
