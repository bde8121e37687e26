"""Execution modes: which outputs a host asks for, given what a tool declares.

SEP-3279 leaves the choice to the client ("from the active execution mode, available
consumers, local policy, and negotiated extensions"). A mode never asks for a variant the
tool does not declare. When the tool lacks the mode's variant, the local policy is to fall
back to assistant/content and to say so in `Selection.fallback`, never silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_EXTENSION,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    Selector,
)
from ..protocol.versions import Era
from .tools import ToolInfo


class Mode(Enum):
    CONVERSATIONAL = "conversational"  # assistant/content
    CODE = "code"  # programmatic/structured
    STRUCTURED_MODEL = "structured-model"  # assistant/structured
    USER_DISPLAY = "user-display"  # user/structured (tables) or else user/content
    APPS = "apps"  # assistant/content + io.modelcontextprotocol/ui/structured


# Each mode's candidates, best first; the first one the tool declares is chosen.
_PREFERENCES: dict[Mode, tuple[Selector, ...]] = {
    Mode.CONVERSATIONAL: (ASSISTANT_CONTENT,),
    Mode.CODE: (PROGRAMMATIC_STRUCTURED,),
    Mode.STRUCTURED_MODEL: (ASSISTANT_STRUCTURED,),
    Mode.USER_DISPLAY: (USER_STRUCTURED, USER_CONTENT),
}


_LEGACY_NOTE = (
    "this protocol version has no output selection; the legacy result is routed by local policy "
    "(content to the model, structuredContent to the program)"
)


@dataclass(frozen=True, slots=True)
class Selection:
    """The selectors a mode chose, and why it fell back when it did (None: no fallback)."""

    mode: Mode
    selectors: tuple[Selector, ...]
    fallback: str | None = None


def select(mode: Mode, tool: ToolInfo, era: Era, negotiated: frozenset[str]) -> Selection:
    """The selectors `mode` asks `tool` for at this era, with negotiated extensions."""
    if era.is_legacy:
        if mode is Mode.CONVERSATIONAL:
            return Selection(mode, (ASSISTANT_CONTENT,))
        return Selection(mode, (ASSISTANT_CONTENT,), f"{mode.value}: {_LEGACY_NOTE}")
    if mode is Mode.APPS:
        if UI_EXTENSION not in negotiated:
            return Selection(
                mode, (ASSISTANT_CONTENT,), f"apps: {UI_EXTENSION} was not negotiated; assistant/content only"
            )
        if not tool.declares(UI_STRUCTURED):
            return Selection(
                mode,
                (ASSISTANT_CONTENT,),
                f"apps: {tool.name} declares no {UI_STRUCTURED}; assistant/content only",
            )
        return Selection(mode, (ASSISTANT_CONTENT, UI_STRUCTURED))
    candidates = _PREFERENCES[mode]
    for selector in candidates:
        if tool.declares(selector):
            return Selection(mode, (selector,))
    wanted = " or ".join(map(str, candidates))
    return Selection(
        mode,
        (ASSISTANT_CONTENT,),
        f"{mode.value}: {tool.name} declares no {wanted}; fell back to assistant/content",
    )
