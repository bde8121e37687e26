"""A `--call` that succeeded and later failed with the same arguments: each such failure, and the summary, say so.

The suite makes a `--call` in every scenario it fits (binding.bindings_to_run), always with the arguments given, on
the same server. A call that changes what the next one finds (it closes a ticket, renews a loan) succeeds once and then
fails, and every later scenario then failed with the server's words alone ("already closed"), which read as if the
server broke SEP-3279. The failure stands: the scenario needed that call, and a verdict that forgave a tool for failing
after a first success could be fooled by one. What changes is that the suite says what happened and what to pass.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .call_outcome import call_failure

Request = tuple[str, Mapping[str, Any] | None, dict[str, Any]]  # version, extensions, tools/call params
Resend = Callable[[str, Mapping[str, Any] | None, dict[str, Any]], Any]  # sends a Request, returns the response


@dataclass
class _Calls:
    count: int = 0  # calls with the named arguments, in the order the suite made them
    first_success: int | None = None  # the number of the first that succeeded
    first_request: Request | None = None  # and what it sent
    resent: int = 0  # how many times the first request was sent again (counted in `count`)
    again: str | None = None  # how the first request failed when sent again: the tool's state changed
    failed_after: list[int] = field(default_factory=list)  # the needed calls that failed after it, the state changed


class RepeatedCalls:
    """The calls of each tool named with `--call`, with its arguments, counted in the order the suite makes them.

    A later call can fail for what it asks (other outputs, another version: a server's real bug) rather than because
    the first one changed something. So when a needed call fails after a success, the request that succeeded is sent
    again (`resend`, once per tool until it fails): only when it now fails too is the failure said to be a repeat's.
    """

    def __init__(self, named: Mapping[str, Any], resend: Resend) -> None:
        self._named = dict(named)
        self._resend = resend
        self._calls: dict[str, _Calls] = {}

    def record(self, name: Any, arguments: Any, response: Any, request: Request, *, needed: bool) -> dict[str, Any] | None:
        """Count one tools/call. When it is a `needed` call (the scenario needs it to succeed) of a named tool with its
        named arguments that failed after an earlier one succeeded, and that earlier request now fails too:
        `{"firstSucceeded": n, "call": m, "firstAgain": how it failed}`, else None."""
        if not isinstance(name, str) or name not in self._named or arguments != self._named[name]:
            return None
        calls = self._calls.setdefault(name, _Calls())
        calls.count += 1
        if call_failure(response) is None:
            if calls.first_request is None:
                calls.first_success, calls.first_request = calls.count, request
            return None
        if not needed or calls.first_request is None:
            return None
        number = calls.count
        if calls.again is None:
            calls.count += 1
            calls.resent += 1
            calls.again = call_failure(self._resend(*calls.first_request))
            if calls.again is None:  # what succeeded still does: this call failed for what it asks, not for a repeat
                return None
        calls.failed_after.append(number)
        return {"firstSucceeded": calls.first_success, "call": number, "firstAgain": calls.again}

    def report(self, name: str) -> dict[str, Any] | None:
        """The scorecard's `repeated` for a tool: its named arguments, how many calls had them (the first request's
        re-sends among them), the first that succeeded, how it failed when sent again and the needed calls that failed
        after it; None when none did."""
        calls = self._calls.get(name)
        if calls is None or not calls.failed_after:
            return None
        return {"arguments": self._named[name], "calls": calls.count, "resent": calls.resent,
                "firstSucceeded": calls.first_success, "firstAgain": calls.again, "failedAfter": list(calls.failed_after)}


def failure_note(tool: str, repeat: Mapping[str, Any]) -> str:
    """What a needed call's failure says when the same call succeeded earlier in the run and fails when sent again."""
    return (f"{tool} succeeded on its {ordinal(repeat['firstSucceeded'])} call in this run, with the same arguments, and "
            f"failed on this one, its {ordinal(repeat['call'])}; that first request, sent again, fails now too: the tool's "
            "first call changed what a repeat finds, and the suite makes a --call in every scenario it fits, so give one "
            "that succeeds every time (the summary says more)")


def summary_note(tool: str, repeated: Mapping[str, Any]) -> str:
    """The summary's words, once per tool, on a --call that failed after succeeding with the same arguments."""
    failed = repeated["failedAfter"]
    return (f"{tool} succeeded on its {ordinal(repeated['firstSucceeded'])} call and failed on {len(failed)} later "
            f"call(s) a scenario needed to succeed (the first, its {ordinal(failed[0])}), with the same arguments "
            f"{_arguments(repeated['arguments'])}; its first request, sent again, failed too ({repeated['firstAgain']}). "
            f"The suite makes a --call in every scenario it fits, always with the arguments given ({repeated['calls']} "
            f"calls here, {repeated['resent']} of them the first request sent again), so a call that changes what the "
            "next one finds (closing a ticket, renewing a loan) fails when repeated, and fails each scenario that needed "
            "it. Give a call that succeeds every time: a read-only tool, arguments a repeat does not change (an idempotent "
            "write: set a value rather than toggle it), or a server started on fixture data whose state allows repeats. "
            "An --error-call alone checks only how the tool fails, never what it returns when it succeeds")


def _arguments(arguments: Any) -> str:
    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= 120 else text[:120] + "…"


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
