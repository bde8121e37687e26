"""Modes choose selectors from what a tool declares; a missing variant is an explicit fallback."""

from __future__ import annotations

import itertools

import pytest

from mcp_variants.client import Mode, select
from mcp_variants.client.tools import ToolInfo
from mcp_variants.protocol.types import (
    ASSISTANT_CONTENT,
    ASSISTANT_STRUCTURED,
    PROGRAMMATIC_STRUCTURED,
    UI_EXTENSION,
    UI_STRUCTURED,
    USER_CONTENT,
    USER_STRUCTURED,
    Selector,
    Variant,
)
from mcp_variants.protocol.versions import Era

OPTIONAL = (ASSISTANT_STRUCTURED, PROGRAMMATIC_STRUCTURED, USER_CONTENT, USER_STRUCTURED, UI_STRUCTURED)
UI_ONLY = frozenset({UI_EXTENSION})
WANTED = {
    Mode.CONVERSATIONAL: (ASSISTANT_CONTENT,),
    Mode.CODE: (PROGRAMMATIC_STRUCTURED,),
    Mode.STRUCTURED_MODEL: (ASSISTANT_STRUCTURED,),
}


def tool(*selectors: Selector) -> ToolInfo:
    return ToolInfo("t", tuple(Variant(s) for s in (ASSISTANT_CONTENT, *selectors)))


def test_each_mode_on_a_tool_declaring_everything() -> None:
    full = tool(*OPTIONAL)
    picks = {mode: select(mode, full, Era.OUTPUTS, UI_ONLY) for mode in Mode}
    assert {m: s.selectors for m, s in picks.items()} == {
        Mode.CONVERSATIONAL: (ASSISTANT_CONTENT,),
        Mode.CODE: (PROGRAMMATIC_STRUCTURED,),
        Mode.STRUCTURED_MODEL: (ASSISTANT_STRUCTURED,),
        Mode.USER_DISPLAY: (USER_STRUCTURED,),  # structured preferred: host-native tables
        Mode.APPS: (ASSISTANT_CONTENT, UI_STRUCTURED),
    }
    assert all(s.fallback is None for s in picks.values())


def test_user_display_takes_whichever_user_variant_is_declared() -> None:
    assert select(Mode.USER_DISPLAY, tool(USER_CONTENT), Era.OUTPUTS, UI_ONLY).selectors == (USER_CONTENT,)
    assert select(Mode.USER_DISPLAY, tool(USER_STRUCTURED), Era.OUTPUTS, UI_ONLY).selectors == (
        USER_STRUCTURED,
    )


def test_apps_needs_both_the_variant_and_the_negotiation() -> None:
    no_ext = select(Mode.APPS, tool(UI_STRUCTURED), Era.OUTPUTS, frozenset())
    assert no_ext.selectors == (ASSISTANT_CONTENT,) and "not negotiated" in (no_ext.fallback or "")
    no_variant = select(Mode.APPS, tool(), Era.OUTPUTS, UI_ONLY)
    assert no_variant.selectors == (ASSISTANT_CONTENT,) and "declares no" in (no_variant.fallback or "")


@pytest.mark.parametrize(
    "declared",
    [c for n in range(len(OPTIONAL) + 1) for c in itertools.combinations(OPTIONAL, n)],
    ids=lambda c: "+".join(map(str, c)) or "only-assistant-content",
)
def test_never_an_undeclared_variant_and_never_a_silent_fallback(declared: tuple[Selector, ...]) -> None:
    info = tool(*declared)
    for mode in Mode:
        for negotiated in (frozenset(), UI_ONLY):
            chosen = select(mode, info, Era.OUTPUTS, negotiated)
            assert all(info.declares(s) for s in chosen.selectors)
            assert len(set(chosen.selectors)) == len(chosen.selectors)
            own = {
                *WANTED.get(mode, ()),
                *((USER_CONTENT, USER_STRUCTURED) if mode is Mode.USER_DISPLAY else ()),
            }
            got_own = UI_STRUCTURED in chosen.selectors if mode is Mode.APPS else bool(own & set(chosen.selectors))
            assert (chosen.fallback is None) == got_own, (mode, declared, chosen)
            if chosen.fallback is not None:
                assert ASSISTANT_CONTENT in chosen.selectors and mode.value in chosen.fallback


@pytest.mark.parametrize("era", [Era.CONTENT_ONLY, Era.LEGACY_OBJECT, Era.LEGACY_ANY])
def test_legacy_eras_select_nothing_beyond_the_fallback_and_say_so(era: Era) -> None:
    for mode in Mode:
        chosen = select(mode, ToolInfo("t"), era, UI_ONLY)
        assert chosen.selectors == (ASSISTANT_CONTENT,)
        assert (chosen.fallback is None) == (mode is Mode.CONVERSATIONAL)
