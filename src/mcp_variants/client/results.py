"""Check a tools/call result against what was asked, before anything of it is used.

At 2026-12-01 the server MUST return exactly one output per requested selector and
nothing else, each structured success valid against its own variant's schema. A result
that breaks any of this raises InvalidServerResponse listing every problem: a host then
routes none of it, rather than a guessed part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..protocol.types import FORMATS, Output, Selector
from .errors import InvalidServerResponse, SelectionError
from .tools import ToolIndex

# What `call(..., outputs=[...])` takes for each requested output: the three ways one is written.
SelectorLike = Selector | str | Mapping[str, Any]


def as_selector(item: SelectorLike) -> Selector:
    """A `Selector`, `"audience/format"` (the audience may hold a slash) or the wire's `{"audience", "format"}`."""
    if isinstance(item, Selector):
        return item
    if isinstance(item, str):
        audience, _, fmt = item.rpartition("/")
        if audience and fmt in FORMATS:
            return Selector(audience, fmt)
    elif isinstance(item, Mapping) and (selector := Selector.from_wire(dict(item))) is not None:
        return selector
    raise SelectionError(
        f"an output is asked for as 'audience/format' (e.g. 'programmatic/structured'), "
        f'{{"audience": ..., "format": ...}} or a Selector, not {item!r}'
    )


@dataclass(frozen=True, slots=True)
class CallResult:
    """A checked tools/call result.

    `outputs` holds exactly the requested outputs (2026-12-01); `content` and
    `structured_content` hold the legacy pair. `meta` is kept for the host's own
    bookkeeping and is never routed. `raw` is the wire result, for audit.
    """

    tool: str
    version: str
    legacy: bool
    requested: tuple[Selector, ...]
    is_error: bool
    raw: Mapping[str, Any]
    outputs: tuple[Output, ...] = ()
    content: tuple[Any, ...] | None = None
    structured_content: Any = None
    has_structured_content: bool = False
    notes: tuple[str, ...] = ()

    @property
    def meta(self) -> Mapping[str, Any] | None:
        return self.raw.get("_meta")

    def output(self, selector: SelectorLike) -> Output:
        """The output for a selector, written as `call` takes one (`"programmatic/structured"`, ...)."""
        selector = as_selector(selector)
        for output in self.outputs:
            if output.selector == selector:
                return output
        raise KeyError(str(selector))


def wire_selector(item: Any) -> Selector | None:
    """The selector of a wire output, or None when it is malformed."""
    if isinstance(item, dict) and isinstance(item.get("audience"), str) and item.get("format") in FORMATS:
        return Selector(item["audience"], item["format"])
    return None


def wire_payload(item: Mapping[str, Any], selector: Selector) -> tuple[bool, Any]:
    """(present, value) of a wire output's payload: `content` blocks or `structuredContent`."""
    if selector.format == "content":
        blocks = item.get("content")
        return isinstance(blocks, list), blocks
    return "structuredContent" in item, item.get("structuredContent")


def _common(result: Any) -> tuple[list[str], bool]:
    if not isinstance(result, dict):
        raise InvalidServerResponse(["tools/call result is not an object"], result)
    problems: list[str] = []
    if result.get("resultType", "complete") != "complete":
        problems.append(f"resultType {result.get('resultType')!r} is not supported by this client")
    is_error = result.get("isError", False)
    if not isinstance(is_error, bool):
        problems.append("isError is not a boolean")
    return problems, is_error is True


def check_outputs(
    tool: str, version: str, requested: Sequence[Selector], result: Any, index: ToolIndex
) -> CallResult:
    """The 2026-12-01 rules: one output per requested selector, nothing else, each valid."""
    problems, is_error = _common(result)
    for legacy_field in ("content", "structuredContent"):
        if legacy_field in result:
            problems.append(f"a 2026-12-01 result carries the legacy field {legacy_field!r}")
    items = result.get("outputs")
    if not isinstance(items, list):
        raise InvalidServerResponse([*problems, "a 2026-12-01 result has no `outputs` array"], result)
    wanted = set(requested)
    outputs: list[Output] = []
    for item in items:
        selector = wire_selector(item)
        if selector is None:
            problems.append(f"malformed output: {str(item)[:200]}")
            continue
        if selector not in wanted:
            problems.append(f"unrequested output {selector}")
            continue
        if any(o.selector == selector for o in outputs):
            problems.append(f"more than one output for {selector}")
            continue
        present, value = wire_payload(item, selector)
        if not present:
            key = "content array" if selector.format == "content" else "structuredContent"
            problems.append(f"output {selector} has no {key}")
            continue
        if selector.format == "structured" and not is_error:
            # Only this variant's schema; error outputs need not match the success schema.
            problems += [
                f"{selector} breaks its variant schema at {p}" for p in index.problems(tool, selector, value)
            ]
        outputs.append(Output(selector, value))
    answered = {o.selector for o in outputs}
    problems += [f"no output for requested {s}" for s in requested if s not in answered]
    if problems:
        raise InvalidServerResponse(problems, result)
    return CallResult(tool, version, False, tuple(requested), is_error, result, outputs=tuple(outputs))


def check_legacy(tool: str, version: str, result: Any, index: ToolIndex) -> CallResult:
    """Legacy rules: `content` required; `structuredContent` valid against `outputSchema`."""
    problems, is_error = _common(result)
    content = result.get("content")
    if not isinstance(content, list):
        problems.append("a legacy result has no `content` array")
    has_structured = "structuredContent" in result
    structured = result.get("structuredContent")
    if has_structured and not is_error:
        problems += [
            f"structuredContent breaks outputSchema at {p}" for p in index.problems(tool, None, structured)
        ]
    if problems:
        raise InvalidServerResponse(problems, result)
    notes = (
        ("`outputs` in a legacy result is ignored: it is no negotiation signal",)
        if "outputs" in result
        else ()
    )
    return CallResult(
        tool,
        version,
        True,
        (),
        is_error,
        result,
        content=tuple(content or ()),
        structured_content=structured,
        has_structured_content=has_structured,
        notes=notes,
    )
