"""A check that compares two calls of one tool with the same arguments, failing because the tool's result changes
from call to call: the failure says so.

should-legacy-content-from-assistant-content calls the tool at 2026-12-01 and again at 2026-07-28, and compares the
legacy content with the assistant/content output. A tool whose result changes on every call (it creates a comment and
returns its new id, counts its calls, says the time) fails that comparison whatever its legacy projection does, and the
failure named a difference alone, which read as if the server's legacy content were wrong. The failure stands: the
rule was not seen kept, and a verdict that forgave a difference would pass any server whose results differ on purpose.
What changes is that it says why the comparison could not judge, and what to pass. The earlier call is sent again, at
its own version, once: only when the part compared differs from the first answer is the failure said to be the tool's
changing result; when the repeat gives the same, the difference is across versions, and the failure stays as it was.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from .call_outcome import call_failure
from .checks import CheckError, placeholders, select, short
from .repeated_calls import Request, Resend

# The ops whose failure a result that changes between two calls can cause: equalsOther wants two answers equal.
# (notInOther, sameSelectors and validAgainst do not fail because a second answer differs from the first.)
COMPARING_OPS: Final = frozenset({"equalsOther"})
_EARLIER_STEP: Final = re.compile(r"^\$\.steps\.([A-Za-z_][A-Za-z0-9_-]*)\.")
DOCS: Final = "docs/conformance.md#a-tool-that-changes-something"


def compared_steps(check: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(step id, otherPath) for each comparing op in `check` and its nested checks whose other side is an earlier
    step's answer (`$.steps.ID.…`). A path with a forEach's variable in it is bound only while the check runs: left out."""
    for nested in check.get("checks") or []:
        yield from compared_steps(nested)
    other = check.get("otherPath")
    match = _EARLIER_STEP.match(other) if isinstance(other, str) and not placeholders(other) else None
    if check.get("op") in COMPARING_OPS and match:
        yield match.group(1), match.string


class ChangingResults:
    """The earlier calls a failed comparison names, each sent again once in a run, and whether the answer changed."""

    def __init__(self, resend: Resend) -> None:
        self._resend = resend
        self._again: dict[str, Any] = {}  # the request (as JSON) -> the answer it got when sent again

    def explain(self, check: Mapping[str, Any], call: Mapping[str, Any], earlier: Mapping[str, tuple[Request, Mapping[str, Any]]]
                ) -> dict[str, Any] | None:
        """For a failed `check` of a tools/call step with params `call`: when it compares with an earlier call of the same
        tool with the same arguments (`earlier`: step id -> what that step sent, and its `{"request", "response"}`), and
        that call, sent again, succeeds with the compared part different from its first answer:
        `{"step", "version", "first", "again"}` (the compared part, twice), else None."""
        for step_id, path in compared_steps(check):
            if step_id not in earlier:
                continue
            request, done = earlier[step_id]
            version, _, params = request
            if (params.get("name"), params.get("arguments")) != (call.get("name"), call.get("arguments")):
                continue
            key = json.dumps(request, sort_keys=True, default=str)
            if key not in self._again:
                self._again[key] = self._resend(*request)
            again = self._again[key]
            if call_failure(again) is not None:  # a repeat that fails shows nothing about the result (repeated_calls.py)
                continue
            try:
                first, second = (select(path, {"steps": {step_id: {"request": done.get("request"), "response": response}}})
                                 for response in (done.get("response"), again))
            except CheckError:
                continue
            if first != second:
                return {"step": step_id, "version": version, "first": first, "again": second}
        return None


def changed_note(tool: str, changed: Mapping[str, Any]) -> str:
    """What a failed comparison says, before its detail (which the summary may cut), when the tool's result changed."""
    again = changed["again"]
    return (f"{tool}'s result changed between two identical calls at the same version (step {changed['step']} at "
            f"{changed['version']}, sent again, answered {short(again[0] if len(again) == 1 else again, 80)}): it creates or "
            "counts something, or says the time, so comparing its calls across versions cannot judge this rule; give a "
            f"--call whose result is the same each time (a read, or arguments that find the same thing): {DOCS}")
