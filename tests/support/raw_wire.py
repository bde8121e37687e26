"""What the hostile-input and fuzz tests share: bytes sent exactly as given, and the one answer each must get.

Issue 13: every request with an id is answered exactly once, with a standard code, whatever the
bytes; a notification is never answered. The tests judge with their own small oracle
(`expected_answer`), not with the server's protocol/jsonrpc.py.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp_variants.conformance.wire import StdioProcess
from support.processes import started_by_exec

# JSON-RPC 2.0's codes and MCP's (-32020 header mismatch, -32021 missing capability, -32022 unsupported version).
STANDARD_CODES = frozenset({-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022})
ANSWER_TIMEOUT = 30.0

NO_ANSWER = object()  # a notification: nothing comes back


def is_answer(message: Any) -> bool:
    """A response (to any id, null included) or a batch's answer, as opposed to a notification."""
    return isinstance(message, list) or (isinstance(message, dict) and "method" not in message)


def expected_answer(text: bytes) -> Any:
    """What a message must get, by the test's own reading of JSON-RPC 2.0: NO_ANSWER for a notification or a
    well-formed response (a client's answer), `list` for a batch, else the id its one answer carries: the
    message's when it is a string or an integer, None otherwise."""
    if not text.strip():
        return NO_ANSWER  # a blank line is no message (stdio skips it)
    value = loads_deep(text)
    if value is _UNREADABLE:
        return None
    if isinstance(value, list):
        return list if value else None
    return expected_for_value(value)


_UNREADABLE = object()


def loads_deep(text: bytes) -> Any:
    """json.loads, for texts nested deeper than Python's recursion limit too; _UNREADABLE when it is no JSON."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _UNREADABLE
    finally:
        sys.setrecursionlimit(limit)


def expected_for_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    request_id = value.get("id")
    valid_id = isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool)
                                                and -(2**63) <= request_id < 2**64)  # the server's ids: at most 64 bits
    if "method" in value:
        structured = value.get("params") is None or isinstance(value["params"], dict | list)
        if "id" not in value and value.get("jsonrpc") == "2.0" and isinstance(value["method"], str) and structured:
            return NO_ANSWER  # a notification, valid JSON-RPC (valid MCP or not)
        return request_id if valid_id else None
    error = value.get("error")
    well_formed = value.get("jsonrpc") == "2.0" and valid_id and (
        ("result" in value) != ("error" in value)
        and (isinstance(value.get("result"), dict) if "result" in value
             else isinstance(error, dict) and isinstance(error.get("code"), int) and not isinstance(error.get("code"), bool)
             and isinstance(error.get("message"), str)))
    return NO_ANSWER if well_formed else None


def answers_after(process: StdioProcess, data: bytes, expected: int = 1, barrier_id: str | None = None,
                  timeout: float = ANSWER_TIMEOUT) -> list[Any]:
    """stdio: write `data`, then (with `barrier_id`) a ping with that id, and return the answers that came until
    `expected` answers and the barrier's had come; fails the test on a timeout or an exit."""
    if barrier_id is not None:
        data += json.dumps({"jsonrpc": "2.0", "id": barrier_id, "method": "ping"}).encode() + b"\n"

    def complete(messages: list[Any]) -> bool:
        answers = [m for m in messages if is_answer(m)]
        barrier_in = barrier_id is None or any(isinstance(m, dict) and m.get("id") == barrier_id for m in answers)
        return barrier_in and len([m for m in answers if not _is_barrier(m, barrier_id)]) >= expected

    messages, problem = process.send_raw(data, complete, timeout)
    assert problem is None, f"{problem}; sent {data[:300]!r}; got {messages!r}"[:3000]
    return [m for m in messages if is_answer(m) and not _is_barrier(m, barrier_id)]


def _is_barrier(message: Any, barrier_id: str | None) -> bool:
    return barrier_id is not None and isinstance(message, dict) and message.get("id") == barrier_id


def check_error(answer: Any, code: int | None = None, request_id: Any = ...) -> dict[str, Any]:
    """`answer` is a JSON-RPC error with a standard code (`code` when given) and `request_id` when given."""
    assert isinstance(answer, dict) and isinstance(answer.get("error"), dict), answer
    assert answer.get("jsonrpc") == "2.0", answer
    error = answer["error"]
    assert error["code"] in STANDARD_CODES and isinstance(error.get("message"), str) and error["message"], answer
    if code is not None:
        assert error["code"] == code, answer
    if request_id is not ...:
        assert answer["id"] == request_id, answer
    return error


def memory_of(pid: int) -> int:
    """The process's unique set size in bytes (what it alone holds)."""
    return int(started_by_exec(pid).memory_full_info().uss)
