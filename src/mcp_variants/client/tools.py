"""The client's view of tools/list: what each tool advertised, and its compiled schemas.

The listing is checked as a whole (SEP-3279 "Backward compatibility"): at 2026-12-01 a
Tool without `outputVariants` makes the response invalid, and the client never falls back
to the legacy shape. Each structured variant's schema is compiled once (jsonschema-rs)
and kept under (tool, selector), so an output is only ever checked against the schema of
the variant that was asked for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from ..protocol.types import (
    ASSISTANT_CONTENT,
    CORE_AUDIENCES,
    CORE_COMBINATIONS,
    EXTENSION_AUDIENCE_FORMATS,
    FORMATS,
    Selector,
    Variant,
)
from ..protocol.versions import Era
from .errors import InvalidServerResponse, SelectionError


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """One listed tool. `variants` at 2026-12-01; `output_schema` at legacy versions."""

    name: str
    variants: tuple[Variant, ...] = ()
    output_schema: dict[str, Any] | None = None
    raw: Mapping[str, Any] | None = None

    @property
    def selectors(self) -> tuple[Selector, ...]:
        return tuple(v.selector for v in self.variants)

    def declares(self, selector: Selector) -> bool:
        return selector in self.selectors


class ToolIndex:
    """Listed tools by name, with one precompiled validator per (tool, selector).

    The legacy `outputSchema` is kept under selector None: it maps only to the legacy
    `structuredContent` and never stands in for a variant's schema.
    """

    def __init__(self, tools: Iterable[ToolInfo]) -> None:
        self.tools: dict[str, ToolInfo] = {t.name: t for t in tools}
        self._validators: dict[tuple[str, Selector | None], Any] = {}
        for tool in self.tools.values():
            for variant in tool.variants:
                if variant.schema is not None:
                    self._validators[(tool.name, variant.selector)] = _compile(variant.schema)
            if tool.output_schema is not None:
                self._validators[(tool.name, None)] = _compile(tool.output_schema)

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def get(self, name: str) -> ToolInfo:
        try:
            return self.tools[name]
        except KeyError:
            raise SelectionError(
                f"tool {name!r} was not listed by the server; listed: {sorted(self.tools)}"
            ) from None

    def has_schema(self, tool: str, selector: Selector | None) -> bool:
        return (tool, selector) in self._validators

    def problems(self, tool: str, selector: Selector | None, value: Any) -> list[str]:
        """How `value` breaks the schema of (tool, selector); empty if it conforms or has none."""
        validator = self._validators.get((tool, selector))
        if validator is None:
            return []
        return [
            f"{'/'.join(map(str, e.instance_path)) or '<root>'}: {e.message}"
            for e in validator.iter_errors(value)
        ]


def _compile(schema: dict[str, Any]) -> Any:
    return jsonschema_rs.Draft202012Validator(schema)


def parse_listing(tools: Any, era: Era, negotiated: frozenset[str]) -> ToolIndex:
    """Check every listed tool for `era`; raise InvalidServerResponse naming each problem."""
    if not isinstance(tools, list):
        raise InvalidServerResponse(["tools/list result has no `tools` array"], tools)
    problems: list[str] = []
    parsed: list[ToolInfo] = []
    names: set[str] = set()
    for raw in tools:
        name = raw.get("name") if isinstance(raw, dict) else None
        if not isinstance(name, str) or not name:
            problems.append(f"a listed tool has no name: {str(raw)[:200]}")
            continue
        if name in names:
            problems.append(f"tool {name!r} is listed twice")
        names.add(name)
        tool_problems: list[str] = []
        info = (
            _outputs_tool(name, raw, negotiated, tool_problems)
            if not era.is_legacy
            else _legacy_tool(name, raw, era, tool_problems)
        )
        problems += tool_problems
        if not tool_problems:
            parsed.append(info)
    if problems:
        raise InvalidServerResponse(problems, tools)
    return ToolIndex(parsed)


def _outputs_tool(
    name: str, raw: Mapping[str, Any], negotiated: frozenset[str], problems: list[str]
) -> ToolInfo:
    declared = raw.get("outputVariants")
    if not isinstance(declared, list):
        problems.append(
            f"tool {name!r} has no outputVariants array at 2026-12-01; the response is invalid "
            "(the client does not switch to legacy semantics; call again at an older version to use them)"
        )
        return ToolInfo(name, raw=raw)
    variants: list[Variant] = []
    for item in declared:
        variant = _variant(name, item, negotiated, problems)
        if variant is None:
            continue
        if any(v.selector == variant.selector for v in variants):
            problems.append(f"tool {name!r} declares {variant.selector} twice")
            continue
        variants.append(variant)
    if ASSISTANT_CONTENT not in {v.selector for v in variants}:
        problems.append(f"tool {name!r} does not declare assistant/content, which every tool must")
    return ToolInfo(name, tuple(variants), raw=raw)


def _variant(tool: str, item: Any, negotiated: frozenset[str], problems: list[str]) -> Variant | None:
    if (
        not isinstance(item, dict)
        or not isinstance(item.get("audience"), str)
        or item.get("format") not in FORMATS
    ):
        problems.append(f"tool {tool!r} has a malformed variant: {str(item)[:200]}")
        return None
    selector = Selector(item["audience"], item["format"])
    if selector.audience in CORE_AUDIENCES:
        if (selector.audience, selector.format) not in CORE_COMBINATIONS:
            problems.append(f"tool {tool!r} declares {selector}, which is not a core combination")
            return None
    elif selector.audience not in negotiated:
        problems.append(
            f"tool {tool!r} lists the extension audience {selector} that this request did not negotiate"
        )
        return None
    elif selector.format not in EXTENSION_AUDIENCE_FORMATS.get(selector.audience, FORMATS):
        problems.append(f"tool {tool!r} declares {selector}, a format its extension does not permit")
        return None
    schema = item.get("schema") if selector.format == "structured" else None
    if schema is not None and not _compiles(tool, str(selector), schema, problems):
        return None
    return Variant(selector, schema)


def _legacy_tool(name: str, raw: Mapping[str, Any], era: Era, problems: list[str]) -> ToolInfo:
    """Legacy shape: `outputSchema` (2025-06-18 and later) only; `outputVariants` is no signal."""
    schema = raw.get("outputSchema") if era is not Era.CONTENT_ONLY else None
    if schema is not None and not _compiles(name, "outputSchema", schema, problems):
        return ToolInfo(name, raw=raw)
    return ToolInfo(name, output_schema=schema, raw=raw)


def _compiles(tool: str, where: str, schema: Any, problems: list[str]) -> bool:
    if not isinstance(schema, dict):
        problems.append(f"tool {tool!r}: the schema of {where} is not an object")
        return False
    try:
        _compile(schema)
    except (jsonschema_rs.ValidationError, ValueError) as exc:
        problems.append(
            f"tool {tool!r}: the schema of {where} is not valid JSON Schema: {str(exc).splitlines()[0]}"
        )
        return False
    return True
