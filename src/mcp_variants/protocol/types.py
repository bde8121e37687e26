"""Audiences, formats, selectors, variants and outputs, as SEP-3279 defines them."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

FORMATS: Final[frozenset[str]] = frozenset({"content", "structured"})

CORE_AUDIENCES: Final[frozenset[str]] = frozenset({"assistant", "user", "programmatic"})

# The closed core set of (audience, format) pairs (SEP-3279 "Result format").
CORE_COMBINATIONS: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("assistant", "content"),
        ("assistant", "structured"),
        ("user", "content"),
        ("user", "structured"),
        ("programmatic", "structured"),
    }
)

UI_EXTENSION: Final[str] = "io.modelcontextprotocol/ui"
UI_MIME_TYPE: Final[str] = "text/html;profile=mcp-app"  # an MCP Apps view's resource, and what the capability lists


def ui_capability() -> dict[str, Any]:
    """The MCP Apps capability a server advertises and a host sends, under `extensions[UI_EXTENSION]` (a fresh dict)."""
    return {"mimeTypes": [UI_MIME_TYPE]}

# Extension audiences this server knows, with the formats each extension permits.
# The MCP Apps extension defines one audience, named after itself, structured only.
EXTENSION_AUDIENCE_FORMATS: Final[dict[str, frozenset[str]]] = {UI_EXTENSION: frozenset({"structured"})}


@dataclass(frozen=True, order=True, slots=True)
class Selector:
    """An (audience, format) pair: what a client asks for and what a variant is."""

    audience: str
    format: str

    def to_wire(self) -> dict[str, str]:
        """`{"audience": ..., "format": ...}`, as requestedOutputs and outputVariants carry it."""
        return {"audience": self.audience, "format": self.format}

    def __str__(self) -> str:
        return f"{self.audience}/{self.format}"

    @property
    def is_core(self) -> bool:
        """Whether the audience is a core one (assistant, user, programmatic), not an extension's."""
        return self.audience in CORE_AUDIENCES

    @classmethod
    def from_wire(cls, item: Any) -> Selector | None:
        """A selector from `{"audience": ..., "format": ...}` (extra keys ignored); None when it is not one."""
        if not isinstance(item, dict):
            return None
        audience, fmt = item.get("audience"), item.get("format")
        if not isinstance(audience, str) or not audience or not isinstance(fmt, str) or fmt not in FORMATS:
            return None
        return cls(audience, fmt)


class UnknownCombination(Enum):
    """Why a selector is not an audience/format combination this server knows (SEP-3279 "Result format")."""

    NOT_CORE = "not a core combination"  # a core audience with a format the closed core set does not pair it with
    UNKNOWN_EXTENSION = "no known extension defines the audience"
    FORMAT_NOT_PERMITTED = "the audience's extension does not permit the format"


def unknown_combination(selector: Selector) -> UnknownCombination | None:
    """None for a core combination or a known extension's audience in a format it permits."""
    if selector.is_core:
        return None if (selector.audience, selector.format) in CORE_COMBINATIONS else UnknownCombination.NOT_CORE
    formats = EXTENSION_AUDIENCE_FORMATS.get(selector.audience)
    if formats is None:
        return UnknownCombination.UNKNOWN_EXTENSION
    return None if selector.format in formats else UnknownCombination.FORMAT_NOT_PERMITTED


ASSISTANT_CONTENT: Final[Selector] = Selector("assistant", "content")
ASSISTANT_STRUCTURED: Final[Selector] = Selector("assistant", "structured")
USER_CONTENT: Final[Selector] = Selector("user", "content")
USER_STRUCTURED: Final[Selector] = Selector("user", "structured")
PROGRAMMATIC_STRUCTURED: Final[Selector] = Selector("programmatic", "structured")
UI_STRUCTURED: Final[Selector] = Selector(UI_EXTENSION, "structured")


@dataclass(frozen=True, slots=True)
class Variant:
    """A declared result variant: a selector and, for structured ones, its schema."""

    selector: Selector
    schema: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = self.selector.to_wire()
        if self.schema is not None:
            wire["schema"] = self.schema
        return wire


@dataclass(frozen=True, slots=True)
class ToolDeclaration:
    """One tool as declared in variants/<tool>.json."""

    name: str
    description: str
    input_schema: dict[str, Any]
    variants: tuple[Variant, ...]
    title: str | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = field(default=None)
    established: bool = False
    """The tool served older versions before it declared variants (migrated, or a framework's own): those versions
    get its established shape (SEP-3279: the server SHOULD preserve it), and at 2026-12-01 a legacy content that
    carries nothing is made usable (`usable_content`)."""
    established_output_schema: dict[str, Any] | None = None
    """An established tool's outputSchema as it listed it, kept at every older version with the structuredContent
    `ToolProjectors.established_structured` makes, whichever variant (if any) now carries it."""

    def variant(self, selector: Selector) -> Variant | None:
        """The declared variant of that selector, or None when the tool does not declare it."""
        for variant in self.variants:
            if variant.selector == selector:
                return variant
        return None

    def offered(self, negotiated_extensions: frozenset[str]) -> tuple[Variant, ...]:
        """The variants this request may see: core ones, and extension ones it negotiated."""
        return tuple(
            v for v in self.variants if v.selector.is_core or v.selector.audience in negotiated_extensions
        )


@dataclass(frozen=True, slots=True)
class Output:
    """One projected output: content blocks or a structured value, for one selector."""

    selector: Selector
    value: Any

    def to_wire(self) -> dict[str, Any]:
        key = "content" if self.selector.format == "content" else "structuredContent"
        return {"audience": self.selector.audience, "format": self.selector.format, key: self.value}
