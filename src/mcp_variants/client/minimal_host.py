"""A minimal host: a mode chooses the selectors, the session calls, the router delivers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .modes import Mode, Selection, select
from .results import CallResult
from .router import HostRouter, RouteReport
from .session import ClientSession


@dataclass(frozen=True, slots=True)
class HostCall:
    """One call as the host made it: the selection (with any fallback), the checked
    result, and what the router delivered or dropped."""

    selection: Selection
    result: CallResult
    report: RouteReport


class Host:
    """Glue, kept thin so each rule lives in one module (session, modes or router)."""

    def __init__(self, session: ClientSession, router: HostRouter) -> None:
        self.session = session
        self.router = router

    def selection(self, tool: str, mode: Mode) -> Selection:
        info = self.session.list_tools().get(tool)
        return select(mode, info, self.session.era, self.session.negotiated)

    def call(
        self, tool: str, arguments: Mapping[str, Any] | None = None, mode: Mode = Mode.CONVERSATIONAL
    ) -> HostCall:
        """Raises InvalidServerResponse (nothing routed) when the result breaks a rule."""
        selection = self.selection(tool, mode)
        result = self.session.call(tool, arguments, selection.selectors)
        return HostCall(selection, result, self.router.route(result))
