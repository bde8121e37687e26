"""Turn a request's `requestedOutputs` into selectors, before the tool runs.

Every refusal is JSON-RPC -32602 whose `data` names the offending selector, says
why in a stable `reason`, and lists the variants this request may ask for.
Nothing is ever substituted.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Final

from .errors import INVALID_PARAMS, ProtocolError
from .types import ASSISTANT_CONTENT, CORE_AUDIENCES, Selector, ToolDeclaration, UnknownCombination, unknown_combination
from .versions import Era

# Stable machine-readable reasons, documented in docs/choices.md.
REASON_VERSION: Final = "requestedOutputs-not-in-this-version"
REASON_MALFORMED: Final = "malformed"
REASON_EMPTY: Final = "empty"
REASON_NOT_CORE: Final = "not-a-core-combination"
REASON_NOT_NEGOTIATED: Final = "extension-not-negotiated"
REASON_FORMAT_NOT_PERMITTED: Final = "format-not-permitted-by-extension"
REASON_DUPLICATE: Final = "duplicate"
REASON_UNDECLARED: Final = "undeclared"

_MISSING: Final = object()
_NO_SELECTOR: Final = object()


def misspelt_audience(selector: Selector) -> str | None:
    """"no audience programatic (did you mean programmatic/structured?)" for a selector whose audience reads as a
    misspelt core one (`programatic`, `Assistant`); None for any other. An audience with a "/" or a "." is an
    extension's identifier (io.modelcontextprotocol/ui), never a misspelt core audience, whatever it resembles."""
    if "/" in selector.audience or "." in selector.audience:
        return None
    close = difflib.get_close_matches(selector.audience, CORE_AUDIENCES, n=1, cutoff=0.75)
    return f"no audience {selector.audience} (did you mean {close[0]}/{selector.format}?)" if close else None


def select(
    params: Mapping[str, Any],
    declaration: ToolDeclaration,
    era: Era,
    negotiated_extensions: frozenset[str],
) -> tuple[Selector, ...]:
    """The selectors to produce for this call, in request order.

    `params` are the raw tools/call params; absence of `requestedOutputs` means
    the fixed assistant/content fallback.
    """
    requested = params.get("requestedOutputs", _MISSING)

    def refuse(reason: str, message: str, selector: Any = _NO_SELECTOR) -> ProtocolError:
        offered = [v.selector.to_wire() for v in declaration.offered(negotiated_extensions)]  # only when refusing: most calls are not
        data: dict[str, Any] = {"reason": reason, "tool": declaration.name, "offered": offered}
        if selector is not _NO_SELECTOR:
            data["selector"] = selector
        return ProtocolError(INVALID_PARAMS, message, data)

    if era.is_legacy:
        # A client MUST NOT send it there: refused, so the mistake shows; but an established tool keeps what it did
        # before it declared variants (SEP-3279: SHOULD preserve), and its server ignored the unknown field.
        if requested is not _MISSING and not declaration.established:
            raise refuse(REASON_VERSION, "requestedOutputs is only defined from protocol version 2026-12-01")
        return (ASSISTANT_CONTENT,)
    if requested is _MISSING:
        return (ASSISTANT_CONTENT,)
    if not isinstance(requested, list):
        raise refuse(REASON_MALFORMED, "requestedOutputs must be an array of selectors", requested)
    if not requested:
        raise refuse(REASON_EMPTY, "requestedOutputs must not be empty; omit it for assistant/content")

    selectors: list[Selector] = []
    for item in requested:
        selector = Selector.from_wire(item)
        if selector is None:
            raise refuse(REASON_MALFORMED, "a selector is an object with string audience and format", item)
        unknown = unknown_combination(selector)
        if unknown is UnknownCombination.NOT_CORE:
            raise refuse(REASON_NOT_CORE, f"{selector} is not a core audience/format combination", item)
        if not selector.is_core and (selector.audience not in negotiated_extensions or unknown is UnknownCombination.UNKNOWN_EXTENSION):
            misspelt = misspelt_audience(selector)
            raise refuse(REASON_NOT_NEGOTIATED, f"{selector}: {misspelt}" if misspelt
                         else f"{selector} needs an extension this request did not negotiate", item)
        if unknown is UnknownCombination.FORMAT_NOT_PERMITTED:
            raise refuse(REASON_FORMAT_NOT_PERMITTED,
                         f"the {selector.audience} extension does not permit the {selector.format} format", item)
        if selector in selectors:
            raise refuse(REASON_DUPLICATE, f"{selector} is requested more than once", item)
        if declaration.variant(selector) is None:
            raise refuse(REASON_UNDECLARED, f"tool {declaration.name!r} does not declare {selector}", item)
        selectors.append(selector)
    return tuple(selectors)

