"""What a run collects from the server, for the renderers: round trips, listings, measurements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_variants.conformance.wire import RoundTrip


@dataclass
class ApiExample:
    """The one call an API page shows: every declared variant at once."""

    tool: str
    setup: str  # what the state is before the call, for the page
    trip: RoundTrip | None = None  # None: the server does not list the tool


@dataclass
class Row:
    """One measured response, counted."""

    label: str
    response_bytes: int
    text_chars: int = 0
    images: int = 0
    image_chars: int = 0
    structured_chars: int = 0
    note: str = ""


@dataclass
class Measurement:
    """One measured call, asked for in every way a client can ask."""

    slug: str
    title: str
    tool: str
    arguments: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)  # selector -> output (from the all-variants call)
    fallback_identical: bool = False
    is_error: bool = False


@dataclass
class ViewCost:
    """What an MCP App view needs of a result, against what a whole result would send it (bytes)."""

    title: str
    output_bytes: int
    reduced: int
    whole: int
    assistant: int


@dataclass
class ErrorOutput:
    """One audience's output of a failed call."""

    title: str
    selector: str
    type: str  # error.type, or "(content)"
    error_keys: list[str]
    beside: list[str]  # the other keys of a structured output, described
    bytes: int


@dataclass
class Collected:
    examples: dict[str, RoundTrip] = field(default_factory=dict)  # docs/examples/<name>.md
    http_url: str = ""
    http: RoundTrip | None = None
    listing_ui: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool -> tools/list entry
    listing_plain: dict[str, dict[str, Any]] = field(default_factory=dict)
    listing_legacy: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)  # version -> tool -> entry
    api: dict[str, ApiExample] = field(default_factory=dict)
    measurements: list[Measurement] = field(default_factory=list)
    errors: list[ErrorOutput] = field(default_factory=list)
    view: list[ViewCost] = field(default_factory=list)
    selection_bytes: int = 0
    token_in_response: int = -1
    listing_bytes: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
